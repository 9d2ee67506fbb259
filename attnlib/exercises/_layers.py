"""Cases for exercises that write a layer: built under a seed, run on inputs of several sizes.

The reader's class and attnlib's are built alike, right after ``torch.manual_seed(123)`` with
the book's positional arguments, then run right after ``torch.manual_seed(seed)``, so that
both draw the same parameters and the same dropout mask; the reader's random stream is left
as it was.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import torch

from attnlib.exercises._function import Case
from attnlib.mistakes._layer import one_message

BUILD_SEED, DROPOUT_SEED = 123, 456


def build(cls: Callable[..., Any], args: tuple) -> Any:
    """``cls(*args)`` right after the book's seed, without moving the reader's stream."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(BUILD_SEED)
        return cls(*args)


def run(cls: Callable[..., Any], case: dict[str, Any]) -> Any:
    """``cls`` built with the case's arguments and run on its ``x`` after its ``seed``."""
    layer = build(cls, case["args"])
    if layer is Ellipsis:  # a function exercise that returns the layer, still a stub
        return Ellipsis
    if layer is None or isinstance(layer, type):  # no `return`, or the class not called
        return layer

    def forward() -> Any:
        with torch.random.fork_rng(devices=[]), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. keys.T on a batch: the verdict names it
            torch.manual_seed(case["seed"])
            return layer(case["x"])

    context_length = case["args"][2] if len(case["args"]) > 2 else None
    sizes = {context_length, case["x"].shape[-2]} if isinstance(context_length, int) else None
    result = one_message(forward, sizes)
    return result.detach() if isinstance(result, torch.Tensor) else result


def layer_cases(
    reference: type,
    sizes: list[tuple[str, tuple, torch.Tensor]],
    alone: Mapping[int, str] | None = None,
) -> list[Case]:
    """One case per ``(label, constructor args, x)``: with attnlib's ``layer`` for the
    mistakes' forward passes, built the same way; ``alone[i]``: case i's :attr:`Case.alone`."""
    return [
        Case(
            label,
            {"args": args, "x": x, "seed": DROPOUT_SEED, "layer": build(reference, args)},
            (alone or {}).get(i, ""),
        )
        for i, (label, args, x) in enumerate(sizes)
    ]
