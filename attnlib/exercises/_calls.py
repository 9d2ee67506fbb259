"""What a reader's answer called: the one recorder behind every rule about *how* an answer
computes, and behind telling a stub from an unfinished answer.

The rule: a right answer (or one that returned ``...``) is run once more on the book's case
under :func:`record`, which watches two things at once and nothing else:

- a :class:`~torch.overrides.TorchFunctionMode` sees every torch function by its name, however
  it is written (``torch.softmax``, ``F.softmax``, ``Tensor.softmax`` and ``nn.Softmax`` are one
  ``softmax``), and the shape of each product, for "one matrix product" and "without torch.dot";
- a profile hook (``sys.setprofile``) sees Python calls: attnlib's functions entered (by their
  code objects: an alias, a subclass or a one-line call of attnlib's answer all enter it), and
  which of the reader's functions returned ``...``, and whether it called anything first.

Why these two: attnlib's references are Python functions, which a TorchFunctionMode does not
see, and torch's ops are C functions the hook cannot tell apart from a reader's own steps. The
hook also answers "a stub, or begun?": an answer that returned ``...`` after calling nothing but
a size read (``size``, ``dim``) is a stub; one whose ``...`` came from another function of the
reader's that did nothing is waiting on that stub; any other is begun, a line of it still
``...``. Under another profiler (a debugger, cProfile) the hook is not replaced: attnlib's code
is then seen only as the answer itself, and a ``...`` is a stub.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from attnlib import attention, modules
from attnlib.exercises._compare import outcome

#: torch's names of a matrix product (``func.__name__`` in a TorchFunctionMode).
PRODUCTS = frozenset(
    {"matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "einsum", "dot", "mv", "inner"}
    | {"tensordot", "vdot", "addmm", "linear"}
)
#: attnlib's names that compute a stage, which the exercises of that stage forbid.
SCORES = ("attention_scores_loop", "attention_scores", "scaled_scores", "context_vectors")
SOFTMAX = ("softmax_naive", "softmax", "weights_from_scores", "attention_weights")
TORCH_SOFTMAX = ("softmax", "log_softmax", "special_softmax")
ATTEND = (
    "attention_weights",
    "scaled_scores",
    "weights_from_scores",
    "scaled_dot_product_attention",
)
#: What a shipped stub may read before its ``return ...``: the sizes it unpacks.
_SIZE_READS = frozenset({"shape", "size", "dim", "ndim"})
#: torch's names as a reader writes them, where ``__name__`` differs.
_TORCH_SHOWN = {
    "special_softmax": "torch.special.softmax",
    "scaled_dot_product_attention": "torch.nn.functional.scaled_dot_product_attention",
}
#: Where attnlib's names are looked up, as the course's readers import them.
_HOMES = ((attention, "attnlib"), (modules, "attnlib.modules"))


@dataclass(frozen=True)
class Forbid:
    """What an exercise asks the reader to write and so refuses to see handed over:
    ``attnlib`` names (of :mod:`attnlib.attention` and :mod:`attnlib.modules`; a class stands
    for its ``forward``), ``torch`` function names (``func.__name__``: ``softmax`` is every
    spelling of it), and ``how`` the exercise wants it written. ``because`` instead says why an
    exercise has nothing to forbid."""

    attnlib: tuple[str, ...] = ()
    torch: tuple[str, ...] = ()
    how: str = "with torch"
    because: str = ""

    def __post_init__(self) -> None:
        if bool(self.attnlib or self.torch) == bool(self.because):
            raise ValueError("a Forbid names what it forbids, or says `because` it forbids none")

    def objects(self) -> dict[Any, str]:
        """attnlib's objects forbidden, each with the name a reader knows it by."""
        found = {}
        for name in self.attnlib:
            module, shown = next((m, s) for m, s in _HOMES if hasattr(m, name))
            found[getattr(module, name)] = f"{shown}.{name}"
        return found

    def broken(self, answer: Any, calls: Callable[[], Calls]) -> str | None:
        """The sentence for an answer that used a forbidden name (``calls()``: what it called
        on the book's case), or ``None``."""
        if self.because:
            return None
        calls, objects = calls(), self.objects()
        codes = {_code(thing): shown for thing, shown in objects.items()}
        used = [codes[c] for c in calls.entered if c in codes]
        used += [_TORCH_SHOWN.get(n, f"torch.{n}") for n, _ in calls.torch if n in self.torch]
        if not calls.watched:  # another profiler: at least the answer itself
            used = [codes[c] for c in (_code(answer),) if c in codes] + used
        if not used:
            return None
        whose = (
            "torch's ready-made op" if used[0].startswith("torch.") else "the course's own answer"
        )
        return (
            f"the right numbers, but from {used[0]}, {whose}: the exercise asks you to write "
            f"it yourself, {self.how}"
        )


@dataclass
class Calls:
    """What one run called: the Python code objects ``entered``, in order, and every ``torch``
    function as ``(name, result shape or None)``. Where the run returned ``...``: ``stub``, the
    reader's other function, still a stub, whose ``...`` it was, or whether the answer
    ``began`` (called something before its ``...``)."""

    entered: list[Any] = field(default_factory=list)
    torch: list[tuple[str, tuple[int, ...] | None]] = field(default_factory=list)
    stub: str = ""
    began: bool = False
    watched: bool = True

    def products(self) -> list[tuple[str, tuple[int, ...]]]:
        """The matrix products that gave a tensor, with its shape, in order."""
        return [(n, shape) for n, shape in self.torch if n in PRODUCTS and shape is not None]


class _Torch(TorchFunctionMode):
    def __init__(self, calls: Calls) -> None:
        super().__init__()
        self.calls = calls

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        shape = tuple(result.shape) if isinstance(result, torch.Tensor) else None
        self.calls.torch.append((getattr(func, "__name__", ""), shape))
        return result


class _Hook:
    """The profile hook: Python code entered, frames that called something other than a
    size read, and frames of the reader's code (``scope``, its globals) that returned ``...``."""

    def __init__(self, scope: Mapping[str, Any]) -> None:
        self.scope, self.entered, self.busy, self.ellipsis_from = scope, {}, set(), []

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is _Torch.__torch_function__.__code__:
            if _name(frame.f_locals.get("func")) not in _SIZE_READS:  # x.shape comes here too
                self.busy.add(frame.f_back)
        elif event == "call":
            self.entered[frame.f_code] = None
            self.busy.add(frame.f_back)
        elif event == "c_call" and getattr(arg, "__name__", "") not in _SIZE_READS:
            self.busy.add(frame)
        elif event == "return" and arg is Ellipsis and frame.f_globals is self.scope:
            self.ellipsis_from.append(frame)  # the innermost first: where `...` was written


def record(call: Callable, answer: Any, args: Mapping[str, Any]) -> Calls:
    """What ``call(answer, args)`` (the reader's ``answer`` on a copy of one case's ``args``)
    called. The hook is set only during the call and taken away however it ends; what the
    answer raised was judged already, but KeyboardInterrupt and SystemExit go on."""
    args = copy.deepcopy(args)
    calls = Calls(watched=sys.getprofile() is None)
    hook = _Hook(getattr(_function(answer), "__globals__", None) or {})
    try:
        if calls.watched:
            sys.setprofile(hook)
        with _Torch(calls):
            outcome(lambda: call(answer, args))
    finally:
        if calls.watched:
            sys.setprofile(None)
    calls.entered = list(hook.entered)
    if hook.ellipsis_from:
        first = hook.ellipsis_from[0]
        helper = hook.scope.get(first.f_code.co_name)
        if first.f_code is not _code(answer) and getattr(helper, "__code__", None) is first.f_code:
            calls.stub = "" if first in hook.busy else first.f_code.co_name
        calls.began = not calls.stub and any(f in hook.busy for f in hook.ellipsis_from)
    return calls


def _name(func: Any) -> str:
    """A torch function's name; a property read (``Tensor.shape.__get__``) by its property's."""
    name = getattr(func, "__name__", "")
    return getattr(getattr(func, "__self__", None), "__name__", name) if name == "__get__" else name


def _function(thing: Any) -> Any:
    """The function that computes ``thing``: itself, or a class's ``forward``."""
    return getattr(thing, "forward", None) if isinstance(thing, type) else thing


def _code(thing: Any) -> Any:
    return getattr(_function(thing), "__code__", None)


def one_product(product: str) -> Callable[[Any, Any, Callable[[], Calls]], str | None]:
    """The rule "in one matrix product": ``rule(answer, case, calls)``."""

    def rule(answer: Any, case: Any, calls: Callable[[], Calls]) -> str | None:
        count = len(calls().products())
        if count > 1:
            return (
                f"the right numbers, but from {count} products; the exercise asks for one "
                f"matrix product, {product}"
            )
        return None

    return rule


def no_whole_grid(what: str) -> Callable[[Any, Any, Callable[[], Calls]], str | None]:
    """The rule "not cut from the whole grid": no product of the case's ``inputs`` has the
    (num_tokens, num_tokens) shape; ``what`` says what the exercise asks for instead."""

    def rule(answer: Any, case: Any, calls: Callable[[], Calls]) -> str | None:
        grid = (len(case.args["inputs"]),) * 2
        if grid in [shape for _, shape in calls().products()]:
            return f"{what.format(grid=grid)}"
        return None

    return rule


def no_product(banned: str, names: tuple[str, ...]) -> Callable[..., str | None]:
    """The rule "without ``banned``": none of the torch functions ``names`` is called (the
    same operation under its other names counts too); other ways to write it are taken."""

    def rule(answer: Any, case: Any, calls: Callable[[], Calls]) -> str | None:
        used = [name for name, _ in calls().products() if name in names]
        if used:
            return (
                f"the right number, but from `torch.{used[0]}`; the exercise asks for it "
                f"without {banned}: multiply position by position with *, then add with .sum()"
            )
        return None

    return rule


class _ForwardRun(Exception):
    """Raised when the reader's answer runs the layer's forward, which the rule forbids."""


def no_forward(layer: str, what: str) -> Callable[[Any, Any, Callable[[], Calls]], str | None]:
    """The rule "without calling the layer": the answer, called with the case's arguments in
    their order and the case's ``layer`` replaced by a copy whose forward raises, does not
    reach that forward; ``what`` says what the exercise asks for instead."""

    def rule(answer: Any, case: Any, calls: Callable[[], Calls]) -> str | None:
        guarded = copy.deepcopy(case.args[layer])

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise _ForwardRun

        guarded.forward = refuse
        try:
            answer(*{**case.args, layer: guarded}.values())
        except _ForwardRun:
            return (
                "the numbers are right, but they come from running the whole layer, "
                f"{layer}(...); the exercise asks for {what}"
            )
        except Exception:  # any other failure was already judged on the plain layer
            return None
        return None

    return rule
