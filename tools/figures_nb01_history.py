"""Draw notebook 01's history figure: an RNN encoder-decoder, then the same with attention.

Writes notebooks/figures/01_before_attention.svg, two panels for book sections 3.1-3.2. Top:
the encoder reads the sentence one token at a time, and the decoder gets only its last hidden
state. Bottom: one decoder step reaches back to every hidden state of the encoder. The widths of
those links are drawn for the picture (no model is trained here); the figure says so. Running it
twice writes the same bytes.

Usage: python tools/figures_nb01_history.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

import attnlib  # noqa: E402

SOURCE = attnlib.TOKENS  # "Your journey starts with one step"
TARGET = ("Deine", "Reise", "beginnt", "mit", "einem", "Schritt")
STEP = 1  # the decoder step shown in the bottom panel: it writes "Reise" ("journey")
# How strongly that step draws on each encoder state: a sketch, heaviest on "journey".
SKETCH = (0.08, 0.55, 0.12, 0.07, 0.06, 0.12)
GAP = 1.3  # distance between neighbouring boxes
ENCODER_X = [GAP * i for i in range(len(SOURCE))]
DECODER_X = [ENCODER_X[-1] + 2.0 + GAP * i for i in range(len(TARGET))]
TOKEN_COLOR, STATE_COLOR, DECODER_COLOR = "#dfe7f2", "#f7d9a8", "#cfe8cf"
LINK_COLOR, BOTTLENECK_COLOR, TEXT_COLOR = "#2f6db5", "#c0392b", "#222222"


def before_attention(path: Path) -> None:
    """Two panels, one above the other: the bottleneck, then attention's way around it."""
    fig, ax = plt.subplots(figsize=(9.6, 5.4))
    _encoder_decoder(ax, top=0.0, with_attention=False)
    _encoder_decoder(ax, top=-4.6, with_attention=True)
    xlim = (ENCODER_X[0] - 0.8, DECODER_X[-1] + 0.8)
    figure_files.finish_diagram(ax, path, xlim, (-8.3, 1.0))


def _encoder_decoder(ax, top: float, with_attention: bool) -> None:
    token_y, state_y, output_y = top - 2.7, top - 1.6, top - 0.5
    title = (
        "With attention (2014): each decoder step looks back at every encoder state"
        if with_attention
        else "An RNN encoder-decoder: the decoder sees only the encoder's last state"
    )
    ax.text(
        ENCODER_X[0] - 0.6,
        top + 0.75,
        title,
        ha="left",
        va="top",
        fontsize=11.5,
        fontweight="bold",
        color=TEXT_COLOR,
    )
    ax.text(
        (ENCODER_X[0] + ENCODER_X[-1]) / 2,
        top + 0.12,
        "encoder: reads the English",
        ha="center",
        va="center",
        fontsize=9,
        color="#555555",
    )
    ax.text(
        (DECODER_X[0] + DECODER_X[-1]) / 2,
        top + 0.12,
        "decoder: writes the German",
        ha="center",
        va="center",
        fontsize=9,
        color="#555555",
    )

    for i, (x, token) in enumerate(zip(ENCODER_X, SOURCE, strict=True)):
        _box(ax, x, token_y, token, TOKEN_COLOR)
        _box(ax, x, state_y, f"h{i + 1}", STATE_COLOR, width=0.7)
        _arrow(ax, (x, token_y + 0.28), (x, state_y - 0.28))
        if i > 0:
            _arrow(ax, (ENCODER_X[i - 1] + 0.35, state_y), (x - 0.35, state_y))
    for k, (x, word) in enumerate(zip(DECODER_X, TARGET, strict=True)):
        _box(ax, x, state_y, f"s{k + 1}", DECODER_COLOR, width=0.7)
        _box(ax, x, output_y, word, TOKEN_COLOR)
        _arrow(ax, (x, state_y + 0.28), (x, output_y - 0.28))
        if k > 0:
            _arrow(ax, (DECODER_X[k - 1] + 0.35, state_y), (x - 0.35, state_y))

    # The handover from encoder to decoder: h6 is all the decoder is given.
    _arrow(
        ax,
        (ENCODER_X[-1] + 0.35, state_y),
        (DECODER_X[0] - 0.35, state_y),
        color=BOTTLENECK_COLOR,
        width=2.4,
    )
    if not with_attention:
        ax.text(
            DECODER_X[0] - 0.5,
            state_y + 0.62,
            "the whole sentence,\nsqueezed into h6",
            ha="right",
            va="center",
            fontsize=9,
            color=BOTTLENECK_COLOR,
            linespacing=1.3,
        )
        return

    step_x = DECODER_X[STEP]
    for x, share in zip(ENCODER_X, SKETCH, strict=True):
        ax.add_patch(
            FancyArrowPatch(
                (x, state_y + 0.26),
                (step_x - 0.1, state_y + 0.26),
                connectionstyle="arc3,rad=-0.15",
                arrowstyle="-",
                color=LINK_COLOR,
                linewidth=0.8 + 14 * share,
                alpha=0.55,
                zorder=1,
            )
        )
    ax.text(
        (ENCODER_X[0] + DECODER_X[-1]) / 2,
        token_y - 0.5,
        f'writing "{TARGET[STEP]}", step s{STEP + 1} weighs h1 ... h6, most of all h2 '
        '("journey"); line widths sketched, not computed',
        ha="center",
        va="top",
        fontsize=9,
        color=LINK_COLOR,
    )


def _box(ax, x: float, y: float, text: str, color: str, width: float = 1.15) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - 0.26),
            width,
            0.52,
            boxstyle="round,pad=0.02,rounding_size=0.1",
            facecolor=color,
            edgecolor="#555555",
            linewidth=0.8,
            zorder=2,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=10, color=TEXT_COLOR, zorder=3)


def _arrow(ax, start, end, color: str = "#555555", width: float = 1.0) -> None:
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=9,
            color=color,
            linewidth=width,
            shrinkA=0,
            shrinkB=0,
            zorder=1,
        )
    )


def main(argv: list[str]) -> int:
    return figure_files.main({"01_before_attention.svg": before_attention}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
