"""Mistakes in trainable attention (notebook 05, and every forward pass after it): the
projections, the scale of the scores, what is blended.

The answer's arguments: ``inputs`` (num_tokens, d_in) and ``W_query``, ``W_key``,
``W_value`` (d_in, d_out) for the projections; ``attn_scores`` (..., num_tokens) and ``keys``
(num_tokens, d_k) for the scaled softmax (a softmax's row reaches it through :func:`scaled`);
``attn_weights`` and ``c`` for the weights after W_query is multiplied by c.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import torch

from attnlib.attention import softmax
from attnlib.mistakes._row import Mistake, table

#: The notebook's embedding size, d_in: a scale by it is a name of the notebook read.
NOTEBOOK_D_IN = 3


def _scaled(attn_scores: torch.Tensor, divisor: float) -> torch.Tensor:
    return softmax(attn_scores / divisor)


def scaled(weigh: Callable[[torch.Tensor], torch.Tensor]) -> Callable[..., torch.Tensor]:
    """A softmax's mistake ``weigh(x)`` made on the scaled scores: an answer of
    ``(attn_scores, keys)``, as 05.scale's."""
    return lambda attn_scores, keys: weigh(attn_scores / keys.shape[-1] ** 0.5)


def _mixed_up(roles: tuple[int, int, int]):
    """The projections made with the matrices at ``roles`` of (W_query, W_key, W_value), e.g.
    (0, 0, 2): the keys made with W_query."""
    return lambda inputs, W_query, W_key, W_value: torch.stack(
        [inputs @ (W_query, W_key, W_value)[r] for r in roles]
    )


def _powered(attn_weights: torch.Tensor, power: float) -> torch.Tensor:
    """Each row raised to ``power`` and brought back to a sum of 1."""
    raised = attn_weights**power
    return raised / raised.sum(dim=-1, keepdim=True)


TABLE: dict[str, Mistake] = table(
    """
no_gradient | the result cut off from training
    the numbers are right, but no gradient reaches {parameter}: a .detach(), a torch.no_grad() block
    or requires_grad_(False) stops the layer from learning. Return the tensors your operations give,
    as they are.
no_scale | scores not scaled by 1/sqrt(d_k)
    divide the scores by keys.shape[-1] ** 0.5 before softmax, so that larger key sizes do not push
    softmax towards one-hot weights.
scale_by_d_k | scores divided by d_k instead of sqrt(d_k)
    the scale is the square root: attn_scores / keys.shape[-1] ** 0.5.
scale_by_d_in | scores scaled by the input size d_in instead of the key size d_k
    d_k is the keys' last dimension (d_out here), not the embedding size: use keys.shape[-1] ** 0.5.
scale_by_num_tokens | scores scaled by the number of tokens (keys.shape[0]) instead of the key size
    keys has one row per token and one column per key entry: d_k is the last axis, keys.shape[-1],
    not keys.shape[0].
scale_hardcoded | the scale typed in as a number, or read from a name of the notebook (its d_out,
  its keys) instead of the keys given
    read d_k from the keys the function is given, keys.shape[-1] ** 0.5, so the line stays right for
    any d_out: with d_out = 4 the scale is sqrt(4) = 2, not sqrt(2).
projection_mixed_up | a projection made with another role's matrix
    each role has its own matrix: queries = inputs @ W_query, keys = inputs @ W_key, values = inputs
    @ W_value.
projection_order | the matrix written before the inputs (W @ inputs)
    each token is a row of inputs, and a row is multiplied from the left: inputs @ W_query, ({t},
    {d}) @ ({d}, d_out) -> ({t}, d_out).
weights_sized_by_d_out | the attention weights sized by d_out
    there is one weight per pair of tokens, (num_tokens, num_tokens), whatever d_out is; d_out sizes
    the queries, keys, values and context vectors.
# --- 05.query_scaled: W_query multiplied by c, the new weights from the old ones ----------
query_scale_cancels | the factor taken to cancel in softmax
    a number added to every score cancels in softmax; a factor does not. c * W_query makes every
    query, so every score, c times larger, and exp(c * s) = exp(s) ** c: raise each weight to the
    power c, then make each row sum to 1 again.
query_scale_times_c | the weights multiplied by c
    c multiplies the scores, before softmax, not the weights after it; and weights times c no longer
    sum to 1. exp(c * s) = exp(s) ** c: each weight to the power c, then each row divided by its
    sum.
query_scale_squared | the keys taken to grow with the queries
    only W_query is multiplied: the queries grow by c, the keys do not, so each score q · k grows by
    c, not by c ** 2. Raise each weight to the power c.
query_scale_not_renormalised | the powers left without the division by their row's sum
    exp(c * s) = exp(s) ** c is the top of the new softmax; its bottom is the sum of those powers
    over the row, so each row must be divided by its own sum again.
query_scale_weights_as_scores | softmax applied to the weights, as if they were scores
    the weights are softmax's output, not its input: softmax(c * attn_weights) treats them as
    scores. Go back through exp: the old weight is exp(s) / sum, and the new one is exp(c * s) /
    sum, a power of the old one.
""",
    no_scale=lambda attn_scores, keys: _scaled(attn_scores, 1.0),
    scale_by_d_k=lambda attn_scores, keys: _scaled(attn_scores, keys.shape[-1]),
    scale_by_d_in=lambda attn_scores, keys: _scaled(attn_scores, math.sqrt(NOTEBOOK_D_IN)),
    scale_by_num_tokens=lambda attn_scores, keys: _scaled(attn_scores, math.sqrt(keys.shape[0])),
    scale_hardcoded=lambda attn_scores, keys: _scaled(attn_scores, math.sqrt(2)),
    projection_mixed_up=tuple(
        _mixed_up(roles) for roles in itertools.product(range(3), repeat=3) if roles != (0, 1, 2)
    ),
    projection_order=lambda inputs, W_query, W_key, W_value: torch.stack(
        [W @ inputs for W in (W_query, W_key, W_value)]
    ),
    weights_sized_by_d_out=lambda num_tokens, d_out: (num_tokens, d_out),
    query_scale_cancels=lambda attn_weights, c: attn_weights.clone(),
    query_scale_times_c=lambda attn_weights, c: c * attn_weights,
    query_scale_squared=lambda attn_weights, c: _powered(attn_weights, c * c),
    query_scale_not_renormalised=lambda attn_weights, c: attn_weights**c,
    query_scale_weights_as_scores=lambda attn_weights, c: softmax(c * attn_weights),
)
