"""A layer's forward pass as the book writes it, with one step changed: what a mistake gives.

The mistake tables of trainable, causal and multi-head attention make their rows for whole
forward passes from ``(layer, x, seed)``: ``layer`` is attnlib's layer built as the exercise
builds the reader's, ``x`` its input, ``seed`` the one set right before the pass, so that
dropout drops the same weights as in the reader's pass.

The right pass is cut into its steps (:func:`scores`, :func:`weights`, :func:`finish`), each
reading the layer's own parameters; each mistake below is one small function that runs those
steps with one of them written wrongly. The steps are plain torch, not attention.py: a wrong
step may give a row of NaN (a mask that hides a whole row), which the reader's code gives too
and attention.py would refuse.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable

import torch
from torch import nn

from attnlib.modules import split_heads

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


def mistaken_pass(
    variant: Callable[[nn.Module, torch.Tensor, int], torch.Tensor],
) -> Callable[[nn.Module, torch.Tensor, int], torch.Tensor]:
    """``variant(layer, x, seed)`` without gradients, a too big mask worded as one message."""

    @functools.wraps(variant)
    def run(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        sizes = {layer.mask.shape[-1], x.shape[-2]} if hasattr(layer, "mask") else None
        with torch.no_grad():
            return one_message(lambda: variant(layer, x, seed), sizes)

    return run


# --- the right steps, each from the layer's own parameters ------------------------------


def _heads(layer: nn.Module) -> int | None:
    return getattr(layer, "num_heads", None) if hasattr(layer, "out_proj") else None


def projected(layer: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """Queries, keys, values ``(..., num_tokens, d_out)``: ``x @ W`` (V1) or ``W(x)``."""
    linear = isinstance(layer.W_query, nn.Linear)
    return [w(x) if linear else x @ w for w in (layer.W_query, layer.W_key, layer.W_value)]


def projections(layer: nn.Module, x: torch.Tensor, cut=None) -> list[torch.Tensor]:
    """:func:`projected`; a multi-head layer's cut into heads ``(b, heads, n, head_dim)`` (or
    by ``cut(layer, t)``)."""
    if not _heads(layer):
        return projected(layer, x)
    cut = cut or (lambda layer, t: split_heads(t, layer.num_heads))
    return [cut(layer, t) for t in projected(layer, x)]


def hidden(layer: nn.Module, x: torch.Tensor) -> torch.Tensor | None:
    """The layer's mask cut to ``x``'s tokens (``None`` for a layer without one)."""
    return layer.mask[: x.shape[-2], : x.shape[-2]] if hasattr(layer, "mask") else None


def masked(attn_scores: torch.Tensor, hide: torch.Tensor | None, fill: float = -torch.inf):
    """``attn_scores`` with ``fill`` where ``hide`` is True (as they are without a mask)."""
    return attn_scores if hide is None else attn_scores.masked_fill(hide, fill)


def scores(layer: nn.Module, x: torch.Tensor, hide=hidden, fill=-torch.inf, cut=None):
    """``(attn_scores, keys, values)``: ``queries @ keys^T`` masked by ``hide(layer, x)``."""
    queries, keys, values = projections(layer, x, cut)
    return masked(queries @ keys.transpose(-2, -1), hide(layer, x), fill), keys, values


def weights(attn_scores: torch.Tensor, divisor: float, dim: int = -1) -> torch.Tensor:
    """``softmax(attn_scores / divisor, dim)``; the right divisor is ``sqrt(d_k)``."""
    return torch.softmax(attn_scores / divisor, dim=dim)


def dropped(layer: nn.Module, attn_weights: torch.Tensor, seed: int) -> torch.Tensor:
    """The layer's dropout, drawn as in the reader's pass (none: the weights as they are)."""
    if not hasattr(layer, "dropout"):
        return attn_weights
    torch.manual_seed(seed)  # the reader's pass draws its dropout mask first, after this seed
    return layer.dropout.train()(attn_weights)


def merged(layer: nn.Module, context: torch.Tensor, out_proj: bool = True) -> torch.Tensor:
    """A multi-head layer's heads side by side again, then ``out_proj``; else ``context``."""
    if not _heads(layer):
        return context
    b, _, num_tokens, _ = context.shape
    context = context.transpose(1, 2).contiguous().view(b, num_tokens, -1)
    return layer.out_proj(context) if out_proj else context


def finish(layer: nn.Module, attn_weights: torch.Tensor, values: torch.Tensor, seed: int):
    """The steps after the weights: dropout, the blend of the values, the heads merged."""
    return merged(layer, dropped(layer, attn_weights, seed) @ values)


def right_pass(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """The pass with no step changed (what the tests hold each mistake against)."""
    attn_scores, keys, values = scores(layer, x)
    return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5), values, seed)


# --- one step changed: the scale ---------------------------------------------------------


def _divided_by(divisor: Callable[[nn.Module, torch.Tensor, torch.Tensor], float]):
    """A pass whose scores are divided by ``divisor(layer, x, keys)`` instead of sqrt(d_k)."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        attn_scores, keys, values = scores(layer, x)
        return finish(layer, weights(attn_scores, divisor(layer, x, keys)), values, seed)

    return mistaken_pass(variant)


no_scale = _divided_by(lambda layer, x, keys: 1.0)
scale_by_d_k = _divided_by(lambda layer, x, keys: keys.shape[-1])
scale_by_d_in = _divided_by(lambda layer, x, keys: math.sqrt(x.shape[-1]))
scale_by_num_tokens = _divided_by(lambda layer, x, keys: math.sqrt(x.shape[-2]))
scale_by_d_out = _divided_by(lambda layer, x, keys: math.sqrt(layer.d_out))
scale_hardcoded = _divided_by(lambda layer, x, keys: 2**0.5)


# --- one step changed: the mask, the keys' transpose, softmax's axis -----------------------


def _hiding(hide: Callable[[nn.Module, torch.Tensor], torch.Tensor | None], fill=-torch.inf):
    """A pass whose scores are filled with ``fill`` where ``hide(layer, x)`` says."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        attn_scores, keys, values = scores(layer, x, hide, fill)
        return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5), values, seed)

    return mistaken_pass(variant)


def _with_diagonal(layer: nn.Module, x: torch.Tensor) -> torch.Tensor | None:
    hide = hidden(layer, x)
    return None if hide is None else torch.ones_like(hide).triu(diagonal=0)


mask_diagonal = _hiding(_with_diagonal)
mask_zero = _hiding(hidden, fill=0.0)
mask_left_out = _hiding(lambda layer, x: None)
mask_not_cut = _hiding(lambda layer, x: getattr(layer, "mask", None))


@mistaken_pass
def mask_after_softmax(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, values = scores(layer, x, hide=lambda layer, x: None)
    attn_weights = weights(attn_scores, keys.shape[-1] ** 0.5)
    return finish(layer, masked(attn_weights, hidden(layer, x), 0.0), values, seed)


@mistaken_pass
def keys_transposed_whole(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, values = projections(layer, x)
    turned = keys.permute(*reversed(range(keys.dim())))  # keys.T: every axis reversed
    attn_scores = masked(queries @ turned, hidden(layer, x))
    return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5), values, seed)


@mistaken_pass
def softmax_dim0(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, values = scores(layer, x)
    return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5, dim=0), values, seed)


# --- one step changed: dropout, what is blended ---------------------------------------------


@mistaken_pass
def no_dropout(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, values = scores(layer, x)
    return merged(layer, weights(attn_scores, keys.shape[-1] ** 0.5) @ values)


@mistaken_pass
def dropout_on_scores(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """Dropout on the scores, before the mask and softmax, instead of on the weights."""
    attn_scores, keys, values = scores(layer, x, hide=lambda layer, x: None)
    attn_scores = masked(dropped(layer, attn_scores, seed), hidden(layer, x))
    return merged(layer, weights(attn_scores, keys.shape[-1] ** 0.5) @ values)


@mistaken_pass
def dropout_on_masked_scores(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """Dropout on the masked, scaled scores (a dropped -inf becomes NaN), then softmax."""
    attn_scores, keys, values = scores(layer, x)
    attn_scores = dropped(layer, attn_scores / keys.shape[-1] ** 0.5, seed)
    return merged(layer, weights(attn_scores, 1.0) @ values)


@mistaken_pass
def blend_inputs(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, _ = scores(layer, x)
    return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5), x, seed)


@mistaken_pass
def weights_not_context(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, _ = scores(layer, x)
    return dropped(layer, weights(attn_scores, keys.shape[-1] ** 0.5), seed)


# --- one step changed: the heads split or merged (a one-head layer: the right pass) ---------


def _split_as(cut: Callable[[nn.Module, torch.Tensor], torch.Tensor]):
    """A multi-head pass whose projections are cut into heads by ``cut(layer, t)``."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        attn_scores, keys, values = scores(layer, x, cut=cut)
        return finish(layer, weights(attn_scores, keys.shape[-1] ** 0.5), values, seed)

    return mistaken_pass(variant)


split_without_transpose = _split_as(
    lambda layer, t: t.reshape(t.shape[0], layer.num_heads, t.shape[1], layer.head_dim)
)
d_out_per_head = _split_as(  # head_dim taken to be d_out: more numbers than there are
    lambda layer, t: t.view(*t.shape[:2], layer.num_heads, layer.d_out).transpose(1, 2)
)


@mistaken_pass
def merge_without_transpose(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    if not _heads(layer):
        return right_pass(layer, x, seed)
    attn_scores, keys, values = scores(layer, x)
    context = dropped(layer, weights(attn_scores, keys.shape[-1] ** 0.5), seed) @ values
    return layer.out_proj(context.reshape(context.shape[0], context.shape[2], -1))


@mistaken_pass
def no_out_proj(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    attn_scores, keys, values = scores(layer, x)
    context = dropped(layer, weights(attn_scores, keys.shape[-1] ** 0.5), seed) @ values
    return merged(layer, context, out_proj=False)
