"""Draw notebook 03's figure: the two axes of the grid of scores, and which way each one walks.

Writes notebooks/figures/03_softmax_axes.svg. The scores in the cells are computed with
attnlib, not typed in. Running it twice writes the same bytes.

Usage: python tools/figures_nb03.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

import attnlib  # noqa: E402

ROW = COLUMN = 1  # "journey": its row and its column are the two walks drawn
ROW_COLOR, COLUMN_COLOR, BOTH_COLOR = "#fbe3c0", "#d4e4f5", "#e8dccc"
ROW_ARROW, COLUMN_ARROW = "#c46a00", "#1f5fa8"


def softmax_axes(path: Path) -> None:
    """A 6 x 6 grid of scores; one arrow walks down a column (axis 0), one across a row (axis 1)."""
    scores = attnlib.attention_scores(attnlib.example_inputs()).tolist()
    tokens = attnlib.TOKENS
    n = len(tokens)

    fig, ax = plt.subplots(figsize=(8.2, 5.6))
    for i in range(n):
        for j in range(n):
            color = (
                BOTH_COLOR
                if (i, j) == (ROW, COLUMN)
                else ROW_COLOR
                if i == ROW
                else COLUMN_COLOR
                if j == COLUMN
                else "white"
            )
            ax.add_patch(Rectangle((j, i), 1, 1, facecolor=color, edgecolor="#999999", lw=0.8))
            # The number sits on a patch of its cell's colour, above the arrows.
            ax.text(
                j + 0.5,
                i + 0.5,
                f"{scores[i][j]:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                zorder=4,
                bbox={"boxstyle": "square,pad=0.15", "facecolor": color, "edgecolor": "none"},
            )
    for k, token in enumerate(tokens):
        ax.text(-0.12, k + 0.5, f"{token}  i={k}", ha="right", va="center", fontsize=9)
        ax.text(k + 0.5, -0.12, f"{token}\nj={k}", ha="center", va="bottom", fontsize=9)
    ax.text(-0.12, -0.12, "attn_scores[i, j]", ha="right", va="bottom", fontsize=9, color="#555555")

    # Axis 0: the row index i changes, down one column.
    ax.add_patch(
        FancyArrowPatch(
            (COLUMN + 0.5, 0.08),
            (COLUMN + 0.5, n + 0.55),
            arrowstyle="-|>",
            mutation_scale=16,
            color=COLUMN_ARROW,
            lw=2,
        )
    )
    ax.text(
        COLUMN + 0.5,
        n + 0.7,
        "axis 0 (dim=0): down a column\nthe row index i changes, j stays",
        ha="center",
        va="top",
        fontsize=10,
        color=COLUMN_ARROW,
    )
    # Axis 1, the last one (-1): the column index j changes, across one row.
    ax.add_patch(
        FancyArrowPatch(
            (0.08, ROW + 0.5),
            (n + 0.55, ROW + 0.5),
            arrowstyle="-|>",
            mutation_scale=16,
            color=ROW_ARROW,
            lw=2,
        )
    )
    ax.text(
        n + 0.7,
        ROW + 0.5,
        "axis 1, also -1 (dim=-1):\nacross a row\nthe column index j\nchanges, i stays",
        ha="left",
        va="center",
        fontsize=10,
        color=ROW_ARROW,
    )
    ax.set_title("The two axes of the grid, and which way each one walks", fontsize=12, pad=4)
    figure_files.finish_diagram(ax, path, (-2.6, n + 3.2), (n + 1.45, -1.0))


def main(argv: list[str]) -> int:
    return figure_files.main({"03_softmax_axes.svg": softmax_axes}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
