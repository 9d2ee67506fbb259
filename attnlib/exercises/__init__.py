"""Your turn: the checks behind the exercises of every notebook.

In a notebook::

    from attnlib.exercises import check
    check("01.loop_body", attention_scores_loop)

prints ``Not attempted yet``, ``Correct``, or the name of the likely mistake with
a hint, and never raises. Each ``nbNN`` module registers its notebook's exercises.
"""

from __future__ import annotations

import importlib
import pkgutil

from attnlib.exercises._core import CORRECT, EXERCISES, NOT_ATTEMPTED, Exercise, Verdict, check

__all__ = ["CORRECT", "EXERCISES", "NOT_ATTEMPTED", "Exercise", "Verdict", "check"]

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("nb")):
    importlib.import_module(f"{__name__}.{_module}")
