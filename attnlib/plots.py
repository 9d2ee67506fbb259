"""Static matplotlib figures: computed arrays (tensors or numpy) in, a ``Figure`` out, drawn on a
new Figure (main Axes ``fig.axes[0]``) or on ``ax``. Nothing is shown or saved (a Figure ending a
Jupyter cell displays once); a caller's text is drawn as written, never as math."""

from __future__ import annotations

import math
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

from attnlib import _names as names
from attnlib import _validate as validate

MASKED_COLOR = "#d9d9d9"  #: +-inf (masked) cells are this grey, with the text "-inf"
HIGHLIGHT_COLOR = "black"  #: with a white halo, visible on the darkest and lightest cells
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
INPUT_COLOR, QUERY_COLOR, CONTEXT_COLOR = "#0072B2", "#009E73", "#D55E00"
MAX_CELLS = 64  #: the most rows or columns a heatmap draws, with a number in every cell

_LUMINANCE_THRESHOLD = 0.179  # WCAG: above it, black text contrasts more than white
_LARGEST = 1e300  # beyond it, the width of an axis or a colour scale overflows float64
#: The resolution ``new_figure`` checks a size at: the explorers' PNGs, the finest the course saves.
SAVE_DPI = 144
_AGG_PIXELS = 2**16  # matplotlib's Agg canvas holds fewer pixels than this on a side
_SMALLEST_INCHES = 0.1  # a side saved at a few pixels or none ("cannot write empty image")
_PLAIN = {"parse_math": False}  # a caller's text is drawn as written, never as $...$ math
_SLANTED = {"rotation": 45, "ha": "right", "rotation_mode": "anchor", **_PLAIN}
# A cell's number stays inside its cell: left out of the layout, whose passes would measure
# up to 64 x 64 numbers to move no margin (most of a still picture's layout time).
_IN_CELL = {"ha": "center", "va": "center", "in_layout": False, **_PLAIN}
_CURVED = ("polar", "aitoff", "hammer", "lambert", "mollweide")  # x, y not Cartesian


def _drawable(values: np.ndarray, name: str, to: str = "draw") -> np.ndarray:
    """``values`` if finite and within ±1e300; a heatmap's (``to="colour"``) may be NaN or ±inf."""
    finite = validate.finite_array(values, name) if to == "draw" else values[np.isfinite(values)]
    largest = float(finite.flat[np.abs(finite).argmax()]) if finite.size else 0.0
    if abs(largest) > _LARGEST:
        raise validate.invalid(name, f"values within ±1e300 to {to}", largest)
    return values


def _vector(x: Any, name: str, size: int, why: str = "") -> np.ndarray | None:
    """``None``, or ``x`` as a drawable ``(size,)`` array; ``why`` says where the size is from."""
    if x is None:
        return None
    values = validate.array(x, name, 1, f"({size},)")
    if values.shape != (size,):
        raise validate.invalid(name, f"shape ({size},){why}", f"shape {values.shape}")
    return _drawable(values, name)


def _check_fmt(fmt: Any) -> str:
    """A format for one number whose output stays short enough to fit in a cell."""
    try:
        if len(validate.text(fmt, "fmt", 32).format(-0.5)) <= 32:
            return fmt
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        pass
    expected = "a format string such as '{:.2f}' (32 characters out at most)"
    raise validate.invalid("fmt", expected, validate.describe(fmt))


def _get_cmap(cmap: Any) -> Colormap:
    try:
        return cmap if isinstance(cmap, Colormap) else matplotlib.colormaps[cmap]
    except (KeyError, TypeError):
        expected = "a matplotlib colormap or its name (e.g. 'viridis')"
        raise validate.invalid("cmap", expected, validate.describe(cmap)) from None


def new_figure(figsize: tuple[float, float]) -> Figure:
    """An empty Figure of ``figsize`` ``(width, height)`` inches that shows exactly once, e.g.
    ``left, right = new_figure((12, 4.6)).subplots(1, 2)``: made by pyplot, so that Jupyter's
    inline backend renders it, and closed at once, so that pyplot never shows it twice."""
    sizes = figsize if isinstance(figsize, (tuple, list)) and len(figsize) == 2 else [None]
    if not all(validate.is_real(x) and 0 < x < np.inf for x in sizes):
        expected = "a pair (width, height) of positive finite inches"
        raise validate.invalid("figsize", expected, validate.describe(figsize))
    width, height = (float(x) for x in figsize)
    pixels = f"{width * SAVE_DPI:,.0f} x {height * SAVE_DPI:,.0f} pixels at {SAVE_DPI} dpi"
    if not _SMALLEST_INCHES <= min(width, height) <= max(width, height) < _AGG_PIXELS / SAVE_DPI:
        largest = (_AGG_PIXELS - 1) / SAVE_DPI
        limit = f"{_SMALLEST_INCHES} to {largest:.0f} inches a side ({_AGG_PIXELS - 1:,} pixels"
        expected = f"{limit} at most, matplotlib's limit)"
        raise validate.invalid("figsize", expected, f"{(width, height)}: {pixels}")
    # Saving draws into an RGBA buffer: 4 bytes a pixel, under the memory rule of every call.
    rgba = (math.ceil(height * SAVE_DPI), math.ceil(width * SAVE_DPI), 4)
    validate.memory(f"figsize {(width, height)} ({pixels})", [("shape", rgba, 1)])
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(width, height), layout="constrained")
    plt.close(fig)
    return fig


def _figure_and_axes(ax: Axes | None, figsize: tuple, projection: str | None = None) -> tuple:
    """``ax`` and its Figure, or a new Figure with one Axes: 2-d, or ``projection="3d"``."""
    if ax is None:
        fig = new_figure(figsize)
        return fig, fig.add_subplot(projection=projection)
    if not isinstance(ax, Axes):
        kind = "a 3-d Axes" if projection else "a matplotlib Axes"
        raise validate.invalid("ax", f"None or {kind}", validate.describe(ax))
    if (ax.name == "3d") != (projection == "3d") or ax.name in _CURVED:
        kind, how = ("3-d", "projection='3d'") if projection else ("2-d", "")
        raise validate.invalid(
            "ax", f"a {kind} Axes (fig.add_subplot({how}))", f"a {ax.name!r} Axes"
        )
    return ax.figure, ax


def _text_inches(texts: Sequence[str], fontsize: float) -> float:
    """The widest of ``texts`` in inches, drawn in the default font at ``fontsize`` points."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer, font = RendererAgg(1, 1, 72), FontProperties(size=fontsize)  # a pixel is a point
    sizes = [renderer.get_text_width_height_descent(t, font, ismath=False)[0] for t in texts]
    return max(sizes, default=0.0) / 72


def _some_labels(value: Any, name: str) -> list[str]:
    """``value`` as a grid's labels, however many (up to :data:`MAX_CELLS`)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise validate.invalid(name, "a list of labels", validate.describe(value))
    if len(value) > MAX_CELLS:
        raise validate.invalid(name, f"at most {MAX_CELLS} labels (a grid's rows)", len(value))
    return validate.labels(value, name, len(value), "one per row or column")


def label_room(row_labels: Sequence[str], col_labels: Sequence[str]) -> tuple[float, float]:
    """The inches a grid's figure needs beyond its usual size for long labels ``(width,
    height)``: row labels stand beside it, column labels slant 45 degrees below it. The
    course's tokens (up to 8 letters) need none."""
    rows, cols = (
        _some_labels(v, n) for v, n in ((row_labels, "row_labels"), (col_labels, "col_labels"))
    )
    size = matplotlib.rcParams["xtick.labelsize"]
    size = size if isinstance(size, (int, float)) else 10.0  # "medium" is 10 points
    # Beyond 0.8 in beside (about 8 letters) and 0.6 in below, the axes would shrink instead.
    wide = max(0.0, _text_inches(rows, size) - 0.8)
    tall = max(0.0, math.sqrt(0.5) * _text_inches(cols, size) - 0.6)
    return round(wide, 2), round(tall, 2)


def _check_grid(values: np.ndarray, labels: tuple, highlights: tuple) -> tuple[list, list, tuple]:
    """The checked labels and highlights ``(row, col, cell)`` of a matrix it can draw."""
    (rows, cols), of = values.shape, f"of matrix, shape {values.shape}"
    row_labels = validate.labels(labels[0], "row_labels", rows, f"one per row {of}")
    col_labels = validate.labels(labels[1], "col_labels", cols, f"one per column {of}")
    if max(rows, cols) > MAX_CELLS:
        expected = f"at most {MAX_CELLS} rows and columns (each cell shows its number)"
        raise validate.invalid("matrix", expected, f"shape {values.shape}; draw a slice")
    _drawable(values, "matrix", to="colour")
    row, col, cell = highlights
    row = validate.optional_index(row, "highlight_row", rows)
    col = validate.optional_index(col, "highlight_col", cols)
    if cell is not None:  # a pair (row, col)
        if not isinstance(cell, (tuple, list)) or len(cell) != 2 or None in cell:
            expected = "None or a pair of ints (row, col)"
            raise validate.invalid("highlight_cell", expected, validate.describe(cell))
        at = validate.optional_index(cell[0], "highlight_cell[0]", rows)
        cell = at, validate.optional_index(cell[1], "highlight_cell[1]", cols)
    return row_labels, col_labels, (row, col, cell)


def _color_norm(values: np.ndarray, vmin: Any, vmax: Any) -> Normalize:
    """The colour scale ``vmin .. vmax``: given limits kept, missing ones from the finite values."""
    for name, limit in (("vmin", vmin), ("vmax", vmax)):
        if limit is not None and not (validate.is_real(limit) and abs(float(limit)) <= _LARGEST):
            got = limit if validate.is_real(limit) else validate.describe(limit)
            raise validate.invalid(name, "None or a finite number within ±1e300", got)
    vmin, vmax = (None if limit is None else float(limit) for limit in (vmin, vmax))
    if vmin is not None and vmax is not None and not vmin < vmax:
        raise validate.invalid("vmin, vmax", "vmin < vmax", f"vmin={vmin}, vmax={vmax}")
    finite = values[np.isfinite(values)]
    lo = vmin if vmin is not None else (float(finite.min()) if finite.size else 0.0)
    hi = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    if lo < hi:
        return Normalize(lo, hi)
    if vmin is None and vmax is None:  # flat (e.g. one weight 1.0): width 1 still gives a colour
        return Normalize(lo - 0.5, hi + 0.5)
    return Normalize(hi - 1.0, hi) if vmin is None else Normalize(lo, lo + 1.0)


def _draw_cells(
    ax: Axes, values: np.ndarray, norm: Normalize, cmap: Colormap, fmt: str, colorbar_label: str
) -> None:
    """The coloured grid with its colorbar, and every cell's number in black or white, whichever
    reads better on the cell's colour (WCAG relative luminance; +-inf cells are grey)."""
    transparent = cmap.with_extremes(bad=(0, 0, 0, 0))
    image = ax.imshow(np.ma.masked_invalid(values), cmap=transparent, norm=norm)
    ax.figure.colorbar(image, ax=ax).set_label(colorbar_label, **_PLAIN)
    rgba = cmap(norm(np.where(np.isfinite(values), values, norm.vmin)))
    rgba[np.isinf(values)] = matplotlib.colors.to_rgba(MASKED_COLOR)
    rgb = rgba[..., :3] * rgba[..., 3:4] + (1.0 - rgba[..., 3:4])  # seen over the white page
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ np.array([0.2126, 0.7152, 0.0722])
    colors = np.where(luminance > _LUMINANCE_THRESHOLD, "black", "white")
    size = 9 if max(values.shape) <= 8 else 7 if max(values.shape) <= 16 else 5
    for (i, j), value in np.ndenumerate(values):
        if np.isinf(value):  # masked: a grey patch under the text "-inf"
            grey = Rectangle((j - 0.5, i - 0.5), 1, 1, color=MASKED_COLOR, gid="masked", zorder=0)
            ax.add_patch(grey)
            label = "-inf" if value < 0 else "inf"
        else:  # a number, or NaN (not computed yet), which stays a blank cell
            label = "" if np.isnan(value) else fmt.format(value)
        if label:
            ax.text(j, i, label, color=colors[i, j], size=size, **_IN_CELL)


def _draw_highlights(ax: Axes, highlights: tuple, rows: int, cols: int) -> None:
    row, col, cell = highlights
    boxes = {
        "highlight_row": None if row is None else ((-0.5, row - 0.5), cols, 1),
        "highlight_col": None if col is None else ((col - 0.5, -0.5), 1, rows),
        "highlight_cell": None if cell is None else ((cell[1] - 0.5, cell[0] - 0.5), 1, 1),
    }
    halo = [withStroke(linewidth=5, foreground="white")]
    for gid, box in boxes.items():
        if box is not None:
            outline = Rectangle(*box, fill=False, edgecolor=HIGHLIGHT_COLOR, linewidth=2.5)
            outline.set(path_effects=halo, gid=gid, zorder=3, clip_on=False)
            ax.add_patch(outline)


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
    """Draw ``matrix`` ``(rows, cols)``, e.g. ``attn_weights`` ``(num_tokens, num_tokens)``: rows
    are queries, columns keys, each cell shows its value (``fmt``) on ``cmap`` from ``vmin`` to
    ``vmax`` (default: the finite extremes). NaN cells are blank, ``-inf`` (masked) ones grey;
    highlights outline a row, a column or a cell."""
    values = validate.array(matrix, "matrix", 2, "(rows, cols)")
    highlights = (highlight_row, highlight_col, highlight_cell)
    row_labels, col_labels, highlights = _check_grid(values, (row_labels, col_labels), highlights)
    names = {"xlabel": xlabel, "ylabel": ylabel, "colorbar_label": colorbar_label, "title": title}
    texts = {k: validate.text("" if v is None and k == "title" else v, k) for k, v in names.items()}
    fmt = _check_fmt(fmt)
    cmap = _get_cmap(cmap)
    norm = _color_norm(values, vmin, vmax)
    rows, cols = values.shape
    wide, tall = label_room(row_labels, col_labels) if ax is None else (0.0, 0.0)
    size = (min(2.5 + 0.8 * cols, 16) + wide, min(1.8 + 0.6 * rows, 14) + tall)
    fig, ax = _figure_and_axes(ax, figsize=size)
    _draw_cells(ax, values, norm, cmap, fmt, texts["colorbar_label"])
    _draw_highlights(ax, highlights, rows, cols)
    ax.set_xticks(range(cols), labels=col_labels, **_SLANTED)
    ax.set_yticks(range(rows), labels=row_labels, **_PLAIN)
    ax.set_xlabel(texts["xlabel"], **_PLAIN)
    ax.set_ylabel(texts["ylabel"], **_PLAIN)
    ax.set_title(texts["title"], **_PLAIN)
    return fig


#: The room a bar's four-decimal label needs, in inches, for weights_bar to write it.
BAR_LABEL_INCHES = 0.42


def weights_bar(
    weights: Any,
    tokens: Sequence[str],
    *,
    ax: Axes | None = None,
    query: int | None = None,
    title: str | None = None,
) -> Figure:
    """One query's attention weights ``(num_tokens,)`` over ``tokens`` as labelled bars, with their
    sum (1 for softmax weights); ``query``'s own bar is hatched, and the default title names it."""
    values = _drawable(validate.array(weights, "weights", 1, "(num_tokens,)"), "weights")
    num_tokens = values.shape[0]
    tokens = validate.labels(tokens, "tokens", num_tokens, f"one per weight, shape {values.shape}")
    query = validate.optional_index(query, "query", num_tokens)
    # As the explorers name it: the book's x⁽ⁱ⁾ counts from 1, Python's index from 0.
    named = (
        f" of {tokens[query]!r}: x{names.book(query)}, inputs[{query}]" if query is not None else ""
    )
    title = validate.text(f"attention weights{named}" if title is None else title, "title")

    fig, ax = _figure_and_axes(ax, figsize=(min(2.5 + 0.8 * num_tokens, 16), 3.2))
    bars = ax.bar(range(num_tokens), values, color=INPUT_COLOR, edgecolor="black", linewidth=0.6)
    if query is not None:
        bars[query].set(hatch="//", facecolor=QUERY_COLOR)
    # Each bar's number above it where it fits ("0.0000" at 8 pt is about 0.4 in wide);
    # where it does not, numbers run together and tell nothing: the axis reads the heights.
    if ax.get_position().width * fig.get_figwidth() / num_tokens >= BAR_LABEL_INCHES:
        ax.bar_label(bars, labels=[f"{v:.4f}" for v in values], padding=2, fontsize=8)
    ax.set_xticks(range(num_tokens), labels=tokens, **_SLANTED)
    ax.set(xlabel="input token", ylabel="attention weight")
    # Room above the tallest bar for its label and the sum.
    ax.set_ylim(min(float(values.min()) * 1.3, 0.0), max(float(values.max()), 0.0) * 1.3 or 1.0)
    note = f"sum of weights = {names.total(float(values.sum()))}"
    ax.text(0.99, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=9)
    ax.set_title(title, **_PLAIN)
    return fig


def vectors_3d(
    inputs: Any,
    tokens: Sequence[str],
    context_vec: Any = None,
    weights: Any = None,
    *,
    ax: Axes | None = None,
    query: int | None = None,
) -> Figure:
    """Arrows from the origin for ``inputs`` ``(num_tokens, 3)`` and one ``context_vec`` ``(3,)``,
    labelled with their token (and weight: heavier ``weights`` ``(num_tokens,)``: thicker arrows);
    the context vector is ``z``, ``z(token)`` with ``query``, whose input gets its own colour."""
    points = _drawable(validate.array(inputs, "inputs", 2, "(num_tokens, 3)"), "inputs")
    if points.shape[1] != 3:
        expected = "shape (num_tokens, 3), 3-d embeddings"
        raise validate.invalid("inputs", expected, f"shape {points.shape}")
    tokens = validate.labels(tokens, "tokens", len(points), f"one per input, shape {points.shape}")
    query = validate.optional_index(query, "query", len(points))
    context_vec = _vector(context_vec, "context_vec", 3)
    weights = _vector(weights, "weights", len(points), ", one per input")

    fig, ax = _figure_and_axes(ax, (6, 5), projection="3d")
    labels = tokens
    widths = [1.5] * len(tokens)
    if weights is not None:
        labels = [f"{token} ({weight:.2f})" for token, weight in zip(tokens, weights, strict=True)]
        widths = 0.8 + 3.0 * np.abs(weights) / (float(np.abs(weights).max()) or 1.0)
    for k, (point, label, width) in enumerate(zip(points, labels, widths, strict=True)):
        color = QUERY_COLOR if k == query else INPUT_COLOR
        ax.quiver(0, 0, 0, *point, color=color, linewidth=width, arrow_length_ratio=0.08)
        ax.text(*(point * 1.05), label, color=color, size=9, **_PLAIN)
    if context_vec is not None:
        z = "z" if query is None else f"z({tokens[query]})"
        ax.quiver(0, 0, 0, *context_vec, color=CONTEXT_COLOR, linewidth=3.0, arrow_length_ratio=0.1)
        ax.text(*(context_vec * 1.05), z, color=CONTEXT_COLOR, size=10, weight="bold", **_PLAIN)
    tips = points if context_vec is None else np.vstack([points, context_vec])
    _frame_3d(ax, tips, None if query is None else tokens[query], context_vec is not None)
    return fig


def _frame_3d(ax: Axes, tips: np.ndarray, query_token: str | None, with_context: bool) -> None:
    """Equal limits around the origin and every arrow's tip; axis names, legend and title."""
    lo = min(float(tips.min()), 0.0)
    hi = max(float(tips.max()), 0.0)
    pad = 0.1 * ((hi - lo) or 1.0)
    ax.set(xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad), zlim=(lo - pad, hi + pad))
    ax.set(xlabel="dim 0", ylabel="dim 1", zlabel="dim 2")
    handles = [Line2D([], [], color=INPUT_COLOR, lw=2, label="input x(token)")]
    if query_token is not None:
        handles.append(Line2D([], [], color=QUERY_COLOR, lw=2, label=f"query x({query_token})"))
    if with_context:
        handles.append(Line2D([], [], color=CONTEXT_COLOR, lw=3, label="context vector z"))
    for legend_text in ax.legend(handles=handles, loc="upper left", fontsize=8).get_texts():
        legend_text.set_parse_math(False)
    ax.set_title("inputs and their weighted blend" if with_context else "inputs")
