"""The helpers the benchmarks run, outside attnlib: benchmarks/round_trip.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import ipywidgets

from attnlib import widgets

ROUND_TRIP = Path(__file__).resolve().parents[1] / "benchmarks" / "round_trip.py"


def _round_trip_module():
    spec = importlib.util.spec_from_file_location("round_trip", ROUND_TRIP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kernel_round_trip_moves_the_view_only_through_the_kernel():
    explorer = widgets.QueryExplorer()
    _round_trip_module().kernel_round_trip(explorer)
    assert not any(isinstance(link, ipywidgets.Widget) for link in explorer._links)
    explorer.query.value = 3
    assert explorer.frontend.query == 3
