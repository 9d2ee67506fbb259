"""Your turn: the checks behind the exercises of every notebook.

In a notebook, after the exercise cell that defines ``attention_scores_loop``::

    from attnlib.exercises import check
    check("01.loop_body")

prints ``Not attempted yet``, ``Correct``, the name of the likely mistake with a hint, or
concretely what differs, and never raises. The check reads the reader's answer by the name
the exercise declares. ``checkpoint("NN.slug", obj, what)`` is the notebook judging its own
object on the same cases (a line of its own, never logged for the gradebook). Each ``nbNN``
module registers its notebook's exercises.
"""

from __future__ import annotations

import importlib
import pkgutil

from attnlib.exercises._core import (
    CORRECT,
    EXERCISES,
    NOT_ATTEMPTED,
    NOT_RUN,
    Verdict,
    check,
    checkpoint,
)

__all__ = ["CORRECT", "EXERCISES", "NOT_ATTEMPTED", "NOT_RUN", "Verdict", "check", "checkpoint"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("nb")):
    importlib.import_module(f"{__name__}.{_module}")
