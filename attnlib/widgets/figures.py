"""Static pictures of the explorers' views: matplotlib figures, and PNGs of them.

``explorer.figure()`` is one of these; each explorer's display also carries its
PNG, shown where no widget code runs (GitHub, nbviewer without a kernel).
Only the public functions of :mod:`attnlib.plots` draw.
"""

from __future__ import annotations

import base64
import contextlib
import io
import textwrap
from collections.abc import Sequence

from matplotlib import rc_context
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from PIL import Image

from attnlib import plots
from attnlib.widgets import _text
from attnlib.widgets.attention_view import AttentionView
from attnlib.widgets.training_view import TrainingView
from attnlib.widgets.views import LoopView, QueryView, SoftmaxView

# Pixels per inch and colours of the PNG: twice the screen's 72 dpi, so that titles and
# labels stay sharp on a high-density screen (GitHub shows it at half its pixel size).
PNG_DPI = 144
PNG_COLORS = 64


def png(fig: Figure, dpi: int = PNG_DPI) -> str:
    """``fig`` as a base64 PNG, the form a notebook's ``image/png`` output holds.

    ``dpi``: pixels per inch (:data:`PNG_DPI`, twice a screen's, unless a picture must be
    lighter). Reduced to a palette of :data:`PNG_COLORS` colours (a quarter of the bytes of the
    full-colour PNG, no visible loss for flat cells and text), so saved notebooks stay light.
    """
    image = Image.frombuffer("RGBA", *_pixels(fig, dpi), "raw", "RGBA", 0, 1).convert("RGB")
    image = image.quantize(PNG_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    # Pillow writes no date: same picture, same bytes. The dpi says it is drawn at 2x.
    image.save(out, format="png", optimize=True, dpi=(dpi, dpi))
    return base64.b64encode(out.getvalue()).decode("ascii")


def _pixels(fig: Figure, dpi: int) -> tuple[tuple[int, int], bytes]:
    """``fig`` drawn at ``dpi``: its size in pixels ``(width, height)`` and its RGBA bytes,
    the pixels ``savefig`` to PNG draws, at less cost: its layout pass draws no artist, the
    figure is drawn once, and no full-colour PNG is written to be read back."""
    engine = fig.get_layout_engine()
    original = fig.dpi
    try:
        fig.dpi = dpi
        size = fig.canvas.get_width_height(physical=True)  # the canvas's pixels at dpi
        if engine is not None:
            _lay_out(fig)
            # Laid out: with no engine at all ("none" keeps one) savefig draws once, not twice.
            with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
                fig.set_layout_engine(None)
        rgba = io.BytesIO()
        fig.savefig(rgba, format="rgba", dpi=dpi)
    finally:
        fig.dpi = original
        if engine is not None:
            fig.set_layout_engine(engine)
    return size, rgba.getvalue()


def _lay_out(fig: Figure) -> None:
    """Run ``fig``'s layout engine, if any, as drawing it would, without drawing: a draw
    also renders every artist (a thousand cell numbers at 32 tokens) and lays out no better."""
    engine = fig.get_layout_engine()
    if engine is not None and fig.axes:
        with contextlib.suppress(ValueError):  # as a draw: the solver can fail on a tiny figure
            engine.execute(fig)


#: The line under an explorer's still picture (shown where no widget runs), and its strip.
RUN_HINT = (
    "A still picture: run this cell (in JupyterLab or on Binder) to make the explorer interactive."
)
HINT_INCHES = 0.4


def with_hint(fig: Figure) -> Figure:
    """``fig`` one strip taller, :data:`RUN_HINT` written in it under the picture: a reader
    of a static page learns how to bring the explorer to life."""
    height = fig.get_figheight()
    fig.set_figheight(height + HINT_INCHES)
    strip = HINT_INCHES / (height + HINT_INCHES)
    engine = fig.get_layout_engine()
    if engine is not None and "rect" in engine.get():
        engine.set(rect=(0, strip, 1, 1 - strip))  # the layout keeps above the strip
    else:  # fixed margins, kept in inches: the strip is added under them, not laid over
        pars = fig.subplotpars
        fig.subplots_adjust(
            bottom=strip + pars.bottom * (1 - strip), top=1 - (1 - pars.top) * (1 - strip)
        )
    fig.text(0.5, strip / 2, RUN_HINT, ha="center", va="center", fontsize=9, style="italic")
    # Only a layout engine needs its pass settled (fixed margins: notebook 10's TrainingExplorer).
    return fig if engine is None else _settled(fig)


#: The most tokens whose heatmap and bars fit side by side; more are drawn one above the other.
SIDE_BY_SIDE = 8
#: The largest side of a picture with many tokens, in inches.
MAX_INCHES = 20.0
#: The columns' name before notebook 05 defines keys.
COMPARED = "token compared"
#: The longest token a title names; a longer one is named by its index.
TITLE_TOKEN = 30
#: The longest token the bars' title names on its line when beside the grid; longer: below.
TITLE_LINE_TOKEN = 10
#: The weights' colour scale: one colour one weight, whatever the setting (scores keep theirs).
WEIGHT_LIMITS = (0.0, 1.0)


def _headline(fig: Figure, text: str, fontsize: float = 10) -> None:
    """``text`` above the whole figure, broken into lines that fit its width.

    matplotlib's own ``wrap=True`` wraps to the figure's edges from the text's centre and
    still lets a long line run past them; here the lines are cut before drawing.
    """
    # About 0.65 em per character of the default sans-serif font (digits are 0.64), 72 pt an inch.
    width = max(20, int(fig.get_figwidth() * 72 / (0.65 * fontsize)))
    lines = _wrapped(text, width)
    # Wide letters (a token of W's) beat the estimate: measured, narrower until the lines fit.
    while width > 20 and _points_wide(lines, fontsize) > fig.get_figwidth() * 72:
        width = max(20, int(width * 0.9))
        lines = _wrapped(text, width)
    fig.suptitle("\n".join(lines), fontsize=fontsize, parse_math=False)


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters; a sum too long for one line breaks
    before its result, so that the vector stays whole."""
    head, equals, result = text.rpartition(" = ")
    parts = [head + equals.rstrip(), result] if len(text) > width and head else [text]
    return [textwrap.fill(part, width, break_on_hyphens=False) for part in parts]


def _points_wide(lines: list[str], fontsize: float) -> float:
    """The widest of ``lines`` in points, at ``fontsize`` in the default font."""
    renderer = RendererAgg(1, 1, 72)  # at 72 dpi a pixel is a point
    font = FontProperties(size=fontsize)
    rows = "\n".join(lines).splitlines()
    return max(renderer.get_text_width_height_descent(r, font, ismath=False)[0] for r in rows)


def _settled(fig: Figure) -> Figure:
    """``fig`` with its constrained layout run once: with long labels the first pass leaves a
    colour bar's name a few pixels past the edge, and a picture is often drawn only once."""
    _lay_out(fig)
    return fig


def _grid(matrix, tokens: Sequence[str], limits: tuple[float, float], label: str, **more) -> Figure:
    """A ``(num_tokens, num_tokens)`` heatmap with tokens on both axes, colours on ``limits``."""
    vmin, vmax = limits
    return plots.heatmap(matrix, tokens, tokens, vmin=vmin, vmax=vmax, colorbar_label=label, **more)


def _with_bars(
    matrix,
    tokens: Sequence[str],
    weights,
    query: int,
    title: str,
    limits: tuple[float, float],
    xlabel: str = "key",
) -> Figure:
    """A weights heatmap with the query's row outlined, and that row as bars beside it (up
    to :data:`SIDE_BY_SIDE` tokens) or below it (more: each cell and bar keeps its room)."""
    num_tokens = len(tokens)
    token = tokens[query]
    if num_tokens <= SIDE_BY_SIDE:
        # Long tokens stand beside the grid and slant below both plots: room for them, so
        # that the cells keep the size their numbers need.
        wide, tall = plots.label_room(tokens, tokens)
        fig = plots.new_figure((11 + 2 * wide, 4.4 + tall))
        left, right = fig.subplots(1, 2, width_ratios=[1.2 + wide / 4, 1])
        if wide:  # the grid's cells are narrower than its title: in lines above the colour bar
            title = textwrap.fill(title, 45, break_on_hyphens=False)
    else:
        # Half an inch per cell and per bar: a bar's label "0.0000" is 0.4 in wide at 8 pt.
        width = min(max(11.0, 0.5 * num_tokens + 2.5), MAX_INCHES)
        grid = min(0.5 * num_tokens + 2.0, MAX_INCHES)
        fig = plots.new_figure((width, grid + 3.6))
        left, right = fig.subplots(2, 1, height_ratios=[grid, 3.6])
    # The colour bar stays unnamed: the bars' axis beside it says "attention weight" already.
    _grid(
        matrix,
        tokens,
        limits,
        "",
        ax=left,
        highlight_row=query,
        title=title,
        xlabel=xlabel,
    )
    # The book's name of the query (x⁽²⁾ is inputs[1]), with Python's index.
    which = f"x{_text.book(query)}, inputs[{query}]"
    named = f"attention weights of {token!r}: {which}"
    if len(token) > TITLE_TOKEN:
        named = f"attention weights of {which}"
    elif num_tokens <= SIDE_BY_SIDE and len(token) > TITLE_LINE_TOKEN:
        named = f"attention weights of {which}\n({token!r})"  # beside the grid: narrow
    plots.weights_bar(weights, tokens, ax=right, query=query, title=named)
    return fig


def query_figure(view: QueryView, tokens: Sequence[str]) -> Figure:
    """The QueryExplorer's view: weights heatmap and the query's bars, z in the title."""
    limits = WEIGHT_LIMITS
    # Notebook 04 comes before keys are defined (05): its columns are the tokens compared.
    fig = _with_bars(
        view.attn_weights,
        tokens,
        view.weights,
        view.query,
        "attention weights",
        limits,
        xlabel=COMPARED,
    )
    _headline(fig, view.text.splitlines()[0])
    return _settled(fig)


def softmax_figure(view: SoftmaxView, tokens: Sequence[str], limits: tuple[float, float]) -> Figure:
    """The SoftmaxAxisExplorer's weights, on the scale shared by both axes."""
    title = f"softmax(attn_scores, dim={view.dim})"
    weights = view.attn_weights
    return _settled(
        _grid(weights, tokens, limits, "attention weight", title=title, xlabel=COMPARED)
    )


def loop_figure(view: LoopView, tokens: Sequence[str], limits: tuple[float, float]) -> Figure:
    """The LoopStepper's grid so far, the current cell outlined, its dot product above."""
    title = f"attn_scores[{view.i}, {view.j}]"
    fig = _grid(
        view.scores,
        tokens,
        limits,
        "attention score",
        highlight_cell=(view.i, view.j),
        xlabel=COMPARED,
        title=title,
    )
    # Above the grid, wrapped: with long tokens the dot product is longer than a title may be.
    _headline(fig, view.text)
    return _settled(fig)


def attention_figure(view: AttentionView) -> Figure:
    """The AttentionExplorer's view: weights heatmap (0 to the largest) and the query's bars."""
    where = "" if view.num_heads == 1 else f"head {view.head}, "
    causal = ", causal" if view.causal else ""
    title = f"{where}dim={view.dim}, temperature {view.temperature:g}{causal}"
    limits = WEIGHT_LIMITS
    fig = _with_bars(view.attn_weights, view.tokens, view.weights, view.query, title, limits)
    # The context vector's line (z⁽ⁱ⁾ = ...), wherever the settings put it.
    _headline(fig, next(line for line in view.text.splitlines() if line.startswith("z")))
    return _settled(fig)


#: The longest word the TrainingExplorer's fixed margins hold (notebook 10's are at most 9).
FIXED_MARGIN_TOKEN = 10


def training_figure(view: TrainingView, tokens: Sequence[str]) -> Figure:
    """The TrainingExplorer's view, as the explorer draws it: the head's weights as colours
    only (0 to 1; a grid of four-decimal numbers is not read at 16 words), the query's row
    outlined, and that row as bars below. Small on purpose: notebook 10's kernel renders it
    (about 1.3 million pixels at 16 words) within the course's memory limit. Words longer than
    fixed margins hold get the other explorers' layout (numbers, a layout pass) instead."""
    if max(map(len, tokens), default=0) > FIXED_MARGIN_TOKEN:
        fig = _with_bars(
            view.attn_weights, tokens, view.weights, view.query, view.caption, (0.0, 1.0)
        )
        _headline(fig, view.text.splitlines()[-1], fontsize=9)
        return _settled(fig)
    side = min(0.22 * len(tokens) + 2.4, MAX_INCHES)
    fig = plots.new_figure((side + 1.2, side + 2.8))
    # Fixed margins instead of the layout solver: it needs a second drawing to place the
    # colour bar, and a drawing costs memory.
    fig.set_layout_engine(None)
    left, right = fig.subplots(2, 1, height_ratios=[side, 2.6])
    fig.subplots_adjust(left=0.17, right=0.95, top=0.93, bottom=0.115, hspace=0.36)
    _grid(
        view.attn_weights,
        tokens,
        (0.0, 1.0),
        "",
        ax=left,
        highlight_row=view.query,
        title=view.caption,
        fmt="",
    )
    plots.weights_bar(view.weights, tokens, ax=right, query=view.query)
    _headline(fig, view.text.splitlines()[-1], fontsize=9)
    return fig  # not settled: fixed margins need no second drawing, which costs memory
