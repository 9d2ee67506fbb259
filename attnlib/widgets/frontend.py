"""The explorers' view in the browser: an anywidget model and its front-end files.

:class:`ExplorerView` carries the data of one sentence (``data``: tokens,
per-head scores and values, sent once per sentence) and the controls' values
(``query``, ``dim_index``, ...), which the controls set in the browser through
``jsdlink``. The ES module drawing it is ``static/explorer.js``, built by
esbuild from the modules in ``static/src/`` (``make bundle``) and shipped with the
package. The widget state `make notebooks` saves does not keep it
(:func:`without_module`): pages made from that state get the current one back
(:func:`with_module`), so a JS edit changes no saved file.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).resolve().parent / "static"
#: The bundle the package ships (``make bundle`` writes it from ``static/src/``).
BUNDLE = STATIC / "explorer.js"
KINDS = ("query", "softmax", "loop", "attention", "training")
#: The traits holding the front end's code, which a saved widget state leaves out.
CODE_TRAITS = ("_esm", "_css")


def module_source() -> str:
    """The front end's ES module (``static/explorer.js``)."""
    return BUNDLE.read_text(encoding="utf-8")


def stylesheet() -> str:
    """The explorers' CSS: ``static/explorer.css``, then the TrainingExplorer's ``training.css``."""
    return "\n".join(
        (STATIC / name).read_text(encoding="utf-8") for name in ("explorer.css", "training.css")
    )


def _ours(model: dict) -> bool:
    """Whether ``model`` (a saved widget's state entry) is an :class:`ExplorerView`."""
    return model.get("state", {}).get("_anywidget_id") == ANYWIDGET_ID


def without_module(state: dict) -> dict:
    """A saved widget ``state`` (model id -> model) whose ExplorerViews keep no front-end
    code (:data:`CODE_TRAITS`): pages made from it get the current one (:func:`with_module`)."""
    return {
        key: {**m, "state": {k: v for k, v in m["state"].items() if k not in CODE_TRAITS}}
        if _ours(m)
        else m
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
    # The AttentionExplorer's dropout: the rate's index in data["dropout"]["rates"] (0: off)
    # and the draw shown, which the view's own "resample" button moves on in the browser.
    dropout_index = traitlets.Int(0).tag(sync=True)
    draw = traitlets.Int(0).tag(sync=True)

    def __repr__(self) -> str:
        # Stable (no memory address): it can end up as a saved notebook's text/plain.
        return f"ExplorerView(kind={self.kind!r})"


#: How anywidget names this class in a saved widget state.
ANYWIDGET_ID = f"{ExplorerView.__module__}.{ExplorerView.__qualname__}"
