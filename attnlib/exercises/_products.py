"""Which matrix products a reader's function makes: for rules such as "one matrix product"."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_PRODUCTS = {"matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "einsum", "dot", "mv",
             "inner", "tensordot", "vdot", "addmm", "linear"}  # fmt: skip


class _Record(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") in _PRODUCTS and isinstance(result, torch.Tensor):
            self.shapes.append(tuple(result.shape))
        return result


def product_shapes(function: Callable, args: dict[str, Any], call: Callable) -> list[tuple]:
    """The shape of every product ``call(function, args)`` computes, in order."""
    record = _Record()
    with record:
        try:
            call(function, copy.deepcopy(args))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # the answer already ran once without raising; judge what ran
            pass
    return record.shapes
