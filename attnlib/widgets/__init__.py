"""Explorers: ipywidgets controls over a view drawn in the browser.

Each explorer is an object with

- its controls as attributes (``explorer.query``, ``explorer.dim``, ``explorer.step``,
  ...): standard ipywidgets with a ``.value``, usable from the keyboard;
- ``explorer.view``: a frozen dataclass with the data shown now, made by a pure
  function of the data and the controls' values (:func:`query_view`,
  :func:`softmax_view`, :func:`loop_view`, :func:`attention_view`), so tests can
  set ``control.value`` and check ``view`` without a browser;
- ``explorer.widget``: the root ipywidgets box; ending a cell with the explorer
  shows it (with a PNG of the current view for renderers without widgets);
- ``explorer.figure()``: the current view as a matplotlib Figure.

The kernel sends the data once (per sentence). The QueryExplorer, SoftmaxAxisExplorer and
LoopStepper have few settings: the kernel sends every setting's numbers and words, made by
their views (``views.query_shown`` ...), and the browser looks them up. The
AttentionExplorer's settings are too many to send (about 30 MB of text for the book's
sentence): the browser computes its view (``static/src/compute.js``, checked in node against
:func:`attention_view`) and fills the texts the kernel sends (``_text.TEXTS``, the only place a
sentence is written), as the TrainingExplorer does with its snapshots. The front end
(``static/explorer.js``, an anywidget module bundled by esbuild from
``static/src/``) draws heatmap, bars, blend and formula from it, and the
controls reach it in the browser (``jsdlink``): moving them needs no kernel, so
the explorers stay alive on exported pages. A value the view refuses is put
back, and a line right under that control says why, naming it.

Package layout: ``views.py`` and ``attention_view.py`` (pure views), ``_text.py``
(their sentences), ``static/`` and ``frontend.py`` (the front end), ``base.py``,
``explorers.py`` and ``attention_explorer.py`` (the wiring), ``figures.py`` (static
pictures).

HTML hooks for browser tests: the root has the class ``attnlib-explorer`` and
``attnlib-query-explorer`` / ``attnlib-softmax-explorer`` / ``attnlib-loop-stepper`` /
``attnlib-attention-explorer``; heatmaps are ``table.attnlib-heatmap`` with cells
``td[data-row=i][data-col=j]`` holding the shown value (sums in ``data-col="sum"`` /
``data-row="sum"``); the highlighted row is ``tr.attnlib-highlight-row``, the
highlighted cell ``td.attnlib-highlight-cell``, masked cells ``td.attnlib-masked``,
blank cells ``td[data-empty]``; the query's bars ``.attnlib-bars div[data-col]``
(value in the last span), the blend ``table.attnlib-blend`` (context row
``tr.attnlib-context td.attnlib-term[data-k]``), the query ``.attnlib-token``, the
formula ``.attnlib-formula``; an error is ``.attnlib-status .attnlib-error`` (a sentence's,
right under its box, ``.attnlib-status-sentence .attnlib-error``). Each
control carries the class ``attnlib-control-<attribute>``. Cells dropout set to 0 are
``td.attnlib-dropped``; the AttentionExplorer's resample button ``button.attnlib-resample``
and its line ``.attnlib-dropout-line``. Tokens are named as the book counts them, from 1
(``x⁽²⁾`` is ``inputs[1]``); the LoopStepper's slider counts its iterations from 1 too.
The TrainingExplorer's root has the class ``attnlib-training-explorer``.
"""

from __future__ import annotations

from attnlib._validate import MAX_D, MAX_HEADS
from attnlib.widgets.attention_explorer import (
    DEFAULT_SENTENCE,
    TEMPERATURE_RANGE,
    AttentionExplorer,
)
from attnlib.widgets.attention_view import AttentionView, attention_view
from attnlib.widgets.explorers import LoopStepper, QueryExplorer, SoftmaxAxisExplorer
from attnlib.widgets.training_explorer import TrainingExplorer
from attnlib.widgets.training_view import TrainingView, training_view
from attnlib.widgets.views import (
    LoopView,
    QueryView,
    SoftmaxView,
    loop_view,
    query_view,
    softmax_view,
)

__all__ = [
    "DEFAULT_SENTENCE",
    "MAX_D",
    "MAX_HEADS",
    "TEMPERATURE_RANGE",
    "AttentionExplorer",
    "AttentionView",
    "LoopStepper",
    "LoopView",
    "QueryExplorer",
    "QueryView",
    "SoftmaxAxisExplorer",
    "SoftmaxView",
    "TrainingExplorer",
    "TrainingView",
    "attention_view",
    "loop_view",
    "query_view",
    "softmax_view",
    "training_view",
]
