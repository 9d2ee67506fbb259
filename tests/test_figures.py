"""The notebooks' diagrams are the project's own drawings: each script redraws its SVGs exactly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
SCRIPTS = sorted(TOOLS.glob("figures_nb*.py"))
LOCKED = {
    line.split("==")[0]: line.split("==")[1].strip()
    for line in (ROOT / "requirements-lock.txt").read_text().splitlines()
    if "==" in line
}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_each_figure_script_redraws_the_committed_svgs_byte_for_byte(script, tmp_path, monkeypatch):
    if matplotlib.__version__ != LOCKED["matplotlib"]:
        # Another matplotlib writes other bytes (the forks' workflow on other Pythons).
        pytest.skip(f"SVG bytes are pinned to matplotlib {LOCKED['matplotlib']}")
    # In this process, where torch and matplotlib are loaded already, rather than in a fresh
    # one: from the rc file's settings, as a fresh process starts, and put back afterwards.
    monkeypatch.syspath_prepend(str(TOOLS))  # the scripts import figure_files from beside them
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    with matplotlib.rc_context():
        matplotlib.rc_file_defaults()
        spec.loader.exec_module(module)
        assert module.main([str(tmp_path)]) == 0
    drawn = sorted(tmp_path.glob("*.svg"))
    assert drawn, f"{script.name} drew nothing"
    for svg in drawn:
        committed = ROOT / "notebooks" / "figures" / svg.name
        assert committed.read_bytes() == svg.read_bytes(), f"{svg.name}: run {script.name}"


def test_every_committed_figure_is_drawn_by_a_script_and_shown_in_a_notebook():
    sources = "".join(s.read_text() for s in SCRIPTS)
    notebooks = "".join(p.read_text() for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for svg in (ROOT / "notebooks" / "figures").glob("*.svg"):
        assert svg.name in sources, f"{svg.name} has no script in tools/"
        assert f"figures/{svg.name}" in notebooks, f"{svg.name} is not shown by any notebook"
