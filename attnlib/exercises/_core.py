"""The "your turn" protocol: ``check("NN.slug")`` prints one line and never raises.

The check cell names its exercise only; :func:`check` looks the reader's answer up by the
name the exercise declares, in the namespace of the cell that calls it, so a check run
before its exercise says so instead of raising ``NameError``. Each exercise judges the
answer (:class:`~attnlib.exercises._function.FunctionExercise` on several cases,
:class:`~attnlib.exercises._value.ValueExercise` with one answer policy) and returns a
:class:`Verdict`. A failure inside the checker is reported as the course's fault.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from attnlib.exercises import _own, _tries
from attnlib.exercises._compare import shown
from attnlib.mistakes import MISTAKES
from attnlib.progress import record as _record

#: Every exercise of the course by name (``"NN.slug"``), filled by the notebook modules.
EXERCISES: dict[str, Judged] = {}

NOT_ATTEMPTED = "Not attempted yet"
CORRECT = "Correct"
NOT_RUN = "Run the exercise cell above first"
COURSE_FAULT = "The check itself failed"

#: When set to a file path, every check appends its verdict there as one JSON line, for the
#: gradebook (tools/grading) to read a structured record instead of the printed text.
VERDICT_LOG = "ATTNLIB_VERDICT_LOG"
#: nbgrader's autograder and validator set this in the kernel's environment
#: (nbgrader/converters/autograde.py: ``NBGRADER_EXECUTION='autograde'``); there a check that
#: is not correct raises AssertionError, so that nbgrader's points follow the course's verdicts.
NBGRADER = "NBGRADER_EXECUTION"

_LOOK_UP = object()  # check() was given no answer: read it from the caller's namespace


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``status`` is ``"not attempted"``, ``"not run"``,
    ``"correct"``, ``"mistake"`` (``mistake`` is its name), ``"wrong"``, ``"refused"`` (an
    answer of a type the exercise does not take) or ``"course fault"``; ``message`` is shown;
    ``hint`` is a named mistake's hint alone (it is also in ``message``), for the gradebook;
    ``case`` the case a function exercise's named mistake was seen on ("the book's 6 tokens").

    In Jupyter it displays as a card (:mod:`attnlib.exercises._card`); its ``text/plain``
    is the message, as ``str`` and ``repr`` give it."""

    exercise: str
    status: str
    message: str
    mistake: str | None = None
    hint: str = ""
    case: str = ""

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        return self.message

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from attnlib.exercises._card import verdict_card

        return {"text/plain": repr(self), "text/html": verdict_card(self)}


class Judged(Protocol):
    """An exercise: its ``name``, the names its answer is read from, and ``judge``."""

    name: str
    answer_names: tuple[str, ...]

    def judge(self, answer: Any) -> Verdict: ...


def register(exercise: Judged) -> Judged:
    """Add ``exercise`` to :data:`EXERCISES`; its mistakes must be rows of the tables."""
    unknown = set(getattr(exercise, "mistakes", {})) - set(MISTAKES)
    if unknown or exercise.name in EXERCISES:
        raise ValueError(
            f"exercise {exercise.name!r}: duplicate name or unknown mistakes {unknown}"
        )
    EXERCISES[exercise.name] = exercise
    return exercise


def named(
    exercise: str, mistake: str, values: Mapping[str, Any], hint: str = "", case: str = ""
) -> Verdict:
    """The verdict for a named mistake, its hint filled from ``values`` (or ``hint`` as given);
    ``case`` is the case it was seen on, for the card."""
    row = MISTAKES[mistake]
    hint = hint or row.hint.format_map(_Keep(values))
    text = f"Not quite. Likely mistake: {row.label}. Hint: {hint}"
    return Verdict(exercise, "mistake", text, mistake, hint, case)


def not_quite(what: str) -> str:
    """The message of a wrong answer: ``what`` differs, ended by one full stop."""
    return f"Not quite: {what.rstrip('.')}{'' if what.endswith('?') else '.'}"


def correct(exercise: str, praise: str) -> Verdict:
    return Verdict(exercise, "correct", f"{CORRECT}!{' ' + praise if praise else ''}")


def not_attempted(exercise: str, task: str) -> Verdict:
    return Verdict(exercise, "not attempted", f"{NOT_ATTEMPTED}: {task}.")


def check(name: str, answer: Any = _LOOK_UP) -> Verdict:
    """Judge the reader's answer to exercise ``name``: one line, never an exception.

    Without ``answer``, the answer is read from the caller's namespace under the names the
    exercise declares (a function, a class or values the exercise cell defines). The verdict
    is also appended to the file named by ``$ATTNLIB_VERDICT_LOG``, if set. Under nbgrader's
    autograder or validator (``$NBGRADER_EXECUTION``), a verdict other than correct raises
    ``AssertionError`` carrying its message, as nbgrader counts a test cell by whether it raises.
    """
    namespace = sys._getframe(1).f_globals if answer is _LOOK_UP else {}
    verdict = _judged(name, answer, namespace)
    grading = bool(os.environ.get(VERDICT_LOG) or os.environ.get(NBGRADER))
    if not grading:  # a graded run has no second try: its feedback explains at once
        verdict = _tries.counted(EXERCISES.get(name) if isinstance(name, str) else None, verdict)
    _log(verdict)
    if answer is _LOOK_UP:  # the reader's own answer, not the course handing its object over
        _record(verdict)
    if os.environ.get(NBGRADER) in ("autograde", "validate") and not verdict.correct:
        raise AssertionError(verdict.message)
    return verdict


def _judged(name: str, answer: Any, namespace: Mapping[str, Any]) -> Verdict:
    try:
        if not isinstance(name, str):
            return _fault(
                name, f"an exercise is named by a str such as '01.dot', not {shown(name)}"
            )
        if name not in EXERCISES:
            known = ", ".join(sorted(EXERCISES))
            return _fault(name, f"no exercise is called {shown(name)}; the course has {known}")
        exercise = EXERCISES[name]
        handed_over = answer is not _LOOK_UP  # e.g. the course checking its own class
        if answer is _LOOK_UP:
            missing = [n for n in exercise.answer_names if n not in namespace]
            if missing:
                text = f"{NOT_RUN}: `{missing[0]}` is not defined yet."
                return Verdict(name, "not run", text)
            values = [namespace[n] for n in exercise.answer_names]
            names = exercise.answer_names
            answer = values[0] if len(values) == 1 else dict(zip(names, values, strict=True))
        with _own.given(handed_over):
            return exercise.judge(answer)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # a bug of the checker: say so, never blame the reader
        return _fault(name, f"{type(err).__name__} inside the checker")


def _log(verdict: Verdict) -> None:
    """Append ``verdict`` to ``$ATTNLIB_VERDICT_LOG`` as one JSON line; a failed write is
    not the reader's concern (the gradebook then finds no verdict for this check)."""
    path = os.environ.get(VERDICT_LOG)
    if not path:
        return
    record = {
        "exercise": verdict.exercise,
        "status": verdict.status,
        "mistake": verdict.mistake,
        "message": verdict.message,
        "hint": verdict.hint,
    }
    try:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
    except OSError:
        pass


def _fault(name: Any, what: str) -> Verdict:
    text = (
        f"{COURSE_FAULT} ({what}). This is the course's fault, not your answer's: restart the "
        "kernel and run the cells from the top; if this line comes back, please report it."
    )
    # The name as typed, whatever it is: check(["01.dot"]) or an object whose str raises.
    return Verdict(name[:40] if isinstance(name, str) else shown(name, 40), "course fault", text)


class _Keep(dict):
    """Placeholders without a value stay as they are written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
