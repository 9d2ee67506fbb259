"""Every explorer's controls: their CSS classes, and random control sequences (stateful).

The browser tests find controls by their class ``attnlib-control-<attribute>``.
:class:`ExplorerMachine` drives every explorer through random moves of its
controls, bad values included, and checks after each: no exception escapes, the
line under the control at fault names it (and nothing else), the controls hold
what they should, and ``view`` shows what plain torch computes from them.
"""

from __future__ import annotations

import math
import re

import book
import ipywidgets as widgets
import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from test_attention_explorer import reference

from attnlib.data import sentence_inputs
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
        ("sentence", "query", "dim", "causal", "temperature", "dropout"),
        id="attention-explorer",
    ),
    pytest.param(
        AttentionExplorer,
        {"num_heads": 2},
        ("sentence", "query", "dim", "causal", "temperature", "dropout", "head"),
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


# ----------------------------------------------------------------------------- stateful

INPUTS = torch.tensor(book.BOOK_INPUTS)
# What a status line may never show: a raw Python error, or an internal argument's name.
RAW = re.compile(r"\b\w*(Error|Exception)\b|Traceback|highlight_row|\bscale\b|IPY_MODEL")
FLOAT32_MAX = torch.finfo(torch.float32).max

WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "Dog", ".", ",", "journey", "Your"])
SENTENCES = st.one_of(
    st.lists(WORDS, min_size=1, max_size=9).map(" ".join),
    st.sampled_from(
        [
            "",
            "   ",
            " ".join(["word"] * 33),  # 33 tokens: one too many
            "x" * 101,  # a token of 101 characters
            "lone \ud800 surrogate",
            " ".join(book.TOKENS).upper(),
        ]
    ),
)
TEMPERATURES = st.one_of(
    st.floats(0.1, 5.0),
    st.sampled_from([0.0, -1.0, float("nan"), float("inf"), 1e-300, 1e-40, 1e9]),
)


def _clamped(control: widgets.Widget, value: float) -> float:
    """The value a bounded slider keeps when ``value`` is assigned (NaN passes as it is)."""
    if isinstance(value, float) and math.isnan(value):
        return value
    return min(max(value, control.min), control.max)


class Spec:
    """What one explorer must hold and show: its data and its controls' accepted values."""

    def __init__(self, explorer, module=None):
        self.explorer = explorer
        self.module = module
        self.values = {"query": 1, "dim": -1, "causal": False, "temperature": 1.0, "head": 0}
        self.values["step"] = 1  # the LoopStepper counts iterations from 1
        self.sentence_error = False
        # The controls whose last value was refused: each says so under itself until it
        # takes a good value (or a new sentence comes).
        self.refused: set[str] = set()
        self.tokens, self.inputs = book.TOKENS, INPUTS


class ExplorerMachine(RuleBasedStateMachine):
    """Random moves of every explorer's controls, and what each must then show."""

    def __init__(self) -> None:
        super().__init__()
        # Grids of at most 32 x 32: torch's worker threads only add waiting (a lot of it
        # on a busy machine), so this test runs on one.
        self._threads = torch.get_num_threads()
        torch.set_num_threads(1)
        self.specs = {
            "query": Spec(QueryExplorer()),
            "softmax": Spec(SoftmaxAxisExplorer()),
            "loop": Spec(LoopStepper()),
            "attention": Spec(AttentionExplorer()),
        }
        heads = AttentionExplorer(num_heads=2)
        self.specs["heads"] = Spec(heads, heads.module)

    def teardown(self) -> None:
        torch.set_num_threads(self._threads)

    # ------------------------------------------------------------------ moves

    def _move(self, spec: Spec, name: str, value, valid) -> None:
        """Assign ``value`` to control ``name``; ``valid(kept)``: whether it must be accepted."""
        control = getattr(spec.explorer, name)
        kept = _clamped(control, value) if hasattr(control, "min") else value
        same = kept == control.value
        control.value = value  # must never raise
        if same:
            return  # no change, no event: nothing else changes either
        if valid(kept):
            spec.values[name] = kept
            spec.refused.discard(name)
        else:
            spec.refused.add(name)

    @rule(
        which=st.sampled_from(["query", "attention", "heads"]),
        value=st.integers(-3, 40),
        widen=st.booleans(),
    )
    def move_query(self, which, value, widen):
        spec = self.specs[which]
        if widen:  # only code can do this; a reader's slider stops at the last token
            spec.explorer.query.min, spec.explorer.query.max = -3, 40
        self._move(spec, "query", value, lambda q: 0 <= q < len(spec.tokens))

    @rule(which=st.sampled_from(["softmax", "attention", "heads"]), value=st.sampled_from([-1, 0]))
    def flip_axis(self, which, value):
        self._move(self.specs[which], "dim", value, lambda _: True)

    @rule(which=st.sampled_from(["attention", "heads"]), value=st.booleans())
    def toggle_mask(self, which, value):
        self._move(self.specs[which], "causal", value, lambda _: True)

    @rule(which=st.sampled_from(["attention", "heads"]), value=TEMPERATURES, widen=st.booleans())
    def set_temperature(self, which, value, widen):
        spec = self.specs[which]
        if widen:
            spec.explorer.temperature.min, spec.explorer.temperature.max = -2.0, 1e10
        self._move(spec, "temperature", value, lambda t: self._temperature_ok(spec, t))

    @rule(value=st.integers(0, 1))
    def pick_head(self, value):
        # A menu: only its heads can be picked (ipywidgets refuses any other value itself).
        self._move(self.specs["heads"], "head", value, lambda h: 0 <= h < 2)

    @rule(value=st.integers(-3, 50), widen=st.booleans())
    def step_loop(self, value, widen):
        spec = self.specs["loop"]
        if widen:
            spec.explorer.step.min, spec.explorer.step.max = -3, 50
        self._move(spec, "step", value, lambda s: 1 <= s <= 36)

    @rule(which=st.sampled_from(["attention", "heads"]), sentence=SENTENCES)
    def type_sentence(self, which, sentence):
        spec = self.specs[which]
        if sentence == spec.explorer.sentence.value:
            return  # no change, no event
        spec.explorer.sentence.value = sentence  # must never raise
        try:
            spec.tokens, spec.inputs = sentence_inputs(sentence)
        except ValueError:
            # The latest event is the sentence's: an earlier refusal is no longer news.
            spec.sentence_error, spec.refused = True, set()
            return
        spec.sentence_error, spec.refused = False, set()
        spec.values["query"] = min(spec.values["query"], len(spec.tokens) - 1)

    def _temperature_ok(self, spec: Spec, t: float) -> bool:
        if not (math.isfinite(t) and t > 0):
            return False
        q, k = (spec.inputs, spec.inputs) if spec.module is None else (None, None)
        scores = q @ k.T if q is not None else self._head_scores(spec)
        scale = 1.0 if spec.module is None else 1 / math.sqrt(spec.module.head_dim)
        return scores.abs().max().item() * scale / t <= FLOAT32_MAX

    def _head_scores(self, spec: Spec) -> torch.Tensor:
        size, head = spec.module.head_dim, spec.values["head"]
        cut = slice(head * size, (head + 1) * size)
        return (spec.inputs @ spec.module.W_query.weight[cut].T) @ (
            spec.inputs @ spec.module.W_key.weight[cut].T
        ).T

    # ------------------------------------------------------------------ checks

    @invariant()
    def status_names_the_control_at_fault(self):
        for which, spec in self.specs.items():
            # Each control's messages are said right under it, none under the drawing.
            status = spec.explorer.messages
            assert spec.explorer.status.value == "", (which, status)
            assert not RAW.search(status), (which, status)
            for name in ("query", "dim", "causal", "temperature", "head", "step"):
                if getattr(spec.explorer, name, None) is None:
                    continue
                own = spec.explorer.status_of(name).value
                if name in spec.refused:
                    assert f"{name}:" in own, (which, name, status)
                else:
                    assert own == "", (which, name, status)
            if spec.sentence_error:
                assert "sentence:" in spec.explorer.status_of("sentence").value, (which, status)
            if not spec.refused and not spec.sentence_error:
                assert status == "", (which, status)

    @invariant()
    def controls_hold_the_accepted_values(self):
        for which, spec in self.specs.items():
            for name, value in spec.values.items():
                control = getattr(spec.explorer, name, None)
                if isinstance(control, widgets.ValueWidget):
                    assert control.value == value, (which, name, control.value, value)

    @invariant()
    def views_show_plain_torch(self):
        values = {name: spec.values for name, spec in self.specs.items()}
        scores = INPUTS @ INPUTS.T
        query = self.specs["query"].explorer.view
        weights = torch.softmax(scores, dim=-1)
        assert torch.allclose(query.weights, weights[values["query"]["query"]], atol=1e-6)
        axis = self.specs["softmax"].explorer.view
        assert torch.allclose(axis.attn_weights, torch.softmax(scores, values["softmax"]["dim"]))
        loop = self.specs["loop"].explorer.view
        done = loop.filled.flatten()
        assert done.sum() == values["loop"]["step"] and done[: done.sum()].all()
        for which in ("attention", "heads"):
            spec = self.specs[which]
            view = spec.explorer.view
            assert view.tokens == tuple(spec.tokens)
            settings_ = {k: spec.values[k] for k in ("query", "dim", "causal", "temperature")}
            settings_["head"] = spec.values["head"] if spec.module is not None else 0
            expected, context, _ = reference(spec.inputs, spec.module, **settings_)
            assert torch.allclose(view.attn_weights, expected, atol=1e-5), (which, settings_)
            assert torch.allclose(view.context, context, atol=1e-5), (which, settings_)


ExplorerMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None)
test_explorers_under_random_control_sequences = ExplorerMachine.TestCase
