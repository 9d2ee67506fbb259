"""Explorers: ipywidgets controls wired to the attention functions.

Each explorer is an object with

- its controls as attributes (``explorer.query``, ``explorer.dim``, ``explorer.step``);
- ``explorer.view``: a frozen dataclass with the data shown now, made by a pure
  module-level function of the controls' values (:func:`query_view`,
  :func:`softmax_view`, :func:`loop_view`, :func:`attention_view`), so tests can
  set ``control.value`` and check ``view`` without a browser;
- ``explorer.widget``: the root ipywidgets container. Ending a cell with the
  explorer (or ``display(explorer)``) shows it.

The live view is HTML (tables coloured with the same colormap and limits as
:func:`attnlib.plots.heatmap`): an update takes well under a millisecond, where
re-plotting a matplotlib heatmap to PNG takes 100-200 ms per slider step
(``benchmarks/widget_latency.py``). ``explorer.figure()`` gives the matplotlib
version of the current view, for notebooks read as static pages. An error while updating is shown in
the explorer's status line and the last good view stays.

HTML hooks for browser tests: the root has the class ``attnlib-explorer`` and
``attnlib-query-explorer`` / ``attnlib-softmax-explorer`` / ``attnlib-loop-stepper`` /
``attnlib-attention-explorer``; heatmaps are ``table.attnlib-heatmap`` with cells
``td[data-row=i][data-col=j]`` holding the shown value (sums in ``data-col="sum"`` /
``data-row="sum"``); the highlighted row is ``tr.attnlib-highlight-row``, the
highlighted cell ``td.attnlib-highlight-cell``, masked cells ``td.attnlib-masked``;
an error is ``.attnlib-status .attnlib-error``. Each control carries the class
``attnlib-control-<attribute>``: ``attnlib-control-query``, ``attnlib-control-dim``,
``attnlib-control-causal``, ``attnlib-control-temperature``, ``attnlib-control-head``,
``attnlib-control-sentence``, ``attnlib-control-step``, ``attnlib-control-play``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from attnlib import plots as _plots
from attnlib._validate import describe
from attnlib import _validate as _v


# Temporary bridge to the shared validators while the explorers are rebuilt (issue #10).
def as_float_tensor(x, name):
    return _v.tensor(x, name, "(...)", min_rank=0) if isinstance(x, torch.Tensor) and x.numel() else _v.tensor(x, name, "(...)")


def check_int(value, name, minimum=0):
    return _v.integer(value, name, minimum)


def check_rank(x, name, ranks, shape_doc):
    return _v.tensor(x, name, shape_doc, ranks)


class _PlotsBridge:
    def __getattr__(self, name):
        table = {
            "_as_shaped": lambda x, n, nd, doc: _v.array(x, n, nd, doc),
            "_check_labels": lambda v, n, e, w: _v.labels(v, n, e, w),
            "_check_index": lambda v, n, s: _v.optional_index(v, n, s),
            "_check_str": lambda v, n: _v.text(v, n, 10_000),
            "_count": lambda k, noun: f"{k} {noun}" if k == 1 else f"{k} {noun}s",
        }
        return table[name] if name in table else getattr(_plots, name)
from attnlib.attention import (
    attention_scores,
    attention_weights,
    causal_mask,
    context_vector,
    context_vectors,
    softmax,
)
from attnlib.data import MAX_TOKENS, TOKENS, embed, example_inputs, tokenize
from attnlib.modules import MultiHeadAttention

plots = _PlotsBridge()

__all__ = [
    "DEFAULT_SENTENCE",
    "TEMPERATURE_RANGE",
    "AttentionExplorer",
    "AttentionView",
    "HeadProjections",
    "HeatmapColors",
    "LoopStepper",
    "LoopView",
    "QueryExplorer",
    "QueryView",
    "SoftmaxAxisExplorer",
    "SoftmaxView",
    "attention_view",
    "heatmap_colors",
    "html_heatmap",
    "loop_view",
    "query_view",
    "sentence_inputs",
    "softmax_view",
]

# Tolerance for "this row sums to 1" in float32.
_SUM_TOL = 1e-4
_ERROR_COLOR = "#b00020"


# ----------------------------------------------------------------------------- validation


def _check_inputs(inputs: Any, name: str = "inputs") -> torch.Tensor:
    """A detached copy of ``inputs`` ``(num_tokens, d_in)``, floats, finite, non-empty."""
    if isinstance(inputs, np.ndarray):
        inputs = torch.from_numpy(inputs)
    as_float_tensor(inputs, name)
    check_rank(inputs, name, (2,), "(num_tokens, d_in)")
    if inputs.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one token, got shape {tuple(inputs.shape)}")
    if inputs.shape[1] == 0:
        raise ValueError(
            f"{name}: expected at least one embedding dimension, got shape {tuple(inputs.shape)}"
        )
    if not torch.isfinite(inputs).all():
        raise ValueError(f"{name}: expected finite numbers, got NaN or inf in {describe(inputs)}")
    # A copy, so a reader editing their tensor in place cannot desync the explorer.
    return inputs.detach().clone()


def _check_scores(attn_scores: Any) -> torch.Tensor:
    """A detached copy of square ``attn_scores`` ``(num_tokens, num_tokens)``; -inf allowed."""
    if isinstance(attn_scores, np.ndarray):
        attn_scores = torch.from_numpy(attn_scores)
    name = "attn_scores"
    as_float_tensor(attn_scores, name)
    check_rank(attn_scores, name, (2,), "(num_tokens, num_tokens)")
    rows, cols = attn_scores.shape
    if rows == 0 or rows != cols:
        raise ValueError(
            f"{name}: expected a square shape (num_tokens, num_tokens) with num_tokens >= 1, "
            f"got shape {tuple(attn_scores.shape)}"
        )
    if torch.isnan(attn_scores).any() or (attn_scores == float("inf")).any():
        raise ValueError(f"{name}: expected finite numbers or -inf (masked), got NaN or +inf")
    finite = torch.isfinite(attn_scores)
    if not finite.any(dim=1).all() or not finite.any(dim=0).all():
        raise ValueError(
            f"{name}: expected at least one finite score in every row and every column "
            "(a row or column of -inf has no softmax)"
        )
    return attn_scores.detach().clone()


def _check_tokens(tokens: Any, num_tokens: int, source: str) -> tuple[str, ...]:
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence):
        raise ValueError(f"tokens: expected a list of {num_tokens} str, got {describe(tokens)}")
    if len(tokens) != num_tokens:
        raise ValueError(
            f"tokens: expected {plots._count(num_tokens, 'token')} (one per row of {source}), "
            f"got {len(tokens)}"
        )
    for k, token in enumerate(tokens):
        if not isinstance(token, str):
            raise ValueError(f"tokens: expected str items, got {describe(token)} at index {k}")
    return tuple(tokens)


def _check_control(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: expected an int in [{low}, {high}], got {describe(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected an int in [{low}, {high}], got {value}")
    return int(value)


def _check_dim(dim: Any) -> int:
    """The softmax axis of a ``(num_tokens, num_tokens)`` grid: -1 (rows) or 0 (columns)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim not in (-1, 0):
        got = repr(dim) if isinstance(dim, (int, np.integer)) else describe(dim)
        raise ValueError(f"dim: expected -1 (across each row) or 0 (down each column), got {got}")
    return int(dim)


def _check_no_overflow(values: torch.Tensor, detail: Callable[[], str], fix: str) -> torch.Tensor:
    """``values`` (scores or the weights made from them) if all finite, else ``ValueError``.

    Finite inputs can still give scores beyond the dtype's range (inf), and softmax turns
    those into NaN: refused here, so that no explorer shows NaN without saying why.
    ``detail()`` says why, and is only worked out when it is needed.
    """
    if not torch.isfinite(values).all():
        raise ValueError(f"attn_scores: expected finite scores, got overflow ({detail()}); {fix}")
    return values


def _dot_overflow(*vectors: torch.Tensor) -> Callable[[], str]:
    """Why dot products of ``vectors`` overflowed, for :func:`_check_no_overflow`."""

    def detail() -> str:
        largest = max(v.abs().max().item() for v in vectors)
        return (
            f"vectors up to {largest:.3g} give dot products beyond the largest {vectors[0].dtype}"
        )

    return detail


def _resolve(
    given: Any, tokens: Any, default: torch.Tensor, source: str
) -> tuple[torch.Tensor, tuple[str, ...]]:
    """``given`` (inputs or scores) and tokens, with defaults.

    Without ``given``, the book's ``default`` and its six tokens; custom
    ``given`` without tokens gets the labels ``t0, t1, ...``.
    """
    if given is None:
        matrix, default_tokens = default, TOKENS
    else:
        matrix = _check_inputs(given) if source == "inputs" else _check_scores(given)
        default_tokens = tuple(f"t{k}" for k in range(matrix.shape[0]))
    tokens = default_tokens if tokens is None else tokens
    shape = tuple(matrix.shape)
    return matrix, _check_tokens(tokens, matrix.shape[0], f"{source}, shape {shape}")


# ----------------------------------------------------------------------------- text


def _num(x: float, decimals: int = 4) -> str:
    """``x`` with up to ``decimals`` decimals, at least two: 0.55 -> '0.55', 0.1385 -> '0.1385'."""
    text = f"{x:.{decimals}f}"
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.rstrip('0').ljust(2, '0')}"


def _factor(x: float) -> str:
    # Parenthesise negatives so "0.5×(-0.2)" is not read as a subtraction.
    return f"({_num(x)})" if x < 0 else _num(x)


def _vector(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:.4f}" for v in values) + "]"


# ----------------------------------------------------------------------------- views


@dataclass(frozen=True, eq=False)
class QueryView:
    """What :class:`QueryExplorer` shows for one query.

    ``attn_weights``: ``(num_tokens, num_tokens)``; ``weights``: row ``query`` of it,
    ``(num_tokens,)``; ``context``: ``(d_in,)``, the weighted sum of the inputs;
    ``text``: that sum written out.
    """

    query: int
    token: str
    attn_weights: torch.Tensor
    weights: torch.Tensor
    context: torch.Tensor
    text: str


def query_view(inputs: torch.Tensor, tokens: Sequence[str], query: int) -> QueryView:
    """The simplified self-attention of one ``query`` index.

    ``inputs``: ``(num_tokens, d_in)``. Scores ``inputs @ inputs.T``, weights by
    softmax over the keys (``dim=-1``), context vector ``sum_i weights[i] * x_i``.
    Raises ``ValueError`` if the scores overflow (the weights would be NaN).
    """
    inputs = _check_inputs(inputs)
    tokens = _check_tokens(tokens, inputs.shape[0], f"inputs, shape {tuple(inputs.shape)}")
    return _query_view(inputs, tokens, _query_weights(inputs), query)


def _query_weights(inputs: torch.Tensor) -> torch.Tensor:
    """``attn_weights`` of checked ``inputs``: the part of a QueryView no query changes."""
    attn_weights = softmax(attention_scores(inputs), dim=-1)
    return _check_no_overflow(attn_weights, _dot_overflow(inputs), "scale the inputs down")


def _query_view(
    inputs: torch.Tensor, tokens: tuple[str, ...], attn_weights: torch.Tensor, query: int
) -> QueryView:
    """:func:`query_view` of checked ``inputs``, ``tokens`` and their ``_query_weights``."""
    query = _check_control(query, "query", 0, inputs.shape[0] - 1)
    attn_weights = attn_weights.clone()  # each view its own, as a fresh softmax would be
    weights = attn_weights[query]
    context = context_vector(inputs, weights)
    terms = " + ".join(f"{w:.4f}·x({t})" for w, t in zip(weights.tolist(), tokens, strict=True))
    text = f"z({tokens[query]}) = {terms} = {_vector(context.tolist())}"
    return QueryView(query, tokens[query], attn_weights, weights, context, text)


@dataclass(frozen=True, eq=False)
class SoftmaxView:
    """What :class:`SoftmaxAxisExplorer` shows for one softmax axis ``dim`` (-1 or 0).

    ``attn_weights``: ``(num_tokens, num_tokens)``; ``row_sums`` and ``col_sums``:
    ``(num_tokens,)``; ``rows_sum_to_one``/``cols_sum_to_one``: whether every
    row (column) sums to 1; ``text``: which direction sums to 1, and why only
    ``dim=-1`` gives each query one distribution.
    """

    dim: int
    attn_weights: torch.Tensor
    row_sums: torch.Tensor
    col_sums: torch.Tensor
    rows_sum_to_one: bool
    cols_sum_to_one: bool
    text: str


_WHY = (
    "Why dim=-1: query i's context vector blends the inputs with the weights in row i, "
    "so each row must be one distribution over the keys. Softmax along dim=-1 normalises "
    "every row on its own; dim=0 normalises each key's column across different queries."
)


def softmax_view(attn_scores: torch.Tensor, tokens: Sequence[str], dim: int) -> SoftmaxView:
    """Softmax of ``attn_scores`` ``(num_tokens, num_tokens)`` along ``dim`` (-1 or 0)."""
    attn_scores = _check_scores(attn_scores)
    _check_tokens(tokens, attn_scores.shape[0], f"attn_scores, shape {tuple(attn_scores.shape)}")
    return _softmax_view(attn_scores, dim)


def _softmax_view(attn_scores: torch.Tensor, dim: int) -> SoftmaxView:
    """:func:`softmax_view` of checked ``attn_scores``."""
    dim = _check_dim(dim)
    attn_weights = softmax(attn_scores, dim=dim)
    row_sums, col_sums = attn_weights.sum(dim=1), attn_weights.sum(dim=0)
    rows_ok = bool(torch.allclose(row_sums, torch.ones_like(row_sums), atol=_SUM_TOL))
    cols_ok = bool(torch.allclose(col_sums, torch.ones_like(col_sums), atol=_SUM_TOL))
    if dim == -1:
        what = "dim=-1 normalises across each row: every row sums to 1"
    else:
        what = "dim=0 normalises down each column: every column sums to 1"
    if dim == -1 and not cols_ok:
        what += f"; the columns do not (sums {_span(col_sums)})"
    if dim == 0 and not rows_ok:
        what += f"; the rows do not (sums {_span(row_sums)}), so no query has a distribution"
    return SoftmaxView(dim, attn_weights, row_sums, col_sums, rows_ok, cols_ok, f"{what}. {_WHY}")


def _span(sums: torch.Tensor) -> str:
    return f"from {sums.min().item():.4f} to {sums.max().item():.4f}"


@dataclass(frozen=True, eq=False)
class LoopView:
    """What :class:`LoopStepper` shows after iteration ``step`` (0-based) of the nested loops.

    ``i, j``: the current cell, ``divmod(step, num_tokens)``; ``filled``:
    ``(num_tokens, num_tokens)`` bool, the cells done (row by row, up to and
    including ``(i, j)``); ``scores``: ``(num_tokens, num_tokens)``, NaN where not
    filled; ``terms``: the ``(x_i[k], x_j[k])`` pairs of the current dot
    product; ``score``: its value; ``text``: the dot product written out.
    """

    step: int
    i: int
    j: int
    filled: torch.Tensor
    scores: torch.Tensor
    terms: tuple[tuple[float, float], ...]
    score: float
    text: str


def loop_view(inputs: torch.Tensor, tokens: Sequence[str], step: int) -> LoopView:
    """The score grid of the nested loops after ``step`` + 1 iterations.

    ``inputs``: ``(num_tokens, d_in)``; ``step`` in ``[0, num_tokens**2 - 1]``;
    the outer loop runs over rows ``i``, the inner over columns ``j``.
    """
    inputs = _check_inputs(inputs)
    tokens = _check_tokens(tokens, inputs.shape[0], f"inputs, shape {tuple(inputs.shape)}")
    return _loop_view(inputs, tokens, _loop_scores(inputs), step)


def _loop_scores(inputs: torch.Tensor) -> torch.Tensor:
    """The finished grid of checked ``inputs``: the part of a LoopView no step changes."""
    all_scores = attention_scores(inputs)
    return _check_no_overflow(all_scores, _dot_overflow(inputs), "scale the inputs down")


def _loop_view(
    inputs: torch.Tensor, tokens: tuple[str, ...], all_scores: torch.Tensor, step: int
) -> LoopView:
    """:func:`loop_view` of checked ``inputs``, ``tokens`` and their ``_loop_scores``."""
    num_tokens = inputs.shape[0]
    step = _check_control(step, "step", 0, num_tokens * num_tokens - 1)
    i, j = divmod(step, num_tokens)
    filled = (torch.arange(num_tokens * num_tokens) <= step).reshape(num_tokens, num_tokens)
    scores = all_scores.masked_fill(~filled, float("nan"))
    terms = tuple(zip(inputs[i].tolist(), inputs[j].tolist(), strict=True))
    score = all_scores[i, j].item()
    products = " + ".join(f"{_factor(a)}×{_factor(b)}" for a, b in terms)
    text = f"x({tokens[i]})·x({tokens[j]}) = {products} = {score:.4f}"
    return LoopView(step, i, j, filled, scores, terms, score, text)


# ----------------------------------------------------------------------------- HTML heatmap


@dataclass(frozen=True, eq=False)
class HeatmapColors:
    """Precomputed CSS colours of a matrix's cells, for :func:`html_heatmap`.

    ``background`` and ``text``: ``(rows, cols)`` nested tuples of CSS colours;
    ``legend``: an HTML colour bar from ``vmin`` to ``vmax``.
    """

    background: tuple[tuple[str, ...], ...]
    text: tuple[tuple[str, ...], ...]
    vmin: float
    vmax: float
    legend: str


def _css_grid(rgba: np.ndarray) -> tuple[tuple[str, ...], ...]:
    """CSS colours ``'#rrggbb'`` (or ``'transparent'``) of ``rgba`` ``(rows, cols, 4)``.

    A 32x32 grid is recoloured whenever its matrix changes, and formatting one colour
    per cell took most of that time. A colormap has at most a few hundred distinct
    colours, so each distinct one is formatted once and the cells look theirs up.
    """
    rgb = np.round(rgba[..., :3] * 255).astype(np.int64)
    codes = rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2]
    codes[rgba[..., 3] == 0] = -1  # transparent
    distinct, inverse = np.unique(codes, return_inverse=True)
    names = np.array(
        ["transparent" if code < 0 else f"#{code:06x}" for code in distinct.tolist()], dtype=object
    )
    return tuple(map(tuple, names[inverse.reshape(codes.shape)].tolist()))


def heatmap_colors(
    matrix: Any,
    vmin: float | None = None,
    vmax: float | None = None,
    cmap: str = "viridis",
    label: str = "value",
) -> HeatmapColors:
    """The colours :func:`attnlib.plots.heatmap` would give ``matrix`` ``(rows, cols)``.

    Limits default to the finite minimum and maximum; a flat matrix gets a range of
    width 1 around its value. ``label`` names the values in the legend. Compute once
    per matrix, reuse per update.
    """
    matrix = plots._as_shaped(matrix, "matrix", 2, "(rows, cols)")
    label = plots._check_str(label, "label")
    vmin, vmax = plots._color_limits(matrix, vmin, vmax)
    rgba, text = plots._cell_colors(matrix, vmin, vmax, cmap)
    background = _css_grid(rgba)
    stops, _ = plots._cell_colors(np.linspace(vmin, vmax, 9)[None, :], vmin, vmax, cmap)
    gradient = ", ".join(_css_grid(stops)[0])
    legend = (
        '<div class="attnlib-legend" style="display:flex;align-items:center;gap:6px;'
        'font-size:11px;margin-top:4px">'
        f"<span>{html.escape(label)}:</span><span>{vmin:.4f}</span>"
        f'<span style="width:140px;height:10px;background:linear-gradient(to right, {gradient})">'
        f"</span><span>{vmax:.4f}</span></div>"
    )
    return HeatmapColors(background, tuple(map(tuple, text.tolist())), vmin, vmax, legend)


# One stylesheet per table, namespaced by the table's class; cells carry only their colours.
# Highlights are a black outline with a white inner ring: visible on the darkest and the
# lightest colours.
_STYLE = (
    "<style>"
    ".attnlib-heatmap{border-collapse:collapse;font-family:monospace;font-size:12px;margin:4px 0}"
    ".attnlib-heatmap caption{caption-side:top;text-align:left;font-size:11px}"
    ".attnlib-heatmap th{padding:3px 6px;font-weight:normal;white-space:nowrap}"
    ".attnlib-heatmap tr>th:first-child{text-align:right}"
    ".attnlib-heatmap td{padding:3px 6px;text-align:right;min-width:3.5em;border:1px solid #fff}"
    ".attnlib-heatmap .attnlib-highlight-row>th{font-weight:bold}"
    ".attnlib-heatmap .attnlib-highlight-row>td{border-top:3px solid #000;"
    "border-bottom:3px solid #000;box-shadow:inset 0 2px 0 #fff,inset 0 -2px 0 #fff}"
    ".attnlib-heatmap .attnlib-highlight-row>th+td{border-left:3px solid #000}"
    ".attnlib-heatmap .attnlib-highlight-row>td:last-child{border-right:3px solid #000}"
    ".attnlib-heatmap td.attnlib-highlight-cell{border:3px solid #000;"
    "box-shadow:inset 0 0 0 2px #fff}"
    f".attnlib-heatmap td.attnlib-masked{{background:{plots.MASKED_COLOR};color:#000}}"
    ".attnlib-heatmap .attnlib-total{font-style:italic}"
    ".attnlib-heatmap td.attnlib-sum-one{font-weight:bold;background:#e8f5e9}"
    "</style>"
)


def html_heatmap(
    matrix: Any,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    cmap: str = "viridis",
    colors: HeatmapColors | None = None,
    highlight_row: int | None = None,
    highlight_cell: tuple[int, int] | None = None,
    fmt: str = "{:.4f}",
    caption: str = "rows: queries, columns: keys",
    row_totals: Any = None,
    col_totals: Any = None,
    masked: Any = None,
) -> str:
    """An HTML ``table.attnlib-heatmap`` of ``matrix`` ``(rows, cols)``, coloured as plots.heatmap.

    Cells are ``<td data-row=i data-col=j>value</td>`` with the value formatted
    by ``fmt``; NaN cells are blank (``data-empty``), -inf cells grey
    (``td.attnlib-masked``). ``highlight_row`` outlines a row
    (``tr.attnlib-highlight-row``), ``highlight_cell=(i, j)`` one cell
    (``td.attnlib-highlight-cell``). ``colors`` (from :func:`heatmap_colors`)
    skips the colormap lookups; otherwise ``vmin``, ``vmax`` and ``cmap`` are
    used. ``row_totals`` ``(rows,)`` / ``col_totals`` ``(cols,)`` add a sum column
    / row (``data-col="sum"`` / ``data-row="sum"``), marked ``attnlib-sum-one``
    where the sum is 1. ``masked``, a bool ``(rows, cols)``, greys the cells where
    it is True (``td.attnlib-masked``) but keeps their value: e.g. the 0 weight
    that a causal mask's -inf score becomes.
    """
    values = plots._as_shaped(matrix, "matrix", 2, "(rows, cols)")
    rows, cols = values.shape
    shape = f"shape {values.shape}"
    row_labels = plots._check_labels(
        row_labels, "row_labels", rows, f"one per row of matrix, {shape}"
    )
    col_labels = plots._check_labels(
        col_labels, "col_labels", cols, f"one per column of matrix, {shape}"
    )
    highlight_row = plots._check_index(highlight_row, "highlight_row", rows)
    highlight_cell = plots._check_cell(highlight_cell, "highlight_cell", rows, cols)
    fmt = plots._check_fmt(fmt)
    caption = plots._check_str(caption, "caption")
    row_sums = _check_totals(row_totals, "row_totals", rows, f"one per row of matrix, {shape}")
    col_sums = _check_totals(col_totals, "col_totals", cols, f"one per column of matrix, {shape}")
    if colors is None:
        colors = heatmap_colors(values, vmin, vmax, cmap)
    elif not isinstance(colors, HeatmapColors):
        raise ValueError(
            f"colors: expected None or HeatmapColors from heatmap_colors(), got {describe(colors)}"
        )
    elif len(colors.background) != rows or len(colors.background[0]) != cols:
        raise ValueError(
            f"colors: expected colours for a {rows}x{cols} matrix, "
            f"got {len(colors.background)}x{len(colors.background[0])}"
        )
    hl_i, hl_j = highlight_cell if highlight_cell is not None else (-1, -1)
    hidden = None
    if masked is not None:
        try:
            hidden = np.asarray(masked.cpu() if isinstance(masked, torch.Tensor) else masked)
        except (ValueError, TypeError, RuntimeError):  # e.g. ragged nested lists
            hidden = None
        if hidden is None or hidden.dtype != np.bool_ or hidden.shape != values.shape:
            raise ValueError(
                f"masked: expected a bool array of shape {values.shape}, got {describe(masked)}"
            )
        hidden = hidden.tolist()

    head = "".join(f"<th>{html.escape(c)}</th>" for c in col_labels)
    if row_sums is not None:
        head += '<th class="attnlib-total">row sum</th>'
    parts = [
        _STYLE,
        '<table class="attnlib-heatmap">',
        f"<caption>{html.escape(caption)}</caption>",
        f"<tr><th></th>{head}</tr>",
    ]
    for i, row in enumerate(values.tolist()):
        label = html.escape(row_labels[i])
        if i == highlight_row:
            parts.append(f'<tr class="attnlib-highlight-row" data-row="{i}"><th>▶ {label}</th>')
        else:
            parts.append(f'<tr data-row="{i}"><th>{label}</th>')
        background, text = colors.background[i], colors.text[i]
        for j, value in enumerate(row):
            hide = hidden is not None and hidden[i][j]
            if hide or (i == hl_i and j == hl_j) or not math.isfinite(value):
                parts.append(_td(i, j, value, fmt, colors, i == hl_i and j == hl_j, hide))
            else:  # the common plain cell, inlined: a 32x32 grid is redrawn per slider step
                parts.append(
                    f'<td data-row="{i}" data-col="{j}" '
                    f'style="background:{background[j]};color:{text[j]}">{fmt.format(value)}</td>'
                )
        if row_sums is not None:
            parts.append(_total_td(row_sums[i], f'data-row="{i}" data-col="sum"'))
        parts.append("</tr>")
    if col_sums is not None:
        parts.append('<tr data-row="sum"><th class="attnlib-total">column sum</th>')
        parts.extend(_total_td(s, f'data-row="sum" data-col="{j}"') for j, s in enumerate(col_sums))
        parts.append("</tr>")
    parts.append("</table>")
    parts.append(colors.legend)
    return "".join(parts)


def _check_totals(totals: Any, name: str, size: int, what: str) -> list[float] | None:
    """``None``, or ``totals`` ``(size,)`` as a list of floats."""
    if totals is None:
        return None
    values = plots._as_shaped(totals, name, 1, f"({size},), {what}")
    if values.shape != (size,):
        raise ValueError(f"{name}: expected shape ({size},), {what}, got shape {values.shape}")
    return values.tolist()


def _td(
    i: int,
    j: int,
    value: float,
    fmt: str,
    colors: HeatmapColors,
    highlight: bool,
    masked: bool = False,
) -> str:
    classes = ["attnlib-highlight-cell"] if highlight else []
    if value != value:  # NaN: not computed (yet), a blank cell
        attrs, text = ' data-empty="1"', ""
    elif masked or value in (float("inf"), float("-inf")):
        # No inline colour: the stylesheet's grey for td.attnlib-masked must win.
        classes.append("attnlib-masked")
        # fmt itself for a masked weight (0): _format_value's numpy checks cost per cell.
        text = fmt.format(value) if math.isfinite(value) else plots._format_value(value, fmt)
        attrs = ""
    else:
        style = f"background:{colors.background[i][j]};color:{colors.text[i][j]}"
        attrs, text = f' style="{style}"', fmt.format(value)
    if classes:
        attrs += f' class="{" ".join(classes)}"'
    return f'<td data-row="{i}" data-col="{j}"{attrs}>{text}</td>'


def _total_td(total: float, attrs: str) -> str:
    one = abs(total - 1.0) <= _SUM_TOL
    css = "attnlib-total attnlib-sum-one" if one else "attnlib-total"
    return f'<td {attrs} class="{css}">{total:.4f}</td>'


# ----------------------------------------------------------------------------- explorers


def _query_panel(
    explorer: Any, view: Any, tokens: Sequence[str], table: str
) -> list[tuple[widgets.Widget, str]]:
    """What a query-centred explorer shows: token label, heatmap, the row's bars, z."""
    token = f'<b class="attnlib-token">x({view.query}) = {html.escape(repr(view.token))}</b>'
    return [
        (explorer.token_label, token),
        (explorer.heatmap, table),
        (explorer.bars, _html_bars(view.weights.tolist(), tokens, view.query)),
        (explorer.formula, _html_text(view.text, "attnlib-formula")),
    ]


def _axis_toggle(value: int) -> widgets.ToggleButtons:
    """The softmax-axis control shared by the explorers: ``.value`` is -1 or 0."""
    return widgets.ToggleButtons(
        options=[("dim=-1 (across each row)", -1), ("dim=0 (down each column)", 0)],
        value=value,
        description="softmax",
        style={"button_width": "auto"},  # the labels are long; fixed widths cut them off
    )


def _html_text(text: str, css_class: str) -> str:
    style = "font-family:monospace;font-size:12px;white-space:pre-wrap"
    return f'<div class="{css_class}" style="{style}">{html.escape(text)}</div>'


class _Explorer:
    """Shared wiring: a root VBox, a status line, safe updates, Jupyter display."""

    _css_class = "attnlib-explorer"

    def _finish(
        self,
        children: list[widgets.Widget],
        controls: list[widgets.Widget],
        other_controls: Sequence[widgets.Widget] = (),
    ) -> None:
        """Build the root box around ``children``, wire ``controls`` to :meth:`_on_change`
        and draw the first view, ``self._view``.

        ``other_controls``: controls wired elsewhere (the sentence box, the play button).
        Every control, wired here or not, gets the CSS class ``attnlib-control-<name>``
        from the attribute that holds it (``self.query`` -> ``attnlib-control-query``).
        """
        self.status = widgets.HTML(value="")
        self.status.add_class("attnlib-status")
        self.last_error: Exception | None = None
        self.widget = widgets.VBox(children + [self.status])
        self.widget.add_class("attnlib-explorer")
        self.widget.add_class(self._css_class)
        names = {id(value): name for name, value in vars(self).items()}
        for control in [*controls, *other_controls]:
            if id(control) not in names:
                raise AssertionError(f"{type(control).__name__} control is not an attribute")
            control.add_class(f"attnlib-control-{names[id(control)]}")
        for control in controls:
            control.observe(self._on_change, names="value")
        for widget, value in self._render(self._view):
            widget.value = value

    @property
    def view(self) -> Any:
        """The data shown now (the last view that was drawn without error)."""
        return self._view

    def _on_change(self, change: dict | None = None) -> None:
        self._update(self._compute)

    def _update(
        self, compute: Callable[[], Any], commit: Callable[[Any], None] | None = None
    ) -> bool:
        """Draw ``compute()``'s view; on error show it in ``status`` and keep the old view.

        Everything is computed first and assigned after (``commit(view)`` first, then
        the widgets), so an error leaves the old view, its HTML and the explorer's
        state whole. Returns whether the new view was drawn.
        """
        try:
            view = compute()
            updates = self._render(view)
        except Exception as exc:  # shown to the reader, never swallowed
            self._show_error(exc)
            return False
        if commit is not None:
            commit(view)
        for widget, value in updates:
            widget.value = value
        self._view = view
        self._clear_error()
        return True

    def _show_error(self, exc: Exception) -> None:
        self.last_error = exc
        message = html.escape(f"{type(exc).__name__}: {exc}")
        self.status.value = (
            f'<div class="attnlib-error" style="color:{_ERROR_COLOR};font-weight:bold">'
            f"⚠ {message} (still showing the last good view)</div>"
        )

    def _clear_error(self) -> None:
        self.last_error = None
        self.status.value = ""

    def _compute(self) -> Any:
        raise NotImplementedError

    def _render(self, view: Any) -> list[tuple[widgets.Widget, str]]:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        # The default text is the widget tree, whose values change; where no live kernel
        # draws the widget (GitHub, a saved notebook) the reader sees this line instead.
        bundle["text/plain"] = (
            f"{type(self).__name__}: a live explorer. Run this cell in JupyterLab to use it."
        )
        return bundle


class QueryExplorer(_Explorer):
    """Move the query token and watch its row of weights and its context vector.

    ``inputs``: ``(num_tokens, d_in)``, default the book's ``example_inputs()``;
    ``tokens``: one str per input, default the book's six tokens (or ``t0, t1, ...``
    for custom inputs). Controls: ``query``, an IntSlider whose value is the query
    index (the token shows beside it). ``view``: a :class:`QueryView`.
    """

    _css_class = "attnlib-query-explorer"

    def __init__(self, inputs: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        self.inputs, self.tokens = _resolve(inputs, tokens, example_inputs(), "inputs")
        num_tokens = self.inputs.shape[0]
        # The weights do not depend on the query: computed and coloured once.
        self._attn_weights = _query_weights(self.inputs)
        self._colors = heatmap_colors(self._attn_weights, label="attention weight")
        start = min(1, num_tokens - 1)  # the book's query, "journey"
        self._view = _query_view(self.inputs, self.tokens, self._attn_weights, start)
        self.query = widgets.IntSlider(
            value=start, min=0, max=num_tokens - 1, description="query", continuous_update=True
        )
        self.token_label = widgets.HTML()
        self.heatmap = widgets.HTML()
        self.heatmap.add_class("attnlib-weights-heatmap")
        self.bars = widgets.HTML()
        self.formula = widgets.HTML()
        controls = widgets.HBox([self.query, self.token_label])
        self._finish([controls, self.heatmap, self.bars, self.formula], [self.query])

    def _compute(self) -> QueryView:
        return _query_view(self.inputs, self.tokens, self._attn_weights, self.query.value)

    def _render(self, view: QueryView) -> list[tuple[widgets.Widget, str]]:
        table = html_heatmap(
            view.attn_weights,
            self.tokens,
            self.tokens,
            colors=self._colors,
            highlight_row=view.query,
            caption="attention weights: rows = queries, columns = keys",
        )
        return _query_panel(self, view, self.tokens, table)

    def figure(self) -> Figure:
        """The current view as a matplotlib Figure (heatmap and weights bar), for static pages."""
        view = self._view
        fig = plots.new_figure((11, 4.2))
        left, right = fig.subplots(1, 2, width_ratios=[1.2, 1])
        plots.heatmap(
            view.attn_weights,
            self.tokens,
            self.tokens,
            ax=left,
            highlight_row=view.query,
            vmin=self._colors.vmin,
            vmax=self._colors.vmax,
            colorbar_label="attention weight",
            title="attention weights",
            fmt="{:.2f}",
        )
        plots.weights_bar(view.weights, self.tokens, ax=right, query=view.query)
        fig.suptitle(view.text, fontsize=8, wrap=True)
        return fig


def _html_bars(weights: list[float], tokens: Sequence[str], query: int) -> str:
    """One query's weights as horizontal bars (``div[data-col=j]``), with their sum."""
    top = max(max(weights), 1e-12)
    rows = []
    for j, (w, token) in enumerate(zip(weights, tokens, strict=True)):
        color = plots.QUERY_COLOR if j == query else plots.INPUT_COLOR
        rows.append(
            f'<div data-col="{j}" style="display:flex;align-items:center;gap:6px">'
            f'<span style="width:7em;text-align:right">{html.escape(token)}</span>'
            f'<span style="display:inline-block;height:10px;width:{120 * max(w, 0) / top:.1f}px;'
            f'background:{color}"></span><span>{w:.4f}</span></div>'
        )
    return (
        '<div class="attnlib-bars" style="font-family:monospace;font-size:12px">'
        f"<div>weights of query {query} over the keys (sum {sum(weights):.4f}):</div>"
        + "".join(rows)
        + "</div>"
    )


class SoftmaxAxisExplorer(_Explorer):
    """Flip the softmax axis and see which direction sums to 1.

    ``scores``: ``(num_tokens, num_tokens)`` attention scores (``-inf`` allowed
    for masked cells), default ``attention_scores(example_inputs())``. Controls:
    ``dim``, ToggleButtons with value -1 (across each row) or 0 (down each
    column). ``view``: a :class:`SoftmaxView`.
    """

    _css_class = "attnlib-softmax-explorer"

    def __init__(self, scores: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        default = attention_scores(example_inputs())
        self.scores, self.tokens = _resolve(scores, tokens, default, "attn_scores")
        self._view = _softmax_view(self.scores, -1)
        # Both axes' weights share one colour scale, so flipping compares like with like.
        other = _softmax_view(self.scores, 0)
        both = torch.cat([self._view.attn_weights, other.attn_weights])
        limits = plots._color_limits(both)
        self._colors = {
            v.dim: heatmap_colors(v.attn_weights, *limits, label="attention weight")
            for v in (self._view, other)
        }
        self.dim = _axis_toggle(-1)
        self.heatmap = widgets.HTML()
        self.explanation = widgets.HTML()
        self._finish([self.dim, self.heatmap, self.explanation], [self.dim])

    def _compute(self) -> SoftmaxView:
        return _softmax_view(self.scores, self.dim.value)

    def _render(self, view: SoftmaxView) -> list[tuple[widgets.Widget, str]]:
        table = html_heatmap(
            view.attn_weights,
            self.tokens,
            self.tokens,
            colors=self._colors[view.dim],
            row_totals=view.row_sums,
            col_totals=view.col_sums,
            caption=f"softmax(attn_scores, dim={view.dim}): rows = queries, columns = keys",
        )
        return [
            (self.heatmap, table),
            (self.explanation, _html_text(view.text, "attnlib-explanation")),
        ]

    def figure(self) -> Figure:
        """The current weights as a matplotlib Figure, with the current axis in the title."""
        view = self._view
        colors = self._colors[view.dim]
        return plots.heatmap(
            view.attn_weights,
            self.tokens,
            self.tokens,
            vmin=colors.vmin,
            vmax=colors.vmax,
            colorbar_label="attention weight",
            title=f"softmax(attn_scores, dim={view.dim})",
        )


class LoopStepper(_Explorer):
    """Step through the nested loops that fill the score grid one dot product at a time.

    ``inputs``: ``(num_tokens, d_in)``, default the book's. Controls: ``step``,
    an IntSlider over the iterations ``0 .. num_tokens**2 - 1`` (0-based; step k
    means iterations 0..k are done, the current cell is ``divmod(k, num_tokens)``),
    and ``play``, which runs it in the browser. ``view``: a :class:`LoopView`.
    """

    _css_class = "attnlib-loop-stepper"

    def __init__(self, inputs: torch.Tensor | None = None, tokens: Sequence[str] | None = None):
        self.inputs, self.tokens = _resolve(inputs, tokens, example_inputs(), "inputs")
        num_tokens = self.inputs.shape[0]
        last = num_tokens * num_tokens - 1
        # The finished grid does not depend on the step: computed and coloured once, so a
        # cell keeps its colour once filled.
        self._all_scores = _loop_scores(self.inputs)
        self._colors = heatmap_colors(self._all_scores, label="attention score")
        self._view = _loop_view(self.inputs, self.tokens, self._all_scores, 0)
        self.step = widgets.IntSlider(
            value=0, min=0, max=last, description="iteration", continuous_update=True
        )
        self.play = widgets.Play(value=0, min=0, max=last, interval=500, description="play")
        widgets.jslink((self.play, "value"), (self.step, "value"))
        self.position = widgets.HTML()
        self.heatmap = widgets.HTML()
        self.formula = widgets.HTML()
        controls = widgets.HBox([self.play, self.step, self.position])
        self._finish([controls, self.heatmap, self.formula], [self.step], [self.play])

    def _compute(self) -> LoopView:
        return _loop_view(self.inputs, self.tokens, self._all_scores, self.step.value)

    def _render(self, view: LoopView) -> list[tuple[widgets.Widget, str]]:
        num_tokens = len(self.tokens)
        table = html_heatmap(
            view.scores,
            self.tokens,
            self.tokens,
            colors=self._colors,
            highlight_cell=(view.i, view.j),
            caption="attention scores: rows = queries (i), columns = keys (j)",
        )
        where = (
            f"iteration {view.step + 1} of {num_tokens * num_tokens}: "
            f"i = {view.i} ({self.tokens[view.i]}), j = {view.j} ({self.tokens[view.j]})"
        )
        code = f"attn_scores[{view.i}, {view.j}] = torch.dot(x_{view.i}, x_{view.j})"
        return [
            (self.position, _html_text(where, "attnlib-position")),
            (self.heatmap, table),
            (
                self.formula,
                _html_text(code, "attnlib-code") + _html_text(view.text, "attnlib-formula"),
            ),
        ]

    def figure(self) -> Figure:
        """The grid so far as a matplotlib Figure, the current cell outlined."""
        view = self._view
        return plots.heatmap(
            view.scores,
            self.tokens,
            self.tokens,
            vmin=self._colors.vmin,
            vmax=self._colors.vmax,
            highlight_cell=(view.i, view.j),
            colorbar_label="attention score",
            title=view.text,
        )


# ----------------------------------------------------------------------------- AttentionExplorer

#: The book's sentence; any case and spacing of it gets the book's embeddings.
DEFAULT_SENTENCE = "Your journey starts with one step"

#: The temperature slider's range (a temperature given outside it widens the slider).
TEMPERATURE_RANGE = (0.1, 5.0)


def sentence_inputs(sentence: str, seed: int = 123) -> tuple[tuple[str, ...], torch.Tensor]:
    """The tokens of ``sentence`` and their ``inputs`` ``(num_tokens, 3)``.

    The book's sentence (in any case, with any spacing) gets the book's
    embeddings, :func:`attnlib.data.example_inputs`, so the explorer shows the
    book's numbers; any other sentence gets :func:`attnlib.data.embed` with
    ``d=3`` and ``seed``. Raises ``ValueError`` for an empty sentence or one of
    more than ``attnlib.data.MAX_TOKENS`` (32) tokens.
    """
    if not isinstance(sentence, str):
        raise ValueError(f"sentence: expected a str, got {describe(sentence)}")
    check_int(seed, "seed", minimum=0)
    if " ".join(sentence.split()).lower() == DEFAULT_SENTENCE.lower():
        return tuple(tokenize(sentence)), example_inputs()
    tokens, inputs = embed(sentence, d=3, seed=seed)
    return tuple(tokens), inputs


@dataclass(frozen=True, eq=False)
class HeadProjections:
    """Every head's query, key and value weights, each ``(num_heads, d_in, head_dim)``.

    Head ``h`` projects ``inputs`` ``(num_tokens, d_in)`` to its queries
    ``inputs @ W_query[h]``, ``(num_tokens, head_dim)``, and likewise its keys and
    values. :meth:`from_module` cuts them out of a
    :class:`attnlib.modules.MultiHeadAttention`.
    """

    W_query: torch.Tensor
    W_key: torch.Tensor
    W_value: torch.Tensor

    def __post_init__(self) -> None:
        shape = None
        for name in ("W_query", "W_key", "W_value"):
            weight = getattr(self, name)
            as_float_tensor(weight, name)
            check_rank(weight, name, (3,), "(num_heads, d_in, head_dim)")
            if weight.numel() == 0:
                raise ValueError(f"{name}: expected no empty axis, got shape {tuple(weight.shape)}")
            if shape is not None and weight.shape != shape:
                raise ValueError(
                    f"{name}: expected the shape of W_query, {tuple(shape)}, "
                    f"got {tuple(weight.shape)}"
                )
            shape = weight.shape

    @property
    def num_heads(self) -> int:
        return self.W_query.shape[0]

    @property
    def d_in(self) -> int:
        return self.W_query.shape[1]

    @property
    def head_dim(self) -> int:
        return self.W_query.shape[2]

    @classmethod
    def from_module(cls, module: MultiHeadAttention) -> HeadProjections:
        """The per-head weights of ``module`` (built with ``qkv_bias=False``), detached."""
        if not isinstance(module, MultiHeadAttention):
            raise ValueError(
                f"module: expected an attnlib.modules.MultiHeadAttention, got {describe(module)}"
            )
        if module.W_query.bias is not None:
            raise ValueError("module: expected qkv_bias=False (no bias to add), got qkv_bias=True")
        num_heads, head_dim = module.num_heads, module.head_dim

        def split(linear: torch.nn.Linear) -> torch.Tensor:
            # nn.Linear computes x @ weight.T with weight (d_out, d_in). The module's forward
            # cuts the d_out outputs into consecutive pieces of head_dim, one per head, so
            # head h owns output columns h*head_dim:(h+1)*head_dim of weight.T.
            weight = linear.weight.detach().T  # (d_in, d_out)
            per_head = weight.reshape(module.d_in, num_heads, head_dim)
            return per_head.permute(1, 0, 2).contiguous()  # (num_heads, d_in, head_dim)

        return cls(split(module.W_query), split(module.W_key), split(module.W_value))


@dataclass(frozen=True, eq=False)
class AttentionView:
    """What :class:`AttentionExplorer` shows for one setting of its controls.

    ``inputs``: ``(num_tokens, d_in)``; ``queries``, ``keys``, ``values``:
    ``(num_tokens, d)``, the inputs themselves for simplified self-attention
    (``d = d_in``), else head ``head``'s projections (``d = head_dim``);
    ``attn_scores``: ``(num_tokens, num_tokens)``, ``queries @ keys.T`` before
    scaling and masking; ``scaled_scores``: what enters softmax,
    ``attn_scores * scale / temperature`` with ``-inf`` where ``masked``;
    ``masked``: bool ``(num_tokens, num_tokens)``, True above the diagonal when
    ``causal``; ``attn_weights``: ``softmax(scaled_scores, dim)``; ``weights``:
    row ``query`` of it, ``(num_tokens,)``; ``context``: ``(d,)``,
    ``weights @ values``; ``row_sums`` / ``col_sums``: ``(num_tokens,)``;
    ``scale``: 1 without heads, ``1 / sqrt(head_dim)`` with; ``head``: 0 without
    heads; ``text``: the settings, the query's scores and its context vector
    written out.
    """

    tokens: tuple[str, ...]
    query: int
    token: str
    dim: int
    causal: bool
    temperature: float
    head: int
    num_heads: int
    scale: float
    inputs: torch.Tensor
    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    attn_scores: torch.Tensor
    scaled_scores: torch.Tensor
    masked: torch.Tensor
    attn_weights: torch.Tensor
    weights: torch.Tensor
    context: torch.Tensor
    row_sums: torch.Tensor
    col_sums: torch.Tensor
    text: str


def _check_causal(causal: Any) -> bool:
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"causal: expected True or False, got {describe(causal)}")
    return bool(causal)


def _check_temperature(temperature: Any) -> float:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.floating)):
        raise ValueError(f"temperature: expected a number > 0, got {describe(temperature)}")
    # Written so that NaN fails too; inf would make every weight equal and is refused.
    if not 0 < temperature < float("inf"):
        raise ValueError(f"temperature: expected a finite number > 0, got {temperature!r}")
    return float(temperature)


def attention_view(
    inputs: torch.Tensor,
    tokens: Sequence[str],
    *,
    query: int,
    dim: int = -1,
    causal: bool = False,
    temperature: float = 1.0,
    head: int = 0,
    projections: HeadProjections | None = None,
) -> AttentionView:
    """Attention of every token of ``inputs`` ``(num_tokens, d_in)``, seen from ``query``.

    Without ``projections``: the simplified self-attention of the first notebooks,
    queries = keys = values = ``inputs`` and no scaling. With ``projections``:
    head ``head``'s queries, keys and values, and the scale ``1 / sqrt(head_dim)``.
    Then ``attn_scores = queries @ keys.T``; with ``causal`` the scores above the
    diagonal become ``-inf``; ``attn_weights = softmax(attn_scores * scale /
    temperature, dim)`` (a small temperature sharpens, a large one flattens), computed
    by :func:`attnlib.attention.attention_weights`; ``context = attn_weights[query] @
    values``. Raises ``ValueError`` if the scores overflow (the weights would be NaN).
    """
    inputs = _check_inputs(inputs)
    num_tokens = inputs.shape[0]
    tokens = _check_tokens(tokens, num_tokens, f"inputs, shape {tuple(inputs.shape)}")
    query = _check_control(query, "query", 0, num_tokens - 1)
    dim, causal = _check_dim(dim), _check_causal(causal)
    temperature = _check_temperature(temperature)
    if projections is None:
        head = _check_control(head, "head", 0, 0)
    else:
        if not isinstance(projections, HeadProjections):
            raise ValueError(
                f"projections: expected None or HeadProjections, got {describe(projections)}"
            )
        if projections.d_in != inputs.shape[1]:
            raise ValueError(
                f"projections: expected d_in = {inputs.shape[1]} (as inputs), "
                f"got weights of shape {tuple(projections.W_query.shape)}"
            )
        head = _check_control(head, "head", 0, projections.num_heads - 1)
    grid = _attention_grid(
        inputs, dim=dim, causal=causal, temperature=temperature, head=head, projections=projections
    )
    return _attention_view(grid, tokens, query)


@dataclass(frozen=True)
class _AttentionGrid:
    """Everything of an :class:`AttentionView` that does not depend on the query."""

    dim: int
    causal: bool
    temperature: float
    head: int
    num_heads: int
    scale: float
    inputs: torch.Tensor
    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    attn_scores: torch.Tensor
    scaled_scores: torch.Tensor
    masked: torch.Tensor
    attn_weights: torch.Tensor
    context_vecs: torch.Tensor
    row_sums: torch.Tensor
    col_sums: torch.Tensor


def _attention_grid(
    inputs: torch.Tensor,
    *,
    dim: int,
    causal: bool,
    temperature: float,
    head: int,
    projections: HeadProjections | None,
) -> _AttentionGrid:
    """The weights of every query for valid settings (see :func:`attention_view`)."""
    num_tokens = inputs.shape[0]
    if projections is None:
        # Simplified self-attention is attention with identity projections and no scale.
        queries = keys = values = inputs
        scale, num_heads = 1.0, 1
    else:
        num_heads = projections.num_heads
        inputs_ = inputs.to(projections.W_query.dtype)
        queries = inputs_ @ projections.W_query[head]  # (num_tokens, head_dim)
        keys = inputs_ @ projections.W_key[head]
        values = inputs_ @ projections.W_value[head]
        scale = 1.0 / math.sqrt(projections.head_dim)

    # One factor, as the module's softmax(scores * scale) at temperature 1.
    factor = scale / temperature
    if not math.isfinite(factor):  # a temperature below ~1e-308
        raise ValueError(
            f"temperature: expected a number for which scale / temperature is finite, "
            f"got {temperature!r} (scale {scale:g}); raise the temperature"
        )
    attn_scores = queries @ keys.T  # (num_tokens, num_tokens), before scaling and masking
    if causal:
        masked = causal_mask(num_tokens)
        # What attention_weights feeds to softmax, for the text: -inf stays -inf when scaled.
        scaled_scores = attn_scores.masked_fill(masked, float("-inf")) * factor
    else:
        masked = torch.zeros(num_tokens, num_tokens, dtype=torch.bool)
        scaled_scores = attn_scores * factor
    _check_no_overflow(attn_scores, _dot_overflow(queries, keys), "scale the inputs down")
    attn_weights = attention_weights(
        queries, keys, scale=factor, causal=causal, dim=-1 if dim == -1 else -2
    )
    _check_no_overflow(
        attn_weights,
        lambda: (
            f"attn_scores * {scale:g} / temperature {temperature:g} go beyond the largest "
            f"{attn_scores.dtype}"
        ),
        "raise the temperature",
    )
    return _AttentionGrid(
        dim=dim,
        causal=causal,
        temperature=temperature,
        head=head,
        num_heads=num_heads,
        scale=scale,
        inputs=inputs,
        queries=queries,
        keys=keys,
        values=values,
        attn_scores=attn_scores,
        scaled_scores=scaled_scores,
        masked=masked,
        attn_weights=attn_weights,
        context_vecs=context_vectors(attn_weights, values),
        row_sums=attn_weights.sum(dim=1),
        col_sums=attn_weights.sum(dim=0),
    )


def _attention_view(grid: _AttentionGrid, tokens: tuple[str, ...], query: int) -> AttentionView:
    """``grid`` seen from ``query``: its row of weights and its context vector.

    Views of one grid share its tensors (the explorer reuses a grid while only the
    query moves), so treat them as read-only.
    """
    view = {
        f.name: getattr(grid, f.name) for f in fields(_AttentionGrid) if f.name != "context_vecs"
    }
    view.update(
        tokens=tokens,
        query=query,
        token=tokens[query],
        weights=grid.attn_weights[query],
        context=grid.context_vecs[query],
    )
    return AttentionView(**view, text=_attention_text(**view))


def _attention_text(
    *,
    tokens: tuple[str, ...],
    query: int,
    dim: int,
    causal: bool,
    temperature: float,
    head: int,
    num_heads: int,
    scale: float,
    attn_scores: torch.Tensor,
    scaled_scores: torch.Tensor,
    weights: torch.Tensor,
    context: torch.Tensor,
    row_sums: torch.Tensor,
    col_sums: torch.Tensor,
    **_: Any,
) -> str:
    """The view in words: settings, the query's scores before and after softmax, its z."""
    axis = "across each row" if dim == -1 else "down each column"
    settings = (
        f"query {query} {tokens[query]!r} | softmax dim={dim} ({axis}) | "
        f"causal mask {'on' if causal else 'off'} | temperature {temperature:g}"
    )
    if num_heads == 1:
        rule = f"attn_weights = softmax(attn_scores / temperature, dim={dim})"
        vector = "x"
    else:
        head_dim = context.shape[0]
        rule = (
            f"head {head} of {num_heads}: attn_weights = "
            f"softmax(queries @ keys.T / sqrt({head_dim}) / temperature, dim={dim})"
        )
        vector = "v"
    lines = [settings, rule, f"attn_scores[{query}] = {_vector(attn_scores[query].tolist())}"]
    if scale != 1.0 or temperature != 1.0 or causal:
        row = scaled_scores[query].tolist()
        shown = ", ".join("-inf" if v == float("-inf") else f"{v:.4f}" for v in row)
        lines.append(f"into softmax: [{shown}]")
    terms = " + ".join(
        f"{w:.4f}·{vector}({t})" for w, t in zip(weights.tolist(), tokens, strict=True)
    )
    lines.append(f"z({tokens[query]}) = {terms} = {_vector(context.tolist())}")
    total = weights.sum().item()
    ones = torch.ones_like(row_sums)
    if dim == -1:
        sums = "every row sums to 1"
        if causal:
            sums += "; masked weights are 0"
    else:
        sums = "every column sums to 1"
        if not torch.allclose(row_sums, ones, atol=_SUM_TOL):
            sums += (
                f"; row {query} sums to {total:.4f}, so z is not a weighted average "
                "(use dim=-1 for that)"
            )
    if not torch.allclose(col_sums, ones, atol=_SUM_TOL) and dim == -1:
        sums += f"; the columns do not ({_span(col_sums)})"
    lines.append(sums)
    return "\n".join(lines)


class AttentionExplorer(_Explorer):
    """Attention on a sentence of your own: every knob of the chapter in one place.

    ``sentence``: the text to attend over (at most 32 tokens); the book's sentence
    (any case or spacing) uses the book's embeddings, any other sentence
    :func:`attnlib.data.embed` with ``d=3`` and ``seed``. With ``num_heads == 1``
    the explorer shows simplified self-attention (no weights, no scaling); with
    ``num_heads > 1`` a :class:`attnlib.modules.MultiHeadAttention` with
    ``d_out`` (default ``2 * num_heads``; must be divisible by ``num_heads``) is
    built after ``torch.manual_seed(seed)`` (the reader's own random state is
    restored afterwards) and the selected head is shown.

    Controls (each an ipywidgets control with a ``.value``):

    - ``sentence``: Text; applied on Enter or leaving the box;
    - ``query``: IntSlider over ``0 .. num_tokens - 1`` (follows the sentence);
    - ``dim``: ToggleButtons, -1 (across each row) or 0 (down each column);
    - ``causal``: Checkbox, hide the later tokens;
    - ``temperature``: FloatSlider, 0.1 .. 5.0; the scores are divided by it;
    - ``head``: IntSlider over the heads, or ``None`` when ``num_heads == 1``.

    ``view``: an :class:`AttentionView`; ``module``: the MultiHeadAttention or
    ``None``. A bad sentence shows its error in ``status`` and the last good view
    stays; bad constructor arguments raise ``ValueError``.
    """

    _css_class = "attnlib-attention-explorer"

    def __init__(
        self,
        sentence: str = DEFAULT_SENTENCE,
        *,
        num_heads: int = 1,
        d_out: int | None = None,
        seed: int = 123,
        query: int = 1,
        dim: int = -1,
        causal: bool = False,
        temperature: float = 1.0,
    ):
        self._seed = check_int(seed, "seed", minimum=0)
        check_int(num_heads, "num_heads", minimum=1)
        self.module: MultiHeadAttention | None = None
        self.projections: HeadProjections | None = None
        if num_heads == 1:
            if d_out is not None:
                raise ValueError(
                    "d_out: expected None with num_heads=1 (simplified self-attention has no "
                    f"projections), got {describe(d_out)}"
                )
        else:
            d_out = 2 * num_heads if d_out is None else d_out
            check_int(d_out, "d_out", minimum=1)
            if d_out % num_heads:
                raise ValueError(
                    f"d_out: expected a multiple of num_heads={num_heads} (each head gets "
                    f"d_out // num_heads dimensions), got {d_out}"
                )
            # The book's way to fix the weights, without moving the reader's random stream.
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                module = MultiHeadAttention(
                    d_in=3,
                    d_out=d_out,
                    context_length=MAX_TOKENS,
                    dropout=0.0,
                    num_heads=num_heads,
                )
            self.module = module.eval().requires_grad_(False)
            self.projections = HeadProjections.from_module(self.module)
        tokens, inputs = sentence_inputs(sentence, seed)
        if not isinstance(query, bool) and isinstance(query, int) and query >= len(tokens) > 0:
            # The default query 1 is the book's "journey"; a one-word sentence has no index 1.
            hint = "; pass query=0" if len(tokens) == 1 else ""
            raise ValueError(
                f"query: expected an int in [0, {len(tokens) - 1}] (the sentence has "
                f"{plots._count(len(tokens), 'token')}), got {query}{hint}"
            )
        # Raises for a bad query, dim, causal or temperature, naming what was received.
        self._view = attention_view(
            inputs,
            tokens,
            query=query,
            dim=dim,
            causal=causal,
            temperature=temperature,
            head=0,
            projections=self.projections,
        )
        self._muted = False
        self._sentence_error: Exception | None = None
        # The weights of the current settings, and their colours (see _compute, _colors_for).
        self._grid: _AttentionGrid | None = None
        self._grid_colors: tuple[torch.Tensor, HeatmapColors] | None = None

        self.sentence = widgets.Text(
            value=sentence,
            description="sentence",
            placeholder="type a sentence, then Enter",
            continuous_update=False,  # recompute on Enter or leaving the box, not per keystroke
            layout=widgets.Layout(width="36em"),
        )
        self.query = widgets.IntSlider(
            value=self._view.query,
            min=0,
            max=len(tokens) - 1,
            description="query",
            continuous_update=True,
        )
        self.token_label = widgets.HTML()
        self.dim = _axis_toggle(self._view.dim)
        self.causal = widgets.Checkbox(
            value=self._view.causal, description="causal mask (hide later tokens)", indent=False
        )
        low, high = TEMPERATURE_RANGE
        temp = self._view.temperature
        self.temperature = widgets.FloatSlider(
            value=temp,
            min=min(low, temp),
            max=max(high, temp),
            step=0.1,
            description="temperature",
            style={"description_width": "initial"},  # the whole word, not "temperat..."
            readout_format=".2f",
            continuous_update=True,
        )
        self.head: widgets.IntSlider | None = None
        if num_heads > 1:
            self.head = widgets.IntSlider(
                value=0, min=0, max=num_heads - 1, description="head", continuous_update=True
            )
        self.heatmap = widgets.HTML()
        self.heatmap.add_class("attnlib-weights-heatmap")
        self.bars = widgets.HTML()
        self.formula = widgets.HTML()
        knobs = [self.temperature] + ([self.head] if self.head is not None else [])
        controls = [self.query, self.dim, self.causal, *knobs]
        self._finish(
            [
                self.sentence,
                widgets.HBox([self.query, self.token_label]),
                widgets.HBox([self.dim, self.causal]),
                widgets.HBox(knobs),
                self.heatmap,
                self.bars,
                self.formula,
            ],
            controls,
            [self.sentence],
        )
        self.sentence.observe(self._on_sentence, names="value")

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens of the sentence shown now (the last good one)."""
        return self._view.tokens

    @property
    def inputs(self) -> torch.Tensor:
        """Their embeddings, ``(num_tokens, 3)``."""
        return self._view.inputs

    def _compute(
        self,
        inputs: torch.Tensor | None = None,
        tokens: Sequence[str] | None = None,
        query: int | None = None,
    ) -> AttentionView:
        """The view of the controls' values (and of a new sentence's ``inputs``, ``tokens``).

        The controls only take valid values and a sentence's inputs come checked from
        :func:`sentence_inputs`, so this skips :func:`attention_view`'s checks, and it
        reuses the grid of weights while only the query moves.
        """
        inputs = self.inputs if inputs is None else inputs
        settings = {
            "dim": self.dim.value,
            "causal": self.causal.value,
            "temperature": self.temperature.value,
            "head": 0 if self.head is None else self.head.value,
        }
        if (
            self._grid is None
            or self._grid.inputs is not inputs
            or any(getattr(self._grid, name) != value for name, value in settings.items())
        ):
            self._grid = _attention_grid(inputs, **settings, projections=self.projections)
            self._grid_colors = None
        tokens = self.tokens if tokens is None else tuple(tokens)
        return _attention_view(self._grid, tokens, self.query.value if query is None else query)

    def _on_change(self, change: dict | None = None) -> None:
        if not self._muted:  # the query slider moving because a new sentence is shorter
            super()._on_change(change)

    def _on_sentence(self, change: dict | None = None) -> None:
        def compute() -> AttentionView:
            tokens, inputs = sentence_inputs(self.sentence.value, self._seed)
            # A shorter sentence keeps the query, or moves it to its last token.
            return self._compute(inputs, tokens, min(self.query.value, len(tokens) - 1))

        if not self._update(compute, self._adopt_sentence):
            self._sentence_error = self.last_error

    def _adopt_sentence(self, view: AttentionView) -> None:
        """Fit the query slider to a new sentence's ``view`` (already computed and drawn)."""
        self._sentence_error = None
        # Muted: the slider's moves must not redraw from the old sentence in between.
        self._muted = True
        try:
            self.query.max = len(view.tokens) - 1  # a lower max clamps the value ...
            self.query.value = view.query  # ... which is then the view's query anyway
        finally:
            self._muted = False

    def _clear_error(self) -> None:
        # While the box holds a bad sentence, its error stays up whatever else moves.
        if self._sentence_error is not None:
            self._show_error(self._sentence_error)
        else:
            super()._clear_error()

    def _colors_for(self, view: AttentionView) -> HeatmapColors:
        # Views of one grid share its weights tensor: moving the query reuses the colours.
        if self._grid_colors is None or self._grid_colors[0] is not view.attn_weights:
            # vmin = 0 (not the smallest weight), so a flat row looks flat and a sharp one bright.
            colors = heatmap_colors(view.attn_weights, vmin=0.0, label="attention weight")
            self._grid_colors = (view.attn_weights, colors)
        return self._grid_colors[1]

    def _render(self, view: AttentionView) -> list[tuple[widgets.Widget, str]]:
        if view.num_heads == 1:
            scores = "attn_scores"
        else:
            scores = f"head {view.head}'s attn_scores / sqrt({view.context.shape[0]})"
        table = html_heatmap(
            view.attn_weights,
            view.tokens,
            view.tokens,
            colors=self._colors_for(view),
            highlight_row=view.query,
            row_totals=view.row_sums,
            col_totals=view.col_sums,
            masked=view.masked if view.causal else None,
            caption=(
                f"attn_weights = softmax({scores} / {view.temperature:g}, dim={view.dim})"
                f"{', causal' if view.causal else ''}: rows = queries, columns = keys"
            ),
        )
        return _query_panel(self, view, view.tokens, table)

    def figure(self) -> Figure:
        """The current view as a matplotlib Figure (weights heatmap and the query's bars)."""
        view = self._view
        colors = self._colors_for(view)
        fig = plots.new_figure((11, 4.6))
        left, right = fig.subplots(1, 2, width_ratios=[1.2, 1])
        where = "" if view.num_heads == 1 else f"head {view.head}, "
        plots.heatmap(
            view.attn_weights,
            view.tokens,
            view.tokens,
            ax=left,
            highlight_row=view.query,
            vmin=colors.vmin,
            vmax=colors.vmax,
            colorbar_label="attention weight",
            title=(
                f"{where}dim={view.dim}, temperature {view.temperature:g}"
                f"{', causal' if view.causal else ''}"
            ),
            fmt="{:.2f}",
        )
        plots.weights_bar(view.weights, view.tokens, ax=right, query=view.query)
        fig.suptitle(view.text.splitlines()[-2], fontsize=8, wrap=True)
        return fig
