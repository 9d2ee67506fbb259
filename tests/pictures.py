"""Where a picture's texts are drawn, and which meet: shared by the tests of legible pictures."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text
from matplotlib.transforms import Bbox


def text_boxes(fig) -> list[tuple[str, Bbox, bool]]:
    """Every visible, non-empty text of ``fig``, where it is drawn in pixels, and whether
    it is slanted (a tick label at an angle)."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    # A tick outside its axis' limits keeps a visible label that is never drawn.
    undrawn = {
        id(label)
        for ax in fig.axes
        for axis in (ax.xaxis, ax.yaxis)
        for tick in axis.get_major_ticks()
        if not min(axis.get_view_interval()) - 1e-9
        <= tick.get_loc()
        <= max(axis.get_view_interval()) + 1e-9
        for label in (tick.label1, tick.label2)
    }
    texts = [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and id(t) not in undrawn
    ]
    return [(t.get_text(), t.get_window_extent(renderer), bool(t.get_rotation())) for t in texts]


def drawn_texts(fig) -> list[tuple[str, Bbox]]:
    """The upright texts of :func:`text_boxes`. A slanted tick label's box is the upright
    rectangle around it, which always meets its neighbour's: those are left out (their
    spacing is the cells' or bars')."""
    return [(text, box) for text, box, slanted in text_boxes(fig) if not slanted]


def crossing(boxes: list[tuple[str, Bbox]]) -> list[tuple[str, str]]:
    """The pairs of texts whose boxes overlap (as ``Bbox.overlaps``), all pairs at once."""
    if not boxes:
        return []
    x0, y0, x1, y1 = np.array([box.extents for _, box in boxes]).T
    meet = (
        (x0[:, None] < x1[None, :])
        & (x0[None, :] < x1[:, None])
        & (y0[:, None] < y1[None, :])
        & (y0[None, :] < y1[:, None])
    )
    return [(boxes[i][0], boxes[j][0]) for i, j in zip(*np.nonzero(np.triu(meet, 1)), strict=True)]


def outside(boxes: list[tuple[str, Bbox]], page: Bbox) -> list[str]:
    """The texts cut by the edge of ``page`` (one pixel of slack)."""
    return [
        text
        for text, box in boxes
        if box.x0 < page.x0 - 1
        or box.x1 > page.x1 + 1
        or box.y0 < page.y0 - 1
        or box.y1 > page.y1 + 1
    ]
