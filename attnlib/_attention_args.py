"""The arguments of attention.py's public functions, one bundle per function: each approves
them (or raises ``ValueError`` naming what was expected and what came) before any work."""

from __future__ import annotations

import math
from typing import Any

import torch

from attnlib._validate import (
    MAX_ELEMENTWISE_AXES,
    MAX_LOOP_TOKENS,
    MAX_NUM_TOKENS,
    at_most_axes,
    batch_shape,
    broadcast,
    describe,
    device,
    flag,
    integer,
    invalid,
    like,
    memory,
    positive,
    readable,
    size,
    softmax_axis,
    tensor,
    tensor_axis,
)


def tensor_and_axis(x: Any, dim: Any) -> int:
    """``dim`` as an axis of ``x``, a non-empty float tensor ``(..., n)`` (softmax's arguments)."""
    tensor(x, "x", "(..., n)")
    at_most_axes(x, "x")
    memory(x.shape, x.element_size(), "softmax(x)")
    return tensor_axis(dim, x.dim())


def checkpoint_inputs(inputs: Any) -> None:
    """``inputs`` ``(num_tokens, d_in)`` with values to read, whose float32 copy and grid of
    scores each fit in ``MAX_BYTES`` (a checkpoint recomputes every stage from them)."""
    token_grid(inputs)
    readable(inputs, "inputs")
    memory(inputs.shape, 4, "inputs (as float32)")


def token_grid(inputs: Any, loop: bool = False) -> None:
    """``inputs`` ``(num_tokens, d_in)`` whose ``(num_tokens, num_tokens)`` grid of scores fits in
    ``MAX_BYTES``, and for the loop, at most ``MAX_LOOP_TOKENS`` tokens."""
    tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    num_tokens = inputs.shape[0]
    if loop and num_tokens > MAX_LOOP_TOKENS:
        why = "the loop takes num_tokens**2 Python steps; use attention_scores"
        raise invalid("inputs", f"at most {MAX_LOOP_TOKENS} tokens ({why})", num_tokens)
    memory((num_tokens, num_tokens), inputs.element_size(), "attn_scores")


def query_weights(inputs: Any, weights: Any) -> None:
    """``inputs`` ``(num_tokens, d_in)`` and one query's ``weights`` ``(num_tokens,)``."""
    tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    tensor(weights, "weights", "(num_tokens,)", (1,))
    size(weights, "weights", 0, inputs.shape[0], "one weight per input, num_tokens")
    like(weights, "weights", inputs, "inputs")


def weights_and_inputs(attn_weights: Any, inputs: Any) -> None:
    """``attn_weights`` ``(..., num_queries, num_tokens)``, ``inputs`` ``(..., num_tokens, d)``."""
    tensor(attn_weights, "attn_weights", "(..., num_queries, num_tokens)", min_rank=2)
    tensor(inputs, "inputs", "(..., num_tokens, d)", min_rank=2)
    size(attn_weights, "attn_weights", -1, inputs.shape[-2], "one column per input token")
    like(attn_weights, "attn_weights", inputs, "inputs")
    batch = batch_shape(attn_weights=attn_weights, inputs=inputs)
    shape = batch + (attn_weights.shape[-2], inputs.shape[-1])
    memory(shape, inputs.element_size(), "context_vecs")


def grid_size(num_tokens: Any, num_keys: Any, device_: Any) -> tuple[int, int, torch.device | None]:
    """A causal mask's rows, columns (``num_tokens`` if ``None``) and device."""
    num_tokens = integer(num_tokens, "num_tokens", 1, MAX_NUM_TOKENS)
    num_keys = num_tokens if num_keys is None else num_keys
    return num_tokens, integer(num_keys, "num_keys", 1, MAX_NUM_TOKENS), device(device_)


def queries_keys(queries: Any, keys: Any) -> tuple[int, ...]:
    """``queries`` ``(..., num_queries, d_k)`` and ``keys`` ``(..., num_keys, d_k)``, alike and
    with batch axes that broadcast together; returns the scores' shape
    ``(..., num_queries, num_keys)``."""
    tensor(queries, "queries", "(..., num_queries, d_k)", min_rank=2)
    tensor(keys, "keys", "(..., num_keys, d_k)", min_rank=2)
    size(keys, "keys", -1, queries.shape[-1], "the queries' last dimension d_k")
    like(keys, "keys", queries, "queries")
    return batch_shape(queries=queries, keys=keys) + (queries.shape[-2], keys.shape[-2])


def queries_keys_values(queries: Any, keys: Any, values: Any) -> tuple[int, ...]:
    """:func:`queries_keys`, and ``values`` ``(..., num_keys, d_v)`` alike, one row per key."""
    queries_keys(queries, keys)
    tensor(values, "values", "(..., num_keys, d_v)", min_rank=2)
    size(values, "values", -2, keys.shape[-2], "one row per key, num_keys")
    like(values, "values", queries, "queries")
    batch = batch_shape(queries=queries, keys=keys, values=values)
    return batch + (queries.shape[-2], keys.shape[-2])


def mask(value: Any, name: str, meaning: str, scores_shape: tuple[int, ...]) -> None:
    """``None``, or bools that broadcast to ``scores_shape`` without growing it; ``meaning`` says
    what ``True`` means, e.g. ``"True = hidden"``."""
    if value is None:
        return
    if not isinstance(value, torch.Tensor) or value.dtype != torch.bool:
        raise invalid(name, f"a bool tensor ({meaning})", describe(value))
    if broadcast(value.shape, scores_shape) != scores_shape:
        fix = "slice a longer mask with mask[:num_tokens, :num_tokens]"
        expected = f"a shape broadcastable to the scores' {scores_shape}"
        raise invalid(name, expected, f"{tuple(value.shape)}; {fix}")


def scale_for(value: Any, keys: torch.Tensor) -> float:
    """``value``, a positive scale, or ``1 / sqrt(d_k)`` for ``None``."""
    return 1 / math.sqrt(keys.shape[-1]) if value is None else positive(value, "scale")


def weights_arguments(
    queries: Any, keys: Any, scale: Any, causal: Any, hidden: Any, dim: Any
) -> tuple[float, int]:
    """The arguments of ``attention_weights``; returns its ``scale`` and softmax axis."""
    scores_shape = queries_keys(queries, keys)
    memory(scores_shape, queries.element_size(), "attn_scores")
    flag(causal, "causal")
    mask(hidden, "hidden", "True = hidden", scores_shape)
    return scale_for(scale, keys), softmax_axis(dim, len(scores_shape))


def scores_arguments(
    attn_scores: Any, scale: Any, causal: Any, hidden: Any, dim: Any
) -> tuple[float, int]:
    """The arguments of ``weights_from_scores``; returns its ``scale`` and softmax axis."""
    tensor(attn_scores, "attn_scores", "(..., num_queries, num_keys)", min_rank=2)
    memory(attn_scores.shape, attn_scores.element_size(), "attn_weights")
    flag(causal, "causal")
    mask(hidden, "hidden", "True = hidden", tuple(attn_scores.shape))
    return positive(scale, "scale"), softmax_axis(dim, attn_scores.dim())


def sdpa_arguments(
    queries: Any, keys: Any, values: Any, causal: Any, scale: Any, attn_mask: Any, dropout: Any
) -> float:
    """The arguments of ``scaled_dot_product_attention``; returns its ``scale``."""
    scores_shape = queries_keys_values(queries, keys, values)
    memory(scores_shape, queries.element_size(), "attn_scores")
    flag(causal, "causal")
    mask(attn_mask, "attn_mask", "True = attend, as torch's", scores_shape)
    if dropout is not None and not callable(dropout):
        raise invalid("dropout", "a callable such as torch.nn.Dropout(p)", describe(dropout))
    return scale_for(scale, keys)


def dropout_result(dropped: Any, attn_weights: torch.Tensor) -> torch.Tensor:
    """``dropped`` if a dropout gave back a tensor like ``attn_weights``: same shape and dtype."""
    if not isinstance(dropped, torch.Tensor) or dropped.shape != attn_weights.shape:
        raise invalid("dropout", "it to return the weights' shape", describe(dropped))
    return like(dropped, "dropout(attn_weights)", attn_weights, "attn_weights")


def blockwise_arguments(queries: Any, keys: Any, values: Any, block_size: Any) -> int:
    """The arguments of ``blockwise_attention``; returns ``block_size``."""
    scores_shape = queries_keys_values(queries, keys, values)
    block_size = integer(block_size, "block_size", 1)
    if len(scores_shape) > MAX_ELEMENTWISE_AXES:  # its running sums are elementwise
        expected = f"scores of at most {MAX_ELEMENTWISE_AXES} axes, torch's elementwise limit"
        raise invalid("queries, keys", expected, f"{len(scores_shape)}-d {scores_shape}")
    block_shape = scores_shape[:-1] + (min(block_size, scores_shape[-1]),)
    memory(block_shape, queries.element_size(), "a block of attn_scores")
    return block_size
