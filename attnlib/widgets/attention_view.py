"""The pure view of the AttentionExplorer: attention of a sentence, seen from one query.

:func:`attention_view` is the reference the front end is checked against: the
same data and the same control values give the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _validate as validate
from attnlib._seeding import seeded
from attnlib.attention import attention_weights, causal_mask, context_vectors, scaled_scores
from attnlib.modules import HeadProjections
from attnlib.widgets import _text
from attnlib.widgets.views import SUM_TOL


@dataclass(frozen=True, eq=False)
class AttentionView:
    """What :class:`~attnlib.widgets.AttentionExplorer` shows for one setting of its controls.

    ``inputs``: ``(num_tokens, d_in)``; ``queries``, ``keys``, ``values``:
    ``(num_tokens, d)``, the inputs themselves for simplified self-attention
    (``d = d_in``), else head ``head``'s projections (``d = head_dim``);
    ``attn_scores``: ``(num_tokens, num_tokens)``, ``queries @ keys.T`` before
    scaling and masking; ``scaled_scores``: what enters softmax,
    ``attn_scores * scale / temperature`` with ``-inf`` where ``masked``;
    ``masked``: bool ``(num_tokens, num_tokens)``, True above the diagonal when
    ``causal``; ``attn_weights``: ``softmax(scaled_scores, dim)``; ``weights``:
    row ``query`` of it, ``(num_tokens,)``; ``context``: ``(d,)``,
    ``weights @ values``; ``row_sums`` / ``col_sums``: ``(num_tokens,)``;
    ``scale``: 1 without heads, ``1 / sqrt(head_dim)`` with; ``head``: 0 without
    heads; ``text``: the settings, the query's scores and its context vector
    written out.

    Dropout (``dropout`` > 0, draw ``draw`` of :data:`DROPOUT_DRAWS`, seeded with
    ``seed + draw``): ``softmax_weights`` is the softmax's output; ``dropped``, bool
    ``(num_tokens, num_tokens)``, the weights dropout set to 0; ``attn_weights`` the
    weights after dropout (kept ones times ``1 / (1 - dropout)``), as
    :class:`attnlib.modules.CausalAttention` multiplies the values with in training;
    ``weights``, ``context`` and the sums follow them. Without dropout
    ``attn_weights`` is ``softmax_weights`` and nothing is dropped.
    """

    tokens: tuple[str, ...]
    query: int
    token: str
    dim: int
    causal: bool
    temperature: float
    head: int
    num_heads: int
    scale: float
    inputs: torch.Tensor
    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    attn_scores: torch.Tensor
    scaled_scores: torch.Tensor
    masked: torch.Tensor
    attn_weights: torch.Tensor
    weights: torch.Tensor
    context: torch.Tensor
    row_sums: torch.Tensor
    col_sums: torch.Tensor
    text: str
    dropout: float = 0.0
    draw: int = 0
    seed: int = 0
    softmax_weights: torch.Tensor | None = None
    dropped: torch.Tensor | None = None


#: The dropout rates the explorer offers, and how many draws its "resample" walks through.
DROPOUT_RATES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
DROPOUT_DRAWS = 5


def dropout_keep(num_heads: int, num_tokens: int, rate: float, seed: int) -> torch.Tensor:
    """Which weights dropout keeps, bool ``(num_heads, num_tokens, num_tokens)``: the mask
    ``torch.nn.Dropout(rate)`` draws for float32 weights of that shape right after
    ``torch.manual_seed(seed)`` (as in a module's forward pass in training, whose layers
    draw nothing before it). The reader's random state is left as it was."""
    rate = validate.probability(rate, "dropout")
    with seeded(seed):
        ones = torch.ones(1, num_heads, num_tokens, num_tokens)
        kept = torch.nn.functional.dropout(ones, rate, training=True)
    return kept[0] != 0


def projections_of(projections: Any, d_in: int) -> HeadProjections:
    """``projections`` if it holds three float tensors ``(num_heads, d_in, head_dim)`` alike."""
    if not isinstance(projections, HeadProjections):
        got = validate.describe(projections)
        raise ValueError(f"projections: expected None or a modules.HeadProjections, got {got}")
    shape = "(num_heads, d_in, head_dim)"
    for name, weight in zip(HeadProjections._fields, projections, strict=True):
        validate.tensor(weight, name, shape, (3,))
        if weight.shape != projections.W_query.shape:
            raise ValueError(f"{name}: expected the shape of W_query, got {tuple(weight.shape)}")
    if projections.W_query.shape[1] != d_in:
        got = tuple(projections.W_query.shape)
        raise ValueError(f"projections: expected d_in = {d_in} (as inputs), got weights {got}")
    return projections


def head_qkv(
    inputs: torch.Tensor, projections: HeadProjections | None, head: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, float]:
    """Head ``head``'s queries, keys and values ``(num_tokens, d)`` and its score scale.

    Simplified self-attention (no projections) is attention with identity
    projections and no scale.
    """
    if projections is None:
        return inputs, inputs, inputs, 1.0
    x = inputs.to(projections.W_query.dtype)
    queries, keys, values = (x @ weight[head] for weight in projections)
    return queries, keys, values, 1.0 / math.sqrt(projections.W_query.shape[2])


def softmax_factor(attn_scores: torch.Tensor, scale: float, temperature: Any) -> float:
    """``scale / temperature``, refused (naming the temperature) if the scores would overflow."""
    temperature = validate.positive(temperature, "temperature")
    factor = scale / temperature
    largest = attn_scores.abs().max().item() * factor
    if not math.isfinite(factor) or largest > torch.finfo(attn_scores.dtype).max:
        raise ValueError(
            f"temperature: expected a value that keeps the scores / temperature finite, "
            f"got {temperature:g}; raise it"
        )
    return factor


def _attend(
    inputs: torch.Tensor,
    projections: HeadProjections | None,
    *,
    query: int,
    dim: int,
    causal: bool,
    temperature: float,
    head: int,
    num_heads: int,
    dropout: float,
    draw: int,
    seed: int,
    **_: Any,
) -> dict[str, Any]:
    """The tensors of an :class:`AttentionView` (and the head's ``scale``), for checked settings."""
    queries, keys, values, scale = head_qkv(inputs, projections, head)
    try:  # (num_tokens, num_tokens), before scaling and masking
        attn_scores = scaled_scores(queries, keys, scale=1.0)
    except ValueError:  # the inputs were checked: only their products can overflow
        raise ValueError(
            "inputs: got inf or NaN; their dot products overflow; scale the inputs down"
        ) from None
    factor = softmax_factor(attn_scores, scale, temperature)
    masked = causal_mask(len(inputs)) if causal else torch.zeros_like(attn_scores, dtype=torch.bool)
    softmax_weights = attention_weights(
        queries, keys, scale=factor, causal=causal, dim=-1 if dim == -1 else -2
    )
    n = len(inputs)
    dropped = torch.zeros(n, n, dtype=torch.bool)
    attn_weights = softmax_weights
    if dropout > 0:
        dropped = ~dropout_keep(num_heads, n, dropout, seed + draw)[head]
        kept = softmax_weights / (1 - dropout)
        attn_weights = kept.masked_fill(dropped, 0.0)
    return {
        "softmax_weights": softmax_weights,
        "dropped": dropped,
        "scale": scale,
        "inputs": inputs,
        "queries": queries,
        "keys": keys,
        "values": values,
        "attn_scores": attn_scores,
        "scaled_scores": scaled_scores(queries, keys, scale=factor, causal=causal),
        "masked": masked,
        "attn_weights": attn_weights,
        "weights": attn_weights[query],
        "context": context_vectors(attn_weights[query : query + 1], values)[0],
        "row_sums": attn_weights.sum(dim=1),
        "col_sums": attn_weights.sum(dim=0),
    }


def attention_view(
    inputs: torch.Tensor,
    tokens: Sequence[str],
    *,
    query: int,
    dim: int = -1,
    causal: bool = False,
    temperature: float = 1.0,
    head: int = 0,
    projections: HeadProjections | None = None,
    dropout: float = 0.0,
    draw: int = 0,
    seed: int = 123,
) -> AttentionView:
    """Attention of every token of ``inputs`` ``(num_tokens, d_in)``, seen from ``query``.

    Without ``projections``: the simplified self-attention of the first notebooks,
    queries = keys = values = ``inputs`` and no scaling. With ``projections``
    (:func:`attnlib.modules.head_projections`): head ``head``'s queries, keys and
    values, and the scale ``1 / sqrt(head_dim)``. Then ``attn_scores = queries @
    keys.T``; with ``causal`` the scores above the diagonal become ``-inf``;
    ``attn_weights = softmax(attn_scores * scale / temperature, dim)`` (a small
    temperature sharpens, a large one flattens), computed by
    :func:`attnlib.attention.attention_weights`; ``context = attn_weights[query] @ values``.
    With ``dropout`` (one of :data:`DROPOUT_RATES`), the weights after dropout as
    :class:`attnlib.modules.CausalAttention` draws it after ``torch.manual_seed(seed + draw)``
    (``draw`` in ``[0, DROPOUT_DRAWS - 1]``).
    """
    inputs = validate.explorer_inputs(inputs)
    num_tokens = inputs.shape[0]
    num_heads = 1
    if projections is not None:
        num_heads = projections_of(projections, inputs.shape[1]).W_query.shape[0]
    settings = {
        "tokens": validate.explorer_tokens(tokens, num_tokens),
        "query": validate.index(query, "query", num_tokens),
        "dim": -1 if validate.softmax_axis(dim, 2) == -1 else 0,
        "causal": validate.flag(causal, "causal"),
        "temperature": float(validate.positive(temperature, "temperature")),
        "head": validate.index(head, "head", num_heads),
        "num_heads": num_heads,
        "dropout": _rate(dropout),
        "draw": validate.index(draw, "draw", DROPOUT_DRAWS),
        "seed": validate.integer(seed, "seed", 0, 2**63 - 1 - DROPOUT_DRAWS),
    }
    tensors = _attend(inputs, projections, **settings)
    settings.update(token=settings["tokens"][settings["query"]], scale=tensors.pop("scale"))
    return AttentionView(**settings, **tensors, text=attention_text(**settings, **tensors))


def _rate(dropout: Any) -> float:
    """``dropout`` if it is one of :data:`DROPOUT_RATES` (to a slider's rounding)."""
    rate = validate.probability(dropout, "dropout")
    for offered in DROPOUT_RATES:
        if abs(rate - offered) < 1e-9:
            return offered
    raise ValueError(f"dropout: expected one of {', '.join(map(str, DROPOUT_RATES))}, got {rate:g}")


def attention_text(
    *,
    tokens: tuple[str, ...],
    query: int,
    dim: int,
    causal: bool,
    temperature: float,
    head: int,
    num_heads: int,
    scale: float,
    attn_scores: torch.Tensor,
    scaled_scores: torch.Tensor,
    weights: torch.Tensor,
    context: torch.Tensor,
    softmax_weights: torch.Tensor,
    dropped: torch.Tensor,
    dropout: float,
    draw: int,
    seed: int,
    **_: Any,
) -> str:
    """The view in words: settings, the query's scores before and after softmax, its z,
    and what dropout did. The sums said to be 1 are the softmax's, before dropout."""
    row_sums = softmax_weights.sum(dim=1).tolist()
    col_sums = softmax_weights.sum(dim=0).tolist()
    fields = {
        "query": query,
        "token": tokens[query],
        "token_repr": _text.quoted(tokens[query]),
        "dim": dim,
        "temperature": temperature,
        "head": head,
        "num_heads": num_heads,
        "head_dim": context.shape[0],
        "scores": attn_scores[query].tolist(),
        "scaled": scaled_scores[query].tolist(),
        "terms": _text.terms(weights.tolist(), tokens, "x" if num_heads == 1 else "v"),
        "context": context.tolist(),
        "row_sum": row_sums[query],
        "col_sums": col_sums,
        **dropout_fields(dropout, draw, seed, dropped, query, weights.sum().item()),
    }
    flags = {
        "rows": dim == -1,
        "causal": causal,
        "many": num_heads > 1,
        # Temperature as shown: a slider's 1.0000000000000002 is 1 and changes nothing.
        "changed": scale != 1.0 or _text.SPECS["g"](temperature) != "1" or causal,
        "rows_one": all(abs(s - 1.0) <= SUM_TOL for s in row_sums),
        "cols_one": all(abs(s - 1.0) <= SUM_TOL for s in col_sums),
        "drop": dropout > 0,
    }
    return _text.compose(_text.TEXTS["attention"]["formula"], fields, flags)


def dropout_fields(
    dropout: float, draw: int, seed: int, dropped: torch.Tensor, query: int, row_sum: float
) -> dict[str, Any]:
    """The fields of the dropout line: rate, draw (counted from 1) and its seed, how many
    weights were set to 0 (in all and in the query's row), the scale of the rest."""
    return {
        "dropout": dropout,
        "draw_n": draw + 1,
        "draws": DROPOUT_DRAWS,
        "draw_seed": seed + draw,
        "dropped": int(dropped.sum()),
        "cells": dropped.numel(),
        "row_dropped": int(dropped[query].sum()),
        "keep_scale": 1 / (1 - dropout),
        "drop_sum": row_sum,
    }
