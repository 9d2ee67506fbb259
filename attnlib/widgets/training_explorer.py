"""The TrainingExplorer of notebook 10: a head's attention over a sentence as training goes.

Sliders pick the snapshot of training and the query, a menu the head (of every block); the
snapshots are sent to the browser once, which draws each setting with no kernel involved.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure

from attnlib import _validate as validate
from attnlib.widgets import _text, figures
from attnlib.widgets.base import Control, Explorer
from attnlib.widgets.frontend import ExplorerView
from attnlib.widgets.training_view import (
    DECIMALS,
    TrainingView,
    even_share,
    shares,
    snapshots_of,
    training_view,
)


def encoded(snapshots: torch.Tensor) -> str:
    """``snapshots`` (weights in [0, 1] to :data:`DECIMALS` decimals) as base64 of
    little-endian uint16 counts of 10**-DECIMALS, in (snapshot, block, head, query, key)
    order: one short line in a saved notebook, where nested lists take one line a number."""
    counts = (snapshots * 10**DECIMALS).round().clamp(0, 10**DECIMALS)
    return base64.b64encode(counts.numpy().astype("<u2").tobytes()).decode("ascii")


#: The most points of the loss curve sent to the browser: longer trainings are averaged.
CURVE_POINTS = 150


def loss_curve(losses: Sequence[float] | None) -> list[list[float]]:
    """``losses`` (one per training step) as at most :data:`CURVE_POINTS` ``[step, loss]``
    points, each the mean of a run of steps at its middle step; ``[]`` for ``None``."""
    if losses is None:
        return []
    if isinstance(losses, (str, bytes)) or not isinstance(losses, Sequence) or not losses:
        raise validate.invalid(
            "losses", "None or a non-empty list of numbers", validate.describe(losses)
        )
    values = [float(x) for x in losses]
    if not all(math.isfinite(x) and x >= 0 for x in values):
        raise validate.invalid("losses", "finite losses, 0 or more", validate.describe(losses))
    every = math.ceil(len(values) / CURVE_POINTS)
    points = []
    for start in range(0, len(values), every):
        chunk = values[start : start + every]
        points.append([start + (len(chunk) - 1) / 2, round(sum(chunk) / len(chunk), 3)])
    return points


class TrainingExplorer(Explorer):
    """Slide through training and watch one head's weights over a sentence form.

    ``snapshots``: ``(num_snapshots, num_blocks, num_heads, num_tokens, num_tokens)``, the
    weights each head gave ``tokens`` at the training steps ``steps``; ``losses`` (optional),
    the loss of every training step, drawn beside the grid with the snapshot's step marked.
    Controls: ``snapshot`` (a slider over the snapshots, value 0 .. num_snapshots - 1, read
    "k of N" from 1), ``play`` (runs it in the browser), ``head`` (Dropdown over every
    block's heads, value ``block * num_heads + head``) and ``query`` (IntSlider over the
    tokens). ``view``: a :class:`~attnlib.widgets.training_view.TrainingView`.
    """

    _css_class = "attnlib-training-explorer"
    # Its picture at 1.4 times a screen's pixels, not 2: rendered in notebook 10's kernel,
    # next to four trained models, it must stay within the course's memory limit.
    _picture_dpi = 100

    def __init__(
        self,
        snapshots: Any,
        tokens: Sequence[str],
        steps: Sequence[int],
        snapshot: int = 0,
        head: int = 0,
        query: int = 1,
        losses: Sequence[float] | None = None,
    ) -> None:
        self.snapshots = snapshots_of(snapshots, tokens, steps)
        num_snapshots, num_blocks, num_heads, num_tokens, _ = self.snapshots.shape
        self.tokens, self.steps = tuple(tokens), [int(s) for s in steps]
        query = min(query, num_tokens - 1)
        training_view(self.snapshots, self.tokens, self.steps, snapshot, head, query)  # checks
        curve = loss_curve(losses)
        # Read from 1, as the line under it and the spoken value count: "1 of 21".
        self.snapshot = widgets.SelectionSlider(
            options=[(f"{k + 1} of {num_snapshots}", k) for k in range(num_snapshots)],
            value=snapshot,
            description="snapshot",
        )
        self.play = widgets.Play(
            value=snapshot, min=0, max=num_snapshots - 1, interval=700, description="play"
        )
        # Counted from 1, as the line beside the controls counts them: "block 1, head 1".
        option = _text.TEXTS["training"]["head_option"]
        labels = [
            (_text.fill(option, {"block": b, "head": h}), b * num_heads + h)
            for b in range(num_blocks)
            for h in range(num_heads)
        ]
        self.head = widgets.Dropdown(options=labels, value=head, description="head")
        self.query = widgets.IntSlider(
            value=query, min=0, max=num_tokens - 1, description="query", readout=False
        )  # the book's name beside it instead (controls.js): x⁽²⁾, not 1
        data = {
            "tokens": list(self.tokens),
            "snapshots": encoded(self.snapshots),
            "shape": [num_snapshots, num_blocks * num_heads, num_tokens, num_tokens],
            "steps": self.steps,
            "heads": [label for label, _ in labels],
            "num_heads": num_heads,
            # Python's numbers, so that the browser's line says what training_view says.
            "shares": shares(self.snapshots),
            "even": even_share(num_tokens),
            "losses": curve,
            **_text.for_browser(self.tokens),
        }
        self.frontend = ExplorerView(
            kind="training", data=data, step=snapshot, head=head, query=query
        )
        controls = [
            Control("snapshot", self.snapshot, "index", "step"),  # index = value here
            Control("play", self.play),
            Control("head", self.head, "index", "head"),  # index = value here
            Control("query", self.query, trait="query"),
        ]
        row = widgets.HBox([self.play, self.snapshot])
        self._assemble([row, self.head, self.query], controls)
        # Play runs the slider in the browser (no kernel), the slider the link's source.
        self._play_link = widgets.jslink((self.snapshot, "index"), (self.play, "value"))
        for control in controls:
            if control.trait:
                self._guard(control)

    @property
    def view(self) -> TrainingView:
        """What is shown now: :func:`training_view` of the three controls."""
        return training_view(
            self.snapshots,
            self.tokens,
            self.steps,
            self.snapshot.value,
            self.head.value,
            self.query.value,
        )

    def figure(self) -> Figure:
        """The current head at the current snapshot, the query's row outlined and as bars."""
        return figures.training_figure(self.view, self.tokens)
