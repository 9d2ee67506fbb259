"""Mistakes in turning scores into weights (notebook 03): softmax by hand, stable softmax.

Each row takes the answer's argument ``x``, a grid of scores (rows, columns), each row one
query's scores (the temperature's rows: ``num_tokens``). Later exercises adapt a row to their
answers: :func:`~attnlib.mistakes.trainable.scaled`, :func:`~attnlib.mistakes.masks.causal`.
"""

from __future__ import annotations

import torch

from attnlib.mistakes._row import Mistake, table

TABLE: dict[str, Mistake] = table(
    """
softmax_dim0 | softmax along the wrong axis (dim=0)
    the columns sum to 1 but the rows do not. Use softmax(attn_scores, dim=-1) so that each query's
    row of weights is a distribution over the tokens. (On symmetric scores the same numbers also
    come from a row sum without keepdim=True, or from attn_weights.T.)
no_exp | normalising without exp
    dividing each score by its row's sum is not softmax: it breaks on negative scores and does not
    stretch larger scores. Take exp above and below the fraction bar: torch.exp(x) /
    torch.exp(x).sum(dim=-1, keepdim=True), torch.softmax(x, dim=-1).
no_keepdim | a row sum without keepdim=True
    sum(dim=-1) drops the axis, so the division lines the sums up with the columns; keep it with
    .sum(dim=-1, keepdim=True) so each row is divided by its own sum.
softmax_whole_grid | exp divided by the total of the whole grid
    sum() without a dim adds every exp of the grid, so only the grid as a whole sums to 1. Divide by
    each row's own total: torch.exp(x).sum(dim=-1, keepdim=True).
no_max_shift | exp taken before subtracting the row's largest score
    exp(100) overflows float32 to inf, and inf / inf is nan. First subtract x.max(dim=-1,
    keepdim=True).values from x: the shift cancels in the fraction, and the largest exp becomes
    exp(0) = 1.
max_no_keepdim | a row maximum without keepdim=True
    x.max(dim=-1).values has one entry per row, but subtracted from x it lines up with the columns.
    Keep the axis, x.max(dim=-1, keepdim=True).values, so each row loses its own maximum.
max_of_grid | the largest score of the whole grid subtracted, not each row's own
    x.max() is one number for the whole grid. A row whose scores lie far below it gets exps so tiny
    (e^-97 for a score 97 below it) that float32 loses their digits, or rounds them to 0 and
    computes 0 / 0. Subtract each row's own maximum: x.max(dim=-1, keepdim=True).values.
max_without_values | the result of x.max(dim=...) used as a tensor
    with a dim, x.max returns a pair (values, indices): take its .values, or use x.amax(dim=-1,
    keepdim=True), which returns the values only.
# --- a temperature dividing the scores (notebook 08): make(num_tokens), one weight -------
hot_weights_vanish | the weights taken to vanish at high temperature, or 1 // num_tokens
  (whole-number division: 0 for any num_tokens above 1)
    dividing by a large temperature brings every score near 0, and exp(0) = 1 for each: the weights
    become equal, and since a row still sums to 1, each is 1 / num_tokens (one slash: `//` rounds
    down to a whole number).
hot_weights_to_one | every weight taken to approach 1
    a row of weights always sums to 1, so they cannot all approach 1. A high temperature makes them
    equal: 1 / num_tokens each. (All the weight on one token is the other end: a temperature near
    0.)
hot_weights_count | the number of tokens given for the weight
    each of the num_tokens weights tends to the same value, and together they still sum to 1: 1 /
    num_tokens each, not num_tokens.
""",
    softmax_dim0=lambda x: torch.softmax(x, dim=0),
    no_exp=lambda x: x / x.sum(dim=-1, keepdim=True),
    no_keepdim=lambda x: x.exp() / x.exp().sum(dim=-1),
    softmax_whole_grid=lambda x: x.exp() / x.exp().sum(),
    no_max_shift=lambda x: x.exp() / x.exp().sum(dim=-1, keepdim=True),
    max_no_keepdim=lambda x: torch.softmax(x - x.max(dim=-1).values, dim=-1),
    max_of_grid=lambda x: (x - x.max()).exp() / (x - x.max()).exp().sum(dim=-1, keepdim=True),
    max_without_values=lambda x: x - x.max(dim=-1, keepdim=True),
    hot_weights_vanish=lambda num_tokens: 0.0,
    hot_weights_to_one=lambda num_tokens: 1.0,
    hot_weights_count=lambda num_tokens: float(num_tokens),
)
