"""The explorers of notebooks 01, 03 and 04: LoopStepper, SoftmaxAxisExplorer, QueryExplorer.

Each holds its data (checked once, in the constructor), its controls as
attributes, and sends the data to the browser once; ``view`` is the pure view
function of the data and the controls' values now.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure

from attnlib import _validate as validate
from attnlib.attention import attention_scores
from attnlib.data import TOKENS, example_inputs
from attnlib.widgets import _text, figures
from attnlib.widgets.base import Control, Explorer
from attnlib.widgets.frontend import ExplorerView
from attnlib.widgets.views import (
    LoopView,
    QueryView,
    SoftmaxView,
    loop_shown,
    loop_view,
    query_shown,
    query_view,
    softmax_shown,
    softmax_view,
)


def resolve(
    given: object, labels: Sequence[str] | None, source: str
) -> tuple[torch.Tensor, tuple[str, ...]]:
    """Checked inputs (or scores) and their tokens, with the book's as defaults.

    Without ``given``: the book's inputs (``source == "inputs"``) or their scores,
    and the book's six tokens. Given without ``labels``: ``t0, t1, ...``.
    """
    if given is None:
        book = example_inputs()
        matrix = book if source == "inputs" else attention_scores(book)
        default: tuple[str, ...] = TOKENS
    else:
        explorer_data = validate.explorer_inputs if source == "inputs" else validate.explorer_scores
        matrix = explorer_data(given)
        default = tuple(f"t{k}" for k in range(matrix.shape[0]))
    return matrix, validate.explorer_tokens(default if labels is None else labels, matrix.shape[0])


def _rows(grid: torch.Tensor) -> list[list[float | None]]:
    """``grid`` as nested lists for JSON: -inf (masked) becomes None."""
    return [[None if v == float("-inf") else v for v in row] for row in grid.tolist()]


def axis_toggle(value: int) -> widgets.ToggleButtons:
    """The softmax-axis control: ``.value`` is -1 or 0 (its ``index`` 0 or 1 in the browser)."""
    return widgets.ToggleButtons(
        options=[("dim=-1 (across each row)", -1), ("dim=0 (down each column)", 0)],
        value=value,
        description="softmax",
        style={"button_width": "auto"},  # the labels are long; fixed widths cut them off
    )


class QueryExplorer(Explorer):
    """Move the query token and watch its row of weights, its bars and its context vector.

    ``inputs``: ``(num_tokens, d_in)``, default the book's ``example_inputs()``;
    ``tokens``: one str per input, default the book's six tokens (or ``t0, t1, ...``
    for custom inputs). Control: ``query``, an IntSlider whose value is the query
    index. ``view``: a :class:`~attnlib.widgets.views.QueryView`.
    """

    _css_class = "attnlib-query-explorer"

    def __init__(self, inputs: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        self.inputs, self.tokens = resolve(inputs, tokens, "inputs")
        num_tokens = self.inputs.shape[0]
        start = min(1, num_tokens - 1)  # the book's query, "journey"
        query_view(self.inputs, self.tokens, start)  # refuses inputs whose scores overflow
        self.query = widgets.IntSlider(
            value=start,
            min=0,
            max=num_tokens - 1,
            description="query",
            continuous_update=True,
            readout=False,  # the book's name beside it instead (controls.js): x⁽²⁾, not 1
        )
        data = {
            "tokens": list(self.tokens),
            "scores": _rows(attention_scores(self.inputs)),
            "values": self.inputs.tolist(),
            **query_shown(self.inputs, self.tokens),
            **_text.for_browser(self.tokens),
        }
        self.frontend = ExplorerView(kind="query", data=data, query=start)
        query = Control("query", self.query, trait="query")
        self._assemble([self.query], [query])
        self._guard(query)

    @property
    def view(self) -> QueryView:
        """What is shown now: :func:`~attnlib.widgets.query_view` of the query slider."""
        return query_view(self.inputs, self.tokens, self.query.value)

    def figure(self) -> Figure:
        """The current view as a matplotlib Figure (heatmap and weights bar), for static pages."""
        return figures.query_figure(self.view, self.tokens)


class SoftmaxAxisExplorer(Explorer):
    """Flip the softmax axis and see which direction sums to 1.

    ``scores``: ``(num_tokens, num_tokens)`` attention scores (``-inf`` allowed
    for masked cells), default ``attention_scores(example_inputs())``. Control:
    ``dim``, ToggleButtons with value -1 (across each row) or 0 (down each
    column). ``view``: a :class:`~attnlib.widgets.views.SoftmaxView`.
    """

    _css_class = "attnlib-softmax-explorer"

    def __init__(self, scores: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        self.scores, self.tokens = resolve(scores, tokens, "attn_scores")
        self.dim = axis_toggle(-1)
        data = {
            "tokens": list(self.tokens),
            "scores": _rows(self.scores),
            **softmax_shown(self.scores, self.tokens),
            **_text.for_browser(self.tokens),
        }
        self.frontend = ExplorerView(kind="softmax", data=data)
        dim = Control("dim", self.dim, "index", "dim_index")
        self._assemble([self.dim], [dim])
        self._guard(dim)
        # Weights on one colour scale, 0 to 1: flipping the axis compares like with like.
        self._limits = figures.WEIGHT_LIMITS

    @property
    def view(self) -> SoftmaxView:
        """What is shown now: :func:`~attnlib.widgets.softmax_view` along the toggle's axis."""
        return softmax_view(self.scores, self.tokens, self.dim.value)

    def figure(self) -> Figure:
        """The current weights as a matplotlib Figure, the axis in the title."""
        return figures.softmax_figure(self.view, self.tokens, self._limits)


class LoopStepper(Explorer):
    """Step through the nested loops that fill the score grid one dot product at a time.

    ``inputs``: ``(num_tokens, d_in)``, default the book's. Controls: ``step``,
    an IntSlider over the iterations ``1 .. num_tokens**2``, counted as its line counts
    them (at 8, iterations 1..8 are done and the current cell is ``divmod(7, num_tokens)``),
    and ``play``, which runs it in the browser. ``view``: a
    :class:`~attnlib.widgets.views.LoopView`.
    """

    _css_class = "attnlib-loop-stepper"

    def __init__(self, inputs: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        self.inputs, self.tokens = resolve(inputs, tokens, "inputs")
        last = self.inputs.shape[0] ** 2
        scores = attention_scores(self.inputs)  # refuses inputs whose scores overflow
        self._limits = (scores.min().item(), scores.max().item())
        self.step = widgets.IntSlider(
            value=1, min=1, max=last, description="iteration", continuous_update=True
        )
        self.play = widgets.Play(value=1, min=1, max=last, interval=500, description="play")
        data = {
            "tokens": list(self.tokens),
            "inputs": self.inputs.tolist(),
            "scores": _rows(scores),
            "limits": list(self._limits),
            **loop_shown(self.inputs, self.tokens),
            **_text.for_browser(self.tokens),
        }
        self.frontend = ExplorerView(kind="loop", data=data, step=1)
        step = Control("step", self.step, trait="step")
        self._assemble([widgets.HBox([self.play, self.step])], [step, Control("play", self.play)])
        # Play runs the slider in the browser; not one of the view's links (see base). The
        # slider is the link's source: a page opening copies source to target, so the
        # slider's value (set by a cell, or saved) is kept, not Play's 1.
        self._play_link = widgets.jslink((self.step, "value"), (self.play, "value"))
        self._guard(step)

    @property
    def view(self) -> LoopView:
        """What is shown now: :func:`~attnlib.widgets.loop_view` after the slider's iteration."""
        return loop_view(self.inputs, self.tokens, self.step.value)

    def figure(self) -> Figure:
        """The grid so far as a matplotlib Figure, the current cell outlined."""
        return figures.loop_figure(self.view, self.tokens, self._limits)
