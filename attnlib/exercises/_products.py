"""Which matrix products a reader's function makes: for rules such as "one matrix product"."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_PRODUCTS = {
    "matmul",
    "__matmul__",
    "__rmatmul__",
    "mm",
    "bmm",
    "einsum",
    "dot",
    "mv",
    "inner",
    "tensordot",
    "vdot",
    "addmm",
    "linear",
}


class _Record(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        name = getattr(func, "__name__", "")
        if name in _PRODUCTS and isinstance(result, torch.Tensor):
            self.shapes.append(tuple(result.shape))
            self.names.append(name)
        return result


def product_shapes(function: Callable, args: dict[str, Any], call: Callable) -> list[tuple]:
    """The shape of every product ``call(function, args)`` computes, in order."""
    return _recorded(function, args, call).shapes


def product_names(function: Callable, args: dict[str, Any], call: Callable) -> list[str]:
    """The torch name of every product ``call(function, args)`` computes ("dot", "matmul"...)."""
    return _recorded(function, args, call).names


def one_product(call: Callable, product: str) -> Callable:
    """The rule "in one matrix product": a rule for a FunctionExercise's ``rules``."""

    def rule(function: Callable, case: Any) -> str | None:
        count = len(product_shapes(function, case.args, call))
        if count > 1:
            return (
                f"the right numbers, but from {count} products; the exercise asks for one "
                f"matrix product, {product}"
            )
        return None

    return rule


def no_product(call: Callable, banned: str, names: tuple[str, ...]) -> Callable:
    """The rule "without ``banned``": none of the torch functions ``names`` is called (the
    same operation under its other names counts too); other ways to write it are taken."""

    def rule(function: Callable, case: Any) -> str | None:
        used = [n for n in product_names(function, case.args, call) if n in names]
        if used:
            return (
                f"the right number, but from `torch.{used[0]}`; the exercise asks for it "
                f"without {banned}: multiply position by position with *, then add with .sum()"
            )
        return None

    return rule


def _recorded(function: Callable, args: dict[str, Any], call: Callable) -> _Record:
    record = _Record()
    with record:
        try:
            call(function, copy.deepcopy(args))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # the answer already ran once without raising; judge what ran
            pass
    return record
