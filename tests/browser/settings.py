"""Random settings of an explorer's controls: reached from the keyboard, checked against ``view``.

:func:`plan_of` reads from the page which explorer it is and on which data
(its kind, tokens and heads), and gives a :class:`Plan`: how to build the same
explorer here (``make``) and its controls (:class:`Knob`). So the checks follow
whatever a notebook shows. :func:`check_random_settings` moves the controls in
the page to random values, one setting after another, and compares everything
drawn with the ``view`` that attnlib computes for the same values: the heatmap,
the sums, the bars, the blend, and the text lines, whose numbers must agree to
4 decimals.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from attnlib.data import TOKENS
from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, SoftmaxAxisExplorer

from .dom import GRID, SHOWN_TEXT, checkbox, slider, toggle
from .expected import book_name
from .views import NUMBER, TOLERANCE

if TYPE_CHECKING:  # playwright is only imported once the gate says it is there
    from playwright.sync_api import Locator, Page

DRAWN_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Knob:
    """A control ``name`` and its values in order (``kind``: slider, menu, toggle, checkbox)."""

    name: str
    kind: str
    values: tuple[Any, ...]


def slider_knob(name: str, values: Sequence[Any]) -> Knob:
    return Knob(name, "slider", tuple(values))


AXIS = Knob("dim", "toggle", (-1, 0))
MASK = Knob("causal", "checkbox", (False, True))
# The FloatSlider's positions: 0.1 .. 5.0 by 0.1.
TEMPERATURE = slider_knob("temperature", [round(0.1 * (k + 1), 10) for k in range(50)])


def attention_knobs(num_tokens: int, num_heads: int = 1) -> tuple[Knob, ...]:
    """The AttentionExplorer's controls on a sentence of ``num_tokens`` tokens."""
    knobs = (slider_knob("query", range(num_tokens)), AXIS, MASK, TEMPERATURE)
    # The head: a menu naming each head.
    return knobs + ((Knob("head", "menu", tuple(range(num_heads))),) if num_heads > 1 else ())


@dataclass(frozen=True)
class Plan:
    """How to build an explorer like the one in the page (``make``), and its controls."""

    make: Callable[[], Any]
    knobs: tuple[Knob, ...]


_IDENTITY = """(el) => {
    const kinds = ["query", "softmax", "loop", "attention"];
    const formula = el.querySelector(".attnlib-formula") || el;
    const heads = formula.textContent.match(/head \\d+ of (\\d+)/);
    return {
        kind: kinds.find((k) => el.querySelector(`.attnlib-view-${k}`)) || null,
        tokens: Array.from(el.querySelectorAll("table.attnlib-heatmap tr:first-of-type th"))
            .slice(1).filter((th) => !th.classList.contains("attnlib-total"))
            .map((th) => th.textContent),
        heads: heads ? Number(heads[1]) : 1,
        headDim: el.querySelectorAll(".attnlib-blend tr.attnlib-context td.attnlib-term").length,
    };
}"""


def plan_of(root: Locator, where: str) -> Plan:
    """The plan for the explorer at ``root``: rebuilt from its kind, tokens and heads."""
    seen = root.evaluate(_IDENTITY)
    kind, tokens = seen["kind"], tuple(seen["tokens"])
    if kind == "attention":
        heads, head_dim = seen["heads"], seen["headDim"]
        d_out = heads * head_dim if heads > 1 else None
        sentence = " ".join(tokens)  # tokens re-split alike, and embed by token: same inputs

        def make() -> Any:
            return AttentionExplorer(sentence, num_heads=heads, d_out=d_out, query=0)

        return Plan(make, attention_knobs(len(tokens), heads))
    # The other explorers show the book's inputs in the notebooks.
    assert tokens == TOKENS, f"{where}: a {kind} explorer on {tokens}, not the book's tokens"
    if kind == "query":
        return Plan(QueryExplorer, (slider_knob("query", range(len(tokens))),))
    if kind == "softmax":
        return Plan(SoftmaxAxisExplorer, (AXIS,))
    assert kind == "loop", f"{where}: no explorer drawn at {root}"
    return Plan(LoopStepper, (slider_knob("step", range(1, len(tokens) ** 2 + 1)),))


# ----------------------------------------------------------------------------- keyboard


def _press_slider(page: Page, root: Locator, knob: Knob, value: Any) -> None:
    """Home then arrows to ``value``. Not End: in 08, after the kernel had widened the
    query slider (a longer sentence), End was seen to stop one position short."""
    k = knob.values.index(value)
    root.locator(slider(knob.name)).first.focus()
    for key in ["Home"] + ["ArrowRight"] * k:
        page.keyboard.press(key)


def move(page: Page, root: Locator, knob: Knob, value: Any) -> None:
    """Set control ``knob`` of the explorer at ``root`` to ``value`` from the keyboard."""
    if knob.kind == "slider":
        _press_slider(page, root, knob, value)
    elif knob.kind == "menu":
        menu = root.locator(f".attnlib-control-{knob.name} select").first
        menu.focus()
        menu.select_option(index=knob.values.index(value))
    elif knob.kind == "toggle":
        root.locator(toggle(knob.name, f"dim={value}")).first.focus()
        page.keyboard.press("Space")
    else:
        box = root.locator(checkbox(knob.name)).first
        if box.is_checked() != value:
            box.focus()
            page.keyboard.press("Space")


# ----------------------------------------------------------------------------- what is drawn

_DRAWN = (
    """(el) => {
    const all = (sel) => Array.from(el.querySelectorAll(sel));
    const shown = SHOWN_TEXT;
    const number = (node) => {
        const m = shown(node).match(/NUMBER/);
        return m ? Number(m[0]) : null;
    };
    const text = (sel) => all(sel).map((node) => node.textContent.replace(/\\s+/g, " ").trim());
    const grid = 'GRID';
    return {
        grid: all(grid).map(number),
        masked: all(grid).map((td) => td.classList.contains("attnlib-masked")),
        rowSums: all('table.attnlib-heatmap td[data-col="sum"]').map(number),
        colSums: all('table.attnlib-heatmap td[data-row="sum"]').map(number),
        bars: all(".attnlib-bars div[data-col] > span:last-child").map(number),
        terms: all(".attnlib-blend tr[data-col] td.attnlib-term").map(number),
        context: all(".attnlib-blend tr.attnlib-context td.attnlib-term").map(number),
        highlightRow: all("tr.attnlib-highlight-row").map((tr) => tr.dataset.row),
        highlightCell: all("td.attnlib-highlight-cell").map((td) => [
            td.dataset.row, td.dataset.col,
        ]),
        texts: {
            token: text(".attnlib-token"),
            formula: text(".attnlib-formula"),
            explanation: text(".attnlib-explanation"),
        },
    };
}""".replace("NUMBER", NUMBER)
    .replace("GRID", GRID)
    .replace("SHOWN_TEXT", SHOWN_TEXT)
)


def drawn(root: Locator) -> dict[str, Any]:
    """Everything the explorer at ``root`` draws now, read from its DOM."""
    return root.evaluate(_DRAWN)


def _flat(t: torch.Tensor) -> list[float]:
    return [float(v) for v in t.flatten()]


def expected(explorer: Any) -> dict[str, Any]:
    """What the drawing must hold for ``explorer.view``, in :func:`drawn`'s terms."""
    view = explorer.view
    name = type(view).__name__
    out: dict[str, Any] = {"texts": {}}
    if name == "LoopView":
        out["grid"] = [None if v != v else v for v in _flat(view.scores)]  # NaN: not yet filled
        out["highlightCell"] = [[str(view.i), str(view.j)]]
        out["texts"]["formula"] = [view.text]
        return out
    out["grid"] = _flat(view.attn_weights)
    if name == "SoftmaxView":
        out["rowSums"], out["colSums"] = _flat(view.row_sums), _flat(view.col_sums)
        out["texts"]["explanation"] = [view.text]
        return out
    # The query's panels: its row highlighted, its bars, its blend w_j * v_j and their sum z.
    values = view.values if name == "AttentionView" else explorer.inputs
    out["bars"] = _flat(view.weights)
    out["terms"] = _flat(view.weights[:, None] * values)
    out["context"] = _flat(view.context)
    out["highlightRow"] = [str(view.query)]
    out["texts"]["token"] = [
        f"query \u201c{view.token}\u201d: {book_name(view.query)}, inputs[{view.query}]"
    ]
    out["texts"]["formula"] = [view.text]
    if name == "AttentionView":
        out["rowSums"], out["colSums"] = _flat(view.row_sums), _flat(view.col_sums)
        out["masked"] = [bool(v) for v in view.masked.flatten()]
    return out


def _numbers_differ(got: Sequence[float | None], want: Sequence[float | None]) -> bool:
    if len(got) != len(want):
        return True
    return any(
        (g is None) != (w is None) or (w is not None and abs(g - w) > TOLERANCE)
        for g, w in zip(got, want, strict=True)
    )


def _text_differs(got: str, want: str) -> bool:
    """Different words, or a number off by more than the 4th decimal."""
    if re.split(NUMBER, got) != re.split(NUMBER, " ".join(want.split())):
        return True
    return _numbers_differ(
        [float(x) for x in re.findall(NUMBER, got)], [float(x) for x in re.findall(NUMBER, want)]
    )


def differences(shown: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """How the drawing ``shown`` differs from ``want`` (see :func:`expected`); [] if not at all."""
    found = []
    for key, value in want.items():
        if key == "texts":
            for part, texts in value.items():
                got = shown["texts"][part]
                if len(got) != len(texts) or any(map(_text_differs, got, texts)):
                    found.append(f"{part}: expected {texts}, drawn {got}")
        elif key in ("masked", "highlightRow", "highlightCell"):
            if shown[key] != value:
                found.append(f"{key}: expected {value}, drawn {shown[key]}")
        elif _numbers_differ(shown[key], value):
            rounded = [None if v is None else round(v, 4) for v in value]
            found.append(f"{key}: expected {rounded}, drawn {shown[key]}")
    return found


def settle(root: Locator, explorer: Any, where: str) -> dict[str, Any]:
    """Wait until the drawing at ``root`` equals ``explorer.view``; return what is drawn."""
    want = expected(explorer)
    deadline = time.monotonic() + DRAWN_TIMEOUT_S
    while True:
        shown = drawn(root)
        found = differences(shown, want)
        if not found:
            return shown
        if time.monotonic() > deadline:
            raise AssertionError(f"{where}: the drawing is not the view:\n" + "\n".join(found))
        time.sleep(0.05)


def apply(page: Page, root: Locator, plan: Plan, explorer: Any, setting: dict[str, Any]) -> None:
    """Move every control of ``plan`` to ``setting``, in the page and in ``explorer``."""
    for knob in plan.knobs:
        move(page, root, knob, setting[knob.name])
        getattr(explorer, knob.name).value = setting[knob.name]


def random_setting(plan: Plan, rng: random.Random) -> dict[str, Any]:
    return {knob.name: rng.choice(knob.values) for knob in plan.knobs}


def check_random_settings(
    page: Page, root: Locator, settings: int, rng: random.Random, where: str
) -> None:
    """Drive the explorer at ``root`` through ``settings`` random settings of all its
    controls; each drawing must be its view."""
    root.scroll_into_view_if_needed()
    plan = plan_of(root, where)
    explorer = plan.make()
    for k in range(settings):
        setting = random_setting(plan, rng)
        apply(page, root, plan, explorer, setting)
        settle(root, explorer, f"{where}, setting {k} {setting}")


def check_every_control(page: Page, root: Locator, rng: random.Random, where: str) -> None:
    """From a random setting, move each control in turn to another value: each move must
    change the drawing, and the drawing must be the view."""
    root.scroll_into_view_if_needed()
    plan = plan_of(root, where)
    explorer = plan.make()
    apply(page, root, plan, explorer, random_setting(plan, rng))
    before = settle(root, explorer, f"{where}, start")
    for knob in plan.knobs:
        current = getattr(explorer, knob.name).value
        value = rng.choice([v for v in knob.values if v != current])
        move(page, root, knob, value)
        getattr(explorer, knob.name).value = value
        after = settle(root, explorer, f"{where}, {knob.name} = {value!r}")
        assert after != before, f"{where}: moving {knob.name} to {value!r} changed nothing drawn"
        before = after
