"""Cases for exercises that write a layer: built under a seed, run on inputs of several sizes.

The reader's class and attnlib's are built alike, right after ``torch.manual_seed(123)`` with
the book's positional arguments, then run right after ``torch.manual_seed(seed)``, so that
both draw the same parameters and the same dropout mask; the reader's random stream is left
as it was.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import torch

from attnlib._seeding import seeded
from attnlib.exercises._compare import Raised, outcome, same
from attnlib.exercises._function import Case, detached

BUILD_SEED, DROPOUT_SEED = 123, 456
#: torch's words when two sizes clash, in place (masked_fill_) or not (masked_fill).
_SIZE_CLASH = re.compile(
    r"size of (?:tensor a|the tensor) \((\d+)\) must match the (?:size of tensor b|existing size) "
    r"\((\d+)\)"
)
MASK_TOO_BIG = "a mask of context_length rows laid over the scores of fewer tokens"


def build(cls: Callable[..., Any], args: tuple, seed: int = BUILD_SEED) -> Any:
    """``cls(*args)`` right after ``seed`` (the book's), without moving the reader's stream."""
    with seeded(seed):
        return cls(*args)


def run(cls: Callable[..., Any], case: dict[str, Any]) -> Any:
    """``cls`` built with the case's arguments and run on its ``x`` after its ``seed``. A clash
    between the mask's sizes {context_length, num_tokens} is reported the same however it was
    written (masked_fill and masked_fill_ word it apart)."""
    layer = build(cls, case["args"])
    if layer is Ellipsis:  # a function exercise that returns the layer, still a stub
        return Ellipsis
    if layer is None or isinstance(layer, type):  # no `return`, or the class not called
        return layer

    context_length = case["args"][2] if len(case["args"]) > 2 else None
    sizes = {context_length, case["x"].shape[-2]} if isinstance(context_length, int) else None
    try:
        with torch.no_grad():
            result = _forward_after_seed(layer, case["x"], case["seed"])
    except RuntimeError as err:
        clash = _SIZE_CLASH.search(str(err))
        if sizes and len(sizes) == 2 and clash and {int(n) for n in clash.groups()} == sizes:
            raise RuntimeError(MASK_TOO_BIG) from None
        raise
    return detached(result)


def _forward_after_seed(layer: Any, x: torch.Tensor, seed: int) -> Any:
    """``layer(x)`` right after ``torch.manual_seed(seed)``, the reader's stream kept."""
    with seeded(seed), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. keys.T on a batch: the verdict names it
        return layer(x)


def trained(cls: Callable[..., Any], case: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``cls`` built and run as :func:`run` does, with gradients on: its output and its
    parameters by name (``W_query.weight``...), for the gradient check."""
    layer = build(cls, case["args"])
    if not isinstance(layer, torch.nn.Module):
        return layer, {}
    with torch.enable_grad():
        return _forward_after_seed(layer, case["x"], case["seed"]), dict(layer.named_parameters())


def reused(reference: type) -> Callable[[Any, Case, Any], str | None]:
    """A rule: one instance of the reader's layer, called on fewer tokens then on the case's
    ``x``, gives the reference's numbers the second time too (a forward that changes its
    layer, e.g. ``self.mask = self.mask[:n, :n]``, fails on the longer input)."""

    def rule(answer: Any, case: Case, calls: Any) -> str | None:
        x, num_tokens = case.args["x"], case.args["x"].shape[-2]
        if num_tokens < 3:
            return None
        fewer = num_tokens - 2

        def second(cls: Any) -> Any:
            layer = build(cls, case.args["args"])
            with torch.no_grad():
                _forward_after_seed(layer, x[..., :fewer, :], case.args["seed"])
                return _forward_after_seed(layer, x, case.args["seed"])

        got = outcome(lambda: second(answer))
        if same(got, second(reference)):
            return None
        what = f"raises {got.text}" if isinstance(got, Raised) else "gives other numbers"
        return (
            f"right on each case, but your forward changes the layer: a second call, on "
            f"{num_tokens} tokens after {fewer}, {what}. Is an attribute overwritten in forward "
            "(self.mask = self.mask[:num_tokens, :num_tokens] cuts the mask in place)? Cut "
            "into a new name, and leave self's tensors as they are"
        )

    return rule
