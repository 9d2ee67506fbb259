"""Mistakes of notebooks 05-09, in their old positional form, until phase 2 sorts them into
the kind tables beside scores.py, weights.py, context.py, tokens.py and questions.py."""

from __future__ import annotations

import math

import torch

from attnlib.mistakes._row import Mistake


def _fill_after_softmax(attn_scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.softmax(attn_scores, dim=-1).masked_fill(mask, 0.0)


TABLE: dict[str, Mistake] = {
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
    "scale_by_num_tokens": Mistake(
        "scores scaled by the number of tokens (keys.shape[0]) instead of the key size",
        "keys has one row per token and one column per key entry: d_k is the last axis, "
        "keys.shape[-1], not keys.shape[0].",
        lambda keys: 1.0 / math.sqrt(keys.shape[0]),
    ),
    "scale_hardcoded": Mistake(
        "the scale typed in as a number",
        "read d_k from the keys, keys.shape[-1] ** 0.5, so the line stays right for any d_out: "
        "with d_out = 4 the scale is sqrt(4) = 2, not sqrt(2).",
        lambda typed_d_k: 1.0 / math.sqrt(typed_d_k),
    ),
    # --- notebook 05: projections, the forward pass, a prediction ---------------------------
    "projection_mixed_up": Mistake(
        "a projection made with another role's matrix",
        "each role has its own matrix: queries = inputs @ W_query, keys = inputs @ W_key, "
        "values = inputs @ W_value.",
    ),
    "projection_order": Mistake(
        "the matrix written before the inputs (W @ inputs)",
        "each token is a row of inputs, and a row is multiplied from the left: "
        "inputs @ W_query, (6, 3) @ (3, 2) -> (6, 2).",
        lambda inputs, W: W @ inputs,
    ),
    "blend_inputs": Mistake(
        "the inputs blended instead of the values",
        "trainable attention blends the value vectors: attn_weights @ values, "
        "(6, 6) @ (6, d_out) -> (6, d_out); attn_weights @ x was notebook 04's recipe.",
        lambda attn_weights, inputs: attn_weights @ inputs,
    ),
    "weights_sized_by_d_out": Mistake(
        "the attention weights sized by d_out",
        "there is one weight per pair of tokens, (num_tokens, num_tokens), whatever d_out is; "
        "d_out sizes the queries, keys, values and context vectors.",
        lambda num_tokens, d_out: (num_tokens, d_out),
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
    "mask_inverted": Mistake(
        "the mask inverted: it hides the visible tokens",
        "masked_fill hides the positions where the mask is True. torch.tril marks what a query "
        "may see; the positions to hide are above the diagonal: torch.triu(..., diagonal=1).",
        lambda num_tokens: torch.ones(num_tokens, num_tokens, dtype=torch.bool).tril(),
    ),
    "mask_not_bool": Mistake(
        "a mask of 0/1 floats given to masked_fill",
        "masked_fill needs a bool mask (True = hidden): build it with dtype=torch.bool, or call "
        ".bool() on the 0/1 mask.",
        lambda num_tokens: torch.ones(num_tokens, num_tokens).triu(diagonal=1),
    ),
    "no_dropout": Mistake(
        "dropout not applied to the weights",
        "in training mode the layer drops weights: attn_weights = self.dropout(attn_weights), "
        "after softmax and before the weights blend the values.",
    ),
    "causal_first_row": Mistake(
        "the first row, which the mask changes most",
        "'Your' may see only itself, so the mask hides 5 of its 6 weights. Look for the query "
        "that already sees every token.",
    ),
    "query_not_value": Mistake(
        "the query of 'Your' instead of its value",
        "attention weights blend value vectors. With all its weight on itself, 'Your' gets its "
        "own value vector: ca.W_value(inputs[0]).",
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
    # make(head_outputs): the wrapper's heads' outputs, each (b, num_tokens, d_out), combined.
    "heads_cat_wrong_axis": Mistake(
        "the heads' outputs concatenated along the tokens axis",
        "torch.cat(..., dim=1) puts the heads' tokens one after the other: (b, 2 * num_tokens, "
        "d_out). Put each token's heads side by side along the last axis: dim=-1.",
        lambda head_outputs: torch.cat(head_outputs, dim=1),
    ),
    "heads_summed": Mistake(
        "the heads' outputs added instead of put side by side",
        "adding blurs what each head found into d_out features; the wrapper keeps every head's "
        "features: torch.cat([head(x) for head in self.heads], dim=-1).",
        lambda head_outputs: sum(head_outputs[1:], head_outputs[0]),
    ),
    "split_transpose_last": Mistake(
        "heads split with transpose(-2, -1) instead of transpose(1, 2)",
        "after view(b, num_tokens, num_heads, head_dim), transpose(-2, -1) swaps heads and "
        "features; transpose(1, 2) swaps tokens and heads, giving (b, num_heads, num_tokens, "
        "head_dim).",
        lambda x, num_heads: x.view(*x.shape[:2], num_heads, -1).transpose(-2, -1),
    ),
    "view_without_contiguous": Mistake(
        "view() straight after the transpose, without .contiguous()",
        "a transpose only swaps strides, so the heads to merge are not side by side in memory: "
        "write context_vec.transpose(1, 2).contiguous().view(b, num_tokens, d_out) (or use "
        ".reshape).",
        lambda context_vec: context_vec.transpose(1, 2).view(
            context_vec.shape[0], context_vec.shape[2], -1
        ),
    ),
    "d_out_per_head": Mistake(
        "d_out taken per head where it is the total",
        "in MultiHeadAttention d_out is the total: each head gets head_dim = d_out // num_heads "
        "features, and the output has d_out features (the wrapper is the one whose d_out is per "
        "head).",
        # make(x, num_heads): heads split as if each had d_out features (raises for num_heads > 1).
        lambda x, num_heads: x.view(*x.shape[:2], num_heads, x.shape[-1]).transpose(1, 2),
    ),
    "scale_by_d_out": Mistake(
        "scores scaled by sqrt(d_out) instead of sqrt(head_dim)",
        "each head's dot products run over its head_dim features, so divide by "
        "keys.shape[-1] ** 0.5 (head_dim), not by the total d_out.",
    ),
    "no_out_proj": Mistake(
        "the output projection forgotten",
        "after merging the heads, pass the result through self.out_proj.",
    ),
    "argmax_per_query": Mistake(
        "each query taken to pick its own most weighted token",
        "with head_dim 1 a score is the product q_i * k_j of two numbers. For every query with "
        "q_i > 0 the largest score is with the largest k_j; for every query with q_i < 0, with "
        "the smallest k_j. So all queries share at most two favourites.",
    ),
    "query_sign_ignored": Mistake(
        "the queries' sign forgotten",
        "a positive q_i ranks the keys from largest to smallest, but a negative q_i ranks them "
        "the other way round: the smallest k_j then gives the largest score q_i * k_j.",
    ),
}
