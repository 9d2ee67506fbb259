"""Draw notebook 07's diagram: one projection cut into heads, attention per head, merged back.

    python tools/figures_nb07.py

writes notebooks/figures/07_heads_split_merge.svg. The sizes are those of the
notebook's step-by-step example, for one of its b sequences: 6 tokens, d_out = 12,
3 heads of head_dim 4. Run twice, it writes the same bytes (fixed SVG ids, no
date). Text is laid out with DejaVu Sans and DejaVu Sans Mono, the fonts that ship
with matplotlib, and kept as SVG text (small, searchable, read by screen readers);
a viewer without DejaVu falls back to a narrower font of the same kind, so nothing
overlaps.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

TOKENS = ("Your", "journey", "starts", "with", "one", "step")
ROWS, NUM_HEADS, HEAD_DIM = len(TOKENS), 3, 4
D_OUT = NUM_HEADS * HEAD_DIM
# Okabe-Ito colours (readable with the common colour-vision deficiencies), one per head.
HEAD_COLORS = ("#E69F00", "#56B4E9", "#009E73")
HEAD_TEXT = ("#B07A00", "#2C7FB8", "#007A5A")  # the same hues, dark enough for text
MIXED = "#A6A1CF"  # after out_proj every feature draws on every head
CELL = 0.32  # side of one number's cell
HEIGHT = ROWS * CELL
GAP = 0.22  # between the heads of one token
TEXT, QUIET = "#222222", "#555555"
# What a viewer without DejaVu uses instead: narrower fonts of the same kind.
FALLBACKS = {
    "DejaVu Sans Mono": "Menlo, Consolas, 'Liberation Mono', monospace",
    "DejaVu Sans": "Verdana, 'Helvetica Neue', Arial, sans-serif",
}
MONO = {"family": "DejaVu Sans Mono", "fontsize": 9, "color": TEXT}


def block(ax, x: float, y: float, cols: int, color: str) -> float:
    """A ROWS x cols matrix of one colour, top-left corner (x, y); returns its right edge."""
    ax.add_patch(Rectangle((x, y - HEIGHT), cols * CELL, HEIGHT, facecolor=color, lw=0))
    lines = [[(x, y - r * CELL), (x + cols * CELL, y - r * CELL)] for r in range(1, ROWS)]
    lines += [[(x + c * CELL, y), (x + c * CELL, y - HEIGHT)] for c in range(1, cols)]
    ax.add_collection(LineCollection(lines, colors="white", linewidths=0.9))
    return x + cols * CELL


def heads_side_by_side(ax, x: float, y: float, gap: float = 0.0) -> float:
    """d_out columns in three bands, one colour per head (a gap between bands if given)."""
    for h in range(NUM_HEADS):
        x = block(ax, x, y, HEAD_DIM, HEAD_COLORS[h]) + (gap if h < NUM_HEADS - 1 else 0.0)
    return x


def token_labels(ax, x: float, y: float) -> None:
    for r, token in enumerate(TOKENS):
        ax.text(
            x - 0.1, y - (r + 0.5) * CELL, token, ha="right", va="center", fontsize=8.5, color=TEXT
        )


def head_label(ax, x: float, top: float, h: int) -> None:
    """"head h" centred at ``x`` under a block whose top is ``top``, in the head's colour."""
    label_y = top - HEIGHT - 0.12
    ax.text(x, label_y, f"head {h}", ha="center", va="top", fontsize=8.5, color=HEAD_TEXT[h])


def caption(ax, x: float, y: float, title: str, shape: str) -> None:
    ax.text(x, y + 0.5, title, ha="left", va="bottom", fontsize=10.5, color=TEXT)
    ax.text(x, y + 0.1, shape, ha="left", va="bottom", **MONO)


def arrow(ax, start, end, above: str = "", below: str = "") -> None:
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, lw=1.4, color=TEXT)
    )
    mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    if above:
        ax.text(mid[0], mid[1] + 0.14, above, ha="center", va="bottom", **MONO)
    if below:
        ax.text(mid[0], mid[1] - 0.14, below, ha="center", va="top", fontsize=8.5, color=QUIET)


def draw() -> plt.Figure:
    fig = plt.figure(figsize=(12.9, 6.6))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 24.2)
    ax.set_ylim(1.5, 13.9)
    ax.set_aspect("equal")
    ax.axis("off")
    per_head_width = HEAD_DIM * CELL
    x0, x1, x2 = 1.6, 8.6, 16.0

    # Top row, left to right: split.
    top = 11.6
    ax.text(0.2, 13.35, "Split: one projection, cut into heads", fontsize=13, color=TEXT)
    caption(ax, x0, top, "queries = W_query(x)", "(b, T, d_out) = (2, 6, 12)")
    token_labels(ax, x0, top)
    right = heads_side_by_side(ax, x0, top)
    for h in range(NUM_HEADS):  # the columns each head will get
        head_label(ax, x0 + (h + 0.5) * per_head_width, top, h)
    arrow(
        ax,
        (right + 0.3, top - HEIGHT / 2),
        (x1 - 0.3, top - HEIGHT / 2),
        ".view(b, T, 3, 4)",
        "same numbers, grouped",
    )
    caption(ax, x1, top, "each token: 3 heads of 4", "(b, T, num_heads, head_dim)")
    right = heads_side_by_side(ax, x1, top, GAP)
    arrow(
        ax,
        (right + 0.3, top - HEIGHT / 2),
        (x2 - 0.3, top - HEIGHT / 2),
        ".transpose(1, 2)",
        "heads before tokens",
    )
    caption(ax, x2, top, "one matrix per head", "(b, num_heads, T, head_dim)")
    for h in range(NUM_HEADS):
        x = x2 + h * (per_head_width + 0.4)
        block(ax, x, top, HEAD_DIM, HEAD_COLORS[h])
        head_label(ax, x + per_head_width / 2, top, h)
    heads_right = x2 + NUM_HEADS * per_head_width + 2 * 0.4
    ax.text(
        heads_right + 0.3,
        top - HEIGHT / 2,
        "keys and values\nare cut the\nsame way",
        va="center",
        fontsize=8.5,
        color=QUIET,
    )

    # Down the right side: attention, all heads at once.
    centre = x2 + (heads_right - x2) / 2
    arrow(ax, (centre, top - HEIGHT - 0.55), (centre, 8.05))
    ax.text(centre + 0.3, 9.0, "each head, all at once:", va="bottom", fontsize=9, color=TEXT)
    ax.text(
        centre + 0.3, 8.95, "softmax(mask(q @ k.T)\n        / sqrt(head_dim)) @ v", va="top", **MONO
    )

    # Bottom row, right to left: merge; then out_proj below.
    bottom = 6.9
    ax.text(0.2, 8.6, "Merge: heads side by side again, then out_proj", fontsize=13, color=TEXT)
    caption(ax, x2, bottom, "context, per head", "(b, num_heads, T, head_dim)")
    for h in range(NUM_HEADS):
        block(ax, x2 + h * (per_head_width + 0.4), bottom, HEAD_DIM, HEAD_COLORS[h])
    ax.text(
        heads_right + 0.3,
        bottom - HEIGHT / 2,
        "row i: token i's\nblend of values,\nin that head",
        va="center",
        fontsize=8.5,
        color=QUIET,
    )
    middle = bottom - HEIGHT / 2
    arrow(
        ax,
        (x2 - 0.3, middle),
        (x1 + D_OUT * CELL + 2 * GAP + 0.3, middle),
        ".transpose(1, 2)",
        "tokens first again",
    )
    caption(ax, x1, bottom, "each token: its 3 heads", "(b, T, num_heads, head_dim)")
    heads_side_by_side(ax, x1, bottom, GAP)
    arrow(
        ax,
        (x1 - 0.3, middle),
        (x0 + D_OUT * CELL + 0.3, middle),
        ".contiguous()",
        ".view(b, T, 12)",
    )
    caption(ax, x0, bottom, "heads merged", "(b, T, d_out) = (2, 6, 12)")
    heads_side_by_side(ax, x0, bottom)
    down = x0 + D_OUT * CELL / 2
    arrow(ax, (down, bottom - HEIGHT - 0.15), (down, bottom - HEIGHT - 1.05))
    ax.text(
        down + 0.3, bottom - HEIGHT - 0.6, "out_proj = Linear(d_out, d_out)", va="center", **MONO
    )
    out_top = bottom - HEIGHT - 1.25
    token_labels(ax, x0, out_top)
    block(ax, x0, out_top, D_OUT, MIXED)
    ax.text(
        x0 + D_OUT * CELL + 0.3,
        out_top - HEIGHT / 2,
        "output (b, T, d_out) = (2, 6, 12):\nevery feature can draw on every head",
        va="center",
        fontsize=9,
        color=TEXT,
    )
    return fig


def save_with_fallbacks(path: Path) -> None:
    """The diagram as SVG whose fonts fall back to ones of the same kind."""
    figure_files.save(draw(), path)
    svg = path.read_text()
    for family, fallback in FALLBACKS.items():
        svg = svg.replace(f"font-family: '{family}'", f"font-family: '{family}', {fallback}")
    path.write_text(svg)


def main(argv: list[str]) -> int:
    """Draw into ``argv[0]`` (default notebooks/figures), text kept as SVG text."""
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a third of the size as paths
    matplotlib.rcParams["font.family"] = "DejaVu Sans"
    return figure_files.main({"07_heads_split_merge.svg": save_with_fallbacks}, argv)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
