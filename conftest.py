"""Keep Jupyter, IPython and matplotlib state of every test run inside the repo.

Loaded by pytest for tests/ and notebooks/ alike, before any kernel starts.
"""

import os
from pathlib import Path

_STATE = Path(__file__).parent / ".cache" / "test-home"
for var, sub in {
    "JUPYTER_CONFIG_DIR": "jupyter-config",
    "JUPYTER_DATA_DIR": "jupyter-data",
    "JUPYTER_RUNTIME_DIR": "jupyter-runtime",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    # JupyterLab asks npm for its global prefix at start; npm logs into its cache folder.
    "npm_config_cache": "npm",
}.items():
    os.environ.setdefault(var, str(_STATE / sub))
    Path(os.environ[var]).mkdir(parents=True, exist_ok=True)
