"""The "your turn" protocol: ``check("NN.slug")`` prints one line and never raises.

The check cell names its exercise only; :func:`check` looks the reader's answer up by the
name the exercise declares, in the namespace of the cell that calls it, so a check run
before its exercise says so instead of raising ``NameError``. Each exercise judges the
answer (:class:`~attnlib.exercises._function.FunctionExercise` on several cases,
:class:`~attnlib.exercises._value.ValueExercise` with one answer policy) and returns a
:class:`Verdict`. A failure inside the checker is reported as the course's fault.

:func:`checkpoint` is the notebook judging its own objects (the course's class, the
explorer's numbers) on an exercise's cases: its line can't be taken for the reader's verdict,
and it is never logged for the gradebook.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from attnlib.exercises import _limits, _tries
from attnlib.exercises._compare import shown
from attnlib.mistakes import MISTAKES
from attnlib.progress import record as _record

#: Every exercise of the course by name (``"NN.slug"``), filled by the notebook modules.
EXERCISES: dict[str, Judged] = {}

NOT_ATTEMPTED = "Not attempted yet"
CORRECT = "Correct"
NOT_RUN = "Run the exercise cell above first"
COURSE_FAULT = "The check itself failed"
#: The statuses of a checkpoint's verdict: never an exercise's, never logged.
CHECKPOINT, CHECKPOINT_FAILED = "checkpoint", "checkpoint failed"
#: The most characters of a verdict's message logged for the gradebook.
MESSAGE_CAP = 500

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
    answer of a type the exercise does not take) or ``"course fault"`` (or, from
    :func:`checkpoint`, ``"checkpoint"`` / ``"checkpoint failed"``); ``message`` is shown;
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

    def judge(self, answer: Any, course: bool = False) -> Verdict: ...


def register(exercise: Judged) -> Judged:
    """Add ``exercise`` to :data:`EXERCISES`; its mistakes must be rows of the tables. Each
    exercise calls it once, when it is declared (constructed) in its notebook's module."""
    unknown = set(getattr(exercise, "mistakes", {})) - set(MISTAKES)
    if unknown or exercise.name in EXERCISES:
        raise ValueError(
            f"exercise {exercise.name!r}: duplicate name or unknown mistakes {unknown}"
        )
    EXERCISES[exercise.name] = exercise
    return exercise


def named(
    exercise: str,
    mistake: str,
    values: Mapping[str, Any],
    hint: str = "",
    case: str = "",
    row: Any = None,
) -> Verdict:
    """The verdict for a named mistake, its hint filled from ``values`` (or ``hint`` as given);
    ``case`` is the case it was seen on, for the card; ``row``, the exercise's own copy of the
    mistake if its hint speaks of that exercise, else ``MISTAKES``' row."""
    row = row or MISTAKES[mistake]
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


def _judged(name: str, answer: Any, namespace: Mapping[str, Any], course: bool = False) -> Verdict:
    try:
        if not isinstance(name, str):
            return _fault(
                name, f"an exercise is named by a str such as '01.dot', not {shown(name)}"
            )
        if name not in EXERCISES:
            known = ", ".join(sorted(EXERCISES))
            return _fault(name, f"no exercise is called {shown(name)}; the course has {known}")
        exercise = EXERCISES[name]
        if answer is _LOOK_UP:
            missing = [n for n in exercise.answer_names if n not in namespace]
            if missing:
                text = f"{NOT_RUN}: `{missing[0]}` is not defined yet."
                return Verdict(name, "not run", text)
            values = [namespace[n] for n in exercise.answer_names]
            names = exercise.answer_names
            answer = values[0] if len(values) == 1 else dict(zip(names, values, strict=True))
        # an answer handed to check() is the reader's all the same: the course's own class
        # is refused as any delegation is (_calls.py); only checkpoint() judges the course's
        with _limits.time_limit():
            return exercise.judge(answer, course=course)
    except _limits.TimeLimit:
        return Verdict(name, "wrong", _limits.ENDLESS)
    except KeyboardInterrupt:
        raise _limits.Stopped from None
    except SystemExit:
        raise
    except BaseException as err:  # a bug of the checker: say so, never blame the reader
        return _fault(name, f"{type(err).__name__} inside the checker")


def checkpoint(name: str, own: Any, what: str = "") -> Verdict:
    """Judge the notebook's own object ``own`` (the course's class, a value the notebook
    computed) on exercise ``name``'s cases: one line that starts with ``✓ checkpoint passed``
    or ``✗ checkpoint failed``, never the reader's ``Correct``, never an exception, never
    written to ``$ATTNLIB_VERDICT_LOG`` (a checkpoint is not an exercise's verdict) and never
    raised under nbgrader. ``what`` names ``own`` in the line (e.g. "the notebook's
    MultiHeadAttention"); the line holds no number, so a notebook's saved output stays the same.
    """
    said = what if isinstance(what, str) and what else f"the notebook's answer to {name}"
    verdict = _judged(name, own, {}, course=True)  # judged on its numbers
    judged = f"{said} (judged as exercise {verdict.exercise})"
    if verdict.correct:
        return Verdict(verdict.exercise, CHECKPOINT, f"✓ checkpoint passed: {judged}")
    text = f"✗ checkpoint failed: {judged}: {verdict.message}"
    return Verdict(verdict.exercise, CHECKPOINT_FAILED, text, verdict.mistake)


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
        "message": verdict.message[:MESSAGE_CAP],
        "hint": verdict.hint[:MESSAGE_CAP],
        # which cell gave it: the gradebook counts only each exercise's own check cell
        "execution_count": _execution_count(),
    }
    try:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
    except OSError:
        pass


def _execution_count() -> int | None:
    """The number of the notebook cell running now (IPython's ``In [n]``), None outside one:
    the running cell's own result holds it (IPython 9 counts the shell's on before the cell
    runs, IPython 8 after)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    running = getattr(getattr(shell, "displayhook", None), "exec_result", None)
    count = getattr(running, "execution_count", None)
    return count if isinstance(count, int) else None


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
