"""A progress bar for a loop that makes the reader wait (notebook 10's trainings).

``bar = ProgressBar(total, what, expect)`` is called as ``bar(done)`` after each step (it is
the ``progress`` of :func:`attnlib.training.train`). In a notebook it shows an ipywidgets bar
with "step k of N" and the time left; it closes itself after the last step, so that a saved
notebook keeps no timing (the cell's own printed line says how long it took). Where no widget
is drawn (nbval, a terminal, GitHub), its text is one fixed line: what runs and what to expect.
"""

from __future__ import annotations

import time
from typing import Any

from attnlib import _validate as validate

#: How often the bar is redrawn: every hundredth of the steps (a message to the browser each).
UPDATES = 100


class ProgressBar:
    """``total`` steps of ``what`` (e.g. "training with the mask"); ``expect`` says how long it
    usually takes (e.g. "about 10 s on a laptop"). Call ``bar(done)`` with the steps done."""

    def __init__(self, total: int, what: str, expect: str = "") -> None:
        self.total = validate.integer(total, "total", 1)
        self.what = validate.text(what, "what")
        self.expect = validate.text(expect, "expect")
        self._every = max(1, self.total // UPDATES)
        self._started: float | None = None
        self._bar: Any = None
        self._label: Any = None
        self.done = 0

    def text(self) -> str:
        """The fixed line shown where no widget is drawn."""
        expect = f" ({self.expect})" if self.expect else ""
        return f"{self.what}: {self.total:,} steps{expect}"

    def _show(self) -> None:
        import ipywidgets as widgets  # only when a loop starts: `import attnlib` stays light
        from IPython.display import display

        self._bar = widgets.IntProgress(value=0, min=0, max=self.total, description="")
        self._bar.layout.width = "min(24rem, 90%)"
        self._label = widgets.Label(value=f"{self.text()}: starting")
        box = widgets.HBox([self._bar, self._label])
        box.add_class("attnlib-progress")
        self._box = box
        # A fixed text/plain: nbval and pages without widget code see the same line every run.
        display({**box._repr_mimebundle_(), "text/plain": self.text()}, raw=True)

    def __call__(self, done: int) -> None:
        done = validate.integer(done, "done", 0, self.total)
        self.done = done
        if self._started is None:
            self._started = time.perf_counter()
            if _in_a_kernel():
                self._show()
        if self._bar is None or (done % self._every and done != self.total):
            return
        seconds = time.perf_counter() - self._started
        left = seconds / done * (self.total - done) if done else 0.0
        self._bar.value = done
        so_far = f"{seconds:.0f} s so far, about {left:.0f} s left"
        self._label.value = f"{self.what}: step {done:,} of {self.total:,}, {so_far}"
        if done == self.total:
            self._box.close()  # gone from the page and from the saved widget state
            self._bar = None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        return {"text/plain": self.text()}


def _in_a_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (which can draw a widget), not a plain Python."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover  (IPython comes with the course)
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
