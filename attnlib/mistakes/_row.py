"""One named mistake: a label, a hint, and the wrong line as a function of named inputs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
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
    #: The same mistake at other stages, from other named inputs (e.g. a whole forward pass
    #: from ``layer, x, seed`` where ``make`` takes the scores); the first that fits is used.
    others: tuple[Callable[..., Any], ...] = ()

    def _form(self, args: Mapping[str, Any]) -> Callable[..., Any] | None:
        forms = [f for f in self.forms() if set(inspect.signature(f).parameters) <= set(args)]
        return max(forms, key=lambda f: len(inspect.signature(f).parameters), default=None)

    def forms(self) -> tuple[Callable[..., Any], ...]:
        return () if self.make is None else (self.make, *self.others)

    def variants(self) -> list[Mistake]:
        """One row per form, for a mistake that can be made in several ways at one stage."""
        return [replace(self, make=f, others=()) for f in self.forms()] if self.others else [self]

    def fits(self, args: Mapping[str, Any]) -> bool:
        """Whether ``args`` holds every input ``make`` (or one of ``others``) names."""
        return self._form(args) is not None

    def given(self, args: Mapping[str, Any]) -> Any:
        """What the mistake gives on ``args`` (it may raise, like the reader's code would)."""
        form = self._form(args)
        return form(**{name: args[name] for name in inspect.signature(form).parameters})


def table(text: str, **makes: Callable[..., Any] | tuple[Callable[..., Any], ...]) -> dict:
    """The rows of ``text`` by name: a line ``name | label`` (the label's further lines indented
    by 2), then the hint's lines indented by 4, joined by spaces; a ``#`` line is a comment.
    ``makes[name]`` is the row's ``make``, or a tuple of ``make`` and its ``others``."""
    rows: dict[str, list[str]] = {}
    for line in text.strip("\n").splitlines():
        if not line.startswith((" ", "#")):
            name, label = line.split(" | ", 1)
            rows[name] = [label, ""]
        elif not line.startswith("#"):
            part = rows[name][line.startswith("    ")]
            rows[name][line.startswith("    ")] = f"{part} {line.strip()}".lstrip()
    if unknown := set(makes) - set(rows):
        raise ValueError(f"makes for no row of the table: {sorted(unknown)}")
    forms = {name: make if isinstance(make, tuple) else (make,) for name, make in makes.items()}
    return {
        name: Mistake(label, hint, *forms.get(name, (None,))[:1], forms.get(name, ())[1:])
        for name, (label, hint) in rows.items()
    }
