"""Draw notebook 04's figure: a context vector as the stack of the weighted inputs.

Writes notebooks/figures/04_running_total.svg: for each of the three coordinates of
z(2), the context vector of "journey", a bar stacked from the six inputs times their
weights, in the order of the running total. The numbers are computed with attnlib, not
typed in. Running it twice writes the same bytes.

Usage: python tools/figures_nb04.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402

import attnlib  # noqa: E402

QUERY = 1  # "journey", the book's z^(2)
# Okabe-Ito colours, distinguishable with the common colour-vision deficiencies.
COLORS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00")


def running_total(path: Path) -> None:
    """Three stacked bars, one per coordinate; segment i is weights[i] * inputs[i, k]."""
    inputs = attnlib.example_inputs()
    weights = attnlib.softmax(attnlib.attention_scores(inputs), dim=-1)[QUERY]
    # (6, 3): one weighted input per row, rounded: float32's last bits differ between CPUs
    parts = [[round(v, 5) for v in row] for row in (weights[:, None] * inputs).tolist()]
    context = attnlib.context_vector(inputs, weights).tolist()
    tokens = attnlib.TOKENS

    fig, ax = plt.subplots(figsize=(8.2, 4.6))
    bottoms = [0.0, 0.0, 0.0]
    for i, (token, part) in enumerate(zip(tokens, parts, strict=True)):
        label = f"{weights[i]:.4f} × x({token})"
        ax.bar(
            range(3),
            part,
            0.55,
            bottom=bottoms,
            color=COLORS[i],
            edgecolor="white",
            lw=0.8,
            label=label,
        )
        for k in range(3):
            if part[k] > 0.035:  # name the segment where it is tall enough to hold a word
                ax.text(
                    k,
                    bottoms[k] + part[k] / 2,
                    token,
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if COLORS[i] in ("#0072B2", "#D55E00", "#009E73") else "black",
                )
        bottoms = [b + p for b, p in zip(bottoms, part, strict=True)]
    for k, value in enumerate(context):
        ax.text(
            k,
            value + 0.012,
            f"z(2)[{k}] = {value:.4f}",
            ha="center",
            va="bottom",
            fontsize=10,
            fontweight="bold",
        )
    ax.set_xticks(range(3), [f"coordinate {k}" for k in range(3)])
    ax.set_ylim(0, max(context) * 1.15)
    ax.set_ylabel("running total, from zero upwards")
    ax.spines[["top", "right"]].set_visible(False)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(
        handles[::-1],
        labels[::-1],
        loc="center left",
        bbox_to_anchor=(1.0, 0.5),
        fontsize=9,
        frameon=False,
        title="added, bottom to top",
        title_fontsize=9,
    )
    ax.set_title(
        'z(2), the context vector of "journey": each input times its weight, stacked', fontsize=11
    )
    fig.tight_layout(pad=0.3)
    figure_files.save(fig, path)


def main(argv: list[str]) -> int:
    return figure_files.main({"04_running_total.svg": running_total}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
