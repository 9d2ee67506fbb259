"""A prediction's tries: a first wrong answer is not told the right one.

Some of a question's named mistakes explain themselves with the right answer in them ("21
scores are new (6 on the diagonal, 15 above it)"): told at once, a second try teaches
nothing. So the first wrong answer to a prediction (a
:class:`~attnlib.exercises._value.ValueExercise` whose answer is not a tensor the reader
computes) whose explanation states the right answer names the mistake and asks for another
try instead; from the second wrong answer on, the verdict explains. An explanation that does
not state the answer is a hint already and is shown at once. Counted per exercise in this
kernel, from :func:`~attnlib.exercises.check`; a right answer starts the count again.
"""

from __future__ import annotations

import re
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
    if verdict.correct:
        _wrong_tries.pop(verdict.exercise, None)
    if not getattr(exercise, "prediction", False) or verdict.status not in _WRONG:
        return verdict
    tries = _wrong_tries[verdict.exercise] = _wrong_tries.get(verdict.exercise, 0) + 1
    if tries > 1 or verdict.status != "mistake":
        return verdict  # an unnamed wrong answer says what differs, not what is right
    if not states(verdict.message, exercise.expected()):  # judged already: it computes
        return verdict
    label = MISTAKES[verdict.mistake].label
    text = f"Not quite. Likely mistake: {label}. Hint: {NUDGE}."
    return replace(verdict, message=text, hint=NUDGE)


def states(text: str, right: Any) -> bool:
    """Whether ``text`` states the answer ``right``: a token or word as a word, a shape as
    written, a number as a number (not inside another); True or False never (a yes-or-no
    answer is told by its mistake's name alone)."""
    if isinstance(right, bool) or right is None:
        return False
    if isinstance(right, str):
        return re.search(rf"(?<!\w){re.escape(right)}(?!\w)", text, re.IGNORECASE) is not None
    if isinstance(right, tuple):
        return any(str(form) in text for form in (right, list(right)))
    if isinstance(right, int):
        return re.search(rf"(?<![\d.]){right}(?!\d|\.\d)", text) is not None
    if isinstance(right, float):
        if right.is_integer() and states(text, int(right)):
            return True
        return any(f"{right:.{n}f}" in text for n in (2, 3, 4)) or repr(right) in text
    return False


def forget() -> None:
    """Start every count again (a test's fresh kernel)."""
    _wrong_tries.clear()
