"""Set-up shared by every test module: figures draw off screen and die with their test.

The Agg backend is chosen here, before any test module imports pyplot, so that no
test opens a window or needs a display; a figure a test leaves registered with
pyplot is closed when the test ends, so none leaks into the next one.
"""

from __future__ import annotations

import sys

import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    # Only where a test loaded pyplot: the other tests stay free of it.
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
