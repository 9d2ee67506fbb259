"""Mistakes in trainable attention (notebook 05, and every forward pass after it): the
projections, the scale of the scores, what is blended.

Inputs by name: ``inputs`` (num_tokens, d_in) and ``W_query``, ``W_key``, ``W_value``
(d_in, d_out) for the projections; ``attn_scores`` (..., num_tokens) and ``keys``
(num_tokens, d_k) for the scaled softmax, ``d_in`` the notebook's embedding size; a whole
forward pass from ``layer, x, seed`` (see :mod:`attnlib.mistakes._layer`).
"""

from __future__ import annotations

import itertools
import math

import torch

from attnlib.attention import causal_mask
from attnlib.mistakes import _layer as passes
from attnlib.mistakes._row import Mistake


def _scaled(attn_scores: torch.Tensor, divisor: float) -> torch.Tensor:
    return torch.softmax(attn_scores / divisor, dim=-1)


def _mixed_up(roles: tuple[str, str, str]):
    """The projections with matrices ``roles`` (e.g. keys made with W_query)."""

    def make(inputs, W_query, W_key, W_value):
        matrices = {"W_query": W_query, "W_key": W_key, "W_value": W_value}
        return torch.stack([inputs @ matrices[r] for r in roles])

    return make


_ROLES = ("W_query", "W_key", "W_value")
_MIXED = [_mixed_up(choice) for choice in itertools.product(_ROLES, repeat=3) if choice != _ROLES]

TABLE: dict[str, Mistake] = {
    "no_gradient": Mistake(
        "the result cut off from training",
        "the numbers are right, but no gradient reaches {parameter}: a .detach(), a "
        "torch.no_grad() block or requires_grad_(False) stops the layer from learning. Return "
        "the tensors your operations give, as they are.",
    ),
    "no_scale": Mistake(
        "scores not scaled by 1/sqrt(d_k)",
        "divide the scores by keys.shape[-1] ** 0.5 before softmax, so that larger key sizes "
        "do not push softmax towards one-hot weights.",
        lambda attn_scores, keys: torch.softmax(attn_scores, dim=-1),
        others=(
            lambda attn_scores, d_k: torch.softmax(
                attn_scores.masked_fill(_hidden(attn_scores), -torch.inf), dim=-1
            ),
            passes.no_scale,
        ),
    ),
    "scale_by_d_k": Mistake(
        "scores divided by d_k instead of sqrt(d_k)",
        "the scale is the square root: attn_scores / keys.shape[-1] ** 0.5.",
        lambda attn_scores, keys: _scaled(attn_scores, keys.shape[-1]),
        others=(
            lambda attn_scores, d_k: torch.softmax(
                attn_scores.masked_fill(_hidden(attn_scores), -torch.inf) / d_k, dim=-1
            ),
            passes.scale_by_d_k,
        ),
    ),
    "scale_by_d_in": Mistake(
        "scores scaled by the input size d_in instead of the key size d_k",
        "d_k is the keys' last dimension (d_out here), not the embedding size: "
        "use keys.shape[-1] ** 0.5.",
        lambda attn_scores, keys, d_in: _scaled(attn_scores, math.sqrt(d_in)),
        others=(passes.scale_by_d_in,),
    ),
    "scale_by_num_tokens": Mistake(
        "scores scaled by the number of tokens (keys.shape[0]) instead of the key size",
        "keys has one row per token and one column per key entry: d_k is the last axis, "
        "keys.shape[-1], not keys.shape[0].",
        lambda attn_scores, keys: _scaled(attn_scores, math.sqrt(keys.shape[0])),
        others=(passes.scale_by_num_tokens,),
    ),
    "scale_hardcoded": Mistake(
        "the scale typed in as a number, or read from a name of the notebook (its d_out, its "
        "keys) instead of the keys given",
        "read d_k from the keys the function is given, keys.shape[-1] ** 0.5, so the line "
        "stays right for any d_out: with d_out = 4 the scale is sqrt(4) = 2, not sqrt(2).",
        lambda attn_scores, keys: _scaled(attn_scores, math.sqrt(2)),
        others=(passes.scale_hardcoded,),
    ),
    "projection_mixed_up": Mistake(
        "a projection made with another role's matrix",
        "each role has its own matrix: queries = inputs @ W_query, keys = inputs @ W_key, "
        "values = inputs @ W_value.",
        _MIXED[0],
        others=tuple(_MIXED[1:]),
    ),
    "projection_order": Mistake(
        "the matrix written before the inputs (W @ inputs)",
        "each token is a row of inputs, and a row is multiplied from the left: "
        "inputs @ W_query, ({t}, {d}) @ ({d}, d_out) -> ({t}, d_out).",
        lambda inputs, W_query, W_key, W_value: torch.stack(
            [W @ inputs for W in (W_query, W_key, W_value)]
        ),
    ),
    "blend_inputs": Mistake(
        "the inputs blended instead of the values",
        "trainable attention blends the value vectors: attn_weights @ values, "
        "(num_tokens, num_tokens) @ (num_tokens, d_out) -> (num_tokens, d_out); "
        "attn_weights @ x was notebook 04's recipe.",
        lambda attn_weights, inputs: attn_weights @ inputs,
        others=(passes.blend_inputs,),
    ),
    "weights_not_context": Mistake(
        "the attention weights returned instead of the context vectors",
        "the weights say how much of each value to take; the layer returns the blend, "
        "attn_weights @ values.",
        passes.weights_not_context,
    ),
    "weights_sized_by_d_out": Mistake(
        "the attention weights sized by d_out",
        "there is one weight per pair of tokens, (num_tokens, num_tokens), whatever d_out is; "
        "d_out sizes the queries, keys, values and context vectors.",
        lambda num_tokens, d_out: (num_tokens, d_out),
    ),
}


def _hidden(attn_scores: torch.Tensor) -> torch.Tensor:
    """The causal mask of the scores' size: True strictly above the diagonal."""
    return causal_mask(attn_scores.shape[-1])
