"""One named mistake: a label, a hint, and the wrong line as a function of named inputs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mistake:
    """``label`` says what the mistake is, ``hint`` how to fix it (``{placeholders}`` allowed).

    ``make`` computes what the wrong line gives from the stage's inputs, named as the
    exercises of its kind name them (``inputs``, ``x``, ``attn_weights``...), or is ``None``
    for a mistake a check searches itself or a wrong answer to a question.
    """

    label: str
    hint: str
    make: Callable[..., Any] | None = None

    def fits(self, args: Mapping[str, Any]) -> bool:
        """Whether ``args`` holds every input ``make`` names."""
        if self.make is None:
            return False
        return set(inspect.signature(self.make).parameters) <= set(args)

    def given(self, args: Mapping[str, Any]) -> Any:
        """What the mistake gives on ``args`` (it may raise, like the reader's code would)."""
        names = inspect.signature(self.make).parameters
        return self.make(**{name: args[name] for name in names})
