"""The mistakes the course names, one table per kind of exercise.

``scores`` (dot products, loops, products), ``weights`` (softmax), ``context`` (blending,
and the stage passed), ``tokens`` (picking a row), ``questions`` (counts, shapes, words,
predictions), ``costs`` (slopes, bytes, growth), ``blockwise`` (the running softmax),
``trainable`` (projections and scaling), ``masks``, ``dropout``, ``heads`` and ``training``
(targets, a training step, a blind guess's loss). Checkpoints and exercises read the same rows;
:data:`MISTAKES` is every row by name, from every module of this package.
"""

from __future__ import annotations

import importlib
import pkgutil
import string
from typing import Any

from attnlib import _validate as validate
from attnlib.mistakes._row import Mistake

__all__ = ["MISTAKES", "Mistake", "hint"]

MISTAKES: dict[str, Mistake] = {}
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name[0] != "_"):
    _table = importlib.import_module(f"{__name__}.{_module}").TABLE
    assert not set(_table) & set(MISTAKES), "a mistake has one name"
    MISTAKES.update(_table)


def hint(name: str, **values: Any) -> str:
    """The hint of mistake ``name`` with its placeholders filled from ``values``."""
    if not isinstance(name, str) or name not in MISTAKES:
        known = ", ".join(sorted(MISTAKES))
        raise validate.invalid("name", f"the name of a mistake ({known})", validate.describe(name))
    template = MISTAKES[name].hint
    fields = (field for _, field, _, _ in string.Formatter().parse(template) if field)
    needed = sorted({field.split(".")[0].split("[")[0] for field in fields})
    if missing := [field for field in needed if field not in values]:
        raise validate.invalid("values", f"a value for each of {needed}", f"none for {missing}")
    return template.format(**values)
