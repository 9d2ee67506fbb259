"""Static matplotlib figures of the course: arrays in, a ``Figure`` out.

Every function takes matrices that are already computed (nothing here computes
attention), draws them and returns the ``matplotlib.figure.Figure``: on a new
Figure whose main Axes is ``fig.axes[0]``, or on ``ax`` when given. Nothing is
shown or saved; a returned Figure that ends a Jupyter cell is displayed exactly
once. Inputs may be torch tensors or numpy arrays. Every text a caller passes
(tokens, labels, titles) is drawn as written, never as math.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.patheffects import withStroke

from attnlib import _validate as check
from attnlib._validate import describe

#: Cells that hold +-inf (masked scores) are drawn in this grey, with the text "-inf".
MASKED_COLOR = "#d9d9d9"
#: Highlights are black with a white halo, visible on the darkest and lightest cells.
HIGHLIGHT_COLOR = "black"
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
INPUT_COLOR = "#0072B2"
QUERY_COLOR = "#009E73"
CONTEXT_COLOR = "#D55E00"
#: The most rows or columns a heatmap draws, with a number in every cell.
MAX_CELLS = 64

# WCAG: above this relative luminance black text contrasts more than white text.
_LUMINANCE_THRESHOLD = 0.179
# Beyond this, a colour scale's or an axis's width overflows float64.
_LARGEST = 1e300
# Text that a caller passes is drawn as written: no $...$ math, whatever it holds.
_PLAIN = {"parse_math": False}
# Axes on which x and y are not plain Cartesian coordinates (matplotlib's own projections).
_CURVED = ("polar", "aitoff", "hammer", "lambert", "mollweide")


# ----------------------------------------------------------------------------- arguments


def _check_cell(value: Any, name: str, rows: int, cols: int) -> tuple[int, int] | None:
    """``None`` or a pair ``(row, col)`` of ints indexing a ``(rows, cols)`` matrix."""
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2 or None in value:
        raise ValueError(
            f"{name}: expected None or a pair of ints (row, col), got {describe(value)}"
        )
    row = check.optional_index(value[0], f"{name}[0]", rows)
    return row, check.optional_index(value[1], f"{name}[1]", cols)


def _check_limit(value: Any, name: str) -> float | None:
    if value is None:
        return None
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, bool
    )
    if not number or not abs(value) <= _LARGEST:
        got = value if number else describe(value)
        raise ValueError(f"{name}: expected None or a finite number within ±1e300, got {got}")
    return float(value)


def _drawable(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` if finite and small enough to lay out (no overflow in axis limits)."""
    largest = values.flat[np.abs(check.finite_array(values, name)).argmax()]
    if abs(largest) > _LARGEST:
        raise ValueError(f"{name}: expected values within ±1e300 to draw, got {float(largest)}")
    return values


def _check_fmt(fmt: Any) -> str:
    """A format for one number whose output stays short enough to fit in a cell."""
    try:
        shown = check.text(fmt, "fmt", 32).format(-0.5)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        shown = None
    if shown is None or len(shown) > 32:
        raise ValueError(
            "fmt: expected a format string such as '{:.2f}' (32 characters out at most), "
            f"got {describe(fmt)}"
        )
    return fmt


def _get_cmap(cmap: Any) -> Colormap:
    try:
        return cmap if isinstance(cmap, Colormap) else matplotlib.colormaps[cmap]
    except (KeyError, TypeError):
        raise ValueError(
            "cmap: expected a matplotlib colormap or its name (e.g. 'viridis'), "
            f"got {describe(cmap)}"
        ) from None


def new_figure(figsize: tuple[float, float]) -> Figure:
    """An empty Figure of ``figsize`` ``(width, height)`` inches that shows exactly once.

    For plots side by side: ``left, right = new_figure((12, 4.6)).subplots(1, 2)``.
    Made through pyplot so that Jupyter's inline backend renders it, then closed at
    once so that pyplot neither keeps it nor shows it twice.
    """
    sizes = figsize if isinstance(figsize, (tuple, list)) and len(figsize) == 2 else [None]
    numbers = (int, float, np.integer, np.floating)
    if not all(isinstance(x, numbers) and x is not True and 0 < x < np.inf for x in sizes):
        raise ValueError(
            "figsize: expected a pair (width, height) of positive finite inches, "
            f"got {describe(figsize)}"
        )
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=tuple(float(x) for x in figsize), layout="constrained")
    plt.close(fig)
    return fig


def _figure_and_axes(
    ax: Axes | None, figsize: tuple[float, float], projection: str | None = None
) -> tuple[Figure, Axes]:
    """``ax`` and its Figure, or a new Figure with one Axes: 2-d, or ``projection="3d"``."""
    if ax is None:
        fig = new_figure(figsize)
        return fig, fig.add_subplot(projection=projection)
    kind = "a 3-d Axes" if projection == "3d" else "a matplotlib Axes"
    if not isinstance(ax, Axes):
        raise ValueError(f"ax: expected None or {kind}, got {describe(ax)}")
    if projection == "3d" and ax.name != "3d":
        raise ValueError(
            f"ax: expected a 3-d Axes (fig.add_subplot(projection='3d')), got a {ax.name!r} Axes"
        )
    if projection is None and (ax.name == "3d" or ax.name in _CURVED):
        raise ValueError(f"ax: expected a 2-d Axes (fig.add_subplot()), got a {ax.name!r} Axes")
    return ax.figure, ax


# ----------------------------------------------------------------------------- colours


def _color_limits(matrix: Any, vmin: Any = None, vmax: Any = None) -> tuple[float, float]:
    """The colour limits ``(vmin, vmax)``: given ones kept, missing ones from the finite data.

    A flat matrix (e.g. one token's weight 1.0) gets a range of width 1 around its
    value so that it still has a colour.
    """
    values = np.asarray(matrix, dtype=np.float64)
    vmin, vmax = _check_limit(vmin, "vmin"), _check_limit(vmax, "vmax")
    if vmin is not None and vmax is not None and not vmin < vmax:
        raise ValueError(f"vmin, vmax: expected vmin < vmax, got vmin={vmin}, vmax={vmax}")
    finite = values[np.isfinite(values)]
    lo = vmin if vmin is not None else (float(finite.min()) if finite.size else 0.0)
    hi = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    if lo < hi:
        return lo, hi
    if vmin is None and vmax is None:
        return lo - 0.5, hi + 0.5
    return (hi - 1.0, hi) if vmin is None else (lo, lo + 1.0)


def _text_colors(rgba: np.ndarray) -> np.ndarray:
    """'black' or 'white' for each background colour ``(..., 4)``, whichever reads better.

    Transparent backgrounds are taken as drawn over white.
    """
    rgba = np.asarray(rgba, dtype=np.float64)
    rgb = rgba[..., :3] * rgba[..., 3:4] + (1.0 - rgba[..., 3:4])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])  # WCAG relative luminance
    return np.where(luminance > _LUMINANCE_THRESHOLD, "black", "white")


def _cell_colors(
    matrix: Any, vmin: float, vmax: float, cmap: str | Colormap = "viridis"
) -> tuple[np.ndarray, np.ndarray]:
    """Background ``(rows, cols, 4)`` and text colour ``(rows, cols)`` of every cell.

    NaN cells (not computed yet) are transparent; +-inf cells (masked) are
    :data:`MASKED_COLOR`.
    """
    values = np.asarray(matrix, dtype=np.float64)
    normed = Normalize(vmin, vmax)(np.where(np.isfinite(values), values, vmin))
    rgba = np.array(_get_cmap(cmap)(normed), dtype=np.float64).reshape(values.shape + (4,))
    rgba[np.isnan(values)] = (0.0, 0.0, 0.0, 0.0)
    rgba[np.isinf(values)] = matplotlib.colors.to_rgba(MASKED_COLOR)
    return rgba, _text_colors(rgba)


def _format_value(value: float, fmt: str) -> str:
    """A cell's text: ``fmt`` for finite values, '-inf'/'inf' for masked, '' for NaN."""
    if np.isnan(value):
        return ""
    return ("-inf" if value < 0 else "inf") if np.isinf(value) else fmt.format(value)


# ----------------------------------------------------------------------------- heatmap


def _highlight(ax: Axes, xy: tuple[float, float], width: float, height: float, gid: str) -> None:
    halo = [withStroke(linewidth=5, foreground="white")]
    outline = Rectangle(xy, width, height, fill=False, edgecolor=HIGHLIGHT_COLOR, linewidth=2.5)
    outline.set(path_effects=halo, gid=gid, zorder=3, clip_on=False)
    ax.add_patch(outline)


def _draw_cells(ax: Axes, values: np.ndarray, vmin: float, vmax: float, cmap, fmt: str):
    """The coloured grid with every cell's number; returns the image for the colorbar."""
    rows, cols = values.shape
    norm = Normalize(vmin, vmax)
    image = ax.imshow(
        np.ma.masked_invalid(values), cmap=cmap.with_extremes(bad=(0, 0, 0, 0)), norm=norm
    )
    _, text = _cell_colors(values, vmin, vmax, cmap)
    fontsize = 9 if max(rows, cols) <= 8 else 7 if max(rows, cols) <= 16 else 5
    for (i, j), value in np.ndenumerate(values):
        if np.isinf(value):  # masked: a grey patch under the text "-inf"
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1, 1, color=MASKED_COLOR, gid="masked", zorder=0)
            )
        label = _format_value(value, fmt)
        if label:
            ax.text(
                j, i, label, ha="center", va="center", color=text[i, j], fontsize=fontsize, **_PLAIN
            )
    return image


def _check_axis_labels(shape: tuple[int, int], row_labels: Any, col_labels: Any) -> tuple:
    rows, cols = shape
    return (
        check.labels(row_labels, "row_labels", rows, f"one per row of matrix, shape {shape}"),
        check.labels(col_labels, "col_labels", cols, f"one per column of matrix, shape {shape}"),
    )


def _check_heatmap(values: np.ndarray, highlights: tuple) -> tuple:
    """The checked ``(row, col, cell)`` highlights of a matrix, refusing sizes it cannot draw."""
    rows, cols = values.shape
    if max(rows, cols) > MAX_CELLS:
        raise ValueError(
            f"matrix: expected at most {MAX_CELLS} rows and columns (each cell shows its number), "
            f"got shape {values.shape}; draw a slice"
        )
    finite = values[np.isfinite(values)]
    largest = float(finite[np.abs(finite).argmax()]) if finite.size else 0.0
    if abs(largest) > _LARGEST:
        raise ValueError(f"matrix: expected values within ±1e300 to colour, got {largest}")
    row, col, cell = highlights
    return (
        check.optional_index(row, "highlight_row", rows),
        check.optional_index(col, "highlight_col", cols),
        _check_cell(cell, "highlight_cell", rows, cols),
    )


def heatmap(
    matrix: Any,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    ax: Axes | None = None,
    title: str | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    highlight_row: int | None = None,
    highlight_col: int | None = None,
    highlight_cell: tuple[int, int] | None = None,
    cmap: str | Colormap = "viridis",
    fmt: str = "{:.2f}",
    colorbar_label: str = "value",
    xlabel: str = "key",
    ylabel: str = "query",
) -> Figure:
    """Draw ``matrix`` ``(rows, cols)``, e.g. ``attn_weights`` ``(num_tokens, num_tokens)``.

    Rows are queries, columns keys; each cell shows its value (``fmt``) in black or
    white, whichever reads better, on ``cmap`` between ``vmin`` and ``vmax`` (default:
    the finite extremes). NaN cells are blank, ``-inf`` (masked) cells grey; the
    highlights outline a row, a column or a cell ``(i, j)``.
    """
    values = check.array(matrix, "matrix", 2, "(rows, cols)")
    rows, cols = values.shape
    labels = _check_axis_labels(values.shape, row_labels, col_labels)
    marks = _check_heatmap(values, (highlight_row, highlight_col, highlight_cell))
    names = {"xlabel": xlabel, "ylabel": ylabel, "colorbar_label": colorbar_label, "title": title}
    texts = {k: check.text(v, k) for k, v in names.items() if v is not None}
    fmt, cmap = _check_fmt(fmt), _get_cmap(cmap)
    vmin, vmax = _color_limits(values, vmin, vmax)

    fig, ax = _figure_and_axes(ax, figsize=(min(2.5 + 0.8 * cols, 16), min(1.8 + 0.6 * rows, 14)))
    image = _draw_cells(ax, values, vmin, vmax, cmap, fmt)
    _draw_highlights(ax, marks, rows, cols)
    _label_axes(ax, *labels, texts)
    fig.colorbar(image, ax=ax).set_label(texts["colorbar_label"], **_PLAIN)
    return fig


def _draw_highlights(ax: Axes, marks: tuple, rows: int, cols: int) -> None:
    row, col, cell = marks
    if row is not None:
        _highlight(ax, (-0.5, row - 0.5), cols, 1, "highlight_row")
    if col is not None:
        _highlight(ax, (col - 0.5, -0.5), 1, rows, "highlight_col")
    if cell is not None:
        _highlight(ax, (cell[1] - 0.5, cell[0] - 0.5), 1, 1, "highlight_cell")


def _label_axes(ax: Axes, row_labels: list, col_labels: list, texts: dict[str, str]) -> None:
    ax.set_xticks(
        range(len(col_labels)), labels=col_labels, rotation=45, ha="right",
        rotation_mode="anchor", **_PLAIN,
    )  # fmt: skip
    ax.set_yticks(range(len(row_labels)), labels=row_labels, **_PLAIN)
    ax.set_xlabel(texts["xlabel"], **_PLAIN)
    ax.set_ylabel(texts["ylabel"], **_PLAIN)
    if "title" in texts:
        ax.set_title(texts["title"], **_PLAIN)


# ----------------------------------------------------------------------------- bars, arrows


def weights_bar(
    weights: Any,
    tokens: Sequence[str],
    *,
    ax: Axes | None = None,
    query: int | None = None,
    title: str | None = None,
) -> Figure:
    """Bar chart of one query's attention weights ``(num_tokens,)`` over ``tokens``.

    Each bar carries its value; a note gives the weights' sum (1 for softmax
    weights). With ``query``, the query token's own bar is hatched and the
    default title names it.
    """
    values = _drawable(check.array(weights, "weights", 1, "(num_tokens,)"), "weights")
    num_tokens = values.shape[0]
    tokens = check.labels(tokens, "tokens", num_tokens, f"one per weight, shape {values.shape}")
    query = check.optional_index(query, "query", num_tokens)
    if title is None:
        title = "attention weights" + (
            "" if query is None else f" of query {query} ({tokens[query]!r})"
        )

    fig, ax = _figure_and_axes(ax, figsize=(min(2.5 + 0.8 * num_tokens, 16), 3.2))
    bars = ax.bar(range(num_tokens), values, color=INPUT_COLOR, edgecolor="black", linewidth=0.6)
    if query is not None:
        bars[query].set(hatch="//", facecolor=QUERY_COLOR)
    ax.bar_label(bars, labels=[f"{v:.4f}" for v in values], padding=2, fontsize=8)
    ax.set_xticks(
        range(num_tokens), labels=tokens, rotation=45, ha="right", rotation_mode="anchor", **_PLAIN
    )
    ax.set(xlabel="input token", ylabel="attention weight")
    # Room above the tallest bar for its label and the sum.
    ax.set_ylim(min(float(values.min()) * 1.3, 0.0), max(float(values.max()), 0.0) * 1.3 or 1.0)
    note = f"sum of weights = {values.sum():.4f}"
    ax.text(0.99, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=9)
    ax.set_title(check.text(title, "title"), **_PLAIN)
    return fig


def _check_vectors(inputs: Any, tokens: Any, context_vec: Any, weights: Any, query: Any):
    """The checked arguments of :func:`vectors_3d`, as numpy arrays and labels."""
    points = _drawable(check.array(inputs, "inputs", 2, "(num_tokens, 3)"), "inputs")
    if points.shape[1] != 3:
        raise ValueError(
            f"inputs: expected shape (num_tokens, 3), 3-d embeddings, got shape {points.shape}"
        )
    num_tokens = points.shape[0]
    tokens = check.labels(tokens, "tokens", num_tokens, f"one per input, shape {points.shape}")
    query = check.optional_index(query, "query", num_tokens)
    context = weight_values = None
    if context_vec is not None:
        context = check.array(context_vec, "context_vec", 1, "(3,)")
        if context.shape != (3,):
            raise ValueError(f"context_vec: expected shape (3,), got shape {context.shape}")
        _drawable(context, "context_vec")
    if weights is not None:
        weight_values = check.array(weights, "weights", 1, f"({num_tokens},)")
        if weight_values.shape != (num_tokens,):
            raise ValueError(
                f"weights: expected shape ({num_tokens},), one per input, "
                f"got shape {weight_values.shape}"
            )
        _drawable(weight_values, "weights")
    return points, tokens, context, weight_values, query


def _frame_3d(ax: Axes, everything: np.ndarray) -> None:
    """Equal limits on the three axes, around the origin and every arrow's tip."""
    lo, hi = min(float(everything.min()), 0.0), max(float(everything.max()), 0.0)
    pad = 0.1 * ((hi - lo) or 1.0)
    ax.set(xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad), zlim=(lo - pad, hi + pad))
    ax.set(xlabel="dim 0", ylabel="dim 1", zlabel="dim 2")


def _legend(ax: Axes, query_label: str | None, with_context: bool) -> None:
    handles = [Line2D([], [], color=INPUT_COLOR, lw=2, label="input x(token)")]
    if query_label is not None:
        handles.append(Line2D([], [], color=QUERY_COLOR, lw=2, label=f"query x({query_label})"))
    if with_context:
        handles.append(Line2D([], [], color=CONTEXT_COLOR, lw=3, label="context vector z"))
    for legend_text in ax.legend(handles=handles, loc="upper left", fontsize=8).get_texts():
        legend_text.set_parse_math(False)


def vectors_3d(
    inputs: Any,
    tokens: Sequence[str],
    context_vec: Any = None,
    weights: Any = None,
    *,
    ax: Axes | None = None,
    query: int | None = None,
) -> Figure:
    """Arrows from the origin for ``inputs`` ``(num_tokens, 3)`` and one ``context_vec`` ``(3,)``.

    Each input arrow is labelled with its token (and its weight, if ``weights``
    ``(num_tokens,)`` is given: heavier weights draw thicker arrows). The context
    vector is drawn in its own colour, labelled ``z`` (``z(token)`` with ``query``,
    whose own input gets a third colour). ``ax``, if given, must be a 3-d Axes.
    """
    points, tokens, context, weight_values, query = _check_vectors(
        inputs, tokens, context_vec, weights, query
    )
    fig, ax = _figure_and_axes(ax, (6, 5), projection="3d")
    heaviest = float(np.abs(weight_values).max()) if weight_values is not None else 0.0
    for k, (point, token) in enumerate(zip(points, tokens, strict=True)):
        width, label = 1.5, token
        if weight_values is not None:
            label = f"{token} ({weight_values[k]:.2f})"
            width = 0.8 + 3.0 * abs(weight_values[k]) / (heaviest or 1.0)
        color = QUERY_COLOR if k == query else INPUT_COLOR
        ax.quiver(0, 0, 0, *point, color=color, linewidth=width, arrow_length_ratio=0.08)
        ax.text(*(point * 1.05), label, color=color, fontsize=9, **_PLAIN)
    if context is not None:
        name = "z" if query is None else f"z({tokens[query]})"
        ax.quiver(0, 0, 0, *context, color=CONTEXT_COLOR, linewidth=3.0, arrow_length_ratio=0.1)
        ax.text(
            *(context * 1.05), name, color=CONTEXT_COLOR, fontsize=10, fontweight="bold", **_PLAIN
        )
    _frame_3d(ax, points if context is None else np.vstack([points, context]))
    _legend(ax, None if query is None else tokens[query], context is not None)
    ax.set_title("inputs and their weighted blend" if context is not None else "inputs")
    return fig
