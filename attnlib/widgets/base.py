"""The wiring every explorer shares: controls linked to the view, their messages, display.

An explorer's controls are standard ipywidgets (keyboard, screen readers). Each
is linked to the :class:`~attnlib.widgets.frontend.ExplorerView` in the browser
(``jsdlink``), so moving it redraws with no kernel round trip. In the kernel,
each control's new value is checked by computing the explorer's ``view`` with
it: a value the view refuses is put back, and a line right under that control says
why, naming it.
"""

from __future__ import annotations

import html
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from attnlib.widgets import figures

#: The class of a control only the kernel can act on: a page without one disables it.
NEEDS_KERNEL = "attnlib-needs-kernel"

#: The explorers displayed in this kernel, by their root widget's model id (weakly held).
_SHOWN: weakref.WeakValueDictionary[str, Explorer] = weakref.WeakValueDictionary()


def saved_pictures() -> dict[str, str]:
    """Each displayed explorer's picture of its view now (base64 PNG), by root model id.

    `make notebooks` asks for these at the end of a run and stores them in place of the
    pictures taken when each explorer was first shown: a saved notebook's picture then
    shows the saved state (e.g. an explorer that a later cell moved).
    """
    return {model_id: explorer._still() for model_id, explorer in _SHOWN.items()}


@dataclass(frozen=True)
class Control:
    """A control of an explorer: attribute ``name`` holds ``widget``, whose ``attr`` is
    linked to the view's trait ``trait``; ``needs_kernel`` if only the kernel can act on it."""

    name: str
    widget: widgets.Widget
    attr: str = "value"
    trait: str = ""
    needs_kernel: bool = False


def message_for(name: str, exc: Exception) -> str:
    """What is said under control ``name`` about ``exc``, raised by its new value.

    Only messages that name what was expected (the ValueErrors of the checks) are
    shown as they are, prefixed by the control's name if they name something else;
    anything else is a fault of the explorer, said without a raw Python error.
    """
    if not isinstance(exc, ValueError):
        return f"{name}: this value could not be shown (an explorer fault; please report it)"
    text = str(exc)
    return text if text.startswith(f"{name}:") else f"{name}: {text}"


def _placed(
    rows: Sequence[widgets.Widget], wrapped: dict[int, widgets.Widget]
) -> list[widgets.Widget]:
    """``rows`` with each control of ``wrapped`` (by ``id``) replaced, where it stands (in a
    row or inside a box of one), by its box of the control and its message line."""

    def place(widget: widgets.Widget) -> widgets.Widget:
        if id(widget) in wrapped:
            return wrapped[id(widget)]
        if isinstance(widget, widgets.Box):
            widget.children = tuple(place(child) for child in widget.children)
        return widget

    return [place(row) for row in rows]


class Explorer:
    """Shared wiring: the root box, message lines, checks of new values, Jupyter display.

    Subclasses build ``self.frontend`` and their controls, call :meth:`_assemble`,
    and define ``view`` and ``figure()``.
    """

    _css_class = "attnlib-explorer"
    #: The pixels per inch of the picture shown where no widget runs.
    _picture_dpi = figures.PNG_DPI

    def _assemble(self, rows: Sequence[widgets.Widget], controls: Sequence[Control]) -> None:
        """The root box (``rows``, the drawing, the status line); controls classed and linked.

        Each control the view follows (or only the kernel reads) gets a line of its own, right
        under it: its messages are said there, next to what caused them (:meth:`status_of`).
        The status line under the drawing is left for messages of no control."""
        self.status = widgets.HTML(value="")
        self.status.add_class("attnlib-status")
        self.last_error: Exception | None = None
        self._errors: dict[str, str] = {}
        self._muted = False
        self._controls = tuple(controls)
        self._status_beside: dict[str, widgets.HTML] = {}
        wrapped: dict[int, widgets.Widget] = {}
        for control in self._controls:
            control.widget.add_class(f"attnlib-control-{control.name}")
            if control.needs_kernel:
                control.widget.add_class(NEEDS_KERNEL)
            if control.trait or control.needs_kernel:
                line = widgets.HTML(value="")
                line.add_class("attnlib-status-beside")
                line.add_class(f"attnlib-status-{control.name}")
                self._status_beside[control.name] = line
                pair = widgets.VBox([control.widget, line])
                pair.add_class("attnlib-with-status")
                wrapped[id(control.widget)] = pair
        self.widget = widgets.VBox([*_placed(rows, wrapped), self.frontend, self.status])
        self.widget.add_class("attnlib-explorer")
        self.widget.add_class(self._css_class)
        self._links: list[Any] = [
            widgets.jsdlink((c.widget, c.attr), (self.frontend, c.trait))
            for c in self._controls
            if c.trait
        ]

    def status_of(self, name: str) -> widgets.HTML:
        """The line where control ``name``'s messages are said: right under that control."""
        return self._status_beside.get(name, self.status)

    @property
    def messages(self) -> str:
        """Every message shown now (HTML), the lines beside the controls first."""
        return "".join(line.value for line in (*self._status_beside.values(), self.status))

    def _guard(self, control: Control) -> None:
        """Check each new ``value`` of ``control`` against the view; refuse it if the view does."""

        def on_change(change: dict) -> None:
            if self._muted:
                return
            try:
                self.view  # noqa: B018  (computing it is the check)
            except Exception as exc:  # said under the control, never raised
                self._refuse(control, change["old"], exc)
                return
            # A good value clears its own control's message; the others' stay beside them
            # (a slider snapping to its step as it is drawn must not wipe another's news).
            self._errors.pop(control.name, None)
            self.last_error = None
            self._show_status()

        control.widget.observe(on_change, names="value")

    def _refuse(self, control: Control, old: Any, exc: Exception) -> None:
        """Put ``control`` back to ``old`` and say why its new value was refused."""
        new = control.widget.value
        with self._muting():
            control.widget.value = old
        self.last_error = exc
        self._errors[control.name] = f"{message_for(control.name, exc)} (kept {old!r}, not {new!r})"
        self._show_status()

    @contextmanager
    def _muting(self) -> Iterator[None]:
        """Changes made inside are the explorer's own: not checked, not reported."""
        self._muted = True
        try:
            yield
        finally:
            self._muted = False

    def _show_status(self) -> None:
        def said(names: Sequence[str]) -> str:
            return "".join(
                f'<div class="attnlib-error" role="alert">⚠ {html.escape(self._errors[name])}</div>'
                for name in names
            )

        beside = self._status_beside
        self.status.value = said([name for name in self._errors if name not in beside])
        for name, line in beside.items():
            line.value = said([name] if name in self._errors else [])

    @property
    def view(self) -> Any:
        """The data shown now: the pure view function of the controls' values."""
        raise NotImplementedError

    def figure(self) -> Figure:
        """The current view as a matplotlib Figure."""
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = self.widget._repr_mimebundle_(**kwargs)
        _SHOWN[self.widget.model_id] = self
        # The widget tree's own text changes run to run; a saved notebook keeps this line.
        data["text/plain"] = (
            f"{type(self).__name__}: a live explorer. Run this cell in JupyterLab to use it."
        )
        # Where no widget code runs (GitHub), this picture of the current view is shown.
        data["image/png"] = self._still()
        return data

    def _still(self) -> str:
        """The picture shown where the widget is not live: the view now, and how to make it
        live (base64 PNG)."""
        return figures.png(figures.with_hint(self.figure()), self._picture_dpi)
