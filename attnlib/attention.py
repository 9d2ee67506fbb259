"""Pure tensor functions: the reference for every stage of the course.

Nothing here plots, prints or keeps state. Shapes use the course's names:
``num_tokens`` (T), ``d_in``, ``d_out``; a leading ``...`` means any batch axes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from attnlib._validate import (
    as_float_tensor,
    check_dim,
    check_int,
    check_min_rank,
    check_nonempty,
    check_rank,
    describe,
)


def _check_inputs(inputs: torch.Tensor, name: str = "inputs") -> torch.Tensor:
    as_float_tensor(inputs, name)
    check_rank(inputs, name, (2,), "(num_tokens, d_in)")
    check_nonempty(inputs, name)
    check_nonempty(inputs, name, axis=-1, what="embedding dimensions")
    return inputs


def attention_scores_loop(inputs: torch.Tensor) -> torch.Tensor:
    """Dot product of every pair of inputs, one cell at a time.

    ``inputs``: ``(num_tokens, d_in)``. Returns ``attn_scores`` of shape
    ``(num_tokens, num_tokens)`` with ``attn_scores[i, j] = dot(x_i, x_j)``.
    """
    _check_inputs(inputs)
    num_tokens = inputs.shape[0]
    attn_scores = inputs.new_empty(num_tokens, num_tokens)
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    return attn_scores


def attention_scores(inputs: torch.Tensor) -> torch.Tensor:
    """The same grid as :func:`attention_scores_loop` with one matrix product.

    ``inputs``: ``(num_tokens, d_in)`` -> ``(num_tokens, num_tokens)``.
    """
    _check_inputs(inputs)
    return inputs @ inputs.T


def _check_softmax_args(x: torch.Tensor, dim: int, name: str) -> None:
    as_float_tensor(x, name)
    check_min_rank(x, name, 1, "(..., n)")
    check_dim(dim, x.dim())
    check_nonempty(x, name, axis=dim, what="entries along dim")


def softmax_naive(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, written out; overflows for scores > ~88.

    Same shape as ``x``.
    """
    _check_softmax_args(x, dim, "x")
    return torch.exp(x) / torch.exp(x).sum(dim=dim, keepdim=True)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Numerically stable softmax along ``dim``; same shape as ``x``.

    Subtracting the maximum first leaves the result unchanged (it cancels in the
    ratio) but keeps ``exp`` from overflowing. Entries equal to ``-inf`` (masked
    positions) get weight 0.
    """
    _check_softmax_args(x, dim, "x")
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)


def context_vector(inputs: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """One query's context vector as a running total, starting from zeros.

    ``inputs``: ``(num_tokens, d_in)``; ``weights``: ``(num_tokens,)``, the query's
    attention weights. Returns ``context_vec`` of shape ``(d_in,)``:
    ``sum_i weights[i] * inputs[i]``.
    """
    _check_inputs(inputs)
    as_float_tensor(weights, "weights")
    check_rank(weights, "weights", (1,), "(num_tokens,)")
    if weights.shape[0] != inputs.shape[0]:
        raise ValueError(
            f"weights: expected one weight per input, shape ({inputs.shape[0]},), "
            f"got shape {tuple(weights.shape)}"
        )
    context_vec = inputs.new_zeros(inputs.shape[1])
    for i, x_i in enumerate(inputs):
        context_vec += weights[i] * x_i
    return context_vec


def context_vectors(attn_weights: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """Every query's context vector at once: ``attn_weights @ inputs``.

    ``attn_weights``: ``(..., num_queries, num_tokens)``; ``inputs``:
    ``(..., num_tokens, d)``. Returns ``(..., num_queries, d)``.
    """
    as_float_tensor(attn_weights, "attn_weights")
    as_float_tensor(inputs, "inputs")
    check_min_rank(attn_weights, "attn_weights", 2, "(num_queries, num_tokens)")
    check_min_rank(inputs, "inputs", 2, "(num_tokens, d)")
    check_nonempty(inputs, "inputs")
    if attn_weights.shape[-1] != inputs.shape[-2]:
        raise ValueError(
            "attn_weights: expected one column per input token, "
            f"shape (..., {inputs.shape[-2]}) to match inputs of shape {tuple(inputs.shape)}, "
            f"got shape {tuple(attn_weights.shape)}"
        )
    if attn_weights.dtype != inputs.dtype:
        raise ValueError(
            f"attn_weights: expected dtype {inputs.dtype} (as inputs), got {attn_weights.dtype}"
        )
    _batch_shape({"attn_weights": attn_weights, "inputs": inputs})
    return attn_weights @ inputs


def causal_mask(num_tokens: int, num_keys: int | None = None) -> torch.Tensor:
    """Boolean mask, ``True`` where a query would see a later token.

    Returns shape ``(num_tokens, num_keys)`` (``num_keys`` defaults to
    ``num_tokens``): ``True`` strictly above the diagonal, aligned top-left when
    the two differ. Fill those positions with ``-inf`` before softmax to make
    attention causal.
    """
    check_int(num_tokens, "num_tokens", minimum=1)
    num_keys = num_tokens if num_keys is None else check_int(num_keys, "num_keys", minimum=1)
    return torch.ones(num_tokens, num_keys, dtype=torch.bool).triu(diagonal=1)


def _check_qk(queries: torch.Tensor, keys: torch.Tensor) -> None:
    for name, t in (("queries", queries), ("keys", keys)):
        as_float_tensor(t, name)
        check_min_rank(t, name, 2, "(..., num_tokens, d)")
        check_nonempty(t, name)
        check_nonempty(t, name, axis=-1, what="feature dimensions")
    if keys.shape[-1] != queries.shape[-1]:
        raise ValueError(
            f"keys: expected last dimension d_k = {queries.shape[-1]} (as queries), "
            f"got shape {tuple(keys.shape)}"
        )
    if keys.dtype != queries.dtype:
        raise ValueError(f"keys: expected dtype {queries.dtype} (as queries), got {keys.dtype}")


def _batch_shape(named: dict[str, torch.Tensor]) -> torch.Size:
    """The broadcast batch axes of several ``(..., n, d)`` tensors, or a ``ValueError``."""
    try:
        return torch.broadcast_shapes(*(t.shape[:-2] for t in named.values()))
    except RuntimeError:
        found = ", ".join(f"{name} {tuple(t.shape[:-2])}" for name, t in named.items())
        raise ValueError(f"expected batch axes that broadcast together, got {found}") from None


def attention_weights(
    queries: torch.Tensor,
    keys: torch.Tensor,
    *,
    scale: float | None = None,
    causal: bool = False,
    mask: torch.Tensor | None = None,
    dim: int = -1,
) -> torch.Tensor:
    """Softmax of the scaled, masked scores ``queries @ keys^T``.

    ``queries``: ``(..., num_tokens, d_k)``; ``keys``: ``(..., num_keys, d_k)``.
    ``scale`` defaults to ``1 / sqrt(d_k)``; with ``causal=True`` query ``i`` sees
    keys ``0..i`` only (the mask is aligned top-left when ``num_tokens !=
    num_keys``); ``mask``, a boolean tensor broadcastable to ``(..., num_tokens,
    num_keys)``, hides the positions where it is ``True``. ``dim`` is the axis
    softmax normalises: -1 (each query's row, the usual) or -2 (each key's column).

    Returns ``attn_weights`` of shape ``(..., num_tokens, num_keys)``.
    """
    _check_qk(queries, keys)
    return _attention_weights(queries, keys, scale=scale, causal=causal, mask=mask, dim=dim)


def _attention_weights(
    queries: torch.Tensor,
    keys: torch.Tensor,
    *,
    scale: float | None,
    causal: bool,
    mask: torch.Tensor | None,
    dim: int,
) -> torch.Tensor:
    """:func:`attention_weights` once ``queries`` and ``keys`` are known to be valid."""
    if not isinstance(causal, bool):
        raise ValueError(f"causal: expected True or False, got {causal!r}")
    if scale is None:
        scale = 1.0 / math.sqrt(keys.shape[-1])
    elif (
        isinstance(scale, bool) or not isinstance(scale, (int, float)) or not (0 < scale < math.inf)
    ):
        raise ValueError(f"scale: expected a positive finite number, got {scale!r}")
    scores_shape = _batch_shape({"queries": queries, "keys": keys}) + (
        queries.shape[-2],
        keys.shape[-2],
    )
    dim = check_dim(dim, len(scores_shape))
    if dim not in (-1, -2, len(scores_shape) - 1, len(scores_shape) - 2):
        raise ValueError(f"dim: expected -1 (rows) or -2 (columns), got {dim}")

    hidden = torch.zeros(scores_shape[-2:], dtype=torch.bool)
    if causal:
        hidden = causal_mask(queries.shape[-2], keys.shape[-2])
    if mask is not None:
        _check_mask(mask, scores_shape)
        hidden = hidden | mask
    if hidden.all(dim=dim).any():
        # softmax over nothing but -inf is 0/0: refuse instead of returning NaN.
        axis = "query" if dim in (-1, len(scores_shape) - 1) else "key"
        raise ValueError(
            f"mask: expected every {axis} to keep at least one unmasked position, "
            "but some hide all of them (an inverted mask?)"
        )
    attn_scores = queries @ keys.transpose(-2, -1)
    return softmax(attn_scores.masked_fill(hidden, float("-inf")) * scale, dim=dim)


def scaled_dot_product_attention(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    causal: bool = False,
    *,
    scale: float | None = None,
    mask: torch.Tensor | None = None,
    dropout: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention of ``queries`` over ``keys``, blending ``values``.

    ``queries``: ``(..., num_tokens, d_k)``; ``keys``: ``(..., num_keys, d_k)``;
    ``values``: ``(..., num_keys, d_v)``. The weights are
    :func:`attention_weights` (scores ``queries @ keys^T`` times ``scale``,
    default ``1 / sqrt(d_k)``; ``causal`` and ``mask`` hide keys). ``dropout``, if
    given (e.g. an ``nn.Dropout``), is applied to the weights before they blend
    the values.

    Returns ``(context_vecs, attn_weights)`` of shapes ``(..., num_tokens, d_v)``
    and ``(..., num_tokens, num_keys)``; ``attn_weights`` is taken before dropout.
    """
    _check_qk(queries, keys)
    as_float_tensor(values, "values")
    check_min_rank(values, "values", 2, "(..., num_keys, d_v)")
    check_nonempty(values, "values", axis=-1, what="feature dimensions")
    if values.shape[-2] != keys.shape[-2]:
        raise ValueError(
            f"values: expected one row per key, {keys.shape[-2]} rows, "
            f"got shape {tuple(values.shape)}"
        )
    if values.dtype != queries.dtype:
        raise ValueError(f"values: expected dtype {queries.dtype} (as queries), got {values.dtype}")
    _batch_shape({"queries": queries, "keys": keys, "values": values})
    if dropout is not None and not callable(dropout):
        raise ValueError(
            f"dropout: expected a callable such as torch.nn.Dropout(p), got {describe(dropout)}"
        )
    attn_weights = _attention_weights(queries, keys, scale=scale, causal=causal, mask=mask, dim=-1)
    blend = attn_weights if dropout is None else dropout(attn_weights)
    return blend @ values, attn_weights


def _check_mask(mask: torch.Tensor, scores_shape: torch.Size) -> None:
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        raise ValueError(f"mask: expected a bool tensor (True = hidden), got {describe(mask)}")
    try:
        if torch.broadcast_shapes(mask.shape, scores_shape) != scores_shape:
            raise RuntimeError
    except RuntimeError:
        raise ValueError(
            f"mask: expected a shape broadcastable to the scores' {tuple(scores_shape)}, "
            f"got {tuple(mask.shape)}; slice a longer mask with mask[:num_tokens, :num_tokens]"
        ) from None
