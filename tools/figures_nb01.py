"""Draw notebook 01's figure: the sentence, and how much "journey" draws from each token.

Writes notebooks/figures/01_sentence_weights.svg. The weights are computed with attnlib
(scores as in notebook 01, softmax as in notebook 03), not typed in. Running it twice
writes the same bytes.

Usage: python tools/figures_nb01.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

import attnlib  # noqa: E402

QUERY = 1  # "journey", the book's x^(2)
QUERY_COLOR, OTHER_COLOR, ARC_COLOR = "#f2a541", "#dfe7f2", "#2f6db5"


def sentence_weights(path: Path) -> None:
    """The query above, the six tokens below; a band from one to each, as wide as its weight."""
    inputs = attnlib.example_inputs()
    # Rounded to the printed 4 decimals: float32's last bits differ between CPUs, bytes must not.
    row = attnlib.softmax(attnlib.attention_scores(inputs))[QUERY]
    weights = [round(w, 4) for w in row.tolist()]
    tokens = attnlib.TOKENS
    xs = [1.5 * i for i in range(len(tokens))]
    top = (xs[0] + xs[-1]) / 2
    query_y, token_y = 2.0, 0.0

    fig, ax = plt.subplots(figsize=(8.4, 4.1))
    for i, (token, x, weight) in enumerate(zip(tokens, xs, weights, strict=True)):
        ax.plot(
            [top, x],
            [query_y - 0.28, token_y + 0.28],
            color=ARC_COLOR,
            linewidth=1 + 75 * weight,
            alpha=0.55,
            solid_capstyle="butt",
            zorder=1,
        )
        t = 0.62  # the label sits this far down the band
        ax.text(
            top + t * (x - top),
            query_y - 0.28 - t * (query_y - 0.56 - token_y),
            f"{weight:.4f}",
            ha="center",
            va="center",
            fontsize=10,
            color="#1d4577",
            bbox={
                "boxstyle": "round,pad=0.18",
                "facecolor": "white",
                "edgecolor": "none",
                "alpha": 0.9,
            },
            zorder=3,
        )
        _box(ax, x, token_y, token, QUERY_COLOR if i == QUERY else OTHER_COLOR, i == QUERY)
        ax.text(
            x, token_y - 0.5, f"index {i}", ha="center", va="center", fontsize=8, color="#666666"
        )
    _box(ax, top, query_y, f"query: {tokens[QUERY]}", QUERY_COLOR, True, width=2.4)

    blend = " + ".join(f"{w:.2f} {tok}" for w, tok in zip(weights, tokens, strict=True))
    ax.text(
        top,
        token_y - 0.8,
        f'the new vector of "journey" (notebook 04) = {blend}\n'
        "the six weights sum to 1 (scores: notebooks 01-02, softmax: notebook 03)",
        ha="center",
        va="top",
        fontsize=9,
        color="#333333",
        linespacing=1.7,
        multialignment="center",
    )
    ax.text(
        top,
        query_y + 0.85,
        'How much "journey" draws from each token of its sentence',
        ha="center",
        va="top",
        fontsize=12,
        fontweight="bold",
    )
    xlim, ylim = (xs[0] - 0.75, xs[-1] + 0.75), (token_y - 1.4, query_y + 0.9)
    figure_files.finish_diagram(ax, path, xlim, ylim)


def _box(ax, x: float, y: float, text: str, color: str, bold: bool, width: float = 1.2) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - 0.28),
            width,
            0.56,
            boxstyle="round,pad=0.02,rounding_size=0.12",
            facecolor=color,
            edgecolor="#555555",
            linewidth=0.8,
            zorder=2,
        )
    )
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=12,
        fontweight="bold" if bold else "normal",
        zorder=3,
    )


def main(argv: list[str]) -> int:
    return figure_files.main({"01_sentence_weights.svg": sentence_weights}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
