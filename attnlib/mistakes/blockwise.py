"""Mistakes in attention block by block with a running softmax (notebook 09).

Each row is the reader's update step written wrong, ``update(running_sum, context, rescale,
exps, block_values) -> (running_sum, context)``: the two lines the reader writes, which
:func:`blocks` runs in the notebook's loop over ``queries``, ``keys`` and ``values``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from attnlib.mistakes._row import Mistake, table


def blocks(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    block_size: int,
    update: Callable[..., Any],
) -> Any:
    """The notebook's blockwise loop with ``update(running_sum, context, rescale, exps,
    block_values) -> (running_sum, context)`` as its two lines; ``...`` if the update is the
    stub's. Returns the context vectors, (num_queries, d_v)."""
    scale = 1 / keys.shape[-1] ** 0.5
    running_max = torch.full((queries.shape[0], 1), -torch.inf)
    running_sum = torch.zeros(queries.shape[0], 1)
    context = torch.zeros(queries.shape[0], values.shape[-1])
    for start in range(0, keys.shape[0], block_size):
        block_keys = keys[start : start + block_size]
        block_values = values[start : start + block_size]
        scores = queries @ block_keys.T * scale
        new_max = torch.maximum(running_max, scores.amax(dim=-1, keepdim=True))
        rescale = torch.exp(running_max - new_max)
        exps = torch.exp(scores - new_max)
        result = update(running_sum, context, rescale, exps, block_values)
        if result is None:  # a missing `return`: said as such
            return None
        if result is Ellipsis or any(r is Ellipsis for r in result):
            return Ellipsis
        running_sum, context = result
        running_max = new_max
    return context / running_sum


TABLE: dict[str, Mistake] = table(
    """
no_rescale | the running sums not rescaled when the maximum grows
    what running_sum and context hold was added up as exp(score - old max). When a block raises the
    max, multiply both by rescale = exp(old max - new max) before adding the block: running_sum =
    running_sum * rescale + exps.sum(dim=-1, keepdim=True).
context_not_rescaled | the running sum rescaled but not the context
    context was added up with the same exp(score - old max) as running_sum, so it needs the same
    correction: context = context * rescale + exps @ block_values.
sum_not_rescaled | the context rescaled but not the running sum
    running_sum was added up with the same exp(score - old max) as context, so it needs the same
    correction: running_sum = running_sum * rescale + exps.sum(dim=-1, keepdim=True).
new_block_rescaled | the new block rescaled as well
    this block's exps are already taken against new_max; only what was added before needs rescale:
    running_sum * rescale + exps.sum(...), not (running_sum + exps.sum(...)) * rescale.
rescale_divides | the old part divided by rescale
    rescale = exp(old max - new max) is at most 1 and already turns exp(s - old max) into exp(s -
    new max) when it MULTIPLIES: running_sum * rescale, context * rescale.
block_replaces_sums | each block replacing what came before (`=` for `+=`)
    the running values keep what the earlier blocks added: the old part, rescaled, PLUS this block's
    part, not this block's part alone.
running_sum_no_keepdim | the block's sum taken without keepdim=True
    exps.sum(dim=-1) drops the axis: (num_queries,) lines up with the columns, and running_sum,
    (num_queries, 1), grows into a grid. Keep one sum per query as a column: exps.sum(dim=-1,
    keepdim=True).
block_sum_of_all | one sum over the whole block, not one per query
    exps.sum() adds every query's exps together; each query keeps its own running sum:
    exps.sum(dim=-1, keepdim=True), one per row.
""",
    # the reader's update: s, c running_sum, context; r rescale; e exps; v block_values
    no_rescale=lambda s, c, r, e, v: (s + e.sum(dim=-1, keepdim=True), c + e @ v),
    context_not_rescaled=lambda s, c, r, e, v: (s * r + e.sum(dim=-1, keepdim=True), c + e @ v),
    sum_not_rescaled=lambda s, c, r, e, v: (s + e.sum(dim=-1, keepdim=True), c * r + e @ v),
    new_block_rescaled=lambda s, c, r, e, v: (
        (s + e.sum(dim=-1, keepdim=True)) * r,
        (c + e @ v) * r,
    ),
    rescale_divides=lambda s, c, r, e, v: (s / r + e.sum(dim=-1, keepdim=True), c / r + e @ v),
    block_replaces_sums=lambda s, c, r, e, v: (e.sum(dim=-1, keepdim=True), e @ v),
    running_sum_no_keepdim=lambda s, c, r, e, v: (s * r + e.sum(dim=-1), c * r + e @ v),
    block_sum_of_all=lambda s, c, r, e, v: (s * r + e.sum(), c * r + e @ v),
)
