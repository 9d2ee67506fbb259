"""Mistakes in hiding the future (notebook 06, and every causal forward pass after it).

The answer's arguments: ``attn_scores`` (num_tokens, num_tokens), not yet scaled, and ``d_k``
for the masked, scaled softmax (05.scale's rows reach it through :func:`causal`); ``ca`` a
layer and its input, ``x`` or ``inputs``, for one row of its output.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from attnlib.attention import attention_weights, causal_mask, context_vectors, weights_from_scores
from attnlib.mistakes._row import Mistake, table


def _hiding(hide: Callable[[int], torch.Tensor], fill: float = -torch.inf):
    """06.mask's answer with ``hide(num_tokens)`` in place of the causal mask and ``fill`` in
    place of -inf: plain torch, as the reader writes it (a row with nothing visible becomes NaN)."""
    return lambda attn_scores, d_k: torch.softmax(
        attn_scores.masked_fill(hide(attn_scores.shape[-1]), fill) / d_k**0.5, dim=-1
    )


def causal(make: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """A mistake of the scaled softmax, ``make(attn_scores, keys)`` (05.scale's), made on the
    causal scores: an answer of ``(attn_scores, d_k)``, as 06.mask's."""

    def wrong(attn_scores: torch.Tensor, d_k: int) -> torch.Tensor:
        hidden = attn_scores.masked_fill(causal_mask(attn_scores.shape[-1]), -torch.inf)
        return make(hidden, torch.zeros(attn_scores.shape[-1], d_k))  # keys: their size read

    return wrong


def _last_row(ca, x, query=-1, scale=None, blend_values=True):
    """The context vector of the last token of ``x`` (num_tokens, d_in), with no mask, made
    with the query of token ``query``, the scores times ``scale`` (default 1/sqrt(d_k)),
    blending values or inputs."""
    with torch.no_grad():
        weights = attention_weights(ca.W_query(x[query])[None], ca.W_key(x), scale=scale)
        return context_vectors(weights, ca.W_value(x) if blend_values else x)[0]


TABLE: dict[str, Mistake] = table(
    """
mask_diagonal | a mask that hides the diagonal too
    a token may attend to itself: build the mask with torch.triu(..., diagonal=1), which starts one
    above the diagonal.
mask_zero | masked scores set to 0 instead of -inf
    exp(0) is 1, so a score of 0 still gets weight; fill with -torch.inf, whose exp is 0.
mask_after_softmax | weights masked after softmax without renormalising
    zeroing weights after softmax leaves rows that sum to less than 1: divide each row by its sum
    again, or mask the scores with -inf before softmax.
mask_left_out | no causal mask: every token sees the later ones
    fill the scores above the diagonal with -torch.inf before softmax:
    attn_scores.masked_fill(self.mask[:num_tokens, :num_tokens], -torch.inf).
mask_inverted | the mask inverted: it hides the visible tokens
    masked_fill hides the positions where the mask is True. torch.tril marks what a query may see;
    the positions to hide are above the diagonal: torch.triu(..., diagonal=1).
mask_not_bool | a mask of 0/1 floats given to masked_fill
    masked_fill needs a bool mask (True = hidden): build it with dtype=torch.bool, or call .bool()
    on the 0/1 mask.
causal_first_row | the first row, which the mask changes most
    'Your' may see only itself, so the mask hides 5 of its 6 weights. Look for the query that
    already sees every token.
query_not_value | the query of 'Your' instead of its value
    attention weights blend value vectors. With all its weight on itself, 'Your' gets its own value
    vector: ca.W_value(inputs[0]).
# --- 06.last_row: the last token's context vector, from its own query ---------------------
last_row_own_value | the last token taken to see only itself
    that is the first token's row: it sees nothing before it. The last token comes after every other
    one, so the mask hides nothing from it: its query meets every key, and its weights blend every
    value.
last_row_first_query | the first token's query
    the row of the last token is made by the last token's query, ca.W_query(x[-1]), scored against
    every token's key.
last_row_unscaled | the scores left undivided
    the layer divides the scores by the root of d_k, the size of a key, before softmax; one row is
    no exception.
last_row_inputs_blended | the inputs blended, not the values
    the weights blend the value vectors, ca.W_value(x), as in the whole layer; a blend of the inputs
    has d_in entries, not d_out.
""",
    mask_diagonal=_hiding(lambda n: causal_mask(n) | torch.eye(n, dtype=torch.bool)),
    mask_zero=_hiding(causal_mask, 0.0),
    mask_after_softmax=lambda attn_scores, d_k: weights_from_scores(
        attn_scores, scale=d_k**-0.5
    ).masked_fill(causal_mask(attn_scores.shape[-1]), 0.0),
    mask_left_out=lambda attn_scores, d_k: weights_from_scores(attn_scores, scale=d_k**-0.5),
    mask_inverted=_hiding(lambda n: ~causal_mask(n)),
    mask_not_bool=_hiding(lambda n: causal_mask(n).float()),
    query_not_value=lambda ca, inputs: ca.W_query(inputs[0]).detach(),
    last_row_own_value=lambda ca, x: ca.W_value(x[-1]).detach(),
    last_row_first_query=lambda ca, x: _last_row(ca, x, query=0),
    last_row_unscaled=lambda ca, x: _last_row(ca, x, scale=1.0),
    last_row_inputs_blended=lambda ca, x: _last_row(ca, x, blend_values=False),
)
