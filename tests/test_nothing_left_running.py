"""A run killed from outside (SIGTERM, or SIGKILL, which it cannot catch) leaves nothing
running: the kernels of `make notebooks` (nbclient), the JupyterLab of `make lab`'s test, and
the JupyterLab, kernel and Chromium of a benchmark each end with the run that started them
(tools/lifetime.py). Each test starts its own runner, kills it and looks at what it had
started. The nbclient runner is quick, in `make test`; the others start JupyterLab, in
`make check-all`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from course import ROOT
from process_tree import command, descendants, left_after, wait_for

LINUX_ONLY = "the parent-death signal is Linux's"
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason=LINUX_ONLY)
SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}

# `make notebooks` in miniature: run_notebooks.run on a notebook whose cell sleeps.
NOTEBOOK_RUNNER = """
import sys
from pathlib import Path
sys.path.insert(0, {tools!r})
import nbformat
import run_notebooks
cell = "import os, time\\nPath = __import__('pathlib').Path\\n" \\
    "Path('kernel.pid').write_text(str(os.getpid()))\\ntime.sleep(120)"
nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)]), "sleeps.ipynb")
run_notebooks.run(Path("sleeps.ipynb"))
"""


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    # Its own session: whatever happens, this test's signals reach only what it started.
    return subprocess.Popen(
        args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


def _started(runner: subprocess.Popen, word: str) -> bool:
    assert runner.poll() is None, f"the runner exited early ({runner.returncode})"
    return any(word in command(p) for p in descendants(runner.pid))


@pytest.mark.parametrize(
    "sig", ["SIGKILL", pytest.param("SIGTERM", marks=pytest.mark.check_all)]
)  # one in make test, about 8 s
def test_a_killed_notebook_run_leaves_no_kernel(sig: str, tmp_path: Path) -> None:
    code = NOTEBOOK_RUNNER.format(tools=str(ROOT / "tools"))
    runner = _start([sys.executable, "-c", code], tmp_path)
    try:
        wait_for((tmp_path / "kernel.pid").exists, 60, "the kernel started")
        kernel = int((tmp_path / "kernel.pid").read_text())
        assert kernel in descendants(runner.pid)
        assert left_after(runner, SIGNALS[sig]) == []
    finally:
        runner.kill()


@pytest.mark.check_all
@pytest.mark.parametrize("sig", SIGNALS)
def test_a_killed_test_run_of_make_lab_leaves_no_jupyterlab(sig: str) -> None:
    test = str(ROOT / "tests" / "test_make_lab.py")
    runner = _start([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", test], ROOT)
    try:
        wait_for(lambda: _started(runner, "jupyter-lab"), 90, "JupyterLab started")
        assert left_after(runner, SIGNALS[sig]) == []
    finally:
        runner.kill()


@pytest.mark.check_all
@pytest.mark.parametrize("sig", SIGNALS)
def test_a_killed_benchmark_leaves_no_jupyterlab_kernel_or_browser(sig: str) -> None:
    from browser.gate import browser_gate

    gate = browser_gate(os.environ)
    if gate.chromium is None:
        if gate.must_fail:
            pytest.fail(gate.reason, pytrace=False)
        pytest.skip(gate.reason)
    bench = str(ROOT / "benchmarks" / "widget_latency.py")
    runner = _start([sys.executable, bench, "--presses", "1"], ROOT)
    try:
        # Its JupyterLab has started a kernel and Chromium runs: the whole tree is there.
        wait_for(lambda: _started(runner, "ipykernel"), 180, "the benchmark's kernel started")
        wait_for(lambda: _started(runner, "chrom"), 60, "the benchmark's browser started")
        assert left_after(runner, SIGNALS[sig]) == []
    finally:
        runner.kill()


@pytest.mark.check_all
@pytest.mark.parametrize("sig", SIGNALS)
def test_an_interrupted_make_test_leaves_nothing(sig: str) -> None:
    """`make test` (only its JupyterLab file, through PYTEST_ADDOPTS) killed while JupyterLab,
    a kernel and Chromium run: make, pytest, its workers and all they started end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PYTEST_ADDOPTS"] = "tests/browser/test_lab.py"
    runner = subprocess.Popen(
        ["make", "--no-print-directory", "test"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(lambda: _started(runner, "ipykernel"), 240, "make test's kernel started")
        wait_for(lambda: _started(runner, "chrom"), 120, "make test's browser started")
        assert left_after(runner, SIGNALS[sig]) == []
    finally:
        runner.kill()
