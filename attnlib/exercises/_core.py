"""The "your turn" protocol: a reader's answer in, a one-line verdict out, never an exception.

An :class:`Exercise` knows how to run the reader's answer (a function, a class or a
plain value), what the right result is, and what each named mistake of
:data:`attnlib.mistakes.MISTAKES` would give. :func:`check` runs the answer and
compares: ``Not attempted yet``, ``Correct``, the mistake's name with its hint, or
what is off. Whatever the reader wrote, ``check`` returns a :class:`Verdict`, so
Run All goes through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from attnlib.checks import close
from attnlib.mistakes import MISTAKES

#: Every exercise of the course by name (``"NN.slug"``), filled by the notebook modules.
EXERCISES: dict[str, Exercise] = {}

NOT_ATTEMPTED = "Not attempted yet"
CORRECT = "Correct"


@dataclass(frozen=True)
class Exercise:
    """One "your turn".

    ``task`` says in a few words what the reader writes. ``run`` turns the answer
    into a result (e.g. calls the reader's function on the course's inputs);
    ``expected`` gives the right result; ``mistakes`` maps names of
    :data:`~attnlib.mistakes.MISTAKES` to what that mistake gives (a function of
    no arguments; it may raise, like the reader's mistaken code would);
    ``same`` compares two results. ``praise`` is added after ``Correct``;
    ``hint_values`` fill the ``{placeholders}`` of the mistakes' hints.
    """

    name: str
    task: str
    run: Callable[[Any], Any]
    expected: Callable[[], Any]
    mistakes: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    same: Callable[[Any, Any], bool] = lambda a, b: same_result(a, b)
    praise: str = ""
    hint_values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``status`` is ``"not attempted"``, ``"correct"``,
    ``"mistake"`` (then ``mistake`` is its name) or ``"wrong"``; ``message`` is shown."""

    exercise: str
    status: str
    message: str
    mistake: str | None = None

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        return self.message


def made(*names: str, on: Callable[[], tuple]) -> dict[str, Callable[[], Any]]:
    """``{name: what the mistake gives}``: each row's ``make`` applied to ``on()``'s arguments."""
    return {name: (lambda name=name: MISTAKES[name].make(*on())) for name in names}


def register(exercise: Exercise) -> Exercise:
    """Add ``exercise`` to :data:`EXERCISES`; its mistakes must be rows of the table."""
    unknown = set(exercise.mistakes) - set(MISTAKES)
    if unknown or exercise.name in EXERCISES:
        raise ValueError(
            f"exercise {exercise.name!r}: duplicate name or unknown mistakes {unknown}"
        )
    EXERCISES[exercise.name] = exercise
    return exercise


def same_result(a: Any, b: Any) -> bool:
    """Equal results: tensors within the checkpoints' tolerance (NaN where NaN), else ``==``."""
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


class _Keep(dict):
    """Placeholders without a value stay as they are written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class _Raised:
    """An exception as a result, so a mistake that raises can match the reader's."""

    def __init__(self, err: BaseException) -> None:
        self.text = f"{type(err).__name__}: {err}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Raised) and other.text.split("\n")[0] == self.text.split("\n")[0]


def _outcome(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except Exception as err:  # the reader's code may raise anything
        return _Raised(err)


def _blank(result: Any) -> bool:
    """The stub as committed: ``...``, ``None``, or a tensor still all zeros."""
    if result is Ellipsis or result is None:
        return True
    return isinstance(result, torch.Tensor) and result.device.type != "meta" and not result.any()


def _matches(exercise: Exercise, result: Any, target: Any) -> bool:
    if isinstance(result, _Raised) or isinstance(target, _Raised):
        # _Raised's == first: an array's == would compare element by element.
        return isinstance(result, _Raised) and result == target
    try:
        return exercise.same(result, target)
    except Exception:  # a result of an odd type is simply not a match
        return False


def _describe_miss(result: Any, expected: Any) -> str:
    if isinstance(result, _Raised):
        return f"your code raised {result.text.splitlines()[0]}"
    if isinstance(result, torch.Tensor) and isinstance(expected, torch.Tensor):
        if result.shape != expected.shape:
            return f"expected shape {tuple(expected.shape)}, got {tuple(result.shape)}"
        return "the shape is right but the numbers differ; compare with the lines above"
    if isinstance(result, (torch.Tensor, np.ndarray)):
        kind = "a tensor" if isinstance(result, torch.Tensor) else "a numpy array"
        shown = f"{kind} of shape {tuple(result.shape)}"
        if isinstance(expected, torch.Tensor):
            return f"expected a torch tensor of shape {tuple(expected.shape)}, got {shown}"
    else:
        shown = " ".join(repr(result).split())  # one line, whatever the reader's repr
    return f"got {shown[:120]}, which is neither the answer nor a mistake the course knows"


def check(name: str, answer: Any) -> Verdict:
    """Judge the reader's ``answer`` to exercise ``name``; shows one line, never raises.

    ``answer`` is whatever the exercise asks for: a function, a class or a value.
    """
    if name not in EXERCISES:
        raise ValueError(f"name: expected one of the course's exercises, got {name!r}")
    exercise = EXERCISES[name]
    result = Ellipsis if answer is Ellipsis else _outcome(lambda: exercise.run(answer))
    if _blank(result):
        return Verdict(name, "not attempted", f"{NOT_ATTEMPTED}: {exercise.task}.")
    if _matches(exercise, result, exercise.expected()):
        return Verdict(
            name, "correct", f"{CORRECT}!{' ' + exercise.praise if exercise.praise else ''}"
        )
    for mistake, make in exercise.mistakes.items():
        if _matches(exercise, result, _outcome(make)):
            row = MISTAKES[mistake]
            hint = row.hint.format_map(_Keep(exercise.hint_values))
            text = f"Not quite. Likely mistake: {row.label}. Hint: {hint}"
            return Verdict(name, "mistake", text, mistake)
    miss = _describe_miss(result, exercise.expected())
    return Verdict(name, "wrong", f"Not quite: {miss}.")
