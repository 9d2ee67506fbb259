"""The arguments of attention.py's public functions, one bundle per function: each approves
them (or raises ``ValueError`` naming what was expected and what came) before any work."""

from __future__ import annotations

import math
from typing import Any

import torch

from attnlib._validate import (
    ENTRY,
    MAX_ELEMENTWISE_AXES,
    MAX_LOOP_TOKENS,
    MAX_NUM_TOKENS,
    ROW,
    batch_shape,
    broadcast,
    describe,
    device,
    flag,
    integer,
    invalid,
    is_int,
    like,
    memory,
    positive,
    readable,
    size,
    softmax_axis,
    tensor,
)

Part = tuple[str, tuple[int, ...], int]  # a tensor a call builds: (label, shape, itemsize)
MAX_LOOP_STEPS = MAX_LOOP_TOKENS**2  #: the most Python steps of one loop: about 2 s


def expanded(batch: tuple[int, ...], **named: torch.Tensor) -> list[Part]:
    """Each of ``named`` that a matrix product over the batch axes ``batch`` copies out whole, at
    its logical size ``batch + shape[-2:]``, however little storage it has: an expanded view
    (a stride of 0 along an axis longer than 1), or one whose batch axes broadcast to more."""
    parts = []
    for name, t in named.items():
        stretched = any(
            stride == 0 and n > 1 for stride, n in zip(t.stride(), t.shape, strict=True)
        )
        if stretched or (t.dim() > 2 and tuple(t.shape[:-2]) != batch):
            parts.append((f"{name} (copied)", (*batch, *t.shape[-2:]), t.element_size()))
    return parts


def grid_work(shape: tuple[int, ...], depth: int = 0, axis: int | None = -1) -> int:
    """The steps (see ``MAX_WORK``) to build a grid of ``shape``, each entry from vectors of
    ``depth``, and to normalise it with softmax along ``axis`` (``None``: no softmax)."""
    entries = math.prod(shape)
    rows = 0 if axis is None else entries // shape[axis]
    return entries * (depth + ENTRY) + rows * ROW


def at_most_axes(x: torch.Tensor, name: str, limit: int = MAX_ELEMENTWISE_AXES) -> None:
    """``x`` if it has at most ``limit`` axes (torch's elementwise operations take no more)."""
    if x.dim() > limit:
        why = "torch's elementwise operations take no more"
        raise invalid(name, f"at most {limit} axes ({why})", f"{x.dim()}-d shape {tuple(x.shape)}")


def tensor_and_axis(x: Any, dim: Any) -> int:
    """``dim`` as an axis of ``x``, a non-empty float tensor ``(..., n)`` (softmax's arguments)
    whose every slice along ``dim`` has a score that is not ``-inf``: one of only ``-inf`` (a
    mask hiding every key) has no softmax, ``0 / 0``, and would come back NaN without a word."""
    tensor(x, "x", "(..., n)")
    at_most_axes(x, "x")
    if not (is_int(dim) and -x.dim() <= dim < x.dim()):
        raise invalid("dim", f"an int in [{-x.dim()}, {x.dim() - 1}]", describe(dim))
    shape, itemsize = tuple(x.shape), x.element_size()
    parts = [("exps", shape, itemsize), ("weights", shape, itemsize)]
    memory("softmax(x)", parts, grid_work(shape, axis=dim))
    if x.device.type != "meta" and (hidden := (x == -torch.inf).all(dim=dim)).any():
        where = [str(int(i)) for i in hidden.nonzero()[0]]
        where.insert(dim % x.dim(), ":")
        expected = f"a score above -inf in every slice along dim={dim} (is a mask hiding all?)"
        raise invalid("x", expected, f"only -inf in x[{', '.join(where)}]")
    return int(dim)


def checkpoint_inputs(inputs: Any) -> None:
    """``inputs`` ``(num_tokens, d_in)`` with values to read that a checkpoint can recompute every
    stage and every known mistake from: a float32 copy and six grids of scores at once, and
    about a hundred grids' work."""
    token_grid(inputs)
    readable(inputs, "inputs")
    num_tokens, d_in = inputs.shape
    grid = (num_tokens, num_tokens)
    parts = [("inputs (as float32)", (num_tokens, d_in), 4), ("6 grids", (6, *grid), 4)]
    # About a dozen grids made and up to ten compared by allclose, each worth ten grids (measured).
    memory("a checkpoint", parts, 100 * grid_work(grid, d_in))


def token_grid(inputs: Any, loop: bool = False) -> None:
    """``inputs`` ``(num_tokens, d_in)`` whose ``(num_tokens, num_tokens)`` grid of scores is
    within ``MAX_BYTES`` and ``MAX_WORK``, and for the loop, at most ``MAX_LOOP_TOKENS`` tokens."""
    tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    num_tokens = inputs.shape[0]
    if loop and num_tokens > MAX_LOOP_TOKENS:
        why = "the loop takes num_tokens**2 Python steps; use attention_scores"
        raise invalid("inputs", f"at most {MAX_LOOP_TOKENS} tokens ({why})", num_tokens)
    grid = (num_tokens, num_tokens)
    parts = [*expanded((), inputs=inputs), ("attn_scores", grid, inputs.element_size())]
    memory("attention_scores", parts, grid_work(grid, inputs.shape[1], axis=None))


def query_weights(inputs: Any, weights: Any) -> None:
    """``inputs`` ``(num_tokens, d_in)`` and one query's ``weights`` ``(num_tokens,)``."""
    tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    tensor(weights, "weights", "(num_tokens,)", (1,))
    size(weights, "weights", 0, inputs.shape[0], "one weight per input, num_tokens")
    like(weights, "weights", inputs, "inputs")
    if inputs.shape[0] > MAX_LOOP_STEPS:
        why = "the loop takes one Python step per token; use context_vectors"
        raise invalid("inputs", f"at most {MAX_LOOP_STEPS} tokens ({why})", inputs.shape[0])
    memory("context_vector", [("inputs", tuple(inputs.shape), 0)], grid_work(inputs.shape, 2))


def weights_and_inputs(attn_weights: Any, inputs: Any) -> None:
    """``attn_weights`` ``(..., num_queries, num_tokens)``, ``inputs`` ``(..., num_tokens, d)``."""
    tensor(attn_weights, "attn_weights", "(..., num_queries, num_tokens)", min_rank=2)
    tensor(inputs, "inputs", "(..., num_tokens, d)", min_rank=2)
    size(attn_weights, "attn_weights", -1, inputs.shape[-2], "one column per input token")
    like(attn_weights, "attn_weights", inputs, "inputs")
    batch = batch_shape(attn_weights=attn_weights, inputs=inputs)
    shape = batch + (attn_weights.shape[-2], inputs.shape[-1])
    parts = [*expanded(batch, attn_weights=attn_weights, inputs=inputs)]
    parts.append(("context_vecs", shape, inputs.element_size()))
    work = grid_work(shape, inputs.shape[-2], axis=None)
    memory("context_vectors", parts, work)


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


def grids(scores_shape: tuple[int, ...], causal: Any, **named: torch.Tensor) -> None:
    """What ``attention_weights`` (``named`` queries and keys) or sdpa (and values) build, within
    ``MAX_BYTES`` and ``MAX_WORK``: copies of expanded inputs, the scores and the weights (with
    ``causal``, a mask of at most ``MAX_NUM_TOKENS``), then the context vectors with values."""
    if flag(causal, "causal"):
        grid_size(*scores_shape[-2:], None)
    batch, itemsize = scores_shape[:-2], named["queries"].element_size()
    parts = expanded(batch, **named)
    parts += [("attn_scores", scores_shape, itemsize), ("attn_weights", scores_shape, itemsize)]
    work = grid_work(scores_shape, named["queries"].shape[-1])
    if "values" in named:
        context = (*scores_shape[:-1], named["values"].shape[-1])
        parts.append(("context_vecs", context, itemsize))
        work += grid_work(context, scores_shape[-1], axis=None)
    what = "scaled_dot_product_attention" if "values" in named else "attention_weights"
    memory(what, parts, work)


def scale_for(value: Any, keys: torch.Tensor) -> float:
    """``value``, a positive scale, or ``1 / sqrt(d_k)`` for ``None``."""
    return 1 / math.sqrt(keys.shape[-1]) if value is None else positive(value, "scale")


def weights_arguments(
    queries: Any, keys: Any, scale: Any, causal: Any, hidden: Any, dim: Any
) -> tuple[float, int]:
    """The arguments of ``attention_weights``; returns its ``scale`` and softmax axis."""
    scores_shape = queries_keys(queries, keys)
    dim = softmax_axis(dim, len(scores_shape))
    grids(scores_shape, causal, queries=queries, keys=keys)
    mask(hidden, "hidden", "True = hidden", scores_shape)
    return scale_for(scale, keys), dim


def scores_arguments(
    attn_scores: Any, scale: Any, causal: Any, hidden: Any, dim: Any
) -> tuple[float, int]:
    """The arguments of ``weights_from_scores``; returns its ``scale`` and softmax axis."""
    tensor(attn_scores, "attn_scores", "(..., num_queries, num_keys)", min_rank=2)
    shape, dim = tuple(attn_scores.shape), softmax_axis(dim, attn_scores.dim())
    if flag(causal, "causal"):
        grid_size(*shape[-2:], None)
    weights = [("attn_weights", shape, attn_scores.element_size())]
    memory("weights_from_scores", weights, grid_work(shape, axis=dim))
    mask(hidden, "hidden", "True = hidden", shape)
    return positive(scale, "scale"), dim


def sdpa_arguments(
    queries: Any, keys: Any, values: Any, causal: Any, scale: Any, attn_mask: Any, dropout: Any
) -> float:
    """The arguments of ``scaled_dot_product_attention``; returns its ``scale``."""
    scores_shape = queries_keys_values(queries, keys, values)
    grids(scores_shape, causal, queries=queries, keys=keys, values=values)
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
    """The arguments of ``blockwise_attention``; returns ``block_size``. At most
    ``MAX_LOOP_STEPS`` blocks (one Python step each), and what it builds and does within
    ``MAX_BYTES`` and ``MAX_WORK``: one block of scores and its exps at a time."""
    scores_shape = queries_keys_values(queries, keys, values)
    block_size = integer(block_size, "block_size", 1)
    if len(scores_shape) > MAX_ELEMENTWISE_AXES:  # its running sums are elementwise
        expected = f"scores of at most {MAX_ELEMENTWISE_AXES} axes, torch's elementwise limit"
        raise invalid("queries, keys", expected, f"{len(scores_shape)}-d {scores_shape}")
    num_blocks = -(-scores_shape[-1] // block_size)
    if num_blocks > MAX_LOOP_STEPS:
        fewest = -(-scores_shape[-1] // MAX_LOOP_STEPS)
        why = f"the loop takes one Python step per block, at most {MAX_LOOP_STEPS}"
        raise invalid("block_size", f"at least {fewest} ({why})", block_size)
    batch, itemsize = scores_shape[:-2], queries.element_size()
    block_shape = scores_shape[:-1] + (min(block_size, scores_shape[-1]),)
    context = (*scores_shape[:-1], values.shape[-1])
    parts = expanded(batch, queries=queries, keys=keys, values=values)
    parts += [
        ("a block of attn_scores", block_shape, itemsize),
        ("its exps", block_shape, itemsize),
    ]
    parts.append(("context_vecs", context, itemsize))
    rows = math.prod(scores_shape[:-1]) * num_blocks
    work = grid_work(scores_shape, queries.shape[-1] + values.shape[-1], None) + rows * ROW
    memory("blockwise_attention", parts, work)
    return block_size
