"""Draw the site's landing picture: the attention weights of the book's six-word sentence.

The site's landing page shows it (tools/build_site.py draws it into the site's sources on
every build; nothing is committed). The weights are computed with attnlib, not typed in.
Its text stays at least 9 px high on a 390 px phone, where the picture is 358 px wide
(its texts of 11 points or more, at 0.74 of its 461 px).

Usage: python tools/figures_site.py [OUTPUT_DIR]   writes landing_weights.svg
"""

from __future__ import annotations

import sys
from pathlib import Path

import figure_files  # beside this script; selects matplotlib's Agg backend
import matplotlib.pyplot as plt
import matplotlib.text

import attnlib
from attnlib import plots

NAME = "landing_weights.svg"
# What the picture shows, for its alt text and caption on the landing page.
ALT = (
    "Heatmap of the attention weights of the sentence 'Your journey starts with one step': "
    "one row per word asking, one column per word it weighs; each row sums to 1, and the "
    "row of 'journey' is framed."
)
SMALLEST_POINTS = 11
QUERY = 1  # "journey", the book's example query


def landing_weights(path: Path) -> None:
    """The 6 x 6 weights of softmax(inputs @ inputs.T), journey's row framed."""
    weights = attnlib.softmax(attnlib.attention_scores(attnlib.example_inputs()), dim=-1)
    with plt.rc_context({"font.size": 11, "xtick.labelsize": 11, "ytick.labelsize": 11}):
        fig = plots.heatmap(
            weights.numpy(),
            attnlib.TOKENS,
            attnlib.TOKENS,
            title="Attention weights",
            highlight_row=QUERY,
            vmin=0,
            vmax=1,
            colorbar_label="attention weight",
            xlabel="word weighed",
            ylabel="word asking",
        )
        fig.set_size_inches(4.8, 4.3)  # 461 px wide: 0.74 of it on a phone
        # Every text at 11 points or more (the cells' numbers are drawn at 9): at 0.74 of
        # 96/72 px a point, 10.9 px on a phone.
        for text in fig.findobj(matplotlib.text.Text):
            text.set_fontsize(max(text.get_fontsize(), SMALLEST_POINTS))
        figure_files.save(fig, path)


def main(argv: list[str]) -> int:
    return figure_files.main({NAME: landing_weights}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
