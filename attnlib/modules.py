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

import torch
from torch import nn

from attnlib._validate import as_float_tensor, check_int, check_nonempty, check_rank, describe
from attnlib.attention import causal_mask, scaled_dot_product_attention

__all__ = [
    "CausalAttention",
    "MultiHeadAttention",
    "MultiHeadAttentionWrapper",
    "SelfAttentionV1",
    "SelfAttentionV2",
]


# --- argument checks -------------------------------------------------------------------


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected True or False, got {describe(value)}")
    return value


def _check_dropout(value: object) -> float:
    # An int 0 is accepted as 0.0; True/False are refused (they are ints in Python).
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"dropout: expected a float in [0, 1), got {describe(value)}")
    # Written so that NaN fails too. p = 1 would drop every weight and scale by 1/0.
    if not 0.0 <= value < 1.0:
        raise ValueError(f"dropout: expected a float in [0, 1), got {value!r}")
    return float(value)


def _check_heads(d_out: int, num_heads: int) -> int:
    check_int(num_heads, "num_heads", minimum=1)
    if d_out % num_heads != 0:
        raise ValueError(
            f"d_out ({d_out}) must be divisible by num_heads ({num_heads}): "
            f"each of the {num_heads} heads gets d_out // num_heads dimensions"
        )
    return num_heads


def _check_x(
    module: nn.Module,
    x: object,
    d_in: int,
    batched: bool,
    context_length: int | None = None,
) -> torch.Tensor:
    """Validate a forward input before any torch operation can fail on it."""
    x = as_float_tensor(x, "x")
    if batched:
        try:
            check_rank(x, "x", (3,), "(b, num_tokens, d_in)")
        except ValueError as err:
            hint = "; add a batch axis with x.unsqueeze(0)" if x.dim() == 2 else ""
            raise ValueError(f"{err}{hint}") from None
        if x.shape[0] == 0:
            raise ValueError(
                f"x: expected at least one sequence in the batch, got shape {tuple(x.shape)}"
            )
    else:
        try:
            check_rank(x, "x", (2,), "(num_tokens, d_in)")
        except ValueError as err:
            hint = (
                "; this module takes one sequence at a time, "
                "CausalAttention and the multi-head modules take batches"
                if x.dim() == 3
                else ""
            )
            raise ValueError(f"{err}{hint}") from None
    # Checked before the zero-token test so that a (0, d_in) input is named as such.
    if x.shape[-1] != d_in:
        raise ValueError(
            f"x: expected last dimension d_in = {d_in}, got {x.shape[-1]} (shape {tuple(x.shape)})"
        )
    check_nonempty(x, "x", axis=-2, what="tokens")
    num_tokens = x.shape[-2]
    if context_length is not None and num_tokens > context_length:
        raise ValueError(
            f"x: num_tokens ({num_tokens}) exceeds context_length ({context_length}); "
            "the causal mask was built for at most context_length tokens"
        )
    weight = next(module.parameters())
    if x.dtype != weight.dtype or x.device != weight.device:
        raise ValueError(
            f"x: expected dtype {weight.dtype} on {weight.device} (as the module's "
            f"parameters), got dtype {x.dtype} on {x.device}; convert with "
            f"x.to({weight.dtype}) or the module with .to({x.dtype})"
        )
    return x


# --- single-head self-attention --------------------------------------------------------


class SelfAttentionV1(nn.Module):
    """Self-attention with the weight matrices as raw ``nn.Parameter``s.

    ``W_query``, ``W_key``, ``W_value``: ``(d_in, d_out)``, filled with
    ``torch.rand`` in that order (as in the book, so the book's seed reproduces
    its numbers). ``forward(x)``: ``x`` of shape ``(num_tokens, d_in)`` ->
    ``context_vec`` of shape ``(num_tokens, d_out)``.
    """

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.d_in = check_int(d_in, "d_in", minimum=1)
        self.d_out = check_int(d_out, "d_out", minimum=1)
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_x(self, x, self.d_in, batched=False)
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
        self.d_in = check_int(d_in, "d_in", minimum=1)
        self.d_out = check_int(d_out, "d_out", minimum=1)
        _check_bool(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_x(self, x, self.d_in, batched=False)
        queries = self.W_query(x)  # (num_tokens, d_out)
        keys = self.W_key(x)
        values = self.W_value(x)
        context_vec, attn_weights = scaled_dot_product_attention(queries, keys, values)
        self.last_attn_weights = attn_weights.detach()  # (num_tokens, num_tokens)
        return context_vec


# --- causal attention ------------------------------------------------------------------


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
        self.d_in = check_int(d_in, "d_in", minimum=1)
        self.d_out = check_int(d_out, "d_out", minimum=1)
        self.context_length = check_int(context_length, "context_length", minimum=1)
        p = _check_dropout(dropout)
        _check_bool(qkv_bias, "qkv_bias")
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(p)
        self.register_buffer("mask", causal_mask(context_length))
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_x(self, x, self.d_in, batched=True, context_length=self.context_length)
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


# --- multi-head attention --------------------------------------------------------------


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
        self.d_in = check_int(d_in, "d_in", minimum=1)
        self.d_out = check_int(d_out, "d_out", minimum=1)  # per head: the output has num_heads x
        self.context_length = check_int(context_length, "context_length", minimum=1)
        self.num_heads = check_int(num_heads, "num_heads", minimum=1)
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                for _ in range(num_heads)
            ]
        )
        self.last_attn_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Checked here too so that an error names the wrapper's input, not a head's.
        x = _check_x(self, x, self.d_in, batched=True, context_length=self.context_length)
        # Each head: (b, num_tokens, d_out); concatenated: (b, num_tokens, num_heads * d_out).
        context_vec = torch.cat([head(x) for head in self.heads], dim=-1)
        self.last_attn_weights = torch.stack([head.last_attn_weights for head in self.heads], dim=1)
        return context_vec


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
        self.d_in = check_int(d_in, "d_in", minimum=1)
        self.d_out = check_int(d_out, "d_out", minimum=1)
        self.context_length = check_int(context_length, "context_length", minimum=1)
        p = _check_dropout(dropout)
        self.num_heads = _check_heads(d_out, num_heads)
        _check_bool(qkv_bias, "qkv_bias")
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # mixes what the heads found
        self.dropout = nn.Dropout(p)
        self.register_buffer("mask", causal_mask(context_length))
        self.last_attn_weights: torch.Tensor | None = None

    def _split_heads(self, t: torch.Tensor) -> torch.Tensor:
        b, num_tokens, _ = t.shape
        # (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim): the last axis is cut
        # into consecutive pieces, one per head. Then transpose(1, 2) puts the heads before
        # the tokens, (b, num_heads, num_tokens, head_dim), so each head is one batch of
        # matrices for the attention below.
        return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_x(self, x, self.d_in, batched=True, context_length=self.context_length)
        b, num_tokens, _ = x.shape
        queries = self._split_heads(self.W_query(x))  # (b, num_heads, num_tokens, head_dim)
        keys = self._split_heads(self.W_key(x))
        values = self._split_heads(self.W_value(x))
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
        # so the memory is no longer in row order; .contiguous() copies it into order,
        # which .view() needs to merge the heads into one d_out axis.
        context_vec = context_vec.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)
