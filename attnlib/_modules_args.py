"""The arguments of modules.py's layers: sizes, inputs and the memory a layer would take,
each approved before anything is allocated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from attnlib._attention_args import expanded, grid_work
from attnlib._validate import (
    MAX_DIM,
    MAX_NUM_TOKENS,
    describe,
    integer,
    invalid,
    like,
    memory,
    size,
    tensor,
)

_RANK_HINTS = {  # (rank expected, rank given): what to do
    (3, 2): "; add a batch axis with x.unsqueeze(0)",
    (2, 3): "; this module takes one sequence at a time, "
    "CausalAttention and the multi-head modules take batches",
}


def layer_sizes(d_in: Any, d_out: Any) -> tuple[int, int]:
    """A layer's ``d_in`` and ``d_out``, each an int in ``[1, MAX_DIM]``."""
    return integer(d_in, "d_in", 1, MAX_DIM), integer(d_out, "d_out", 1, MAX_DIM)


def context_length(value: Any) -> int:
    """A causal layer's ``context_length``, its mask's size: an int in ``[1, MAX_NUM_TOKENS]``."""
    return integer(value, "context_length", 1, MAX_NUM_TOKENS)


def num_heads(value: Any, d_out: int) -> int:
    """``value`` heads that split ``d_out`` evenly."""
    heads = integer(value, "num_heads", 1, d_out)
    if d_out % heads:
        divisible = f"d_out ({d_out}) must be divisible by num_heads ({heads})"
        raise ValueError(
            f"{divisible}: each of the {heads} heads gets d_out // num_heads dimensions"
        )
    return heads


def layer_memory(
    layer: str, weights: Sequence[tuple[int, int]], context_length: int = 0, copies: int = 1
) -> None:
    """Refuse to build ``layer`` if its weights (their shapes, in torch's default dtype) and its
    causal mask (``context_length ** 2`` bools), ``copies`` times over, need over ``MAX_BYTES``."""
    itemsize, times = torch.get_default_dtype().itemsize, (copies,) if copies > 1 else ()
    parts = [("weights", (*times, *shape), itemsize) for shape in weights]
    if context_length:
        parts.append(("mask", (*times, context_length, context_length), 1))
    memory(layer, parts)


def layer_input(
    x: Any, d_in: int, context_length: int | None, weight: torch.Tensor, num_heads: int = 1
) -> None:
    """``x`` for a layer of width ``d_in`` whose parameters are like ``weight``: one sequence
    ``(num_tokens, d_in)`` if ``context_length`` is ``None``, else a batch ``(b, num_tokens,
    d_in)`` of at most ``context_length`` tokens; what its forward pass builds (projections,
    ``num_heads`` grids of scores per sequence) and does within ``MAX_BYTES`` and ``MAX_WORK``."""
    rank = 2 if context_length is None else 3
    shape = "(num_tokens, d_in)" if rank == 2 else "(b, num_tokens, d_in)"
    try:
        tensor(x, "x", shape, (rank,))
    except ValueError as err:
        raise ValueError(f"{err}{_RANK_HINTS.get((rank, getattr(x, 'ndim', None)), '')}") from None
    size(x, "x", -1, d_in, "last dimension d_in")
    if context_length is not None and x.shape[1] > context_length:
        got = f"num_tokens ({x.shape[1]}) exceeds context_length ({context_length})"
        raise ValueError(f"x: {got}; the causal mask was built for at most context_length tokens")
    like(x, "x", weight, "the module's parameters")
    # What the forward pass builds and does: projections, a grid of scores per head, context.
    (*batch, num_tokens, _), itemsize = x.shape, x.element_size()
    d_out, batch = weight.numel() // d_in, tuple(batch)
    grid, context = (*batch, num_heads, num_tokens, num_tokens), (*batch, num_tokens, d_out)
    parts = [*expanded(batch, x=x), ("queries, keys, values", (3, *context), itemsize)]
    parts += [("attn_scores", grid, itemsize), ("attn_weights", grid, itemsize)]
    work = 3 * x.numel() * d_out + grid_work(grid, d_out // num_heads)
    memory("the forward pass", parts, work + grid_work(context, num_tokens, axis=None))


def heads_of(x: Any, heads: Any) -> int:
    """``heads`` as a count that splits the last axis of ``x`` ``(b, num_tokens, d_out)``."""
    tensor(x, "x", "(b, num_tokens, d_out)", (3,))
    heads = integer(heads, "num_heads", 1)
    if x.shape[-1] % heads:
        raise invalid("x", f"d_out divisible by num_heads ({heads})", x.shape[-1])
    return heads


def unbiased_multi_head(module: Any, cls: type) -> None:
    """``module`` if a ``cls`` (MultiHeadAttention) built with ``qkv_bias=False``."""
    if not isinstance(module, cls) or module.W_query.bias is not None:
        expected = "an attnlib.modules.MultiHeadAttention with qkv_bias=False"
        raise invalid("module", expected, describe(module))
