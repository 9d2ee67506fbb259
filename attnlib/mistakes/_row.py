"""One named mistake: a label, a hint, and the reader's function written with the mistake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Mistake:
    """``label`` says what the mistake is, ``hint`` how to fix it (``{placeholders}`` allowed).

    ``make`` is the answer written with the mistake, taking the answer's arguments: an
    exercise calls it exactly as it calls the reader's answer, on every case. ``alike`` are
    other ways to write the same mistake (e.g. each role's matrix mixed up). ``make`` is
    ``None`` for a mistake a check searches itself or a wrong answer to a question.
    """

    label: str
    hint: str
    make: Callable[..., Any] | None = None
    alike: tuple[Callable[..., Any], ...] = ()

    def ways(self) -> tuple[Callable[..., Any], ...]:
        """Every way to write the mistake: ``make``, then ``alike``."""
        return () if self.make is None else (self.make, *self.alike)

    def via(self, adapt: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Mistake:
        """The mistake in an answer of other arguments: each way ``w`` becomes ``adapt(w)``
        (e.g. a softmax's mistake inside a function of the scores and the keys)."""
        return replace(self, make=adapt(self.make), alike=tuple(map(adapt, self.alike)))


def table(text: str, **makes: Callable[..., Any] | tuple[Callable[..., Any], ...]) -> dict:
    """The rows of ``text`` by name: a line ``name | label`` (the label's further lines indented
    by 2), then the hint's lines indented by 4, joined by spaces; a ``#`` line is a comment.
    ``makes[name]`` is the row's ``make``, or a tuple of ``make`` and the ways ``alike``."""
    rows: dict[str, list[str]] = {}
    for line in text.strip("\n").splitlines():
        if not line.startswith((" ", "#")):
            name, label = line.split(" | ", 1)
            rows[name] = [label, ""]
        elif not line.startswith("#"):
            rows[name][line.startswith("    ")] += f" {line.strip()}"
    if unknown := set(makes) - set(rows):
        raise ValueError(f"makes for no row of the table: {sorted(unknown)}")
    ways = {name: make if isinstance(make, tuple) else (make,) for name, make in makes.items()}
    return {
        name: Mistake(label, hint.lstrip(), *ways.get(name, (None,))[:1], ways.get(name, ())[1:])
        for name, (label, hint) in rows.items()
    }
