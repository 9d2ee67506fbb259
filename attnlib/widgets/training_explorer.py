"""The TrainingExplorer of notebook 10: a head's attention over a sentence as training goes.

Sliders pick the snapshot of training and the query, a menu the head (of every block); the
snapshots are sent to the browser once, which draws each setting with no kernel involved.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure

from attnlib.widgets import _text, figures
from attnlib.widgets.base import Control, Explorer
from attnlib.widgets.frontend import ExplorerView
from attnlib.widgets.training_view import DECIMALS, TrainingView, snapshots_of, training_view


def encoded(snapshots: torch.Tensor) -> str:
    """``snapshots`` (weights in [0, 1] to :data:`DECIMALS` decimals) as base64 of
    little-endian uint16 counts of 10**-DECIMALS, in (snapshot, block, head, query, key)
    order: one short line in a saved notebook, where nested lists take one line a number."""
    counts = (snapshots * 10**DECIMALS).round().clamp(0, 10**DECIMALS)
    return base64.b64encode(counts.numpy().astype("<u2").tobytes()).decode("ascii")


class TrainingExplorer(Explorer):
    """Slide through training and watch one head's weights over a sentence form.

    ``snapshots``: ``(num_snapshots, num_blocks, num_heads, num_tokens, num_tokens)``, the
    weights each head gave ``tokens`` at the training steps ``steps``. Controls:
    ``snapshot`` (IntSlider over the snapshots), ``head`` (Dropdown over every block's
    heads, value ``block * num_heads + head``) and ``query`` (IntSlider over the tokens).
    ``view``: a :class:`~attnlib.widgets.training_view.TrainingView`.
    """

    _css_class = "attnlib-training-explorer"

    def __init__(
        self,
        snapshots: Any,
        tokens: Sequence[str],
        steps: Sequence[int],
        snapshot: int = 0,
        head: int = 0,
        query: int = 1,
    ) -> None:
        self.snapshots = snapshots_of(snapshots, tokens, steps)
        num_snapshots, num_blocks, num_heads, num_tokens, _ = self.snapshots.shape
        self.tokens, self.steps = tuple(tokens), [int(s) for s in steps]
        query = min(query, num_tokens - 1)
        training_view(self.snapshots, self.tokens, self.steps, snapshot, head, query)  # checks
        self.snapshot = widgets.IntSlider(
            value=snapshot, min=0, max=num_snapshots - 1, description="snapshot"
        )
        labels = [
            (f"block {b}, head {h}", b * num_heads + h)
            for b in range(num_blocks)
            for h in range(num_heads)
        ]
        self.head = widgets.Dropdown(options=labels, value=head, description="head")
        self.query = widgets.IntSlider(value=query, min=0, max=num_tokens - 1, description="query")
        data = {
            "tokens": list(self.tokens),
            "snapshots": encoded(self.snapshots),
            "shape": [num_snapshots, num_blocks * num_heads, num_tokens, num_tokens],
            "steps": self.steps,
            "heads": [label for label, _ in labels],
            "num_heads": num_heads,
            **_text.for_browser(self.tokens),
        }
        self.frontend = ExplorerView(
            kind="training", data=data, step=snapshot, head=head, query=query
        )
        controls = [
            Control("snapshot", self.snapshot, trait="step"),
            Control("head", self.head, "index", "head"),  # index = value here
            Control("query", self.query, trait="query"),
        ]
        self._assemble([self.snapshot, self.head, self.query], controls)
        for control in controls:
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
