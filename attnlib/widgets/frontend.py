"""The explorers' view in the browser: an anywidget model and its front-end files.

:class:`ExplorerView` carries the data of one sentence (``data``: tokens,
per-head scores and values, sent once per sentence) and the controls' values
(``query``, ``dim_index``, ...), which the controls set in the browser through
``jsdlink``. The ES module drawing it is ``static/explorer.js``, built by
esbuild from the modules in ``static/src/`` (``make bundle``) and shipped with the
package. Saved notebooks do not keep it (:func:`without_module`, a fixed
placeholder instead): pages exported from them get the current one back
(:func:`with_module`), so a JS edit changes no notebook.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).resolve().parent / "static"
#: The bundle the package ships (``make bundle`` writes it from ``static/src/``).
BUNDLE = STATIC / "explorer.js"
KINDS = ("query", "softmax", "loop", "attention", "training")
#: What saved notebooks keep of the front end's code (``_esm``, ``_css``): a module that
#: never changes with the JS, and says what to do where a saved explorer is shown without
#: its kernel (JupyterLab restores saved widgets when it opens a notebook).
SAVED_CODE = {
    "_esm": (
        "export default { render({ el }) {\n"
        '  const note = document.createElement("p");\n'
        '  note.className = "attnlib-saved";\n'
        '  note.textContent = "\u23f8 This explorer is not running: run this cell to bring it '
        'back.";\n'
        "  el.append(note);\n"
        "} };\n"
    ),
    # Styled where it is shown, so that it reads as a note and not as stray text.
    "_css": (
        ".attnlib-saved { margin: 4px 0; padding: 8px 12px; max-width: 40em;"
        " font: 14px/1.4 var(--jp-ui-font-family, system-ui, sans-serif);"
        " color: var(--jp-content-font-color1, #1a1a1a);"
        " background: var(--jp-layout-color2, #eef2f7);"
        " border-left: 4px solid var(--jp-brand-color1, #1565c0); }\n"
    ),
}


def module_source() -> str:
    """The front end's ES module (``static/explorer.js``)."""
    return BUNDLE.read_text(encoding="utf-8")


def stylesheet() -> str:
    """The explorers' CSS (``static/explorer.css``)."""
    return (STATIC / "explorer.css").read_text(encoding="utf-8")


def _ours(model: dict) -> bool:
    """Whether ``model`` (a saved widget's state entry) is an :class:`ExplorerView`."""
    return model.get("state", {}).get("_anywidget_id") == ANYWIDGET_ID


def without_module(state: dict) -> dict:
    """A saved widget ``state`` (model id -> model) whose ExplorerViews keep only
    :data:`SAVED_CODE`, not the front end."""
    return {
        key: {**m, "state": {**m["state"], **SAVED_CODE}} if _ours(m) else m
        for key, m in state.items()
    }


def with_module(state: dict) -> dict:
    """A saved widget ``state`` whose ExplorerViews carry the current module and stylesheet."""
    code = {"_esm": module_source(), "_css": stylesheet()}
    return {
        key: {**m, "state": {**m["state"], **code}} if _ours(m) else m for key, m in state.items()
    }


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


#: How anywidget names this class in a saved widget state.
ANYWIDGET_ID = f"{ExplorerView.__module__}.{ExplorerView.__qualname__}"
