"""A layer's forward pass as the book writes it, with one step changed: what a mistake gives.

The mistake tables of trainable, causal and multi-head attention make their rows for whole
forward passes from ``(layer, x, seed)``: ``layer`` is attnlib's layer built as the exercise
builds the reader's, ``x`` its input, ``seed`` the one set right before the pass, so that
dropout drops the same weights as in the reader's pass.

The right pass is cut into its steps (:func:`projections`, :func:`scores`, :func:`masked`,
:func:`weights`, :func:`finish`), each reading the layer's own parameters; each mistake below
is one small function that runs those steps with one of them written wrongly. The steps are
plain torch, not attention.py: a wrong step may give a row of NaN (a mask that hides a whole
row), which the reader's code gives too and attention.py would refuse.
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


# --- the right steps -----------------------------------------------------------------------


def _heads(layer: nn.Module) -> int | None:
    return getattr(layer, "num_heads", None) if hasattr(layer, "out_proj") else None


def projected(layer: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """Queries, keys, values ``(..., num_tokens, d_out)``: ``x @ W`` (V1) or ``W(x)``."""
    linear = isinstance(layer.W_query, nn.Linear)
    return [w(x) if linear else x @ w for w in (layer.W_query, layer.W_key, layer.W_value)]


def projections(layer: nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """:func:`projected`, and for a multi-head layer cut into heads ``(b, heads, n, head_dim)``."""
    projected_ = projected(layer, x)
    if not _heads(layer):
        return projected_
    return [split_heads(t, layer.num_heads) for t in projected_]


def scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """``queries @ keys^T``, the last two axes swapped: ``(..., num_tokens, num_tokens)``."""
    return queries @ keys.transpose(-2, -1)


def hidden(layer: nn.Module, x: torch.Tensor) -> torch.Tensor | None:
    """The layer's mask cut to ``x``'s tokens (``None`` for a layer without one)."""
    num_tokens = x.shape[-2]
    return layer.mask[:num_tokens, :num_tokens] if hasattr(layer, "mask") else None


def masked(attn_scores: torch.Tensor, hide: torch.Tensor | None, fill: float = -torch.inf):
    """``attn_scores`` with ``fill`` where ``hide`` is True (as they are without a mask)."""
    return attn_scores if hide is None else attn_scores.masked_fill(hide, fill)


def weights(attn_scores: torch.Tensor, divisor: float, dim: int = -1) -> torch.Tensor:
    """``softmax(attn_scores / divisor, dim)``; the right divisor is :func:`root_d_k`."""
    return torch.softmax(attn_scores / divisor, dim=dim)


def root_d_k(keys: torch.Tensor) -> float:
    return keys.shape[-1] ** 0.5


def dropped(layer: nn.Module, attn_weights: torch.Tensor, seed: int) -> torch.Tensor:
    """The layer's dropout on the weights, drawn as in the reader's pass (a layer without
    dropout keeps them)."""
    if not hasattr(layer, "dropout"):
        return attn_weights
    torch.manual_seed(seed)  # the reader's pass draws its dropout mask first, after this seed
    return layer.dropout.train()(attn_weights)


def merged(layer: nn.Module, context: torch.Tensor) -> torch.Tensor:
    """A multi-head layer's heads side by side again, then ``out_proj``; else ``context``."""
    if not _heads(layer):
        return context
    b, _, num_tokens, _ = context.shape
    return layer.out_proj(context.transpose(1, 2).contiguous().view(b, num_tokens, -1))


def finish(layer: nn.Module, attn_weights: torch.Tensor, values: torch.Tensor, seed: int):
    """The steps after the weights: dropout, the blend of the values, the heads merged."""
    return merged(layer, dropped(layer, attn_weights, seed) @ values)


def right_pass(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """The pass with no step changed (what the tests hold each mistake against)."""
    queries, keys, values = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x))
    return finish(layer, weights(attn_scores, root_d_k(keys)), values, seed)


def _divided_by(divisor: Callable[[nn.Module, torch.Tensor, torch.Tensor], float]):
    """A pass whose scores are divided by ``divisor(layer, x, keys)`` instead of sqrt(d_k)."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        queries, keys, values = projections(layer, x)
        attn_scores = masked(scores(queries, keys), hidden(layer, x))
        return finish(layer, weights(attn_scores, divisor(layer, x, keys)), values, seed)

    return mistaken_pass(variant)


# --- one step changed: the scale ---------------------------------------------------------

no_scale = _divided_by(lambda layer, x, keys: 1.0)
scale_by_d_k = _divided_by(lambda layer, x, keys: keys.shape[-1])
scale_by_d_in = _divided_by(lambda layer, x, keys: math.sqrt(x.shape[-1]))
scale_by_num_tokens = _divided_by(lambda layer, x, keys: math.sqrt(x.shape[-2]))
scale_by_d_out = _divided_by(lambda layer, x, keys: math.sqrt(layer.d_out))
scale_hardcoded = _divided_by(lambda layer, x, keys: 2**0.5)


# --- one step changed: the softmax, the mask, the transpose of the keys --------------------


@mistaken_pass
def softmax_dim0(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, values = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x))
    return finish(layer, weights(attn_scores, root_d_k(keys), dim=0), values, seed)


def _hiding(mask: Callable[[nn.Module, torch.Tensor], torch.Tensor | None], fill=-torch.inf):
    """A pass whose scores are filled with ``fill`` where ``mask(layer, x)`` says."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        queries, keys, values = projections(layer, x)
        attn_scores = masked(scores(queries, keys), mask(layer, x), fill)
        return finish(layer, weights(attn_scores, root_d_k(keys)), values, seed)

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
    queries, keys, values = projections(layer, x)
    attn_weights = weights(scores(queries, keys), root_d_k(keys))
    return finish(layer, masked(attn_weights, hidden(layer, x), 0.0), values, seed)


@mistaken_pass
def keys_transposed_whole(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, values = projections(layer, x)
    turned = keys.permute(*reversed(range(keys.dim())))  # keys.T: every axis reversed
    attn_scores = masked(queries @ turned, hidden(layer, x))
    return finish(layer, weights(attn_scores, root_d_k(keys)), values, seed)


# --- one step changed: dropout, what is blended ---------------------------------------------


@mistaken_pass
def no_dropout(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, values = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x))
    return merged(layer, weights(attn_scores, root_d_k(keys)) @ values)


@mistaken_pass
def dropout_on_scores(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """Dropout on the scores, before the mask and softmax, instead of on the weights."""
    queries, keys, values = projections(layer, x)
    attn_scores = masked(dropped(layer, scores(queries, keys), seed), hidden(layer, x))
    return merged(layer, weights(attn_scores, root_d_k(keys)) @ values)


@mistaken_pass
def dropout_on_masked_scores(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """Dropout on the masked, scaled scores (a dropped -inf becomes NaN), then softmax."""
    queries, keys, values = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x)) / root_d_k(keys)
    return merged(layer, weights(dropped(layer, attn_scores, seed), 1.0) @ values)


@mistaken_pass
def blend_inputs(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, _ = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x))
    return finish(layer, weights(attn_scores, root_d_k(keys)), x, seed)


@mistaken_pass
def weights_not_context(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    queries, keys, _ = projections(layer, x)
    attn_scores = masked(scores(queries, keys), hidden(layer, x))
    return dropped(layer, weights(attn_scores, root_d_k(keys)), seed)


# --- one step changed: the heads split or merged ---------------------------------------------


def _split_as(cut: Callable[[nn.Module, torch.Tensor], torch.Tensor]):
    """A multi-head pass whose projections are cut into heads by ``cut(layer, t)``."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        if not _heads(layer):  # a layer of one head has nothing to split: the right pass
            return right_pass(layer, x, seed)
        queries, keys, values = (cut(layer, t) for t in projected(layer, x))
        attn_scores = masked(scores(queries, keys), hidden(layer, x))
        return finish(layer, weights(attn_scores, root_d_k(keys)), values, seed)

    return mistaken_pass(variant)


def _no_transpose(layer: nn.Module, t: torch.Tensor) -> torch.Tensor:
    b, num_tokens, _ = t.shape
    return t.reshape(b, layer.num_heads, num_tokens, layer.head_dim)


def _d_out_each(layer: nn.Module, t: torch.Tensor) -> torch.Tensor:
    # head_dim taken to be d_out, more numbers than there are
    b, num_tokens, _ = t.shape
    return t.view(b, num_tokens, layer.num_heads, layer.d_out).transpose(1, 2)


split_without_transpose = _split_as(_no_transpose)
d_out_per_head = _split_as(_d_out_each)


def _merged_as(merge: Callable[[nn.Module, torch.Tensor], torch.Tensor]):
    """A multi-head pass whose heads' outputs are put together by ``merge(layer, context)``."""

    def variant(layer: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
        if not _heads(layer):  # a layer of one head has nothing to merge: the right pass
            return right_pass(layer, x, seed)
        queries, keys, values = projections(layer, x)
        attn_scores = masked(scores(queries, keys), hidden(layer, x))
        context = dropped(layer, weights(attn_scores, root_d_k(keys)), seed) @ values
        return merge(layer, context)

    return mistaken_pass(variant)


def _side_by_side(layer: nn.Module, context: torch.Tensor) -> torch.Tensor:
    b, _, num_tokens, _ = context.shape
    return context.transpose(1, 2).contiguous().view(b, num_tokens, -1)


merge_without_transpose = _merged_as(
    lambda layer, context: layer.out_proj(context.reshape(context.shape[0], context.shape[2], -1))
)
no_out_proj = _merged_as(_side_by_side)
