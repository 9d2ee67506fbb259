"""The attention layers of chapter 3 as ``torch.nn.Module``s.

Each class keeps the book's constructor signature and creates its parameters in
the book's order, so ``torch.manual_seed(123)`` right before construction gives
the numbers printed in the book. The arithmetic itself lives in one place,
:func:`attnlib.attention.scaled_dot_product_attention`; these modules only
project the inputs into queries, keys and values, hand them over, and (for the
multi-head versions) split and merge heads.

After every forward pass a module keeps its attention weights, detached and
taken *before* dropout, in ``last_attn_weights`` so that a notebook or a widget
can draw them:

=============================  ===================================
module                         ``last_attn_weights`` shape
=============================  ===================================
``SelfAttentionV1``/``V2``     ``(num_tokens, num_tokens)``
``CausalAttention``            ``(b, num_tokens, num_tokens)``
``MultiHeadAttentionWrapper``  ``(b, num_heads, num_tokens, num_tokens)``
``MultiHeadAttention``         ``(b, num_heads, num_tokens, num_tokens)``
=============================  ===================================

It is ``None`` until the first forward pass.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from attnlib import _validate as check
from attnlib.attention import causal_mask, scaled_dot_product_attention

__all__ = [
    "CausalAttention",
    "HeadProjections",
    "MultiHeadAttention",
    "MultiHeadAttentionWrapper",
    "SelfAttentionV1",
    "SelfAttentionV2",
    "head_projections",
    "split_heads",
]

_RANK_HINTS = {
    (3, 2): "; add a batch axis with x.unsqueeze(0)",
    (2, 3): "; this module takes one sequence at a time, "
    "CausalAttention and the multi-head modules take batches",
}


def _check_x(module: nn.Module, x: object, context_length: int | None = None) -> torch.Tensor:
    """Validate a forward input ``x`` against ``module`` before torch can fail on it."""
    rank, shape = (
        (2, "(num_tokens, d_in)") if context_length is None else (3, "(b, num_tokens, d_in)")
    )
    try:
        check.tensor(x, "x", shape, (rank,))
    except ValueError as err:
        hint = _RANK_HINTS.get((rank, getattr(x, "ndim", None)), "")
        raise ValueError(f"{err}{hint}") from None
    check.size(x, "x", -1, module.d_in, "last dimension d_in")
    if context_length is not None and x.shape[1] > context_length:
        raise ValueError(
            f"x: num_tokens ({x.shape[1]}) exceeds context_length ({context_length}); "
            "the causal mask was built for at most context_length tokens"
        )
    return check.like(x, "x", next(module.parameters()), "the module's parameters")


def _sizes(d_in: object, d_out: object, context_length: object = None) -> tuple[int, ...]:
    sizes = (
        check.integer(d_in, "d_in", 1, check.MAX_DIM),
        check.integer(d_out, "d_out", 1, check.MAX_DIM),
    )
    if context_length is None:
        return sizes
    return sizes + (check.integer(context_length, "context_length", 1, check.MAX_NUM_TOKENS),)


class SelfAttentionV1(nn.Module):
    """Self-attention with the weight matrices as raw ``nn.Parameter``s.

    ``W_query``, ``W_key``, ``W_value``: ``(d_in, d_out)``, filled with
    ``torch.rand`` in that order (as in the book, so the book's seed reproduces
    its numbers). ``forward(x)``: ``x`` of shape ``(num_tokens, d_in)`` ->
    ``context_vec`` of shape ``(num_tokens, d_out)``.
    """

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.d_in, self.d_out = _sizes(d_in, d_out)
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_x(self, x)
        # (num_tokens, d_in) @ (d_in, d_out) -> (num_tokens, d_out), one row per token.
        queries = x @ self.W_query
        keys = x @ self.W_key
        values = x @ self.W_value
        # Scaled by 1/sqrt(d_out): d_k is the keys' last dimension.
        context_vec, attn_weights = scaled_dot_product_attention(queries, keys, values)
        self.last_attn_weights = attn_weights.detach()  # (num_tokens, num_tokens)
        return context_vec

    def extra_repr(self) -> str:
        return f"d_in={self.d_in}, d_out={self.d_out}"


class SelfAttentionV2(nn.Module):
    """Self-attention with ``nn.Linear`` projections (better initialisation, optional bias).

    ``W_query``, ``W_key``, ``W_value``: ``nn.Linear(d_in, d_out, bias=qkv_bias)``,
    created in that order. A ``Linear`` stores its weight as ``(d_out, d_in)``,
    the transpose of ``SelfAttentionV1``'s matrices. ``forward(x)``: ``x`` of
    shape ``(num_tokens, d_in)`` -> ``(num_tokens, d_out)``.
    """

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__()
        self.d_in, self.d_out = _sizes(d_in, d_out)
        check.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_x(self, x)
        queries = self.W_query(x)  # (num_tokens, d_out)
        keys = self.W_key(x)
        values = self.W_value(x)
        context_vec, attn_weights = scaled_dot_product_attention(queries, keys, values)
        self.last_attn_weights = attn_weights.detach()  # (num_tokens, num_tokens)
        return context_vec


class CausalAttention(nn.Module):
    """Single-head attention that hides later tokens, with dropout on the weights.

    ``W_query``, ``W_key``, ``W_value``: ``nn.Linear(d_in, d_out, bias=qkv_bias)``;
    ``dropout``: ``nn.Dropout(dropout)``; buffer ``mask``: ``(context_length,
    context_length)`` bool, ``True`` above the diagonal (see
    :func:`attnlib.attention.causal_mask`). A buffer moves with ``.to(device)``
    and is saved in ``state_dict`` but is not trained.

    ``forward(x)``: ``x`` of shape ``(b, num_tokens, d_in)`` with
    ``num_tokens <= context_length`` -> ``(b, num_tokens, d_out)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_in, self.d_out, self.context_length = _sizes(d_in, d_out, context_length)
        p = check.probability(dropout, "dropout")
        check.flag(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(p)
        self.register_buffer("mask", causal_mask(context_length))
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_x(self, x, self.context_length)
        return self.attend(x)

    def attend(self, x: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` for an ``x`` already checked (the wrapper checks it once)."""
        num_tokens = x.shape[1]
        queries = self.W_query(x)  # (b, num_tokens, d_out)
        keys = self.W_key(x)
        values = self.W_value(x)
        # The mask is built for context_length tokens; a shorter input uses its top-left corner.
        context_vec, attn_weights = scaled_dot_product_attention(
            queries,
            keys,
            values,
            mask=self.mask[:num_tokens, :num_tokens],
            dropout=self.dropout,
        )
        self.last_attn_weights = attn_weights.detach()  # (b, num_tokens, num_tokens)
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    """``num_heads`` independent ``CausalAttention`` heads, outputs side by side.

    Each head has its own projections of size ``d_out``, so the result has
    ``num_heads * d_out`` features: ``d_out`` is *per head* here (unlike
    :class:`MultiHeadAttention`, where it is the total). ``forward(x)``: ``x`` of
    shape ``(b, num_tokens, d_in)`` -> ``(b, num_tokens, num_heads * d_out)``.

    ``last_attn_weights`` stacks the heads' weights: ``(b, num_heads, num_tokens,
    num_tokens)``; each head also keeps its own ``(b, num_tokens, num_tokens)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_in, self.d_out, self.context_length = _sizes(d_in, d_out, context_length)
        self.num_heads = check.integer(num_heads, "num_heads", 1, check.MAX_DIM // self.d_out)
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                for _ in range(num_heads)
            ]
        )
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_x(self, x, self.context_length)
        # Each head: (b, num_tokens, d_out); concatenated: (b, num_tokens, num_heads * d_out).
        context_vec = torch.cat([head.attend(x) for head in self.heads], dim=-1)
        self.last_attn_weights = torch.stack([head.last_attn_weights for head in self.heads], dim=1)
        return context_vec


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``(b, num_tokens, d_out)`` -> ``(b, num_heads, num_tokens, head_dim)``.

    The last axis is cut into ``num_heads`` consecutive pieces of ``head_dim =
    d_out // num_heads``; ``transpose(1, 2)`` then puts the heads before the
    tokens, so each head is one batch of matrices for attention.
    """
    b, num_tokens, d_out = x.shape
    return x.view(b, num_tokens, num_heads, d_out // num_heads).transpose(1, 2)


class MultiHeadAttention(nn.Module):
    """Multi-head causal attention with one projection per role, split into heads.

    ``W_query``, ``W_key``, ``W_value``: ``nn.Linear(d_in, d_out, bias=qkv_bias)``;
    ``out_proj``: ``nn.Linear(d_out, d_out)``; created in that order. ``d_out`` is
    the *total*: it is split into ``num_heads`` heads of ``head_dim = d_out //
    num_heads`` dimensions, which is why it must be divisible by ``num_heads``.

    ``forward(x)``: ``x`` of shape ``(b, num_tokens, d_in)`` with
    ``num_tokens <= context_length`` -> ``(b, num_tokens, d_out)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_in, self.d_out, self.context_length = _sizes(d_in, d_out, context_length)
        p = check.probability(dropout, "dropout")
        self.num_heads = check.integer(num_heads, "num_heads", 1, self.d_out)
        if d_out % num_heads:
            raise ValueError(
                f"d_out ({d_out}) must be divisible by num_heads ({num_heads}): "
                f"each of the {num_heads} heads gets d_out // num_heads dimensions"
            )
        check.flag(qkv_bias, "qkv_bias")
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # mixes what the heads found
        self.dropout = nn.Dropout(p)
        self.register_buffer("mask", causal_mask(context_length))
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_x(self, x, self.context_length)
        b, num_tokens, _ = x.shape
        queries = split_heads(self.W_query(x), self.num_heads)  # (b, num_heads, T, head_dim)
        keys = split_heads(self.W_key(x), self.num_heads)
        values = split_heads(self.W_value(x), self.num_heads)
        # keys' last dimension is head_dim, so the scores are scaled by 1/sqrt(head_dim).
        # The (num_tokens, num_tokens) mask broadcasts over batch and heads.
        context_vec, attn_weights = scaled_dot_product_attention(
            queries,
            keys,
            values,
            mask=self.mask[:num_tokens, :num_tokens],
            dropout=self.dropout,
        )
        self.last_attn_weights = attn_weights.detach()  # (b, num_heads, num_tokens, num_tokens)
        # Back to (b, num_tokens, num_heads, head_dim). The transpose only changes strides,
        # so .contiguous() copies the memory into row order, which .view() needs to merge
        # the heads into one d_out axis.
        context_vec = context_vec.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


class HeadProjections(NamedTuple):
    """Every head's query, key and value weights, each ``(num_heads, d_in, head_dim)``.

    Head ``h`` projects ``inputs`` ``(num_tokens, d_in)`` to its queries
    ``inputs @ W_query[h]``, ``(num_tokens, head_dim)``, and likewise keys and values.
    """

    W_query: torch.Tensor
    W_key: torch.Tensor
    W_value: torch.Tensor


def head_projections(module: MultiHeadAttention) -> HeadProjections:
    """The per-head weights of ``module`` (built with ``qkv_bias=False``), detached."""
    if not isinstance(module, MultiHeadAttention):
        got = check.describe(module)
        raise ValueError(f"module: expected an attnlib.modules.MultiHeadAttention, got {got}")
    if module.W_query.bias is not None:
        raise ValueError("module: expected qkv_bias=False (no bias to add), got qkv_bias=True")
    # nn.Linear computes x @ weight.T; its (d_in, d_out) columns split like the outputs do.
    return HeadProjections(
        *(
            split_heads(linear.weight.detach().T.unsqueeze(0), module.num_heads)[0]
            for linear in (module.W_query, module.W_key, module.W_value)
        )
    )
