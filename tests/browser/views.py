"""What an explorer must show, step by step, and how a shown view is compared with it.

Pure data and comparisons, no browser: :class:`ExplorerCase` is a notebook's
explorer and its :class:`Step` s (the initial view, then keyboard moves), each
with its checks; :func:`mismatches` says how what a page shows (as read by
``steps.read_shown``) differs from a step's view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NUMBER = r"-?\d+\.\d+"  # decimals only, so labels like "x(2)" are not read as values
# Values are shown with 4 decimals: half a unit in the last place, and a little slack
# for the book's own rounding.
TOLERANCE = 1.01e-4


@dataclass(frozen=True)
class Expect:
    """Numbers shown by the elements matching ``selector`` (inside the explorer).

    Every matching element contributes the decimals in its text, in DOM order, or
    one None when it has none (a blank heatmap cell). ``values`` is the expected
    list, None for a blank. ``part``: the values need only appear as one unbroken
    run among the numbers shown (a formula that shows more numbers than are checked).
    """

    selector: str
    values: tuple[float | None, ...]
    part: bool = False


@dataclass(frozen=True)
class Typed:
    """Text typed with the keyboard, one key per character, into the focused control."""

    text: str


@dataclass(frozen=True)
class Step:
    """One move of an explorer's control, and what it must show afterwards.

    ``focus``: the control inside the explorer to focus (None: no move, the
    initial view); ``keys``: pressed one after the other on the focused control
    (a :class:`Typed` is typed); ``expect``: the numbers to see; ``texts``:
    (selector, substring) pairs, the first match containing the substring;
    ``lists``: (selector, texts) pairs, the text of every match in order, exactly;
    ``same``: pairs of selectors showing the same numbers (none blank);
    ``absent``: selectors that must match nothing. Texts are whitespace-normalised.
    """

    label: str
    expect: tuple[Expect, ...]
    focus: str | None = None
    keys: tuple[str | Typed, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()
    same: tuple[tuple[str, str], ...] = ()
    absent: tuple[str, ...] = ()

    def view(self) -> tuple[Any, ...]:
        """Everything the step expects to see (two steps alike expect the same view)."""
        numbers = tuple((e.selector, e.values, e.part) for e in self.expect)
        return numbers, self.texts, self.lists, self.same, self.absent


@dataclass(frozen=True)
class ExplorerCase:
    """A notebook with a live explorer, and the views expected as it is moved.

    ``root``: CSS selector of the explorer's root container; ``steps``: the
    initial view first, then the keyboard moves; ``nth``: which of the page's
    ``count`` roots is the explorer driven (0: the first in the page).
    """

    notebook: str
    root: str
    steps: tuple[Step, ...]
    nth: int = 0
    count: int = 1

    @property
    def stem(self) -> str:
        """The notebook's file name without ``.ipynb``."""
        return Path(self.notebook).stem


def _close(got: Sequence[float | None], want: Sequence[float | None]) -> bool:
    """Same length, blanks where ``want`` has them, numbers within :data:`TOLERANCE`."""
    return len(got) == len(want) and all(
        g is None if w is None else g is not None and abs(g - w) <= TOLERANCE
        for g, w in zip(got, want, strict=True)
    )


def _contains_run(got: Sequence[float | None], want: Sequence[float | None]) -> bool:
    """Whether ``want`` stands, :func:`_close`, as one unbroken run somewhere in ``got``."""
    return any(_close(got[k : k + len(want)], want) for k in range(len(got) - len(want) + 1))


def _normal(text: str) -> str:
    """``text`` with every run of whitespace made one space, trimmed."""
    return " ".join(text.split())


def _number_mismatches(step: Step, shown: Sequence[list]) -> list[str]:
    """The ``expect`` checks of ``step`` that the numbers ``shown`` fail."""
    found = []
    for e, got in zip(step.expect, shown, strict=True):
        if not (_contains_run(got, e.values) if e.part else _close(got, e.values)):
            how = "a run of" if e.part else "exactly"
            want = [None if v is None else round(v, 4) for v in e.values]
            found.append(f"{e.selector}: expected {how} {want}, shown {got}")
    return found


def _text_mismatches(step: Step, texts: Sequence[list], lists: Sequence[list]) -> list[str]:
    """The ``texts`` and ``lists`` checks of ``step`` that the texts shown fail."""
    found = []
    for (sel, want), got in zip(step.texts, texts, strict=True):
        if not got or _normal(want) not in got[0]:
            found.append(f"{sel}: expected text containing {want!r}, shown {got}")
    for (sel, wanted), got in zip(step.lists, lists, strict=True):
        if got != [_normal(t) for t in wanted]:
            found.append(f"{sel}: expected texts {list(wanted)}, shown {got}")
    return found


def _presence_mismatches(step: Step, same: Sequence[list], absent: Sequence[int]) -> list[str]:
    """The ``same`` and ``absent`` checks of ``step`` that the page fails."""
    found = []
    for (a, b), (got_a, got_b) in zip(step.same, same, strict=True):
        # Two empty selections are not "the same numbers": the elements must be there.
        if not got_a or None in got_a or got_a != got_b:
            found.append(f"{a} and {b}: expected the same numbers, shown {got_a} and {got_b}")
    for sel, n in zip(step.absent, absent, strict=True):
        if n:
            found.append(f"{sel}: expected none, found {n}")
    return found


def mismatches(step: Step, shown: Mapping[str, list] | None) -> list[str]:
    """How ``shown`` (from ``steps.read_shown``) differs from ``step``'s view; [] if it does not."""
    if shown is None:
        return ["the explorer is not in the page"]
    return (
        _number_mismatches(step, shown["numbers"])
        + _text_mismatches(step, shown["texts"], shown["lists"])
        + _presence_mismatches(step, shown["same"], shown["absent"])
    )
