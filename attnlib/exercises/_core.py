"""The "your turn" protocol: ``check("NN.slug")`` prints one line and never raises.

The check cell names its exercise only; :func:`check` looks the reader's answer up by the
name the exercise declares, in the namespace of the cell that calls it, so a check run
before its exercise says so instead of raising ``NameError``. Each exercise judges the
answer (:class:`~attnlib.exercises._function.FunctionExercise` on several cases,
:class:`~attnlib.exercises._value.ValueExercise` with one answer policy) and returns a
:class:`Verdict`. A failure inside the checker is reported as the course's fault.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from attnlib.exercises._compare import Raised, describe, outcome, shown
from attnlib.mistakes import MISTAKES

#: Every exercise of the course by name (``"NN.slug"``), filled by the notebook modules.
EXERCISES: dict[str, Judged] = {}

NOT_ATTEMPTED = "Not attempted yet"
CORRECT = "Correct"
NOT_RUN = "Run the exercise cell above first"
COURSE_FAULT = "The check itself failed"

_LOOK_UP = object()  # check() was given no answer: read it from the caller's namespace


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``status`` is ``"not attempted"``, ``"not run"``,
    ``"correct"``, ``"mistake"`` (``mistake`` is its name), ``"wrong"``, ``"refused"`` (an
    answer of a type the exercise does not take) or ``"course fault"``; ``message`` is shown."""

    exercise: str
    status: str
    message: str
    mistake: str | None = None

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        return self.message


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


def named(exercise: str, mistake: str, values: Mapping[str, Any], hint: str = "") -> Verdict:
    """The verdict for a named mistake, its hint filled from ``values`` (or ``hint`` as given)."""
    row = MISTAKES[mistake]
    hint = hint or row.hint.format_map(_Keep(values))
    text = f"Not quite. Likely mistake: {row.label}. Hint: {hint}"
    return Verdict(exercise, "mistake", text, mistake)


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
    exercise declares (a function, a class or values the exercise cell defines).
    """
    try:
        if name not in EXERCISES:
            known = ", ".join(sorted(EXERCISES))
            return _fault(name, f"no exercise is called {shown(name)}; the course has {known}")
        exercise = EXERCISES[name]
        if answer is _LOOK_UP:
            namespace = sys._getframe(1).f_globals
            missing = [n for n in exercise.answer_names if n not in namespace]
            if missing:
                text = f"{NOT_RUN}: `{missing[0]}` is not defined yet."
                return Verdict(name, "not run", text)
            values = [namespace[n] for n in exercise.answer_names]
            names = exercise.answer_names
            answer = values[0] if len(values) == 1 else dict(zip(names, values, strict=True))
        return exercise.judge(answer)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # a bug of the checker: say so, never blame the reader
        return _fault(name, f"{type(err).__name__} inside the checker")


def _fault(name: str, what: str) -> Verdict:
    text = (
        f"{COURSE_FAULT} ({what}). This is the course's fault, not your answer's: restart the "
        "kernel and run the cells from the top; if this line comes back, please report it."
    )
    return Verdict(str(name)[:40], "course fault", text)


class _Keep(dict):
    """Placeholders without a value stay as they are written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


# --- notebooks 05-09: the old single-case exercise, until phase 2 migrates them -------------


def made(*names: str, on: Callable[[], tuple]) -> dict[str, Callable[[], Any]]:
    """``{name: what the mistake gives}``: each row's ``make`` applied to ``on()``'s arguments."""
    return {name: (lambda name=name: MISTAKES[name].make(*on())) for name in names}


def same_result(a: Any, b: Any) -> bool:
    """Equal results: tensors within the checkpoints' tolerance (NaN where NaN), else ``==``."""
    from attnlib.checks import close

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.device.type == "meta" or a.is_complex():
            return False
        a, b = a.detach().cpu().float(), b.detach().cpu().float()
        return bool((a.isnan() == b.isnan()).all()) and close(a.nan_to_num(), b.nan_to_num())
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return False
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().strip("'\"").lower() == b.strip().lower()
    return bool(a == b)


@dataclass(frozen=True)
class Exercise:
    """One "your turn" of notebooks 05-09, judged on one case (phase 2 moves them to
    :class:`~attnlib.exercises._function.FunctionExercise` and ``ValueExercise``)."""

    name: str
    task: str
    run: Callable[[Any], Any]
    expected: Callable[[], Any]
    mistakes: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    same: Callable[[Any, Any], bool] = lambda a, b: same_result(a, b)
    praise: str = ""
    hint_values: Mapping[str, Any] = field(default_factory=dict)
    answer_names: tuple[str, ...] = ()

    def judge(self, answer: Any) -> Verdict:
        result = Ellipsis if answer is Ellipsis else outcome(lambda: self.run(answer))
        if _blank(result):
            return not_attempted(self.name, self.task)
        if self._matches(result, self.expected()):
            return correct(self.name, self.praise)
        for mistake, make in self.mistakes.items():
            if self._matches(result, outcome(make)):
                return named(self.name, mistake, self.hint_values)
        return Verdict(self.name, "wrong", not_quite(describe(result, self.expected())))

    def _matches(self, result: Any, target: Any) -> bool:
        if isinstance(result, Raised) or isinstance(target, Raised):
            return isinstance(result, Raised) and result == target
        try:
            return self.same(result, target)
        except Exception:  # a result of an odd type is simply not a match
            return False


def _blank(result: Any) -> bool:
    """The stub as committed: ``...``, ``None``, or a tensor still all zeros."""
    if result is Ellipsis or result is None:
        return True
    return isinstance(result, torch.Tensor) and result.device.type != "meta" and not result.any()
