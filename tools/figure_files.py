"""What every figure script shares: where the figures go, and how they are saved repeatably.

Each ``tools/figures_nbNN.py`` draws its notebook's figures and calls :func:`main`; the
SVGs land in notebooks/figures/ (or the folder given), the same bytes on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIGURES = Path(__file__).resolve().parent.parent / "notebooks" / "figures"


def save(fig: plt.Figure, path: Path) -> None:
    """Write ``fig`` as SVG with no date in it, then free it."""
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)


def finish_diagram(ax: plt.Axes, path: Path, xlim: tuple, ylim: tuple) -> None:
    """A diagram's end: these limits, one unit as long across as down, no axes; saved."""
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.figure.tight_layout(pad=0.2)
    save(ax.figure, path)


def main(drawings: dict[str, Callable[[Path], None]], argv: list[str]) -> int:
    """Draw each ``name: draw`` into ``argv[0]`` (default notebooks/figures) as ``name``."""
    matplotlib.rcParams["svg.hashsalt"] = "attnlib"  # ids in the SVG the same on every run
    out = Path(argv[0]) if argv else FIGURES
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in drawings.items():
        draw(out / name)
    return 0
