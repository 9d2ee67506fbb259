"""Chapter 3's attention layers as ``nn.Module``s, with the book's constructor signatures and
parameter order (its seeds give its numbers); ``last_attn_weights`` keeps weights pre-dropout."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from attnlib import _validate as check
from attnlib.attention import causal_mask, scaled_dot_product_attention

_RANK_HINTS = {  # (rank expected, rank given): what to do
    (3, 2): "; add a batch axis with x.unsqueeze(0)",
    (2, 3): "; this module takes one sequence at a time, "
    "CausalAttention and the multi-head modules take batches",
}


class _Attention(nn.Module):  # what the layers share
    def __init__(self, d_in: object, d_out: object, context_length: object = None) -> None:
        super().__init__()
        self.d_in = check.integer(d_in, "d_in", 1, check.MAX_DIM)
        self.d_out = check.integer(d_out, "d_out", 1, check.MAX_DIM)
        if context_length is not None:
            limit = check.MAX_NUM_TOKENS
            self.context_length = check.integer(context_length, "context_length", 1, limit)
        self.last_attn_weights: torch.Tensor | None = None  # (..., num_tokens, num_tokens)

    def _linear_projections(self, qkv_bias: object) -> None:
        bias = check.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(self.d_in, self.d_out, bias=bias)
        self.W_key = nn.Linear(self.d_in, self.d_out, bias=bias)
        self.W_value = nn.Linear(self.d_in, self.d_out, bias=bias)

    def _check_x(self, x: object) -> None:
        rank = 3 if hasattr(self, "context_length") else 2  # the causal layers take batches
        shape = "(num_tokens, d_in)" if rank == 2 else "(b, num_tokens, d_in)"
        try:
            check.tensor(x, "x", shape, (rank,))
        except ValueError as err:
            hint = _RANK_HINTS.get((rank, getattr(x, "ndim", None)), "")
            raise ValueError(f"{err}{hint}") from None
        check.size(x, "x", -1, self.d_in, "last dimension d_in")
        if rank == 3 and x.shape[1] > self.context_length:
            got = f"num_tokens ({x.shape[1]}) exceeds context_length ({self.context_length})"
            fix = "the causal mask was built for at most context_length tokens"
            raise ValueError(f"x: {got}; {fix}")
        check.like(x, "x", next(self.parameters()), "the module's parameters")

    def _context_vec(self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor):
        num_tokens = queries.shape[-2]  # an x shorter than context_length: the mask's top left
        mask = self.mask[:num_tokens, :num_tokens] if hasattr(self, "mask") else None
        causal = {} if mask is None else {"mask": mask, "dropout": self.dropout}
        context_vec, attn_weights = scaled_dot_product_attention(queries, keys, values, **causal)
        self.last_attn_weights = attn_weights.detach()
        return context_vec

    def extra_repr(self) -> str:
        return f"d_in={self.d_in}, d_out={self.d_out}"


class SelfAttentionV1(_Attention):
    """Self-attention with ``W_query``, ``W_key``, ``W_value`` as raw ``(d_in, d_out)`` matrices."""

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__(d_in, d_out)
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check_x(x)
        return self._context_vec(x @ self.W_query, x @ self.W_key, x @ self.W_value)


class SelfAttentionV2(_Attention):
    """Self-attention with ``nn.Linear`` projections, weights ``(d_out, d_in)``: V1's transposed."""

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__(d_in, d_out)
        self._linear_projections(qkv_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check_x(x)
        return self._context_vec(self.W_query(x), self.W_key(x), self.W_value(x))


class CausalAttention(_Attention):
    """V2 on batches, with ``dropout`` and a ``mask`` buffer, ``True`` above the diagonal."""

    def __init__(self, d_in: int, d_out: int, context_length: int, dropout: float,
                 qkv_bias: bool = False) -> None:  # fmt: skip
        super().__init__(d_in, d_out, context_length)
        self._linear_projections(qkv_bias)
        self.dropout = nn.Dropout(check.probability(dropout, "dropout"))
        self.register_buffer("mask", causal_mask(self.context_length))  # saved, moved, not trained

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check_x(x)
        return self.attend(x)

    def attend(self, x: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` for an ``x`` already checked (the wrapper checks it once)."""
        return self._context_vec(self.W_query(x), self.W_key(x), self.W_value(x))


class MultiHeadAttentionWrapper(_Attention):
    """``num_heads`` ``CausalAttention`` heads side by side: here ``d_out`` is *per head*."""

    def __init__(self, d_in: int, d_out: int, context_length: int, dropout: float,
                 num_heads: int, qkv_bias: bool = False) -> None:  # fmt: skip
        super().__init__(d_in, d_out, context_length)
        self.num_heads = check.integer(num_heads, "num_heads", 1, check.MAX_DIM // self.d_out)
        self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                    for _ in range(num_heads)])  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check_x(x)
        context_vec = torch.cat([head.attend(x) for head in self.heads], dim=-1)
        self.last_attn_weights = torch.stack([head.last_attn_weights for head in self.heads], dim=1)
        return context_vec  # (b, num_tokens, num_heads * d_out)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(b, num_tokens, d_out)`` -> ``(b, num_heads, num_tokens, head_dim)``: slices of d_out."""
    check.tensor(x, "x", "(b, num_tokens, d_out)", (3,))
    num_heads = check.integer(num_heads, "num_heads", 1)
    b, num_tokens, d_out = x.shape
    if d_out % num_heads:
        raise check.invalid("x", f"d_out divisible by num_heads ({num_heads})", d_out)
    # view cuts d_out into num_heads slices; transpose(1, 2) puts the heads before the tokens.
    return x.view(b, num_tokens, num_heads, d_out // num_heads).transpose(1, 2)


class MultiHeadAttention(_Attention):
    """Causal attention in ``num_heads`` heads of ``head_dim``: here ``d_out`` is their total."""

    def __init__(self, d_in: int, d_out: int, context_length: int, dropout: float,
                 num_heads: int, qkv_bias: bool = False) -> None:  # fmt: skip
        super().__init__(d_in, d_out, context_length)
        self.num_heads = check.integer(num_heads, "num_heads", 1, self.d_out)
        if self.d_out % self.num_heads:
            divisible = f"d_out ({self.d_out}) must be divisible by num_heads ({self.num_heads})"
            each = f"each of the {self.num_heads} heads gets d_out // num_heads dimensions"
            raise ValueError(f"{divisible}: {each}")
        self.head_dim = self.d_out // self.num_heads
        self._linear_projections(qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # mixes what the heads found
        self.dropout = nn.Dropout(check.probability(dropout, "dropout"))
        self.register_buffer("mask", causal_mask(self.context_length))  # broadcast over b, heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._check_x(x)
        b, num_tokens, _ = x.shape
        queries = split_heads(self.W_query(x), self.num_heads)  # (b, num_heads, T, head_dim)
        keys = split_heads(self.W_key(x), self.num_heads)
        values = split_heads(self.W_value(x), self.num_heads)
        context_vec = self._context_vec(queries, keys, values)  # scaled by 1/sqrt(head_dim)
        # transpose only swaps strides; .view() needs row-order memory, which .contiguous() copies.
        context_vec = context_vec.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class HeadProjections(NamedTuple):
    """Each head's weights, ``(num_heads, d_in, head_dim)``: its queries are ``x @ W_query[h]``."""

    W_query: torch.Tensor
    W_key: torch.Tensor
    W_value: torch.Tensor


def head_projections(module: MultiHeadAttention) -> HeadProjections:
    """The per-head weights of ``module`` (built with ``qkv_bias=False``), detached."""
    if not isinstance(module, MultiHeadAttention) or module.W_query.bias is not None:
        expected = "an attnlib.modules.MultiHeadAttention with qkv_bias=False"
        raise check.invalid("module", expected, check.describe(module))
    weights = (module.W_query.weight, module.W_key.weight, module.W_value.weight)  # (d_out, d_in)
    return HeadProjections(*(split_heads(w.detach().T[None], module.num_heads)[0] for w in weights))
