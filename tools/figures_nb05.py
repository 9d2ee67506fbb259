"""Draw notebook 05's figure: the trainable attention pipeline, one matrix per stage.

Writes notebooks/figures/05_trainable_attention.svg: inputs -> W_query, W_key, W_value ->
queries, keys, values -> scores -> weights -> context vectors. Every grid holds the real
numbers of notebook 05 (seed 123, d_out = 2; the notebook's lines on attnlib's embeddings),
drawn as shades; the row of "journey" (the book's x^(2), index 1) is outlined all the way
through. Running it twice writes the same bytes.

Usage: python tools/figures_nb05.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import figure_files  # noqa: E402  (tools/, beside this script)
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

import attnlib  # noqa: E402
from attnlib.attention import attention_weights, context_vectors, scaled_scores  # noqa: E402

QUERY = 1  # "journey", the book's x^(2)
CELL = 0.34  # side of one matrix cell, in data units
QUERY_COLOR, ARROW_COLOR, TEXT_COLOR = "#e8891c", "#555555", "#222222"
CMAPS = {
    "inputs": "Greys",
    "query": "Blues",
    "key": "Greens",
    "value": "Purples",
    "scores": "Oranges",
    "weights": "Reds",
    "context": "Purples",
}


def pipeline() -> dict[str, torch.Tensor]:
    """Every matrix of the figure, as notebook 05 computes it."""
    inputs = attnlib.example_inputs()
    torch.manual_seed(123)
    W_query, W_key, W_value = (torch.rand(3, 2) for _ in range(3))
    queries, keys, values = inputs @ W_query, inputs @ W_key, inputs @ W_value
    attn_scores = scaled_scores(queries, keys, scale=1.0)
    attn_weights = attention_weights(queries, keys)  # scaled by 1 / sqrt(d_k)
    return {
        "inputs": inputs,
        "W_query": W_query,
        "W_key": W_key,
        "W_value": W_value,
        "queries": queries,
        "keys": keys,
        "values": values,
        "attn_scores": attn_scores,
        "attn_weights": attn_weights,
        "context_vecs": context_vectors(attn_weights, values),
    }


def _grid(
    ax,
    matrix: torch.Tensor,
    x: float,
    y_top: float,
    cmap: str,
    name: str,
    row: int | None = QUERY,
    label_below: bool = True,
) -> tuple[float, float, float, float]:
    """Draw ``matrix``, top-left corner at (x, y_top); returns (left, right, top, bottom)."""
    rows, cols = matrix.shape
    width, height = cols * CELL, rows * CELL
    low, high = float(matrix.min()), float(matrix.max())
    levels = 0.15 + 0.7 * (matrix - low) / ((high - low) or 1.0)
    # One small image per matrix (interpolation "none" keeps its cells sharp and the SVG small).
    ax.imshow(
        levels.numpy(),
        cmap=cmap,
        vmin=0,
        vmax=1,
        interpolation="none",
        aspect="auto",
        extent=(x, x + width, y_top - height, y_top),
        zorder=1,
    )
    lines = [[(x + j * CELL, y_top - height), (x + j * CELL, y_top)] for j in range(1, cols)]
    lines += [[(x, y_top - i * CELL), (x + width, y_top - i * CELL)] for i in range(1, rows)]
    ax.add_collection(LineCollection(lines, colors="white", linewidths=0.8, zorder=2))
    ax.add_patch(
        Rectangle(
            (x, y_top - height), width, height, fill=False, edgecolor="#444444", linewidth=0.9
        )
    )
    if row is not None:
        ax.add_patch(
            Rectangle(
                (x, y_top - (row + 1) * CELL),
                width,
                CELL,
                fill=False,
                edgecolor=QUERY_COLOR,
                linewidth=2.2,
            )
        )
    shape = f"({rows}, {cols})"
    if label_below:
        ax.text(
            x + width / 2,
            y_top - height - 0.12,
            f"{name}\n{shape}",
            ha="center",
            va="top",
            fontsize=9.5,
            color=TEXT_COLOR,
            linespacing=1.3,
        )
    else:
        ax.text(
            x + width / 2,
            y_top + 0.1,
            f"{name} {shape}",
            ha="center",
            va="bottom",
            fontsize=8.5,
            color=TEXT_COLOR,
        )
    return x, x + width, y_top, y_top - height


def _arrow(ax, start: tuple[float, float], end: tuple[float, float], rad: float = 0.0) -> None:
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=12,
            color=ARROW_COLOR,
            linewidth=1.2,
            connectionstyle=f"arc3,rad={rad}",
            shrinkA=2,
            shrinkB=2,
        )
    )


def _note(ax, x: float, y: float, text: str, size: float = 9.0, **kw) -> None:
    kw.setdefault("color", TEXT_COLOR)
    ax.text(x, y, text, ha="center", va="center", fontsize=size, **kw)


def trainable_attention(path: Path) -> None:
    m = pipeline()
    fig, ax = plt.subplots(figsize=(12.6, 6.4))
    tall = 6 * CELL  # height of a (6, d) matrix

    # inputs, with the tokens beside their rows
    mid = 0.0
    x_in = 1.3
    left, right, top, bottom = _grid(
        ax, m["inputs"], x_in, mid + tall / 2, CMAPS["inputs"], "inputs"
    )
    for i, token in enumerate(attnlib.TOKENS):
        ax.text(
            left - 0.1,
            top - (i + 0.5) * CELL,
            token,
            ha="right",
            va="center",
            fontsize=9,
            color=QUERY_COLOR if i == QUERY else TEXT_COLOR,
            fontweight="bold" if i == QUERY else "normal",
        )

    # three projections, each with its own matrix
    x_w, x_qkv = 4.1, 6.5
    tops = {"query": mid + tall * 1.5 + 0.9, "key": mid + tall / 2, "value": mid - tall / 2 - 0.9}
    boxes = {}
    for role, name in (("query", "queries"), ("key", "keys"), ("value", "values")):
        y = tops[role]
        _grid(
            ax,
            m[f"W_{role}"],
            x_w,
            y - 1.5 * CELL,
            CMAPS[role],
            f"W_{role}",
            row=None,
            label_below=False,
        )
        boxes[role] = _grid(ax, m[name], x_qkv, y, CMAPS[role], name)
        _arrow(ax, (right + 0.05, mid), (x_w - 0.1, y - 3 * CELL), rad=0.0)
        _arrow(ax, (x_w + 2 * CELL + 0.1, y - 3 * CELL), (x_qkv - 0.1, y - 3 * CELL))
    _note(
        ax,
        x_w + CELL,
        tops["query"] + 0.3,
        "inputs @ W: one product per role\n(the W's are what training learns)",
        size=8.5,
    )

    # scores from queries and keys, then weights, then the blend of values; each grid is
    # titled with the line that makes it
    x_s, x_w2, x_z = 9.7, 13.3, 16.9
    y_s = mid + tall + 0.45
    s_left, s_right, s_top, s_bottom = _grid(
        ax, m["attn_scores"], x_s, y_s, CMAPS["scores"], "attn_scores"
    )
    q_box, k_box = boxes["query"], boxes["key"]
    _arrow(ax, (q_box[1] + 0.1, q_box[3] + tall / 2), (s_left - 0.1, s_top - 2 * CELL))
    _arrow(ax, (k_box[1] + 0.1, k_box[3] + tall / 2), (s_left - 0.1, s_bottom + 2 * CELL))
    _note(ax, (s_left + s_right) / 2, y_s + 0.35, "queries @ keys.T")

    w_left, w_right, _, _ = _grid(
        ax, m["attn_weights"], x_w2, y_s, CMAPS["weights"], "attn_weights"
    )
    _arrow(ax, (s_right + 0.1, y_s - tall / 2), (w_left - 0.1, y_s - tall / 2))
    _note(ax, (w_left + w_right) / 2, y_s + 0.35, "softmax(attn_scores / \u221ad_k)")
    _note(
        ax,
        (s_right + w_left) / 2,
        y_s - tall / 2 - 0.4,
        "each row\nsums to 1",
        size=8.5,
        color="#555555",
    )

    z_left, z_right, z_top, z_bottom = _grid(
        ax, m["context_vecs"], x_z, y_s, CMAPS["context"], "context_vecs"
    )
    _arrow(ax, (w_right + 0.1, y_s - 2 * CELL), (z_left - 0.1, y_s - 2 * CELL))
    v_box = boxes["value"]
    _arrow(
        ax, (v_box[1] + 0.1, v_box[3] + tall / 2), (z_left - 0.1, z_bottom + 1.5 * CELL), rad=0.2
    )
    _note(ax, (z_left + z_right) / 2 + 0.2, y_s + 0.35, "attn_weights @ values")
    z2 = m["context_vecs"][QUERY].tolist()
    ax.text(
        z_right + 0.15,
        z_top - (QUERY + 0.5) * CELL,
        f"z(2) = [{z2[0]:.4f}, {z2[1]:.4f}]",
        ha="left",
        va="center",
        fontsize=9,
        color=QUERY_COLOR,
    )

    ax.text(
        x_in - 1.0,
        tops["query"] + 1.0,
        "Trainable self-attention, stage by stage (seed 123, d_out = 2)",
        ha="left",
        va="center",
        fontsize=12.5,
        fontweight="bold",
        color=TEXT_COLOR,
    )
    ax.text(
        x_in - 1.0,
        tops["value"] - tall - 1.25,
        'Darker = larger, within each matrix. Outlined: "journey" (index 1, the book\'s x(2)).',
        ha="left",
        va="center",
        fontsize=8.5,
        color="#555555",
    )
    xlim, ylim = (x_in - 1.1, x_z + 3.3), (tops["value"] - tall - 1.5, tops["query"] + 1.3)
    figure_files.finish_diagram(ax, path, xlim, ylim)


def main(argv: list[str]) -> int:
    return figure_files.main({"05_trainable_attention.svg": trainable_attention}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
