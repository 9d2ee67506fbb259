"""A prediction's tries: the first wrong answer gets a nudge, the next ones the explanation.

A question's named mistake explains itself with the numbers that give the right answer away
("the repeats are the other 36 - 21"): told at once, a second try teaches nothing. So the
first wrong answer to a prediction (a :class:`~attnlib.exercises._value.ValueExercise`
whose answer is not a tensor the reader computes) names the mistake and asks for another
try; from the second wrong answer on, the verdict explains. Counted per exercise in this
kernel, from :func:`~attnlib.exercises.check`; a right answer starts the count again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from attnlib.mistakes import MISTAKES

#: The hint of a prediction's first wrong answer: the mistake's name is the hint.
NUDGE = (
    "think the question through again with that in mind and give it another try "
    "(a second wrong answer gets the full explanation)"
)

_WRONG = ("mistake", "wrong")
_wrong_tries: dict[str, int] = {}


def counted(exercise: Any, verdict: Any) -> Any:
    """``verdict`` as the reader sees it at this try of ``exercise`` (None: not an exercise)."""
    if exercise is None or not getattr(exercise, "prediction", False):
        return verdict
    if verdict.correct:
        _wrong_tries.pop(verdict.exercise, None)
        return verdict
    if verdict.status not in _WRONG:
        return verdict
    tries = _wrong_tries[verdict.exercise] = _wrong_tries.get(verdict.exercise, 0) + 1
    if tries > 1 or verdict.status != "mistake":
        return verdict  # an unnamed wrong answer says what differs, not what is right
    label = MISTAKES[verdict.mistake].label
    text = f"Not quite. Likely mistake: {label}. Hint: {NUDGE}."
    return replace(verdict, message=text, hint=NUDGE)


def forget() -> None:
    """Start every count again (a test's fresh kernel)."""
    _wrong_tries.clear()
