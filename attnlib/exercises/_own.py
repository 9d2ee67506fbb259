"""The course's own answer is not the reader's: attnlib's reference, or torch's ready-made op,
where the exercise asks the reader to write that very thing.

attnlib ships every solution (``attnlib.attention_scores_loop``, ``attnlib.modules.
SelfAttentionV1``...), so an answer that hands its work to one of them gives the right numbers
without being written. :data:`OWN` says, exercise by exercise, which names compute its answer;
:func:`own_rule` re-runs a right answer on the book's case and notes whether it entered one of
them: attnlib's by its code object (a profile hook set only during that call), torch's by a
:class:`~torch.overrides.TorchFunctionMode`. Using attnlib where the notebook hands it out as a
tool (07's ``CausalAttention`` heads, a layer's ``__init__``) is not in the table, so it stays
accepted. An answer handed to ``check()`` is the reader's, whoever wrote it: the course's own
class typed there is refused like any delegation. Only :func:`~attnlib.exercises.checkpoint`
(the notebook judging its own objects, never logged as a verdict) judges the course's own
object on its numbers.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import dataclasses
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from torch.overrides import TorchFunctionMode

from attnlib import attention, modules


@dataclass(frozen=True)
class Own:
    """What computes an exercise's answer: ``attnlib`` names (of :mod:`attnlib.attention` and
    :mod:`attnlib.modules`; a class stands for its ``forward``),
    ``torch`` function names (as ``func.__name__`` in a TorchFunctionMode, so ``torch.softmax``,
    ``F.softmax``, ``Tensor.softmax`` and ``nn.Softmax`` are one name), and ``how`` the
    exercise wants it written instead."""

    attnlib: tuple[str, ...] = ()
    torch: tuple[str, ...] = ()
    how: str = "with torch"


_SCORES = ("attention_scores_loop", "attention_scores", "context_vectors")
_SOFTMAX = ("softmax_naive", "softmax", "attention_weights")
_TORCH_SOFTMAX = ("softmax", "log_softmax", "special_softmax")
_ATTEND = ("attention_weights", "scaled_dot_product_attention")

#: Per exercise, what the reader is asked to write and may not hand over. An exercise that is
#: absent judges a value (nothing runs), or has nothing in attnlib or torch that answers it.
OWN: Mapping[str, Own] = {
    # torch.dot itself is refused by 01.dot's own rule (no_product)
    "01.dot": Own(attnlib=(*_SCORES, "context_vector"), how="with * and .sum()"),
    "01.loop_body": Own(attnlib=_SCORES, how="with torch.dot, one cell at a time"),
    "02.matmul": Own(attnlib=_SCORES, how="with @"),
    "02.first_rows": Own(attnlib=_SCORES, how="with @"),
    "03.softmax_naive": Own(_SOFTMAX, _TORCH_SOFTMAX, "from torch.exp and .sum()"),
    "03.softmax_stable": Own(_SOFTMAX, _TORCH_SOFTMAX, "from the row's max, torch.exp and .sum()"),
    "04.all_context": Own(attnlib=("context_vectors", "context_vector"), how="with @"),
    "04.from_scratch": Own(
        attnlib=(*_SCORES, "context_vector", *_ATTEND, "blockwise_attention"),
        how="with torch: the scores, their softmax, the blend",
    ),
    "05.scale": Own(attnlib=_ATTEND, how="with torch.softmax and the root of d_k"),
    "06.mask": Own(
        attnlib=("causal_mask", *_ATTEND),
        torch=("scaled_dot_product_attention",),
        how="with torch.triu, masked_fill and torch.softmax",
    ),
    # ca(...) itself is refused by the exercise's own rule
    "06.last_row": Own(
        attnlib=_ATTEND,
        torch=("scaled_dot_product_attention",),
        how="from one query, with torch.softmax",
    ),
    # the heads are attnlib's CausalAttention, as the notebook hands them out: only the
    # wrapper's own forward is the answer
    "07.wrapper_forward": Own(attnlib=("MultiHeadAttentionWrapper",), how="with torch.cat"),
    "07.split_heads": Own(attnlib=("split_heads",), how="with .view and .transpose"),
    # mha(...) itself is refused by the exercise's own rule
    "07.one_head": Own(
        attnlib=("split_heads", *_ATTEND), how="from the head's rows, with torch.softmax"
    ),
    "09.rescale": Own(
        attnlib=("blockwise_attention", *_ATTEND),
        torch=("scaled_dot_product_attention",),
        how="block by block, rescaling the sums",
    ),
}

#: torch's names as a reader writes them, where ``__name__`` differs.
_TORCH_SHOWN = {
    "special_softmax": "torch.special.softmax",
    "scaled_dot_product_attention": "torch.nn.functional.scaled_dot_product_attention",
}

#: Where attnlib's names are looked up, as the course's readers import them (attnlib.training
#: holds no answer of an exercise: 10's training step is the reader's, run by its train()).
_HOMES = ((attention, "attnlib"), (modules, "attnlib.modules"))

#: Set by checkpoint() only: the object judged is the notebook's own, not the reader's answer.
GIVEN: contextvars.ContextVar[bool] = contextvars.ContextVar("attnlib_answer_given", default=False)


@contextlib.contextmanager
def given(explicitly: bool) -> Iterator[None]:
    """While judging, whether the object is the course's own, judged by checkpoint()."""
    token = GIVEN.set(explicitly)
    try:
        yield
    finally:
        GIVEN.reset(token)


def _resolve(name: str) -> tuple[Any, str]:
    """attnlib's object named ``name`` and the name a reader knows it by."""
    for module, shown in _HOMES:
        if hasattr(module, name):
            return getattr(module, name), f"{shown}.{name}"
    raise ValueError(f"attnlib has no {name!r} in attention or modules")


def _code(thing: Any) -> Any:
    """The code object that computes ``thing``: a function's own, a class's ``forward``."""
    function = thing.forward if isinstance(thing, type) else thing
    return function.__code__


class _Recorder(TorchFunctionMode):
    """Notes the banned torch functions called, by name."""

    def __init__(self, names: frozenset[str]) -> None:
        super().__init__()
        self.names, self.used = names, []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in self.names:
            self.used.append(name)
        return func(*args, **(kwargs or {}))


def entered(run: Callable[[], Any], codes: Mapping[Any, str], torch_names: frozenset[str]) -> list:
    """What ``run()`` used among ``codes`` (code object -> shown name) and ``torch_names``, as
    shown names in order of first use. The profile hook is set only during the call and taken
    away however it ends; an exception of the answer is swallowed (it was judged already), but
    KeyboardInterrupt and SystemExit go on. Under another profiler (a debugger, cProfile), the
    hook is not replaced: then attnlib's code is not seen (the rule falls back on the answer
    itself being attnlib's)."""
    used: list[str] = []

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in codes:
            used.append(codes[frame.f_code])

    previous = sys.getprofile()
    record = _Recorder(torch_names)
    try:
        if codes and previous is None:
            sys.setprofile(hook)
        # the mode costs every torch call a Python call: only where a torch name is banned
        with record if torch_names else contextlib.nullcontext():
            run()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # the answer ran without raising before; judge what it entered
        pass
    finally:
        if codes and previous is None:
            sys.setprofile(None)
    used += [_TORCH_SHOWN.get(name, f"torch.{name}") for name in record.used]
    return list(dict.fromkeys(used))


def own_rule(own: Own, call: Callable[[Callable, Mapping[str, Any]], Any]) -> Callable:
    """The rule "written, not handed over": a rule for a FunctionExercise's ``rules``."""
    found = [_resolve(n) for n in own.attnlib]
    codes = {_code(thing): shown for thing, shown in found}
    objects = [thing for thing, _ in found]
    torch_names = frozenset(own.torch)

    def rule(answer: Callable, case: Any) -> str | None:
        if GIVEN.get() and any(answer is thing for thing in objects):
            return None  # the course's own object, judged by checkpoint()
        args = copy.deepcopy(case.args)
        used = entered(lambda: call(answer, args), codes, torch_names)
        if not used and sys.getprofile() is not None:  # no hook: at least the answer itself
            used = [codes[c] for c in (_answer_code(answer),) if c in codes]
        if not used:
            return None
        whose = (
            "torch's ready-made op" if used[0].startswith("torch.") else "the course's own answer"
        )
        return (
            f"the right numbers, but from {used[0]}, {whose}: the exercise asks you to write "
            f"it yourself, {own.how}"
        )

    return rule


def _answer_code(answer: Any) -> Any:
    try:
        return _code(answer)
    except AttributeError:
        return None


def refuse_own(exercises: dict[str, Any]) -> None:
    """Put each exercise's own rule first among its rules, in ``exercises`` (by name)."""
    for name, own in OWN.items():
        exercise = exercises[name]
        rule = own_rule(own, exercise.call)
        exercises[name] = dataclasses.replace(exercise, rules=(rule, *exercise.rules))
