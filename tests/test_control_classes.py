"""Every explorer control carries the CSS class ``attnlib-control-<attribute>``.

The browser tests find controls by these classes, not by their label text.
"""

from __future__ import annotations

import ipywidgets as widgets
import pytest

from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, SoftmaxAxisExplorer

PREFIX = "attnlib-control-"

# Each explorer and the attributes that hold its controls.
EXPLORERS = [
    pytest.param(QueryExplorer, {}, ("query",), id="query-explorer"),
    pytest.param(SoftmaxAxisExplorer, {}, ("dim",), id="softmax-axis"),
    pytest.param(LoopStepper, {}, ("step", "play"), id="loop-stepper"),
    pytest.param(
        AttentionExplorer,
        {},
        ("sentence", "query", "dim", "causal", "temperature"),
        id="attention-explorer",
    ),
    pytest.param(
        AttentionExplorer,
        {"num_heads": 2},
        ("sentence", "query", "dim", "causal", "temperature", "head"),
        id="attention-explorer-heads",
    ),
]


def _descendants(widget: widgets.Widget) -> list[widgets.Widget]:
    found = [widget]
    for child in getattr(widget, "children", ()):
        found += _descendants(child)
    return found


@pytest.mark.parametrize(("cls", "kwargs", "names"), EXPLORERS)
def test_each_control_carries_its_class(cls: type, kwargs: dict, names: tuple[str, ...]) -> None:
    explorer = cls(**kwargs)
    for name in names:
        control = getattr(explorer, name)
        assert f"{PREFIX}{name}" in control._dom_classes, (name, control._dom_classes)


@pytest.mark.parametrize(("cls", "kwargs", "names"), EXPLORERS)
def test_the_classes_are_unique_and_only_on_controls(
    cls: type, kwargs: dict, names: tuple[str, ...]
) -> None:
    """Each class is on exactly one widget of the explorer, and no other widget has one."""
    explorer = cls(**kwargs)
    tree = _descendants(explorer.widget)
    shown = [c for w in tree for c in w._dom_classes if c.startswith(PREFIX)]
    assert sorted(shown) == sorted(f"{PREFIX}{name}" for name in names)
    for name in names:  # the control is shown inside the explorer, not only an attribute
        assert any(w is getattr(explorer, name) for w in tree), name


def test_single_head_explorer_has_no_head_control() -> None:
    explorer = AttentionExplorer()
    assert explorer.head is None
    classes = {c for w in _descendants(explorer.widget) for c in w._dom_classes}
    assert f"{PREFIX}head" not in classes
