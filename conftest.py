"""Keep Jupyter, IPython and matplotlib state of every test run inside the repo; share the
tests between pytest-xdist's workers.

Loaded by pytest for tests/ and notebooks/ alike, before any kernel starts.
"""

import atexit
import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

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

# The reader's progress record (attnlib/progress.py) of a test run: a fresh temporary folder,
# never the developer's own, and a fresh one for each notebook nbval runs (below), so that
# every notebook's progress cell shows the empty record it was saved with.
_PROGRESS = Path(tempfile.mkdtemp(prefix="attnlib-progress-"))
atexit.register(shutil.rmtree, _PROGRESS, True)
os.environ["ATTNLIB_PROGRESS_DIR"] = str(_PROGRESS / "session")
_notebooks_run: set[str] = set()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before nbval's file node starts the notebook's kernel, which inherits this environment.
    parent = item.parent
    if parent is not None and parent.nodeid.endswith(".ipynb"):
        if parent.nodeid not in _notebooks_run:
            _notebooks_run.add(parent.nodeid)
            folder = _PROGRESS / f"notebook-{len(_notebooks_run)}"
            os.environ["ATTNLIB_PROGRESS_DIR"] = str(folder)
    else:  # the session's record, also after a notebook (notebook 10 runs early: LONG_FIRST)
        os.environ["ATTNLIB_PROGRESS_DIR"] = str(_PROGRESS / "session")


if "PYTEST_XDIST_WORKER" in os.environ and sys.platform == "linux":
    # A worker ends with the pytest that started it, even when that one is killed outright
    # (an interrupted `make test`); its servers and kernels end with it (tools/lifetime.py).
    sys.path.insert(0, str(Path(__file__).parent / "tools"))
    from lifetime import die_with_parent

    die_with_parent()
    sys.path.pop(0)


# Under `--dist loadfile` (make test), a file's tests run together on one worker: nbval runs
# a notebook's cells in order in one kernel, and the browser tests share servers within a
# file. The tests of these files stand alone and are long together (a kernel or a hypothesis
# search each): they go to whichever worker is free, one by one.
SPREAD = {"test_exercises.py", "test_any_argument.py", "test_notebooks.py", "test_figures.py"}
# Tests spread the same way though their file's other tests stay together: the site's pages
# (a built site shared by the workers, tests/browser/test_static_site.py, 5-20 s a page; the
# last two in check-all).
SPREAD_TESTS = {
    f"tests/browser/test_static_site.py::{test}"
    for test in (
        "test_a_site_page_works_from_files",
        "test_axe_at_the_other_looks_of_a_site_page",
        "test_every_control_on_a_site_page",
    )
}
# Files one worker takes together, in order. The browser files that start a JupyterLab or a
# Voila server (session fixtures, one per worker) start each server once, not twice. The
# gradebook's files run sandboxes one worker at a time (tests/sandbox_turn.py): on three
# workers they held two of them waiting for the lock (50 s of 24 s of tests, measured).
TOGETHER = {
    **{
        f"tests/browser/{name}.py": "the browser files with servers"
        for name in ("test_cards", "test_explorers_a11y", "test_lab", "test_messages", "test_voila")
    },
    **{
        f"tests/{name}.py": "the gradebook's sandboxed files"
        for name in ("test_grading", "test_grading_sandbox", "test_honest_grades")
    },
}


# Under `--dist loadfile` a worker takes the next file in collection order when it is nearly
# done: a long file collected last keeps one worker busy while the others idle (notebook 10,
# 24 s, ran last and alone: 17 s after the other workers had finished). These long ones are
# handed out first, in this order; the rest keep theirs.
LONG_FIRST = (
    "tests/browser/",
    "tests/test_grading",
    "tests/test_honest_grades.py",
    "notebooks/10_attention_that_learns.ipynb",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The order that counts is a worker's: the controller hands out the files in the order
    # its workers collected them. pytest-xdist sets a worker's own `dist` to "no".
    if not hasattr(config, "workerinput") and config.getoption("dist", None) != "loadfile":
        return

    def rank(item: pytest.Item) -> int:
        where = item.nodeid
        return next(
            (i for i, long in enumerate(LONG_FIRST) if where.startswith(long)), len(LONG_FIRST)
        )

    items.sort(key=rank)  # stable: a file's tests and a notebook's cells stay in order


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, unknown without it
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadfile":
        return None  # pytest-xdist's own scheduler for that mode
    from xdist.scheduler import LoadFileScheduling

    class FilesButSpread(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            if file in TOGETHER:
                return TOGETHER[file]
            if Path(file).name in SPREAD or nodeid.split("[", 1)[0] in SPREAD_TESTS:
                return nodeid
            return file

    return FilesButSpread(config, log)


# The workers' shared files of one run (the built site, tests/browser/test_static_site.py) are
# named by xdist's test run id: chosen here, so that the process that starts the workers knows
# it and removes them when the run ends.
_SHARED = Path(__file__).parent / ".cache" / "browser"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not hasattr(config.option, "testrunuid"):
        return
    if config.option.testrunuid is None:
        config.option.testrunuid = uuid.uuid4().hex


def pytest_unconfigure(config: pytest.Config) -> None:
    run = getattr(config.option, "testrunuid", None)
    if run and not hasattr(config, "workerinput"):
        shutil.rmtree(_SHARED / f"site-{run}", ignore_errors=True)
