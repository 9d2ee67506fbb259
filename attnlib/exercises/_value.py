"""A value exercise: a number, a word, a token, a shape or tensors the reader sets.

One answer policy for every question: numbers as int, float, 0-d tensor or numpy scalar
(a number in quotes is refused with a hint), words and tokens as strings, shapes as tuples;
the echo shows exactly what the reader typed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from attnlib.exercises._compare import describe, outcome, same, shown
from attnlib.exercises._core import Verdict, correct, named, not_attempted, not_quite, register


class Refused(str):
    """Why an answer of this type is not taken: shown to the reader as it is."""


def number(answer: Any) -> Any:
    """A real number as a Python int or float, or a :class:`Refused`."""
    if isinstance(answer, torch.Tensor) and answer.dim() == 0 and not answer.is_complex():
        if answer.device.type == "meta":
            return Refused("got a tensor on the meta device, which holds no value")
        answer = answer.item()
    elif isinstance(answer, np.generic) and answer.shape == ():
        answer = answer.item()
    if isinstance(answer, bool):
        return Refused(f"got {answer!r}: write a number, e.g. 4")
    if isinstance(answer, numbers.Integral):
        return int(answer)
    if isinstance(answer, numbers.Real):
        return float(answer)
    if isinstance(answer, str):
        return Refused(f"got the text {shown(answer)}: write the number without quotes")
    return Refused(f"expected a number, got {shown(answer)}")


def as_number(result: Any, then: Callable[[Any], Any] = lambda value: value) -> Any:
    """A number a reader's function returned, as ``then(number)``; anything else as it is,
    to be described."""
    value = number(result)
    return result if isinstance(value, Refused) else then(value)


def whole(answer: Any) -> Any:
    """A whole number (an int, or a float such as 15.0 that is one), or a :class:`Refused`."""
    value = number(answer)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def word(*choices: str) -> Callable[[Any], Any]:
    """One of ``choices``, any case, without surrounding spaces, singular or plural ("column"
    for "columns"); else a :class:`Refused`."""

    def accept(answer: Any) -> Any:
        typed = answer.strip().lower() if isinstance(answer, str) else None
        for choice in choices:
            if typed in (choice, choice.removesuffix("s")):
                return choice
        listed = " or ".join(repr(c) for c in choices)
        return Refused(f"expected {listed}, got {shown(answer)}")

    return accept


def boolean(answer: Any) -> Any:
    """True or False (a Python, numpy or 0-d torch bool), else a :class:`Refused`."""
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, torch.Tensor) and answer.dim() == 0 and answer.dtype == torch.bool:
        if answer.device.type == "meta":
            return Refused("got a tensor on the meta device, which holds no value")
        return bool(answer)
    hint = ": write True or False without quotes" if isinstance(answer, str) else ""
    if isinstance(answer, numbers.Integral) and answer in (0, 1):
        hint = ": a yes-or-no question takes True or False, not 1 or 0"
    return Refused(f"expected True or False, got {shown(answer)}{hint}")


def shape(answer: Any) -> Any:
    """A tuple of sizes, from a tuple, a list or a torch.Size of ints, else a :class:`Refused`."""
    if isinstance(answer, (tuple, list, torch.Size)) and all(
        isinstance(n, int) and not isinstance(n, bool) for n in answer
    ):
        return tuple(answer)
    return Refused(f"expected a tuple of whole numbers, e.g. (2, 5), got {shown(answer)}")


def token(tokens: tuple[str, ...]) -> Callable[[Any], Any]:
    """A token of ``tokens`` by its text (any case) or by its index, as its text in lower case."""

    def accept(answer: Any) -> Any:
        if isinstance(answer, str):
            if answer.strip().lower() in [t.lower() for t in tokens]:
                return answer.strip().lower()
            if answer.strip().lstrip("-").isdigit():  # an index as text: the number policy
                return Refused(f"got the text {shown(answer)}: write the index without quotes")
            return Refused(f"{shown(answer)} is not a token of the sentence {list(tokens)}")
        index = whole(answer)
        # a negative index is Python's own way to name the same token from the end
        if isinstance(index, int) and -len(tokens) <= index < len(tokens):
            return tokens[index].lower()
        if index == len(tokens):
            return Refused(
                f"{shown(answer)} is past the last index, {len(tokens) - 1} ({tokens[-1]!r}): "
                "counted from 1, as the book numbers x^(1), x^(2)...? Python counts from 0"
            )
        return Refused(f"expected a token such as {tokens[0]!r} or its index, got {shown(answer)}")

    accept.tokens = tokens  # what a wrong index is explained with
    return accept


def _each(accept: Callable[[Any], Any], names: tuple[str, ...], values: list) -> Any:
    """``values``, the answers to ``names`` given together, each taken by ``accept``, as a
    tuple; else a :class:`Refused` that names the value refused."""
    taken = [accept(v) for v in values]
    for name, value in zip(names, taken, strict=True):
        if isinstance(value, Refused):
            return Refused(f"`{name}`: {value}")
    return tuple(taken)


def _wrong(answer: Any, value: Any, right: Any, accept: Callable[[Any], Any]) -> str:
    """A wrong answer described: what the reader typed, what it stands for, which way it is off.

    A token given by its index says which token that is, and whether counting from 1 (as
    the book numbers its x^(i)) explains it; a number says whether it is too large or too
    small; anything else echoes what was typed.
    """
    echo = shown(answer)
    if isinstance(answer, dict):  # several names answered together: as the reader typed them
        echo = ", ".join(f"{name} = {shown(v)}" for name, v in answer.items())
    tokens = getattr(accept, "tokens", None)
    if tokens is not None and not isinstance(answer, str):
        index = whole(answer)
        text = (
            f"{echo} is token {index} of the sentence, {tokens[index]!r}, as Python counts from 0"
        )
        if index >= 1 and tokens[index - 1].lower() == right:
            return f"{text}: counted from 1, as the book numbers x^(1), x^(2)...? " + (
                "Python's index is one less"
            )
        return f"{text}, not the token asked for"
    if isinstance(value, float) and math.isnan(value):
        return f"{echo} is not a number: write the value you found as a number"
    if isinstance(value, (int, float)) and isinstance(right, (int, float)):
        way = "too large" if value > right else "too small"
        return f"{echo} is {way}"
    return f"{echo} is not the answer"


def tensor(answer: Any) -> Any:
    """A torch tensor as it is; anything else is a :class:`Refused`."""
    if isinstance(answer, torch.Tensor):
        return answer
    return Refused(f"expected a torch tensor, got {shown(answer)}")


@dataclass(frozen=True)
class ValueExercise:
    """One value exercise: ``accept`` applies the answer policy; ``expected`` is the right
    value; ``mistakes`` map rows of a kind's table to the value that mistake gives; ``exact``
    for counts. For a wrong value no row gives, ``near`` names a mistake when its test takes
    the number (one read off a plot, say), the answer echoed as ``{got}``; ``search(answer,
    value)`` may name a mistake of ``searched`` as ``(mistake, hint values, hint or "")``.
    Several ``answer_names`` are answered together, each taken by ``accept``: not attempted
    while all are ``...``, refused while one of them is."""

    name: str
    task: str
    answer_names: tuple[str, ...]
    accept: Callable[[Any], Any]
    expected: Callable[[], Any]
    mistakes: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    exact: bool = True
    praise: str = ""
    hint_values: Mapping[str, Any] = field(default_factory=dict)
    #: What a wrong accepted value stands for, concretely (None: echo and direction only).
    explain: Callable[[Any], str | None] | None = None
    near: Mapping[str, Callable[[float], bool]] = field(default_factory=dict)
    search: Callable[[Any, Any], tuple[str, Mapping[str, Any], str] | None] | None = None
    searched: tuple[str, ...] = ()

    @property
    def prediction(self) -> bool:
        """A question answered by a value the reader predicts, not a tensor they compute:
        its first wrong answer gets a nudge, not the explanation (``_tries``)."""
        return self.accept is not tensor

    def __post_init__(self) -> None:
        register(self)  # declared is registered: the notebook module's declaration is all

    def judge(self, answer: Any, course: bool = False) -> Verdict:
        names = self.answer_names
        values = [answer.get(n) for n in names] if isinstance(answer, dict) else answer
        several = len(names) > 1 and isinstance(values, (tuple, list)) and len(values) == len(names)
        if answer is Ellipsis or (several and all(v is Ellipsis for v in values)):
            return not_attempted(self.name, self.task)
        if several and any(v is Ellipsis for v in values):
            left = names[[v is Ellipsis for v in values].index(True)]
            return Verdict(self.name, "refused", not_quite(f"`{left}` is still `...`"))
        if len(names) == 1:
            value = self.accept(answer)
        elif several:
            value = _each(self.accept, names, values)
        else:
            value = Refused(f"expected {' and '.join(names)} together, got {shown(answer)}")
        if isinstance(value, Refused):
            return Verdict(self.name, "refused", not_quite(value))
        right = self.expected()
        if same(value, right, exact=self.exact):
            return correct(self.name, self.praise)
        for mistake, make in self.mistakes.items():
            if same(value, outcome(make), exact=self.exact):
                return named(self.name, mistake, self.hint_values)
        for mistake, close in self.near.items():
            if isinstance(value, (int, float)) and close(value):
                return named(self.name, mistake, {"got": shown(answer)})
        if self.search is not None and (found := self.search(answer, value)):
            return named(self.name, found[0], found[1], hint=found[2])
        if isinstance(value, torch.Tensor):
            what = describe(value, right)
        else:
            what = _wrong(answer, value, right, self.accept)
            told = self.explain(value) if self.explain is not None else None
            what = f"{what}: {told}" if told else what
        return Verdict(self.name, "wrong", not_quite(what))
