"""Mistakes in multi-head attention (notebook 07): heads side by side, split and merged.

Each row is the reader's answer with the mistake: a wrapper class (07.wrapper_forward), a
function that builds one (07.two_features), ``split(x, num_heads)``, ``merge(context_vec)``,
``one_head_weights(mha, x, h)`` or ``copy_heads(wrapper, mha)``.
"""

from __future__ import annotations

import torch

from attnlib._seeding import seeded
from attnlib.attention import attention_weights
from attnlib.mistakes._row import Mistake, table
from attnlib.modules import MultiHeadAttention, MultiHeadAttentionWrapper


def _joined(join):
    """The wrapper with ``join(outputs)`` putting its heads' outputs together: a forward."""

    class Wrapper(MultiHeadAttentionWrapper):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return join([head(x) for head in self.heads])

    return Wrapper


def pair(d_in, d_out, num_heads):
    """The two layers of 07.copy_heads: a wrapper of ``num_heads`` heads of ``d_out`` features
    each (seed 123) and a MultiHeadAttention of ``num_heads * d_out`` features (seed 321)."""
    with seeded(123):
        wrapper = MultiHeadAttentionWrapper(d_in, d_out, 8, 0.0, num_heads)
    with seeded(321):
        mha = MultiHeadAttention(d_in, num_heads * d_out, 8, 0.0, num_heads)
    return wrapper, mha


def copy_heads(wrapper, mha, eye=True, bias=True, order=1) -> None:
    """The wrapper's heads copied into mha, done right or with out_proj left (``eye=False``),
    its bias left (``bias=False``) or the heads in reverse order (``order=-1``)."""
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            weights = [getattr(head, name).weight for head in wrapper.heads][::order]
            getattr(mha, name).weight.copy_(torch.cat(weights, dim=0))
        if eye:
            mha.out_proj.weight.copy_(torch.eye(mha.d_out))
        if bias:
            mha.out_proj.bias.zero_()


def one_head(mha, x, h, rows=None, d_k=None, causal=True):
    """Head ``h``'s attention weights on ``x`` (num_tokens, d_in), (num_tokens, num_tokens):
    attnlib's weights of the queries and keys that the ``rows`` of mha's projections make (by
    default the head's block of ``head_dim`` rows), scaled by the root of ``d_k`` (by default
    ``head_dim``), causal or not."""
    size = mha.head_dim
    rows = slice(h * size, (h + 1) * size) if rows is None else rows
    with torch.no_grad():
        queries, keys = (x @ W.weight[rows].T for W in (mha.W_query, mha.W_key))
        return attention_weights(queries, keys, scale=(d_k or size) ** -0.5, causal=causal)


TABLE: dict[str, Mistake] = table(
    """
split_without_transpose | heads split without the transpose
    view(b, num_tokens, num_heads, head_dim) cuts each token's features into heads; then
    transpose(1, 2) so the heads come before the tokens. A view straight to (b, num_heads,
    num_tokens, head_dim) mixes tokens between heads.
merge_without_transpose | heads merged without the transpose
    bring the tokens back before the heads with transpose(1, 2), then .contiguous().view(b,
    num_tokens, d_out).
heads_cat_wrong_axis | the heads' outputs concatenated along the tokens axis
    torch.cat(..., dim=1) puts the heads' tokens one after the other: (b, 2 * num_tokens, d_out).
    Put each token's heads side by side along the last axis: dim=-1.
heads_summed | the heads' outputs added instead of put side by side
    adding blurs what each head found into d_out features; the wrapper keeps every head's features:
    torch.cat([head(x) for head in self.heads], dim=-1).
split_transpose_last | heads split with transpose(-2, -1) instead of transpose(1, 2)
    after view(b, num_tokens, num_heads, head_dim), transpose(-2, -1) swaps heads and features;
    transpose(1, 2) swaps tokens and heads, giving (b, num_heads, num_tokens, head_dim).
view_without_contiguous | view() straight after the transpose, without .contiguous()
    a transpose only swaps strides, so the heads to merge are not side by side in memory: write
    context_vec.transpose(1, 2).contiguous().view(b, num_tokens, d_out) (or use .reshape).
d_out_per_head | d_out taken per head where it is the total
    in MultiHeadAttention d_out is the total: each head gets head_dim = d_out // num_heads features,
    and the output has d_out features (the wrapper is the one whose d_out is per head).
wrapper_d_out_total | d_out read as the total of the wrapper's heads
    the wrapper gives every head its own d_out and puts them side by side: num_heads=2 heads of
    d_out=2 give 4 features. For 2 features, each head gets d_out=1.
wrapper_one_head | one head of 2 features instead of two heads of 1
    the exercise keeps num_heads=2: the two features must come one from each head,
    MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2).
argmax_per_query | each query taken to pick its own most weighted token
    with head_dim 1 a score is the product q_i * k_j of two numbers. For every query with q_i > 0
    the largest score is with the largest k_j; for every query with q_i < 0, with the smallest k_j.
    So all queries share at most two favourites.
query_sign_ignored | the queries' sign forgotten
    a positive q_i ranks the keys from largest to smallest, but a negative q_i ranks them the other
    way round: the smallest k_j then gives the largest score q_i * k_j.
# --- 07.copy_heads: a wrapper's heads copied into MultiHeadAttention ---------------------
out_proj_left_random | out_proj left as it was drawn
    MultiHeadAttention sends the heads' outputs, side by side, through out_proj; the wrapper has
    none. Make out_proj change nothing: its weight the identity, torch.eye(d_out), and its bias 0.
out_proj_bias_kept | out_proj's bias left in
    an identity weight passes the heads through, but out_proj also adds its bias to every token's
    output: set it to 0 with .zero_().
heads_reversed | the heads copied in reverse order
    rows 0 to head_dim - 1 of MultiHeadAttention's W_query.weight are head 0, the next head_dim rows
    head 1, and so on: stack the heads' weights in the wrapper's order.
# --- 07.one_head: one head's weights from the rows of the layer's projections -------------
head_strided | every num_heads-th feature taken for a head
    view(b, num_tokens, num_heads, head_dim) cuts each token's d_out features into consecutive
    groups: head h is features h * head_dim to (h + 1) * head_dim - 1, one block of rows of each
    weight, not every num_heads-th row.
head_scale_d_out | the scores divided by the root of d_out
    a head's dot product runs over its own head_dim features, so the scale is the root of head_dim,
    not of the whole d_out.
head_unmasked | the causal mask left out
    every head of MultiHeadAttention is causal: its scores above the diagonal are filled with -inf
    before softmax, as in notebook 06.
""",
    split_without_transpose=lambda x, num_heads: x.reshape(x.shape[0], num_heads, x.shape[1], -1),
    merge_without_transpose=lambda context_vec: context_vec.reshape(
        context_vec.shape[0], context_vec.shape[2], -1
    ),
    heads_cat_wrong_axis=_joined(lambda outputs: torch.cat(outputs, dim=1)),
    heads_summed=_joined(lambda outputs: sum(outputs[1:], outputs[0])),
    split_transpose_last=lambda x, num_heads: x.view(*x.shape[:2], num_heads, -1).transpose(-2, -1),
    view_without_contiguous=lambda context_vec: context_vec.transpose(1, 2).view(
        context_vec.shape[0], context_vec.shape[2], -1
    ),
    d_out_per_head=lambda x, num_heads: x.view(*x.shape[:2], num_heads, x.shape[-1]).transpose(
        1, 2
    ),
    wrapper_d_out_total=lambda d_in, context_length, dropout: MultiHeadAttentionWrapper(
        d_in, 2, context_length, dropout, num_heads=2
    ),
    wrapper_one_head=lambda d_in, context_length, dropout: MultiHeadAttentionWrapper(
        d_in, 2, context_length, dropout, num_heads=1
    ),
    out_proj_left_random=lambda wrapper, mha: copy_heads(wrapper, mha, eye=False, bias=False),
    out_proj_bias_kept=lambda wrapper, mha: copy_heads(wrapper, mha, bias=False),
    heads_reversed=lambda wrapper, mha: copy_heads(wrapper, mha, order=-1),
    head_strided=lambda mha, x, h: one_head(mha, x, h, rows=slice(h, None, mha.num_heads)),
    head_scale_d_out=lambda mha, x, h: one_head(mha, x, h, d_k=mha.d_out),
    head_unmasked=lambda mha, x, h: one_head(mha, x, h, causal=False),
)
