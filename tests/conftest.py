"""Set-up shared by every test module: figures draw off screen and die with their test.

The Agg backend is chosen here, before any test module imports pyplot, so that no
test opens a window or needs a display; a figure a test leaves registered with
pyplot is closed when the test ends, so none leaks into the next one. Under
pytest-xdist each worker computes with one torch thread.
"""

from __future__ import annotations

import os
import sys

import matplotlib
import pytest
from sandbox_turn import SANDBOX_TURN

matplotlib.use("Agg")

if "PYTEST_XDIST_WORKER" in os.environ:
    # Three workers on two cores: more threads than cores makes torch wait on itself. Set
    # before any test module imports torch; the kernels nbval and the tests start inherit it.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


@pytest.fixture
def sandbox_turn():
    """Held while a test runs sandboxes or counts their processes (sandbox_turn.py)."""
    with SANDBOX_TURN:
        yield


@pytest.fixture(autouse=True)
def _first_tries():
    # A prediction's first wrong answer may be told less than the next one
    # (attnlib/exercises/_tries.py): every test starts with no try counted, as a fresh kernel.
    tries = sys.modules.get("attnlib.exercises._tries")
    if tries is not None:
        tries.forget()
    yield


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    # Only where a test loaded pyplot: the other tests stay free of it.
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
