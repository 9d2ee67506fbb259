"""Draw notebook 06's figure: causal attention in three grids, scores to weights to dropout.

Writes notebooks/figures/06_causal_attention.svg. The numbers are notebook 06's: the scores of
SelfAttentionV2 built after torch.manual_seed(789), scaled by 1/sqrt(d_k), -inf above the
diagonal; their softmax, row by row; and dropout with p = 0.2 and the fixed keep-mask of the
notebook's exercise (no random draw, so the picture is the same on every machine). Running it
twice writes the same bytes.

Usage: python tools/figures_nb06.py [OUTPUT_DIR]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

import attnlib  # noqa: E402
from attnlib.attention import scaled_scores  # noqa: E402
from attnlib.exercises.nb06 import DROPOUT_P, KEEP  # noqa: E402
from attnlib.modules import SelfAttentionV2  # noqa: E402

HIDDEN_COLOR, DROPPED_COLOR, TEXT_COLOR = "#d9d9d9", "#f4f4f4", "#222222"


def stage() -> dict[str, torch.Tensor]:
    """The three grids of the figure, as notebook 06 computes them."""
    inputs = attnlib.example_inputs()
    torch.manual_seed(789)
    layer = SelfAttentionV2(3, 2)
    with torch.no_grad():
        queries, keys = layer.W_query(inputs), layer.W_key(inputs)
    scores = scaled_scores(queries, keys, causal=True)  # what enters softmax
    weights = attnlib.attention_weights(queries, keys, causal=True)
    return {"scores": scores, "weights": weights, "dropped": weights * KEEP / (1 - DROPOUT_P)}


def _grid(ax, matrix: torch.Tensor, x: float, cmap: str, title: str, hidden: torch.Tensor,
          dropped: torch.Tensor | None = None) -> tuple[float, float]:
    """One 6 x 6 grid, numbers written in, left edge at x; returns (left, right)."""
    n = matrix.shape[0]
    finite = matrix[~hidden]
    low, high = float(finite.min()), float(finite.max())
    colors = plt.get_cmap(cmap)
    faces = []
    for i in range(n):
        row = []
        for j in range(n):
            value = float(matrix[i, j])
            if hidden[i, j]:
                face, text, ink = HIDDEN_COLOR, "-inf" if math.isinf(value) else "0", "#777777"
            elif dropped is not None and dropped[i, j]:
                face, text, ink = DROPPED_COLOR, "0", "#999999"
            else:
                level = 0.12 + 0.6 * (value - low) / ((high - low) or 1.0)
                face, text, ink = colors(level), f"{value:.2f}", TEXT_COLOR
            row.append(to_rgb(face))
            ax.text(x + j + 0.5, -i - 0.5, text, ha="center", va="center", fontsize=7.5,
                    color=ink)
        faces.append(row)
    # The cells' colours as one small image ("none" keeps them sharp and the SVG small).
    ax.imshow(faces, interpolation="none", extent=(x, x + n, -n, 0), zorder=0)
    lines = [[(x + k, -n), (x + k, 0)] for k in range(n + 1)]
    lines += [[(x, -k), (x + n, -k)] for k in range(n + 1)]
    ax.add_collection(LineCollection(lines, colors="white", linewidths=1.2))
    ax.text(x + n / 2, 0.55, title, ha="center", va="bottom", fontsize=10, color=TEXT_COLOR,
            linespacing=1.4)
    return x, x + n


def causal_attention(path: Path) -> None:
    m = stage()
    n = m["scores"].shape[0]
    hidden = attnlib.causal_mask(n)
    fig, ax = plt.subplots(figsize=(12.4, 4.1))
    gap = 3.2

    left0, right0 = _grid(ax, m["scores"], 0.0, "Oranges",
                          "scores / \u221ad_k, -inf above the diagonal", hidden)
    for i, token in enumerate(attnlib.TOKENS):
        ax.text(-0.15, -i - 0.5, token, ha="right", va="center", fontsize=9, color=TEXT_COLOR)
        ax.text(left0 + i + 0.5, -n - 0.2, token, ha="center", va="top", fontsize=8,
                color=TEXT_COLOR, rotation=35, rotation_mode="anchor")
    left1, right1 = _grid(ax, m["weights"], right0 + gap, "Reds",
                          "weights: softmax of each row\n(every row sums to 1)", hidden)
    left2, right2 = _grid(ax, m["dropped"], right1 + gap, "Purples",
                          f"training only: dropout, p = {DROPOUT_P}\n"
                          f"kept weights \u00d7 1/(1 - p) = {1 / (1 - DROPOUT_P):g}",
                          hidden, dropped=~KEEP)
    for start, end, label in ((right0, left1, "softmax"), (right1, left2, "dropout")):
        ax.add_patch(FancyArrowPatch((start + 0.2, -n / 2), (end - 0.2, -n / 2),
                                     arrowstyle="-|>", mutation_scale=14, color="#555555",
                                     linewidth=1.3))
        ax.text((start + end) / 2, -n / 2 + 0.3, label, ha="center", va="bottom", fontsize=9,
                color="#555555")
    ax.text(left0 - 1.6, -n - 1.45,
            "Row i is query i: it may use tokens 0..i only. Grey: hidden by the mask (weight "
            "exactly 0). Light: dropped this pass; after dropout a row sums to 1 only on average.",
            ha="left", va="center", fontsize=8.5, color="#555555")
    figure_files.finish_diagram(ax, path, (left0 - 1.7, right2 + 0.2), (-n - 1.8, 1.8))


def main(argv: list[str]) -> int:
    return figure_files.main({"06_causal_attention.svg": causal_attention}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
