"""Pure tensor functions: the reference for every stage of the course. Shapes use the course's
names (``num_queries``, ``num_keys`` where they differ; ``...`` is any batch axes); each function
keeps its inputs' device and dtype and refuses a result holding inf or NaN with a ``ValueError``."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from attnlib import _attention_args as arguments
from attnlib import _validate as validate


def attention_scores_loop(inputs: torch.Tensor) -> torch.Tensor:
    """``attn_scores[i, j] = dot(x_i, x_j)``, one cell at a time: ``(num_tokens, num_tokens)``."""
    arguments.token_grid(inputs, loop=True)

    attn_scores = inputs.new_empty(inputs.shape[0], inputs.shape[0])
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    return validate.finite(attn_scores, "attn_scores", validate.OVERFLOW)


def attention_scores(inputs: torch.Tensor) -> torch.Tensor:
    """The grid of :func:`attention_scores_loop` as one matrix product, same shapes."""
    arguments.token_grid(inputs)

    attn_scores = inputs @ inputs.T
    return validate.finite(attn_scores, "attn_scores", validate.OVERFLOW)


def softmax_naive(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, as the formula reads; same shape as ``x``. ``exp``
    overflows float32 above about 88.7: then this refuses, where :func:`softmax` does not."""
    dim = arguments.tensor_and_axis(x, dim)

    exps = torch.exp(x)
    weights = exps / exps.sum(dim=dim, keepdim=True)
    return validate.finite(weights, "softmax_naive(x)", validate.EXP_OVERFLOW)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Numerically stable softmax along ``dim``; same shape as ``x``. Subtracting the maximum
    cancels in the ratio but keeps ``exp`` from overflowing. ``-inf`` (masked) entries get
    weight 0; a slice of only ``-inf``, or any ``+inf`` or NaN, is refused."""
    dim = arguments.tensor_and_axis(x, dim)

    exps = torch.exp(x - x.amax(dim=dim, keepdim=True))
    weights = exps / exps.sum(dim=dim, keepdim=True)
    return validate.finite(weights, "softmax(x)", validate.NO_FINITE_ENTRY)


def context_vector(inputs: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """One query's ``context_vec``, ``sum_i weights[i] * inputs[i]``, as a running total:
    ``inputs`` ``(num_tokens, d_in)``, the query's ``weights`` ``(num_tokens,)`` -> ``(d_in,)``."""
    arguments.query_weights(inputs, weights)

    context_vec = torch.zeros_like(inputs[0])
    for i, x_i in enumerate(inputs):
        context_vec += weights[i] * x_i
    return validate.finite(context_vec, "context_vec", validate.OVERFLOW)


def context_vectors(attn_weights: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """Every query's context vector at once, ``attn_weights @ inputs``:
    ``(..., num_queries, num_tokens) @ (..., num_tokens, d)`` -> ``(..., num_queries, d)``."""
    arguments.weights_and_inputs(attn_weights, inputs)

    context_vecs = attn_weights @ inputs
    return validate.finite(context_vecs, "context_vecs", validate.OVERFLOW)


def causal_mask(
    num_tokens: int, num_keys: int | None = None, device: torch.device | str | None = None
) -> torch.Tensor:
    """The book's causal mask, ``(num_tokens, num_keys)`` bools, a row per query, a column per key:
    ``True`` hides a later key, strictly above the diagonal (top-left aligned). ``num_keys``
    defaults to ``num_tokens``. ``~causal_mask(n)`` is the same rule as torch's ``attn_mask``."""
    num_tokens, num_keys, device = arguments.grid_size(num_tokens, num_keys, device)

    return torch.ones(num_tokens, num_keys, dtype=torch.bool, device=device).triu(diagonal=1)


def attention_weights(
    queries: torch.Tensor,
    keys: torch.Tensor,
    *,
    scale: float | None = None,
    causal: bool = False,
    hidden: torch.Tensor | None = None,
    dim: int = -1,
) -> torch.Tensor:
    """Softmax of the scaled, masked scores ``queries @ keys^T``: ``(..., num_queries, num_keys)``.
    ``queries``: ``(..., num_queries, d_k)``; ``keys``: ``(..., num_keys, d_k)``. ``scale``
    defaults to ``1 / sqrt(d_k)``; ``causal=True`` lets query ``i`` see keys ``0..i`` only;
    ``hidden`` (bools broadcastable to the scores, the book's convention) hides where ``True``.
    ``dim`` is the axis softmax normalises: ``-1``, each query's row (the usual), or ``-2``,
    each key's column."""
    scale, dim = arguments.weights_arguments(queries, keys, scale, causal, hidden, dim)

    return _weights(queries, keys, scale, causal, hidden, dim)


def scaled_scores(
    queries: torch.Tensor,
    keys: torch.Tensor,
    *,
    scale: float | None = None,
    causal: bool = False,
    hidden: torch.Tensor | None = None,
) -> torch.Tensor:
    """What :func:`attention_weights` hands to softmax: ``queries @ keys^T`` times ``scale``,
    ``-inf`` where ``causal`` or ``hidden`` hides a key: ``(..., num_queries, num_keys)``, with
    the arguments of :func:`attention_weights`; ``scale=1.0`` gives the plain scores."""
    scale, _ = arguments.weights_arguments(queries, keys, scale, causal, hidden, -1)

    return _scores(queries, keys, scale, causal, hidden, checked=True)


def weights_from_scores(
    attn_scores: torch.Tensor,
    *,
    scale: float = 1.0,
    causal: bool = False,
    hidden: torch.Tensor | None = None,
    dim: int = -1,
) -> torch.Tensor:
    """:func:`attention_weights`' steps after the product, on scores already made
    ``(..., num_queries, num_keys)``: times ``scale`` (here 1 unless given), masked, softmax
    over ``dim``; same shape."""
    scale, dim = arguments.scores_arguments(attn_scores, scale, causal, hidden, dim)

    return _softmax(_hide(attn_scores * scale, causal, hidden), dim)


def _scores(
    queries: torch.Tensor,
    keys: torch.Tensor,
    scale: float,
    causal: bool,
    hidden: torch.Tensor | None,
    checked: bool = False,
) -> torch.Tensor:
    """:func:`scaled_scores` on arguments already checked; ``checked``: refuse an overflow
    (the weights check their own result instead, so their message names both causes)."""
    attn_scores = queries @ keys.transpose(-2, -1)
    attn_scores *= scale  # in place, like the masks below: one grid of scores, not three
    if checked:
        validate.finite(attn_scores, "attn_scores", validate.OVERFLOW)
    return _hide(attn_scores, causal, hidden)


def _hide(attn_scores: torch.Tensor, causal: bool, hidden: torch.Tensor | None) -> torch.Tensor:
    """``attn_scores``, changed in place: ``-inf`` at the later keys and where ``hidden``."""
    if causal:
        later = causal_mask(*attn_scores.shape[-2:], device=attn_scores.device)
        attn_scores.masked_fill_(later, -torch.inf)
    if hidden is not None:
        attn_scores.masked_fill_(hidden, -torch.inf)
    return attn_scores


def _softmax(attn_scores: torch.Tensor, dim: int) -> torch.Tensor:
    """The weights of masked scores; a query with every key hidden (or an overflow) refused."""
    attn_weights = torch.softmax(attn_scores, dim=dim)
    return validate.finite(attn_weights, "attn_weights", validate.ALL_HIDDEN)


def _weights(
    queries: torch.Tensor,
    keys: torch.Tensor,
    scale: float,
    causal: bool,
    hidden: torch.Tensor | None,
    dim: int = -1,
) -> torch.Tensor:
    """:func:`attention_weights` on arguments already checked; sdpa shares it."""
    return _softmax(_scores(queries, keys, scale, causal, hidden), dim)


def scaled_dot_product_attention(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    causal: bool = False,
    *,
    scale: float | None = None,
    attn_mask: torch.Tensor | None = None,
    dropout: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``queries`` attend to ``keys``, blending ``values``: ``(context_vecs, attn_weights)``.
    ``queries``: ``(..., num_queries, d_k)``; ``keys``: ``(..., num_keys, d_k)``; ``values``:
    ``(..., num_keys, d_v)`` -> ``(..., num_queries, d_v)`` and ``(..., num_queries, num_keys)``.
    As in ``torch.nn.functional.scaled_dot_product_attention``, ``attn_mask`` (bools that
    broadcast to the scores) lets a query attend to a key where it is ``True``; ``causal=True``
    is torch's ``is_causal``. ``scale`` defaults to ``1 / sqrt(d_k)``. ``dropout`` (e.g. an
    ``nn.Dropout``), if given, acts on the weights before the blend, not on those returned."""
    scale = arguments.sdpa_arguments(queries, keys, values, causal, scale, attn_mask, dropout)

    hidden = None if attn_mask is None else ~attn_mask  # torch's meaning: False = not attended
    attn_weights = _weights(queries, keys, scale, causal, hidden)
    dropped = attn_weights if dropout is None else dropout(attn_weights)
    context_vecs = arguments.dropout_result(dropped, attn_weights) @ values
    return validate.finite(context_vecs, "context_vecs", validate.BAD_VALUES), attn_weights


def blockwise_attention(
    queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, block_size: int = 128
) -> torch.Tensor:
    """:func:`scaled_dot_product_attention`'s ``context_vecs`` ``(..., num_queries, d_v)`` (no mask,
    default scale) over blocks of ``block_size`` keys, with a running softmax (FlashAttention's):
    the sums so far are rescaled when the max grows; at most ``block_size`` scores per query."""
    block_size = arguments.blockwise_arguments(queries, keys, values, block_size)

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
    return validate.finite(context_vecs / running_sum, "context_vecs", validate.BAD_VALUES)
