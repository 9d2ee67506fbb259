"""Exercises of notebook 05: trainable attention, queries, keys and values.

The matrices are the notebook's: ``torch.manual_seed(123)`` then ``torch.rand(3, d_out)``
for W_query, W_key and W_value in that order, as ``attnlib.modules.SelfAttentionV1`` draws
them. The right results come from attnlib's reference, never from the reader's code.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import torch

from attnlib.attention import attention_weights
from attnlib.data import example_inputs
from attnlib.exercises._core import Exercise, register, same_result
from attnlib.mistakes import MISTAKES
from attnlib.modules import SelfAttentionV1

#: The book's query, "journey": its x^(2), at Python index 1.
QUERY = 1
D_IN, D_OUT = 3, 2
#: The second size the scale is tried with, so that a scale typed in as sqrt(2) shows.
OTHER_D_OUT = 4
ROLES = ("queries", "keys", "values")


def _layer(d_out: int = D_OUT) -> SelfAttentionV1:
    """The reference layer with the notebook's matrices (seed 123)."""
    torch.manual_seed(123)
    return SelfAttentionV1(D_IN, d_out)


def _matrices(d_out: int = D_OUT) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """W_query, W_key, W_value as the notebook draws them, (d_in, d_out) each."""
    layer = _layer(d_out)
    return tuple(w.detach() for w in (layer.W_query, layer.W_key, layer.W_value))


def _same_or_any(result: Any, target: Any) -> bool:
    """``target`` may be a list of results, one per way of making the same mistake."""
    if isinstance(target, list):
        return any(same_result(result, t) for t in target)
    return same_result(result, target)


# --- 05.projections: every token's query, key and value -----------------------------------


def _three(out: Any) -> Any:
    """The reader's (queries, keys, values) as one (3, num_tokens, d_out) tensor."""
    if out is Ellipsis or out is None:
        return out
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        raise ValueError("project: expected it to return three tensors, queries, keys, values")
    if all(t is Ellipsis or t is None for t in out):
        return Ellipsis
    shape = (len(example_inputs()), D_OUT)
    for name, t in zip(ROLES, out, strict=True):
        if t is Ellipsis or t is None:
            raise ValueError(f"{name} is still `...`: write its line too")
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{name}: expected a tensor, got {type(t).__name__}")
        if tuple(t.shape) != shape:
            raise ValueError(
                f"{name} has shape {tuple(t.shape)}; expected {shape}, one row per token"
            )
    return torch.stack([t.detach() for t in out])


def _projections(matrices) -> torch.Tensor:
    inputs = example_inputs()
    return torch.stack([inputs @ w for w in matrices])


def _mixed_up() -> list[torch.Tensor]:
    """Every way of giving at least one role another role's matrix."""
    right = _matrices()
    return [
        _projections(choice)
        for choice in itertools.product(right, repeat=3)
        if any(a is not b for a, b in zip(choice, right, strict=True))
    ]


register(
    Exercise(
        name="05.projections",
        task="set queries, keys and values: every token's projection with its own matrix",
        run=lambda project: _three(project(example_inputs(), *_matrices())),
        expected=lambda: _projections(_matrices()),
        mistakes={
            "projection_mixed_up": _mixed_up,
            "projection_order": lambda: MISTAKES["projection_order"].make(
                example_inputs(), _matrices()[0]
            ),
        },
        same=_same_or_any,
        praise="One product per role, (6, 3) @ (3, 2) -> (6, 2); row 1 is 'journey' again.",
    )
)


# --- 05.scale: softmax of the scaled scores ----------------------------------------------


def _journey(d_out: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The scores of "journey" against every key, and the keys, for this d_out."""
    W_query, W_key, _ = _matrices(d_out)
    inputs = example_inputs()
    keys = inputs @ W_key
    return inputs[QUERY] @ W_query @ keys.T, keys


def _run_scale(scaled_weights) -> Any:
    results = []
    for d_out in (D_OUT, OTHER_D_OUT):
        attn_scores, keys = _journey(d_out)
        result = scaled_weights(attn_scores, keys)
        if result is Ellipsis or result is None:
            return result
        results.append(result)
    return torch.cat(results)


def _expected_scale() -> torch.Tensor:
    results = []
    for d_out in (D_OUT, OTHER_D_OUT):
        W_query, W_key, _ = _matrices(d_out)
        inputs = example_inputs()
        query = (inputs[QUERY] @ W_query).unsqueeze(0)  # one query: (1, d_out)
        results.append(attention_weights(query, inputs @ W_key)[0])
    return torch.cat(results)


def _scaled_by(factor) -> torch.Tensor:
    """The weights when the scores are multiplied by ``factor(keys)`` instead."""
    return torch.cat(
        [
            torch.softmax(attn_scores * factor(keys), dim=-1)
            for attn_scores, keys in (_journey(D_OUT), _journey(OTHER_D_OUT))
        ]
    )


def _scale_mistake(name: str):
    return lambda: _scaled_by(lambda keys: MISTAKES[name].make(keys.shape[-1], D_IN))


register(
    Exercise(
        name="05.scale",
        task="return the softmax of attn_scores divided by sqrt(d_k), d_k read from the keys",
        run=_run_scale,
        expected=_expected_scale,
        mistakes={
            "no_scale": _scale_mistake("no_scale"),
            "scale_by_d_k": _scale_mistake("scale_by_d_k"),
            "scale_by_d_in": _scale_mistake("scale_by_d_in"),
            "scale_by_num_tokens": lambda: _scaled_by(MISTAKES["scale_by_num_tokens"].make),
            "scale_hardcoded": lambda: _scaled_by(
                lambda keys: MISTAKES["scale_hardcoded"].make(D_OUT)
            ),
        },
        praise="Checked with d_out = 2 and d_out = 4: the scale follows the keys' size.",
    )
)


# --- 05.forward: the forward pass of SelfAttentionV1 -------------------------------------


def _run_forward(cls) -> Any:
    torch.manual_seed(123)
    layer = cls(D_IN, D_OUT)
    result = layer(example_inputs())
    return result.detach() if isinstance(result, torch.Tensor) else result


def _expected_forward() -> torch.Tensor:
    with torch.no_grad():
        return _layer()(example_inputs())


def _forward_parts() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scores (not yet scaled), values and inputs, with the reference layer's matrices."""
    inputs = example_inputs()
    W_query, W_key, W_value = _matrices()
    return (inputs @ W_query) @ (inputs @ W_key).T, inputs @ W_value, inputs


def _forward_no_scale() -> torch.Tensor:
    attn_scores, values, _ = _forward_parts()
    factor = MISTAKES["no_scale"].make(D_OUT, D_IN)
    return torch.softmax(attn_scores * factor, dim=-1) @ values


def _forward_dim0() -> torch.Tensor:
    attn_scores, values, _ = _forward_parts()
    return MISTAKES["softmax_dim0"].make(attn_scores / math.sqrt(D_OUT)) @ values


def _forward_inputs() -> torch.Tensor:
    attn_scores, _, inputs = _forward_parts()
    attn_weights = torch.softmax(attn_scores / math.sqrt(D_OUT), dim=-1)
    return MISTAKES["blend_inputs"].make(attn_weights, inputs)


register(
    Exercise(
        name="05.forward",
        task="write forward: queries, keys, values, the scaled softmax, the blend of values",
        run=_run_forward,
        expected=_expected_forward,
        mistakes={
            "no_scale": _forward_no_scale,
            "softmax_dim0": _forward_dim0,
            "blend_inputs": _forward_inputs,
        },
        praise="Row 1 is the book's z(2) = [0.3061, 0.8210].",
    )
)


# --- 05.weights_shape: a prediction for SelfAttentionV1(3, 4) -----------------------------


def _shape(answer: Any) -> Any:
    """A shape given as a tuple, a list or a torch.Size, as a tuple of ints."""
    if isinstance(answer, (tuple, list, torch.Size)):
        try:
            return tuple(int(n) for n in answer)
        except (TypeError, ValueError):
            return answer
    return answer


def _weights_shape() -> tuple[int, ...]:
    layer = _layer(OTHER_D_OUT)
    with torch.no_grad():
        layer(example_inputs())
    return tuple(layer.last_attn_weights.shape)


register(
    Exercise(
        name="05.weights_shape",
        task="set answer to the shape of the attention weights of SelfAttentionV1(3, 4)",
        run=_shape,
        expected=_weights_shape,
        mistakes={
            "weights_sized_by_d_out": lambda: MISTAKES["weights_sized_by_d_out"].make(
                len(example_inputs()), OTHER_D_OUT
            ),
        },
        praise="One weight per pair of tokens: d_out never enters the weights' shape.",
    )
)
