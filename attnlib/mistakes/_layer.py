"""A layer's forward pass as the book writes it, with one step changed: what a mistake gives.

The mistake tables of trainable, causal and multi-head attention make their rows for whole
forward passes from ``(layer, x, seed)``: ``layer`` is attnlib's layer built as the exercise
builds the reader's, ``x`` its input, ``seed`` the one set right before the pass, so that
dropout drops the same weights as in the reader's pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import torch
from torch import nn

#: torch's words when two sizes clash, in place (masked_fill_) or not (masked_fill).
_SIZE_CLASH = re.compile(
    r"size of (?:tensor a|the tensor) \((\d+)\) must match the (?:size of tensor b|existing size) "
    r"\((\d+)\)"
)
MASK_TOO_BIG = "a mask of context_length rows laid over the scores of fewer tokens"


def one_message(compute: Callable[[], torch.Tensor], sizes: set[int] | None = None) -> torch.Tensor:
    """``compute()``; a clash between the mask's ``sizes`` {context_length, num_tokens} is
    reported the same however it was written (masked_fill and masked_fill_ word it apart)."""
    try:
        return compute()
    except RuntimeError as err:
        clash = _SIZE_CLASH.search(str(err))
        if sizes and len(sizes) == 2 and clash and {int(n) for n in clash.groups()} == sizes:
            raise RuntimeError(MASK_TOO_BIG) from None
        raise


def _d_k(keys: torch.Tensor, **_: int) -> float:
    return keys.shape[-1] ** 0.5


def forward_with(
    layer: nn.Module,
    x: torch.Tensor,
    seed: int,
    *,
    divisor: Callable[..., float] = _d_k,
    dim: int = -1,
    mask: str = "cut",
    keys_reversed: bool = False,
    dropout: bool = True,
    blend: str = "values",
    split: str = "view",
    merge: str = "transpose",
    out_proj: bool = True,
) -> torch.Tensor:
    """The forward pass of ``layer`` (SelfAttentionV1/V2, CausalAttention, MultiHeadAttention)
    on ``x``, with one step as a mistake writes it: ``divisor(keys=, d_in=, num_tokens=,
    d_out=)`` of the scores, softmax over ``dim``, ``mask`` "cut", "uncut", "zero", "after"
    (zeroed after softmax) or "diagonal", ``keys_reversed`` (``keys.T`` on a batch), no
    ``dropout``, ``blend`` "values", "inputs" or "weights" (returned as they are), heads
    ``split`` "view", "per head" or "no transpose", ``merge`` "transpose" or "no transpose",
    no ``out_proj``."""
    sizes = {layer.mask.shape[-1], x.shape[-2]} if hasattr(layer, "mask") else None
    with torch.no_grad():
        return one_message(
            lambda: _forward(
                layer,
                x,
                seed,
                divisor,
                dim,
                mask,
                keys_reversed,
                dropout,
                blend,
                split,
                merge,
                out_proj,
            ),
            sizes,
        )


def _forward(
    layer, x, seed, divisor, dim, mask, keys_reversed, dropout, blend, split, merge, out_proj
):
    queries, keys, values = _projections(layer, x, split)
    turned = keys.permute(*reversed(range(keys.dim()))) if keys_reversed else keys.transpose(-2, -1)
    attn_scores = queries @ turned
    num_tokens = x.shape[-2]
    hidden = getattr(layer, "mask", None)
    if hidden is not None and mask != "uncut":
        hidden = hidden[:num_tokens, :num_tokens]
        if mask == "diagonal":
            hidden = torch.ones_like(hidden).triu(diagonal=0)
    if hidden is not None and mask in ("cut", "uncut", "diagonal"):
        attn_scores = attn_scores.masked_fill(hidden, -torch.inf)
    elif hidden is not None and mask == "zero":
        attn_scores = attn_scores.masked_fill(hidden, 0.0)
    d_out = layer.d_out if hasattr(layer, "d_out") else values.shape[-1]
    scale = divisor(keys=keys, d_in=x.shape[-1], num_tokens=num_tokens, d_out=d_out)
    attn_weights = torch.softmax(attn_scores / scale, dim=dim)
    if hidden is not None and mask == "after":
        attn_weights = attn_weights.masked_fill(hidden, 0.0)
    if dropout and hasattr(layer, "dropout"):
        torch.manual_seed(seed)  # the reader's pass draws its dropout mask first, after this seed
        attn_weights = layer.dropout.train()(attn_weights)
    if blend == "weights":
        return attn_weights
    context = attn_weights @ (x if blend == "inputs" else values)
    return _merged(layer, context, merge, out_proj) if _heads(layer) else context


def _heads(layer: nn.Module) -> int | None:
    return getattr(layer, "num_heads", None) if hasattr(layer, "out_proj") else None


def _projections(layer, x, split):
    """Queries, keys, values; for a multi-head layer cut into heads as ``split`` says."""
    linear = isinstance(layer.W_query, nn.Linear)
    projected = [w(x) if linear else x @ w for w in (layer.W_query, layer.W_key, layer.W_value)]
    heads = _heads(layer)
    if not heads:
        return projected
    b, num_tokens, _ = x.shape
    if split == "no transpose":
        return [t.reshape(b, heads, num_tokens, layer.head_dim) for t in projected]
    # "per head": head_dim taken to be d_out, more numbers than there are
    size = layer.d_out if split == "per head" else layer.head_dim
    return [t.view(b, num_tokens, heads, size).transpose(1, 2) for t in projected]


def _merged(layer, context, merge, out_proj):
    """The heads side by side again (or not, as ``merge`` says), then ``out_proj``."""
    b, _, num_tokens, _ = context.shape
    if merge == "transpose":
        context = context.transpose(1, 2).contiguous().view(b, num_tokens, -1)
    else:
        context = context.reshape(b, num_tokens, -1)
    return layer.out_proj(context) if out_proj else context


def by_sqrt(size: str) -> Callable[..., float]:
    """A divisor of the scores: the root of ``size`` ("d_in", "num_tokens", "d_out")."""
    return lambda keys, **sizes: math.sqrt(sizes[size])
