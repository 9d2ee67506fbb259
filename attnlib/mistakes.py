"""The mistakes the course names: one table that checkpoints and exercises share.

Each row is a :class:`Mistake`: a label, a hint saying how to fix it, and (where
one wrong line makes it) ``make``, that wrong line as a function of the stage's
inputs, so a check can compute what the mistake gives and compare. Hints may hold
``{placeholders}`` that a check fills in (the query, the offset, the shapes).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Mistake:
    """A named mistake: ``label`` says what it is, ``hint`` how to fix it.

    ``make`` computes the mistaken stage from the stage's own inputs (documented
    per row), or is ``None`` for a family a check searches itself (every other
    query, every other pairing, every start value).
    """

    label: str
    hint: str
    make: Callable[..., Any] | None = None


def _fill_after_softmax(attn_scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.softmax(attn_scores, dim=-1).masked_fill(mask, 0.0)


MISTAKES: dict[str, Mistake] = {
    # --- simplified attention, notebooks 01-04 ---------------------------------------------
    "wrong_query_index": Mistake(
        "the wrong query index (off by one?)",
        "this is the context vector of query {got}, not of query {query}. Python counts from 0: "
        "token number {number} is index {index}; use attn_weights[{index}] (and inputs[{index}] "
        "as the query).",
    ),
    "softmax_dim0": Mistake(
        "softmax along the wrong axis (dim=0)",
        "the columns sum to 1 but the rows do not. Use softmax(attn_scores, dim=-1) so that each "
        "query's row of weights is a distribution over the tokens.",
        lambda attn_scores: torch.softmax(attn_scores, dim=0),
    ),
    "wrong_pairing": Mistake(
        "a weight paired with the wrong input",
        "each weight must multiply the input at its own position: loop with "
        "`for i, x_i in enumerate(inputs)` and add weights[i] * x_i.",
    ),
    "no_zero_start": Mistake(
        "a running sum that did not start from zeros",
        "the result is off by {offset}. Start the running total from torch.zeros_like(inputs[0]), "
        "not torch.empty(...), an input, or ones.",
    ),
    "transposed_product": Mistake(
        "the transposed product inputs.T @ inputs",
        "inputs.T @ inputs compares embedding dimensions and gives a ({d}, {d}) grid; "
        "inputs @ inputs.T compares tokens and gives the ({t}, {t}) grid of scores.",
        lambda inputs: inputs.T @ inputs,
    ),
    "no_exp": Mistake(
        "normalising without exp",
        "dividing each score by its row's sum is not softmax: it breaks on negative scores and "
        "does not stretch larger scores. Use torch.softmax(attn_scores, dim=-1).",
        lambda attn_scores: attn_scores / attn_scores.sum(dim=-1, keepdim=True),
    ),
    "no_keepdim": Mistake(
        "a row sum without keepdim=True",
        "sum(dim=-1) drops the axis, so the division lines the sums up with the columns; "
        "keep it with .sum(dim=-1, keepdim=True) so each row is divided by its own sum.",
        lambda attn_scores: attn_scores.exp() / attn_scores.exp().sum(dim=-1),
    ),
    "same_token": Mistake(
        "a token compared with itself",
        "each cell pairs two tokens: attn_scores[i, j] = torch.dot(x_i, x_j), not x_i with x_i.",
        lambda inputs: (inputs * inputs).sum(-1, keepdim=True).expand(-1, inputs.shape[0]),
    ),
    "weights_transposed": Mistake(
        "the transposed weights attn_weights.T @ inputs",
        "row i of attn_weights holds query i's weights: blend with attn_weights @ inputs.",
        lambda attn_weights, inputs: attn_weights.T @ inputs,
    ),
    # --- trainable attention, notebook 05: make(d_k, d_in) -> the scale ---------------------
    "no_scale": Mistake(
        "scores not scaled by 1/sqrt(d_k)",
        "divide the scores by keys.shape[-1] ** 0.5 before softmax, so that larger key sizes "
        "do not push softmax towards one-hot weights.",
        lambda d_k, d_in: 1.0,
    ),
    "scale_by_d_k": Mistake(
        "scores divided by d_k instead of sqrt(d_k)",
        "the scale is the square root: attn_scores / keys.shape[-1] ** 0.5.",
        lambda d_k, d_in: 1.0 / d_k,
    ),
    "scale_by_d_in": Mistake(
        "scores scaled by the input size d_in instead of the key size d_k",
        "d_k is the keys' last dimension (d_out here), not the embedding size: "
        "use keys.shape[-1] ** 0.5.",
        lambda d_k, d_in: 1.0 / math.sqrt(d_in),
    ),
    # --- causal attention, notebook 06 ---------------------------------------------------
    "mask_diagonal": Mistake(
        "a mask that hides the diagonal too",
        "a token may attend to itself: build the mask with torch.triu(..., diagonal=1), which "
        "starts one above the diagonal.",
        lambda num_tokens: torch.ones(num_tokens, num_tokens, dtype=torch.bool).triu(diagonal=0),
    ),
    "mask_zero": Mistake(
        "masked scores set to 0 instead of -inf",
        "exp(0) is 1, so a score of 0 still gets weight; fill with -torch.inf, whose exp is 0.",
        lambda attn_scores, mask: torch.softmax(attn_scores.masked_fill(mask, 0.0), dim=-1),
    ),
    "mask_after_softmax": Mistake(
        "weights masked after softmax without renormalising",
        "zeroing weights after softmax leaves rows that sum to less than 1: divide each row by "
        "its sum again, or mask the scores with -inf before softmax.",
        _fill_after_softmax,
    ),
    "dropout_by_p": Mistake(
        "kept weights scaled by 1/p instead of 1/(1 - p)",
        "dropout keeps a fraction 1 - p of the weights, so it scales them by 1 / (1 - p).",
        lambda attn_weights, keep, p: attn_weights * keep / p,
    ),
    "dropout_unscaled": Mistake(
        "dropout without rescaling the kept weights",
        "after dropping a fraction p, scale what is kept by 1 / (1 - p) so the expected sum "
        "stays the same.",
        lambda attn_weights, keep, p: attn_weights * keep,
    ),
    "mask_not_cut": Mistake(
        "the causal mask not cut to num_tokens",
        "the buffer is (context_length, context_length); for a shorter input use "
        "self.mask[:num_tokens, :num_tokens].",
    ),
    # --- multi-head attention, notebook 07: make(x, num_heads) -> split heads --------------
    "split_without_transpose": Mistake(
        "heads split without the transpose",
        "view(b, num_tokens, num_heads, head_dim) cuts each token's features into heads; then "
        "transpose(1, 2) so the heads come before the tokens. A view straight to "
        "(b, num_heads, num_tokens, head_dim) mixes tokens between heads.",
        lambda x, num_heads: x.reshape(x.shape[0], num_heads, x.shape[1], -1),
    ),
    "merge_without_transpose": Mistake(
        "heads merged without the transpose",
        "bring the tokens back before the heads with transpose(1, 2), then "
        ".contiguous().view(b, num_tokens, d_out).",
        lambda context_vec: context_vec.reshape(context_vec.shape[0], context_vec.shape[2], -1),
    ),
    "d_out_per_head": Mistake(
        "d_out taken per head where it is the total",
        "in MultiHeadAttention d_out is the total: each head gets head_dim = d_out // num_heads.",
    ),
    "no_out_proj": Mistake(
        "the output projection forgotten",
        "after merging the heads, pass the result through self.out_proj.",
    ),
    # --- any stage ----------------------------------------------------------------------------
    "wrong_stage": Mistake(
        "a correct tensor from another stage",
        "this tensor is {stage}; pass the {wanted} instead.",
    ),
}


def hint(name: str, **values: Any) -> str:
    """The hint of mistake ``name`` with its placeholders filled from ``values``."""
    return MISTAKES[name].hint.format(**values)
