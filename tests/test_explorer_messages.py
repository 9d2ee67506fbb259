"""A message sits next to the control that caused it: each control an explorer's view follows
(and the sentence box) has a line of its own right under it, in one box with it, and a value
that control is refused is said there, nowhere else (issue 30, "say where")."""

from __future__ import annotations

import ipywidgets as widgets
import pytest
import torch

from attnlib.widgets import (
    AttentionExplorer,
    LoopStepper,
    QueryExplorer,
    SoftmaxAxisExplorer,
    TrainingExplorer,
)


def _training() -> TrainingExplorer:
    even = torch.tril(torch.ones(4, 4))
    snapshots = (even / even.sum(-1, keepdim=True)).expand(2, 1, 2, 4, 4).clone()
    return TrainingExplorer(snapshots, ["a", "b", "c", "d"], [0, 10])


# Each kind, and the names of the controls that must have a line of their own (typed here).
KINDS = {
    "query": (QueryExplorer, ["query"]),
    "softmax": (SoftmaxAxisExplorer, ["dim"]),
    "loop": (LoopStepper, ["step"]),
    "attention": (
        lambda: AttentionExplorer(num_heads=2),
        ["sentence", "query", "dim", "causal", "temperature", "dropout", "head"],
    ),
    "training": (_training, ["snapshot", "head", "query"]),
}


def _boxes(widget: widgets.Widget) -> list[widgets.Box]:
    """Every box in the tree under ``widget``, itself included."""
    if not isinstance(widget, widgets.Box):
        return []
    return [widget, *(b for child in widget.children for b in _boxes(child))]


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_control_has_its_message_line_right_under_it(kind: str) -> None:
    make, names = KINDS[kind]
    explorer = make()
    pairs = {
        box.children[0].model_id: box.children[1]
        for box in _boxes(explorer.widget)
        if "attnlib-with-status" in box._dom_classes
    }
    for name in names:
        line = explorer.status_of(name)
        assert line is not explorer.status, f"{kind}.{name}: said under the drawing"
        # The control first, its line second, in one box: under it whatever the width.
        assert pairs.get(getattr(explorer, name).model_id) is line, f"{kind}.{name}"
        assert f"attnlib-status-{name}" in line._dom_classes
    assert len(pairs) == len(names), f"{kind}: lines for {len(pairs)} controls"
    assert explorer.messages == ""


def _widen(control: widgets.Widget, value: int) -> None:
    """Only code can do this (a reader's slider stops at its end): set past the view's end."""
    control.max = value + 1
    control.value = value


REFUSED = [
    ("query", QueryExplorer, "query", 9),
    ("loop", LoopStepper, "step", 40),
    ("attention", AttentionExplorer, "query", 30),
    ("training", _training, "query", 7),
]


@pytest.mark.parametrize(("kind", "make", "name", "value"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_refused_value_is_said_under_its_own_control_only(kind, make, name, value) -> None:
    explorer = make()
    before = getattr(explorer, name).value
    _widen(getattr(explorer, name), value)
    assert getattr(explorer, name).value == before
    said = explorer.status_of(name).value
    assert f"{name}:" in said and "attnlib-error" in said, said
    assert f"(kept {before!r}, not {value!r})" in said, said
    assert explorer.messages == said, "said in another place too"


def test_the_sentence_and_the_temperature_say_their_own_messages_at_once() -> None:
    explorer = AttentionExplorer()
    explorer.sentence.value = "x" * 21
    explorer.temperature.min = 0.0
    explorer.temperature.value = 0.0
    sentence, temperature = (explorer.status_of(n).value for n in ("sentence", "temperature"))
    assert "sentence:" in sentence and "temperature" not in sentence
    assert "temperature:" in temperature and "sentence" not in temperature
    assert explorer.status.value == ""
