"""Chapter 3's attention layers as ``nn.Module``s, with the book's constructor signatures and
parameter order (its seeds give its numbers). Read the classes in order: each forward pass shows
its own steps, and each class changes a few lines of the one before it."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from attnlib import _modules_args as arguments
from attnlib import _validate as validate
from attnlib.attention import causal_mask


class _Layer(nn.Module):
    """What the layers share besides their math: their sizes, the check of ``x`` and
    ``last_attn_weights``, the weights before dropout ``(..., num_tokens, num_tokens)``."""

    #: ``None``: ``x`` is one sequence ``(num_tokens, d_in)``; an int: a batch of sequences
    #: ``(b, num_tokens, d_in)`` of at most that many tokens (the causal mask's size).
    context_length: int | None = None

    def __init__(self, d_in: object, d_out: object) -> None:
        super().__init__()
        self.d_in, self.d_out = arguments.layer_sizes(d_in, d_out)
        self.last_attn_weights: torch.Tensor | None = None

    def extra_repr(self) -> str:
        return f"d_in={self.d_in}, d_out={self.d_out}"


class SelfAttentionV1(_Layer):
    """Self-attention with ``W_query``, ``W_key``, ``W_value`` as raw ``(d_in, d_out)`` matrices:
    ``x`` ``(num_tokens, d_in)`` -> ``(num_tokens, d_out)``."""

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__(d_in, d_out)
        arguments.layer_memory("SelfAttentionV1", [(self.d_in, self.d_out)] * 3)
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        arguments.layer_input(x, self.d_in, self.context_length, self.W_query)

        queries = x @ self.W_query  # (num_tokens, d_out)
        keys = x @ self.W_key
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # (num_tokens, num_tokens)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        self.last_attn_weights = attn_weights.detach()
        context_vec = attn_weights @ values
        return validate.finite(context_vec, "context_vec", validate.OVERFLOW)


class SelfAttentionV2(_Layer):
    """V1 with ``nn.Linear`` projections (weights ``(d_out, d_in)``, V1's transposed, and a
    better initialisation), optionally with a bias: ``(num_tokens, d_in)`` -> ``(num_tokens,
    d_out)``."""

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__(d_in, d_out)
        arguments.layer_memory("SelfAttentionV2", [(self.d_out, self.d_in)] * 3)
        qkv_bias = validate.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        arguments.layer_input(x, self.d_in, self.context_length, self.W_query.weight)

        queries = self.W_query(x)  # V1's x @ W_query
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        self.last_attn_weights = attn_weights.detach()
        context_vec = attn_weights @ values
        return validate.finite(context_vec, "context_vec", validate.OVERFLOW)


class CausalAttention(_Layer):
    """V2 on batches ``(b, num_tokens, d_in)`` -> ``(b, num_tokens, d_out)``, where a token
    attends only to itself and earlier tokens (a ``mask`` buffer, ``True`` above the diagonal),
    with dropout on the attention weights."""

    def __init__(
        self, d_in: int, d_out: int, context_length: int, dropout: float, qkv_bias: bool = False
    ) -> None:
        super().__init__(d_in, d_out)
        self.context_length = arguments.context_length(context_length)
        weights = [(self.d_out, self.d_in)] * 3
        arguments.layer_memory("CausalAttention", weights, self.context_length)
        qkv_bias = validate.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(validate.probability(dropout, "dropout"))
        # A buffer: saved with the module and moved by .to(), but not trained.
        self.register_buffer("mask", causal_mask(context_length))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        arguments.layer_input(x, self.d_in, self.context_length, self.W_query.weight)

        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)  # (b, num_tokens, d_out)
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)  # keys.T would also swap the batch axis
        # A shorter input than context_length uses the mask's top-left corner.
        attn_scores.masked_fill_(self.mask[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        self.last_attn_weights = attn_weights.detach()
        attn_weights = self.dropout(attn_weights)
        context_vec = attn_weights @ values
        return validate.finite(context_vec, "context_vec", validate.OVERFLOW)


class MultiHeadAttentionWrapper(_Layer):
    """``num_heads`` ``CausalAttention`` heads side by side, their outputs concatenated: here
    ``d_out`` is *per head*; ``(b, num_tokens, d_in)`` -> ``(b, num_tokens, num_heads * d_out)``."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__(d_in, d_out)
        self.context_length = arguments.context_length(context_length)
        self.num_heads = validate.integer(num_heads, "num_heads", 1, validate.MAX_DIM // self.d_out)
        weights = [(self.d_out, self.d_in)] * 3  # each head's, as in CausalAttention
        arguments.layer_memory("MultiHeadAttentionWrapper", weights, self.context_length, num_heads)
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                for _ in range(num_heads)
            ]
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        context_vec = torch.cat([head(x) for head in self.heads], dim=-1)  # each head checks x
        self.last_attn_weights = torch.stack([head.last_attn_weights for head in self.heads], dim=1)
        return context_vec


class MultiHeadAttention(_Layer):
    """The wrapper's heads computed together: one ``d_out`` split into ``num_heads`` heads of
    ``head_dim = d_out // num_heads``, then mixed by ``out_proj``; ``d_out`` is the total here.
    ``(b, num_tokens, d_in)`` -> ``(b, num_tokens, d_out)``."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__(d_in, d_out)
        self.context_length = arguments.context_length(context_length)
        self.num_heads = arguments.num_heads(num_heads, self.d_out)
        self.head_dim = self.d_out // self.num_heads
        weights = [(self.d_out, self.d_in)] * 3 + [(self.d_out, self.d_out)]
        arguments.layer_memory("MultiHeadAttention", weights, self.context_length)
        qkv_bias = validate.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # mixes what the heads found
        self.dropout = nn.Dropout(validate.probability(dropout, "dropout"))
        self.register_buffer("mask", causal_mask(context_length))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = self.W_query.weight
        arguments.layer_input(x, self.d_in, self.context_length, weight, self.num_heads)

        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)  # (b, num_tokens, d_out)
        keys = self.W_key(x)
        values = self.W_value(x)
        # Cut d_out into num_heads slices of head_dim: (b, num_tokens, num_heads, head_dim) ...
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        # ... and put the heads before the tokens: (b, num_heads, num_tokens, head_dim).
        queries = queries.transpose(1, 2)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)  # (b, num_heads, num_tokens, num_tokens)
        attn_scores.masked_fill_(self.mask[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)  # head_dim
        self.last_attn_weights = attn_weights.detach()
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)  # (b, num_tokens, heads, head_dim)
        # transpose only swaps strides; .view() needs row-order memory, which .contiguous() copies.
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return validate.finite(context_vec, "context_vec", validate.OVERFLOW)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(b, num_tokens, d_out)`` -> ``(b, num_heads, num_tokens, head_dim)``: the view and the
    transpose of :class:`MultiHeadAttention`'s forward pass, as one function."""
    num_heads = arguments.heads_of(x, num_heads)

    b, num_tokens, d_out = x.shape
    return x.view(b, num_tokens, num_heads, d_out // num_heads).transpose(1, 2)


class HeadProjections(NamedTuple):
    """Each head's weights, ``(num_heads, d_in, head_dim)``: its queries are ``x @ W_query[h]``."""

    W_query: torch.Tensor
    W_key: torch.Tensor
    W_value: torch.Tensor


def head_projections(module: MultiHeadAttention) -> HeadProjections:
    """The per-head weights of ``module`` (built with ``qkv_bias=False``), detached."""
    arguments.unbiased_multi_head(module, MultiHeadAttention)

    weights = (module.W_query.weight, module.W_key.weight, module.W_value.weight)  # (d_out, d_in)
    return HeadProjections(*(split_heads(w.detach().T[None], module.num_heads)[0] for w in weights))
