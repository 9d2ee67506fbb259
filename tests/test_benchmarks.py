"""The helpers the benchmarks run, outside attnlib: benchmarks/round_trip.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import ipywidgets

from attnlib import _validate as validate
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


LATENCY = Path(__file__).resolve().parents[1] / "benchmarks" / "widget_latency.py"


def _latency_module():
    spec = importlib.util.spec_from_file_location("widget_latency", LATENCY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_latency_benchmark_times_every_explorer_at_its_largest():
    """The benchmark's notebook, run here without a browser: its full-size explorers are
    every kind at the largest size allowed, and every control they have is timed (but Play,
    on a timer, and the drop-downs, whose keys are the platform's: the heads and dropout)."""
    latency = _latency_module()
    namespace = {"display": lambda *shown: None}
    for source in latency.CELLS[:-1]:  # the last cell displays them
        exec(source, namespace)
    made = namespace["full_size"]()
    kinds = {explorer._css_class.removeprefix("attnlib-") for explorer in made}
    assert kinds == set(latency.FULL_KINDS)
    assert all(len(explorer.tokens) == validate.MAX_TOKENS for explorer in made)
    (attention,) = [e for e in made if isinstance(e, widgets.AttentionExplorer)]
    assert attention.projections.W_query.shape[0] == validate.MAX_HEADS
    assert attention.module.d_out == validate.MAX_D
    (training,) = [e for e in made if isinstance(e, widgets.TrainingExplorer)]
    assert len(training.head.options) == validate.MAX_HEADS
    (query,) = [e for e in made if isinstance(e, widgets.QueryExplorer)]
    assert query.inputs.shape[1] == validate.MAX_D
    timed = {(c.kind, c.name) for c in latency.FULL_CONTROLS}
    untimed = {("loop-stepper", "play"), ("attention-explorer", "sentence")}
    untimed |= {("training-explorer", "head"), ("training-explorer", "play")}
    untimed |= {("attention-explorer", "head"), ("attention-explorer", "dropout")}
    for explorer in made:
        kind = explorer._css_class.removeprefix("attnlib-")
        for control in explorer._controls:
            assert (kind, control.name) in timed | untimed, f"{kind}.{control.name} is not timed"


def test_the_latency_benchmarks_floor_is_a_slider_and_a_number_of_no_explorer():
    """The floor the benchmark times beside the explorers: an ipywidgets slider linked in the
    browser to an anywidget that writes its value, and nothing of attnlib's."""
    latency = _latency_module()
    namespace = {"display": lambda *shown: None}
    for source in latency.CELLS[:-1]:
        exec(source, namespace)
    live = ipywidgets.widgets.widget._instances  # every widget alive, by id
    before = set(live)
    box = namespace["floor"]()
    slider, shown = box.children
    assert isinstance(slider, ipywidgets.IntSlider)
    assert "attnlib-control-value" in slider._dom_classes
    assert not [c for c in type(shown).__mro__ if c.__module__.startswith("attnlib")]
    # The slider reaches the number in the browser only (jsdlink), as an explorer's controls
    # reach its drawing.
    links = [
        w
        for key, w in live.items()
        if key not in before and isinstance(w, ipywidgets.widgets.widget_link.DirectionalLink)
    ]
    assert [(link.source, link.target) for link in links] == [((slider, "value"), (shown, "value"))]
    assert 'className = "bench-floor-view"' in shown._esm
    assert latency.FLOOR_CONTROL.view == ".bench-floor-view"
    assert "for explorer in [floor()]" in latency.CELLS[-1]
