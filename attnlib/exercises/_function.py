"""A function exercise: the reader's function is run on several cases and judged on each.

The first case is the book's; the others are seeded random inputs of other sizes, so a size
written as a number, a global used instead of an argument, or a step the book's numbers
hide gives a wrong result somewhere, and the verdict names the case.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from attnlib.exercises._calls import Calls, Forbid, record
from attnlib.exercises._compare import NAN_HINT, Raised, describe, outcome, rounded, same, shown
from attnlib.exercises._core import Verdict, correct, named, not_attempted, not_quite, register
from attnlib.mistakes import MISTAKES, Mistake


@dataclass(frozen=True)
class Case:
    """Named inputs (``args``) and how a message calls them (``label``, e.g. "4 tokens")."""

    label: str
    args: Mapping[str, Any]


def rows(*names: str, via: Callable[[Callable], Callable] | None = None) -> dict[str, Mistake]:
    """The mistakes ``names`` (rows of the tables, :data:`~attnlib.mistakes.MISTAKES`), in the
    order they are tried. A row's ``make`` takes the exercise's answer's arguments; ``via``
    adapts rows written for an answer of other arguments (:meth:`~attnlib.mistakes.Mistake.via`)."""
    return {name: MISTAKES[name] if via is None else MISTAKES[name].via(via) for name in names}


def shape_values(args: Mapping[str, Any]) -> dict[str, Any]:
    """Placeholders a hint may use: ``{name_shape}`` per tensor, ``{t}`` and ``{d}`` of inputs."""
    values = {f"{k}_shape": tuple(v.shape) for k, v in args.items() if isinstance(v, torch.Tensor)}
    if isinstance(args.get("inputs"), torch.Tensor) and args["inputs"].dim() == 2:
        values["t"], values["d"] = args["inputs"].shape
    return values


def detached(result: Any) -> Any:
    """A tensor result without its graph (a layer's output, say); anything else as it is."""
    return result.detach() if isinstance(result, torch.Tensor) else result


def _reached(make: Callable[[], tuple[Any, Mapping[str, Any]]]) -> Any:
    """``(names a gradient reaches, every name)`` of the tensors ``make()`` returns beside
    its output, after ``output.sum().backward()``; or what raised."""

    def backward() -> tuple[list[str], list[str]]:
        output, tensors = make()
        named = [n for n, t in tensors.items() if isinstance(t, torch.Tensor)]
        outputs = output if isinstance(output, (tuple, list)) else (output,)
        attached = [t for t in outputs if isinstance(t, torch.Tensor) and t.requires_grad]
        if not attached:
            return [], named
        sum(t.sum() for t in attached).backward()
        return [n for n in named if tensors[n].grad is not None], named

    return outcome(backward)


@dataclass(frozen=True)
class FunctionExercise:
    """One function exercise, as it reads in its notebook's module: its ``name`` and ``task``,
    the ``answer_names`` its answer is read from, the ``cases`` and how ``call(answer, args)``
    runs the reader's function on one (by default with the case's arguments in their order),
    attnlib's ``solution`` (the right result is ``call(solution, args)``, or ``reference(args)``
    where it is not), the ``mistakes`` (rows of a kind's table, made on each case), what it
    ``forbids`` (:class:`~attnlib.exercises._calls.Forbid`), further ``rules`` (``rule(answer,
    case, calls)`` returns a sentence when a right answer breaks a rule the exercise states;
    ``calls()`` is what it called on that case), and, where the result must stay trainable,
    the ``gradient`` check (:meth:`_blocked`)."""

    name: str
    task: str
    answer_names: tuple[str, ...]
    cases: Callable[[], list[Case]]
    forbids: Forbid
    call: Callable[[Callable, Mapping[str, Any]], Any] = lambda answer, args: answer(*args.values())
    solution: Any = None
    reference: Callable[[Mapping[str, Any]], Any] | None = None
    mistakes: Mapping[str, Mistake] = field(default_factory=dict)
    rules: tuple[Callable[[Callable, Case, Callable[[], Calls]], str | None], ...] = ()
    stub_gives_zeros: bool = False
    praise: str = ""
    nan_hint: str = NAN_HINT
    gradient: tuple[str, ...] | Callable[[Any, Mapping[str, Any]], tuple] | None = None

    def __post_init__(self) -> None:
        register(self)  # declared is registered: the notebook module's declaration is all

    def judge(self, answer: Any, course: bool = False) -> Verdict:
        """The verdict on ``answer``; ``course``: the course's own object, handed over by
        :func:`~attnlib.exercises.checkpoint`, is judged on its numbers (not refused)."""
        if answer is Ellipsis:
            return not_attempted(self.name, self.task)
        if not callable(answer):
            what = f"expected the function `{self.answer_names[0]}`, got {shown(answer)}"
            return Verdict(self.name, "refused", not_quite(what))
        cases = self.cases()
        given = [copy.deepcopy(c.args) for c in cases]
        results = [outcome(lambda a=a: self.call(answer, a)) for a in given]
        calls = functools.cache(lambda: record(self.call, answer, cases[0].args))
        if results[0] is Ellipsis and (stub := calls().stub):
            what = (
                f"your function returned `...`, what the stub `{stub}` it calls still "
                f"returns: finish `{stub}` in its exercise first, then run both cells"
            )
            return Verdict(self.name, "wrong", not_quite(what))
        if results[0] is Ellipsis and calls().began:
            # a stub returns `...` after reading sizes at most; this function does more
            what = "your function returned `...`: a line of it is still the stub's `...`"
            return Verdict(self.name, "wrong", not_quite(what))
        if self._blank(results[0]):
            return not_attempted(self.name, self.task)
        reference = self.reference or functools.partial(self.call, self.solution)
        expected = [reference(c.args) for c in cases]
        if all(same(r, e) for r, e in zip(results, expected, strict=True)):
            if changed := _changed(cases, given):
                return Verdict(self.name, "wrong", not_quite(changed))
            if self.gradient and (blocked := self._blocked(answer, cases[0])):
                return self._no_gradient(blocked)
            own = course and any(answer is thing for thing in self.forbids.objects())
            broken = None if own else self.forbids.broken(answer, calls)
            for rule in self.rules:
                broken = broken or rule(answer, cases[0], calls)
            if broken:
                return Verdict(self.name, "wrong", not_quite(broken))
            return correct(self.name, self.praise)
        wrong = next(c for c, r, e in zip(cases, results, expected, strict=True) if not same(r, e))
        for mistake, row in self.mistakes.items():  # the hint speaks of a case it is seen on
            if any(self._made(way, cases, results) for way in row.ways()):
                values = shape_values(wrong.args)
                return named(self.name, mistake, values, case=wrong.label, row=row)
        differs = self._differs(cases, results, expected)
        return Verdict(self.name, "wrong", not_quite(differs))

    def _blocked(self, answer: Any, case: Case) -> str | Raised | None:
        """The first tensor that gets a gradient through the solution but not through
        ``answer`` (after ``output.sum().backward()``), what the answer raised, or ``None``.
        ``gradient`` names the arguments that become tensors needing gradients (as
        parameters are) before ``call`` runs an answer, or is ``run(answer, args)`` (a
        layer's), returning the output and the tensors training would change, by name.

        A parameter of the answer the solution does not have (a name of the reader's own)
        must get a gradient too, so a layer with renamed parameters is judged as well."""

        def run(what: Any) -> tuple[Any, Mapping[str, Any]]:
            args = copy.deepcopy(case.args)
            if callable(self.gradient):
                return self.gradient(what, args)
            made = {n: args[n].detach().clone().requires_grad_(True) for n in self.gradient}
            return self.call(what, {**args, **made}), made

        reference = _reached(lambda: run(self.solution))
        if isinstance(reference, Raised) or not reference[0]:  # nothing to train here
            return None
        got = _reached(lambda: run(answer))
        if isinstance(got, Raised):
            return got  # the answer raises with gradients on
        (reached, known), (answer_reached, answer_known) = reference, got
        if not answer_known or not answer_reached:  # no output that carries a gradient
            return reached[0]
        shared = [n for n in reached if n in answer_known]
        own = [n for n in answer_known if n not in known]
        return next((n for n in shared + own if n not in answer_reached), None)

    def _no_gradient(self, blocked: str | Raised) -> Verdict:
        """A right answer through which training stops: at tensor ``blocked``, or an error."""
        if isinstance(blocked, Raised):
            what = (
                f"the right numbers, but with gradients on your code raises {blocked.text}: "
                "training would fail. Is a tensor the gradient needs changed in place?"
            )
            return Verdict(self.name, "wrong", not_quite(what))
        return named(self.name, "no_gradient", {"parameter": blocked})

    def _blank(self, result: Any) -> bool:
        if result is Ellipsis:
            return True
        zeros = isinstance(result, torch.Tensor) and result.device.type != "meta"
        return self.stub_gives_zeros and zeros and not result.any()

    def _made(self, way: Callable, cases: list[Case], results: list) -> bool:
        """The reader's results are what ``way``, a mistake's, gives on every case, called
        as the reader's answer is."""
        return all(
            same(result, outcome(lambda c=case: self.call(way, copy.deepcopy(c.args))))
            for case, result in zip(cases, results, strict=True)
        )

    def _differs(self, cases: list[Case], results: list, expected: list) -> str:
        first, book, nan_hint = results[0], cases[0].label, self.nan_hint
        if first is None or isinstance(first, type):
            return describe(first, expected[0])
        if isinstance(first, Raised):
            return f"on {book}, {describe(first, expected[0])}"
        k = next(
            i for i, (r, e) in enumerate(zip(results, expected, strict=True)) if not same(r, e)
        )
        if len(results) > 1 and all(same(r, first, exact=True) for r in results[1:]):
            return "the result does not change with the input: are the arguments used?"
        if k > 0 and rounded(results[k], expected[k]):
            return f"for {cases[k].label}, {describe(results[k], expected[k], nan_hint)}"
        if k > 0:
            return (
                f"right for {book}, wrong for {cases[k].label}: is a size written as a number, "
                f"or a name from the notebook used instead of an argument? "
                f"({describe(results[k], expected[k], nan_hint)})"
            )
        return f"for {book}, {describe(first, expected[0], nan_hint)}"


def _changed(cases: list[Case], given: list[Mapping[str, Any]]) -> str | None:
    """Which argument the reader's function changed in place, on which case, if any.

    A function that changes its caller's tensors (``x -= ...``, ``x.mul_(2)``, a running
    total started from a row of ``inputs``) is not a right answer, even when it returns the
    right values: the caller's tensor is not what it was afterwards.
    """
    for case, args in zip(cases, given, strict=True):
        for name, before in case.args.items():
            if isinstance(before, torch.Tensor) and not same(args.get(name), before, exact=True):
                return (
                    f"the right values, but your function changed its argument `{name}` in "
                    f"place (on {case.label}): the caller's `{name}` is changed too. Compute "
                    f"into a new tensor (`{name} = {name} - ...`, not `{name} -= ...` or a "
                    "method ending in `_`; `.clone()` a row you start a total from)"
                )
    return None
