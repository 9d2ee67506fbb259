"""The explorers' view in the browser: an anywidget model and its front-end files.

:class:`ExplorerView` carries the data of one sentence (``data``: tokens,
per-head scores and values, sent once per sentence) and the controls' values
(``query``, ``dim_index``, ...), which the controls set in the browser through
``jsdlink``. The ES module drawing it is the files in ``static/``, joined in
:data:`MODULE_FILES` order into one module (no build step, nothing fetched).
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).resolve().parent / "static"
#: The front end's files, in the order they are joined: each defines what the next use;
#: the last exports the widget (``export default {render}``).
MODULE_FILES = ("format.js", "compute.js", "colors.js", "heatmap.js", "panels.js", "explorer.js")
KINDS = ("query", "softmax", "loop", "attention")


def module_source() -> str:
    """The front end's ES module: :data:`MODULE_FILES` joined, each under its name."""
    parts = [
        f"// ---- {name}\n{(STATIC / name).read_text(encoding='utf-8')}" for name in MODULE_FILES
    ]
    return "\n".join(parts)


def stylesheet() -> str:
    """The explorers' CSS (``static/explorer.css``)."""
    return (STATIC / "explorer.css").read_text(encoding="utf-8")


class ExplorerView(anywidget.AnyWidget):
    """What an explorer draws, drawn in the browser from ``data`` and the control values.

    ``kind``: one of :data:`KINDS`; ``data``: see each explorer's ``_data()``;
    ``dim_index``: the softmax-axis toggle's index (0: ``dim=-1``, 1: ``dim=0``).
    """

    _esm = module_source()
    _css = stylesheet()
    kind = traitlets.Enum(KINDS, default_value="query").tag(sync=True)
    data = traitlets.Dict().tag(sync=True)
    query = traitlets.Int(0).tag(sync=True)
    dim_index = traitlets.Int(0).tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    temperature = traitlets.Float(1.0).tag(sync=True)
    head = traitlets.Int(0).tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __repr__(self) -> str:
        # Stable (no memory address): it can end up as a saved notebook's text/plain.
        return f"ExplorerView(kind={self.kind!r})"
