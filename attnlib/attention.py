"""Pure tensor functions: the reference for every stage of the course. Shapes use the course's
names (``num_queries``, ``num_keys`` where they differ; ``...`` is any batch axes); each function
keeps its inputs' device and dtype and refuses a result holding inf or NaN with a ``ValueError``."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from attnlib import _validate as check

_OVERFLOW = "the numbers overflowed; use smaller inputs (or scale)"
_VALUES = "the values hold inf or NaN, or their blend overflowed; use finite, smaller values"


def attention_scores_loop(inputs: torch.Tensor) -> torch.Tensor:
    """``attn_scores[i, j] = dot(x_i, x_j)``, one cell at a time: ``(num_tokens, num_tokens)``."""
    check.tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    attn_scores = inputs.new_empty(inputs.shape[0], inputs.shape[0])
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    return check.finite(attn_scores, "attn_scores", _OVERFLOW)


def attention_scores(inputs: torch.Tensor) -> torch.Tensor:
    """The grid of :func:`attention_scores_loop` as one matrix product, same shapes."""
    check.tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    return check.finite(inputs @ inputs.T, "attn_scores", _OVERFLOW)


def softmax_naive(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, as the formula reads; same shape as ``x``. ``exp``
    overflows float32 above about 88.7: then this refuses, where :func:`softmax` does not."""
    check.tensor(x, "x", "(..., n)")
    dim = check.axis(dim, x.dim())
    exps = torch.exp(x)
    fix = "exp overflowed (scores above ~88 in float32); use softmax, which subtracts the max"
    return check.finite(exps / exps.sum(dim=dim, keepdim=True), "softmax_naive(x)", fix)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Numerically stable softmax along ``dim``; same shape as ``x``. Subtracting the maximum
    cancels in the ratio but keeps ``exp`` from overflowing. ``-inf`` (masked) entries get
    weight 0; a slice of only ``-inf``, or any ``+inf`` or NaN, is refused."""
    check.tensor(x, "x", "(..., n)")
    dim = check.axis(dim, x.dim())
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    fix = "every slice needs a finite entry and no +inf or NaN (is a mask hiding everything?)"
    return check.finite(exps / exps.sum(dim=dim, keepdim=True), "softmax(x)", fix)


def context_vector(inputs: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """One query's ``context_vec``, ``sum_i weights[i] * inputs[i]``, as a running total:
    ``inputs`` ``(num_tokens, d_in)``, the query's ``weights`` ``(num_tokens,)`` -> ``(d_in,)``."""
    check.tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    check.tensor(weights, "weights", "(num_tokens,)", (1,))
    check.size(weights, "weights", 0, inputs.shape[0], "one weight per input, num_tokens")
    check.like(weights, "weights", inputs, "inputs")
    context_vec = torch.zeros_like(inputs[0])
    for i, x_i in enumerate(inputs):
        context_vec += weights[i] * x_i
    return check.finite(context_vec, "context_vec", _OVERFLOW)


def context_vectors(attn_weights: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """Every query's context vector at once, ``attn_weights @ inputs``:
    ``(..., num_queries, num_tokens) @ (..., num_tokens, d)`` -> ``(..., num_queries, d)``."""
    check.tensor(attn_weights, "attn_weights", "(..., num_queries, num_tokens)", min_rank=2)
    check.tensor(inputs, "inputs", "(..., num_tokens, d)", min_rank=2)
    check.size(attn_weights, "attn_weights", -1, inputs.shape[-2], "one column per input token")
    check.like(attn_weights, "attn_weights", inputs, "inputs")
    check.batch_shape(attn_weights=attn_weights, inputs=inputs)
    return check.finite(attn_weights @ inputs, "context_vecs", _OVERFLOW)


def causal_mask(num_tokens: int, num_keys: int | None = None,
                device: torch.device | str | None = None) -> torch.Tensor:  # fmt: skip
    """``(num_tokens, num_keys)`` bools, a row per query, a column per key: ``True`` marks a later
    key, strictly above the diagonal (top-left aligned); ``num_keys`` defaults to ``num_tokens``."""
    num_tokens = check.integer(num_tokens, "num_tokens", 1, check.MAX_NUM_TOKENS)
    num_keys = num_tokens if num_keys is None else num_keys
    num_keys = check.integer(num_keys, "num_keys", 1, check.MAX_NUM_TOKENS)
    device = check.device(device)
    return torch.ones(num_tokens, num_keys, dtype=torch.bool, device=device).triu(diagonal=1)


def _check_qk(queries: torch.Tensor, keys: torch.Tensor) -> tuple[int, ...]:
    """Validate queries against keys; returns the scores' shape."""
    check.tensor(queries, "queries", "(..., num_queries, d_k)", min_rank=2)
    check.tensor(keys, "keys", "(..., num_keys, d_k)", min_rank=2)
    check.size(keys, "keys", -1, queries.shape[-1], "the queries' last dimension d_k")
    check.like(keys, "keys", queries, "queries")
    return check.batch_shape(queries=queries, keys=keys) + (queries.shape[-2], keys.shape[-2])


def _check_values(values: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor) -> None:
    check.size(values, "values", -2, keys.shape[-2], "one row per key, num_keys")
    check.like(values, "values", queries, "queries")
    check.batch_shape(queries=queries, keys=keys, values=values)


def _check_mask(mask: torch.Tensor | None, scores_shape: tuple[int, ...]) -> None:
    if mask is not None and (not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool):
        raise check.invalid("mask", "a bool tensor (True = hidden)", check.describe(mask))
    # Broadcasting may neither fail nor grow the scores (a mask with extra axes).
    if mask is not None and check.broadcast(mask.shape, scores_shape) != scores_shape:
        fix = "slice a longer mask with mask[:num_tokens, :num_tokens]"
        expected = f"a shape broadcastable to the scores' {scores_shape}"
        raise check.invalid("mask", expected, f"{tuple(mask.shape)}; {fix}")


def attention_weights(queries: torch.Tensor, keys: torch.Tensor, *, scale: float | None = None,
                      causal: bool = False, mask: torch.Tensor | None = None,
                      dim: int = -1) -> torch.Tensor:  # fmt: skip
    """Softmax of the scaled, masked scores ``queries @ keys^T``: ``(..., num_queries, num_keys)``.
    ``queries``: ``(..., num_queries, d_k)``; ``keys``: ``(..., num_keys, d_k)``. ``scale``
    defaults to ``1 / sqrt(d_k)``; ``causal=True`` lets query ``i`` see keys ``0..i`` only;
    ``mask`` (bools broadcastable to the scores) hides where it is ``True``. ``dim`` is the
    axis softmax normalises: ``-1``, each query's row (the usual), or ``-2``, each key's column."""
    scores_shape = _check_qk(queries, keys)
    scale = 1 / math.sqrt(keys.shape[-1]) if scale is None else check.positive(scale, "scale")
    check.flag(causal, "causal")
    _check_mask(mask, scores_shape)
    dim = check.dim(dim, len(scores_shape))

    attn_scores = queries @ keys.transpose(-2, -1)
    attn_scores *= scale  # in place, like the masks below: one grid of scores, not three
    if causal:
        hidden = causal_mask(*attn_scores.shape[-2:], device=attn_scores.device)
        attn_scores.masked_fill_(hidden, -torch.inf)
    if mask is not None:
        attn_scores.masked_fill_(mask, -torch.inf)
    attn_weights = torch.softmax(attn_scores, dim=dim)
    fix = f"either {_OVERFLOW}, or a mask hides every key of a query (an inverted mask?)"
    return check.finite(attn_weights, "attn_weights", fix)


def scaled_dot_product_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                                 causal: bool = False, *, scale: float | None = None,
                                 mask: torch.Tensor | None = None,
                                 dropout: Callable[[torch.Tensor], torch.Tensor] | None = None
                                 ) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """``queries`` attend to ``keys``, blending ``values``: ``(context_vecs, attn_weights)``.
    ``queries``: ``(..., num_queries, d_k)``; ``keys``: ``(..., num_keys, d_k)``; ``values``:
    ``(..., num_keys, d_v)`` -> ``(..., num_queries, d_v)`` and ``(..., num_queries, num_keys)``.
    ``scale``, ``causal``, ``mask`` as in :func:`attention_weights`; ``dropout`` (e.g. an
    ``nn.Dropout``), if given, acts on the weights before the blend, not on those returned."""
    check.tensor(values, "values", "(..., num_keys, d_v)", min_rank=2)
    if dropout is not None and not callable(dropout):
        expected = "a callable such as torch.nn.Dropout(p)"
        raise check.invalid("dropout", expected, check.describe(dropout))
    attn_weights = attention_weights(queries, keys, scale=scale, causal=causal, mask=mask)
    _check_values(values, queries, keys)

    dropped = attn_weights if dropout is None else dropout(attn_weights)
    if not isinstance(dropped, torch.Tensor) or dropped.shape != attn_weights.shape:
        raise check.invalid("dropout", "it to return the weights' shape", check.describe(dropped))
    context_vecs = check.finite(dropped @ values, "context_vecs", _VALUES)
    return context_vecs, attn_weights


def blockwise_attention(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                        block_size: int = 128) -> torch.Tensor:  # fmt: skip
    """:func:`scaled_dot_product_attention`'s ``context_vecs`` ``(..., num_queries, d_v)`` (no mask,
    default scale) over blocks of ``block_size`` keys, with a running softmax (FlashAttention's):
    the sums so far are rescaled when the max grows; at most ``block_size`` scores per query."""
    _check_qk(queries, keys)
    _check_values(check.tensor(values, "values", "(..., num_keys, d_v)", min_rank=2), queries, keys)
    block_size = check.integer(block_size, "block_size", 1)

    scale = 1 / math.sqrt(keys.shape[-1])
    running_max = torch.full_like(queries[..., :1], -torch.inf)
    running_sum = torch.zeros_like(queries[..., :1])
    context_vecs = queries.new_zeros(*queries.shape[:-1], values.shape[-1])
    for start in range(0, keys.shape[-2], block_size):
        block = slice(start, start + block_size)
        attn_scores = queries @ keys[..., block, :].transpose(-2, -1) * scale
        new_max = torch.maximum(running_max, attn_scores.amax(dim=-1, keepdim=True))
        rescale = torch.exp(running_max - new_max)  # the old sums were taken against the old max
        exps = torch.exp(attn_scores - new_max)
        running_sum = running_sum * rescale + exps.sum(dim=-1, keepdim=True)
        context_vecs = context_vecs * rescale + exps @ values[..., block, :]
        running_max = new_max
    return check.finite(context_vecs / running_sum, "context_vecs", _VALUES)
