"""Exercises of notebook 05: trainable attention, queries, keys and values.

Each function exercise runs on the book's numbers (``torch.manual_seed(123)`` then
``torch.rand(3, 2)`` for W_query, W_key and W_value in that order, as
``attnlib.modules.SelfAttentionV1`` draws them) and on seeded random inputs of other sizes and
other d_out, so that a size or a scale typed as a number shows. The right results come from
attnlib's reference, never from the reader's code.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import torch

from attnlib._seeding import seeded
from attnlib.attention import scaled_scores, softmax, weights_from_scores
from attnlib.data import example_inputs
from attnlib.exercises._calls import ATTEND, Forbid
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._layers import build
from attnlib.exercises._value import ValueExercise, as_number, shape
from attnlib.mistakes import MISTAKES, trainable
from attnlib.mistakes.trainable import scaled
from attnlib.modules import SelfAttentionV1

#: The book's query, "journey": its x^(2), at Python index 1.
QUERY = 1
D_IN, D_OUT = 3, 2
#: The d_out of the prediction exercise: SelfAttentionV1(3, 4).
OTHER_D_OUT = 4


def _book_matrices(d_out: int = D_OUT) -> dict[str, torch.Tensor]:
    """W_query, W_key, W_value as the notebook draws them (seed 123), (d_in, d_out) each."""
    with seeded(123):
        return {name: torch.rand(D_IN, d_out) for name in ("W_query", "W_key", "W_value")}


# --- 05.projections: every token's query, key and value -----------------------------------
def _projection_cases() -> list[Case]:
    """The book's, then random tokens and matrices (W_query, W_key, W_value seeded in turn)."""
    book = {"inputs": example_inputs(), **_book_matrices()}
    cases = [Case("the book's 6 tokens, d_out = 2", book)]
    for seed, (n, d_in, d_out) in enumerate(((4, 5, 3), (7, 2, 4))):
        args = {"inputs": random_tensor(n, d_in, seed=seed)}
        for i, role in enumerate(("W_query", "W_key", "W_value")):
            args[role] = random_tensor(d_in, d_out, seed=10 + 10 * seed + i)
        cases.append(Case(f"{n} random tokens of {d_in} dimensions, d_out = {d_out}", args))
    return cases


def _project(
    inputs: torch.Tensor, W_query: torch.Tensor, W_key: torch.Tensor, W_value: torch.Tensor
) -> tuple:
    return inputs @ W_query, inputs @ W_key, inputs @ W_value


def _three(out: Any) -> Any:
    """The reader's (queries, keys, values) as one (3, num_tokens, d_out) tensor, if they are
    three tensors of one shape; anything else as it is, to be described."""
    if isinstance(out, (tuple, list)) and len(out) == 3:
        if all(t is Ellipsis for t in out):
            return Ellipsis
        if all(isinstance(t, torch.Tensor) for t in out) and len({t.shape for t in out}) == 1:
            return torch.stack(list(out))
    return out


FunctionExercise(
    name="05.projections",
    task="write project: every token's query, key and value with its own matrix",
    answer_names=("project",),
    cases=_projection_cases,
    call=lambda project, a: _three(project(a["inputs"], a["W_query"], a["W_key"], a["W_value"])),
    solution=_project,
    mistakes=rows("projection_mixed_up", "projection_order"),
    forbids=Forbid(because="attnlib has no projection function; the products are the task"),
    gradient=("W_query", "W_key", "W_value"),
    praise="One product per role, (6, 3) @ (3, 2) -> (6, 2); row 1 is 'journey' again.",
)


# --- 05.scale: softmax of the scaled scores ----------------------------------------------
def _scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """``queries @ keys.T`` by attention.py, for one query ``(d_k,)`` or many ``(n, d_k)``."""
    if queries.dim() == 1:
        return scaled_scores(queries[None], keys, scale=1.0)[0]
    return scaled_scores(queries, keys, scale=1.0)


def _scale_cases() -> list[Case]:
    inputs, book, wider = example_inputs(), _book_matrices(), _book_matrices(OTHER_D_OUT)
    journey = inputs[QUERY] @ book["W_query"], inputs @ book["W_key"]
    every = inputs @ wider["W_query"], inputs @ wider["W_key"]
    random = random_tensor(5, 3, seed=30, scale=2.0), random_tensor(5, 3, seed=31, scale=2.0)
    return [
        Case(label, {"attn_scores": _scores(queries, keys), "keys": keys})
        for label, (queries, keys) in [
            ("the book's query 'journey', d_out = 2", journey),
            ("every query of the book's 6 tokens, d_out = 4", every),
            ("5 random tokens, d_out = 3", random),
        ]
    ]


#: dim=0 is right on the row of "journey" (one axis: notebook 04) and wrong on the grids the
#: exercise also feeds, so the hint says both instead of only "the columns sum to 1".
_ONE_ROW_AND_GRIDS = (
    "on the row of 'journey' alone it was right (a 1-D row has one axis, so dim=0 and dim=-1 "
    "agree), but the check also feeds whole grids of scores, one row per query, as the layers "
    "below call it, and there dim=0 normalises each key's column. Write dim=-1: the last axis "
    "is a row's entries in a grid and in a single row alike."
)


def _scaled(attn_scores: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    return softmax(attn_scores / math.sqrt(keys.shape[-1]))


FunctionExercise(
    name="05.scale",
    task="return the softmax of attn_scores divided by sqrt(d_k), d_k read from the keys",
    answer_names=("scaled_weights",),
    cases=_scale_cases,
    solution=_scaled,
    gradient=("attn_scores",),
    mistakes=rows(
        "no_scale", "scale_by_d_k", "scale_by_d_in", "scale_by_num_tokens", "scale_hardcoded"
    )
    | {"softmax_dim0": replace(MISTAKES["softmax_dim0"].via(scaled), hint=_ONE_ROW_AND_GRIDS)},
    forbids=Forbid(attnlib=ATTEND, how="with torch.softmax and the root of d_k"),
    praise="Checked with d_out = 2, 3 and 4, on one query and on whole grids: the scale "
    "follows the keys' size, and each row sums to 1.",
)


# --- 05.query_scaled: W_query times c, the new weights from the old ones only ---------------
def _query_case(label: str, attn_scores: torch.Tensor, d_k: int, c: float) -> Case:
    weights = weights_from_scores(attn_scores, scale=1 / math.sqrt(d_k))
    return Case(label, {"attn_weights": weights, "c": c, "attn_scores": attn_scores, "d_k": d_k})


def _query_cases() -> list[Case]:
    """The factors: no 1 (it changes nothing) and none whose square is itself. The book's
    scores are the notebook's, queries @ keys.T of the matrices drawn after seed 123."""
    inputs, matrices = example_inputs(), _book_matrices()
    book = _scores(inputs @ matrices["W_query"], inputs @ matrices["W_key"])
    four, five = random_tensor(4, 4, seed=140, scale=2.0), random_tensor(5, 5, seed=141)
    return [
        _query_case("the book's weights (seed 123, d_k = 2), c = 2", book, D_OUT, 2.0),
        _query_case("the book's weights, c = -1", book, D_OUT, -1.0),
        _query_case("4 random queries and keys, d_k = 3, c = 0.5", four, 3, 0.5),
        _query_case("5 random queries and keys, d_k = 4, c = 3", five, 4, 3.0),
    ]


def _query_scaled(a: dict[str, Any]) -> torch.Tensor:
    """attnlib's answer from the case's scores, which the reader's function never sees: the
    queries, so the scores, c times larger, then the layer's scaled softmax."""
    return weights_from_scores(a["c"] * a["attn_scores"], scale=1 / math.sqrt(a["d_k"]))


FunctionExercise(
    name="05.query_scaled",
    task="write rescaled_weights(attn_weights, c): the layer's attention weights after "
    "W_query is multiplied by c, from its old weights alone",
    answer_names=("rescaled_weights",),
    cases=_query_cases,
    call=lambda rescaled_weights, a: rescaled_weights(a["attn_weights"], a["c"]),
    reference=_query_scaled,
    solution=lambda attn_weights, c: attn_weights**c / (attn_weights**c).sum(-1, keepdim=True),
    gradient=("attn_weights",),
    mistakes=rows(
        "query_scale_cancels",
        "query_scale_times_c",
        "query_scale_squared",
        "query_scale_not_renormalised",
        "query_scale_weights_as_scores",
    ),
    forbids=Forbid(because="the answer works on the weights alone; no attnlib step takes c"),
    praise="Each weight to the power c, each row back to a sum of 1: c = 2 sharpens the "
    "rows, c = 0.5 flattens them, and c = -1 turns each row's ranking upside down.",
)


# --- 05.weights_shape: a prediction for SelfAttentionV1(3, 4) -----------------------------
def _weights_shape() -> tuple[int, ...]:
    layer = build(SelfAttentionV1, (D_IN, OTHER_D_OUT))  # after the book's seed, 123
    with torch.no_grad():
        layer(example_inputs())
    return tuple(layer.last_attn_weights.shape)


#: Shapes a reader may give for the weights, and the tensor each one belongs to.
_SHAPES_SEEN = {
    (D_IN, OTHER_D_OUT): "that is (d_in, d_out), the shape of W_query, not of the weights",
    (OTHER_D_OUT, D_IN): "that is (d_out, d_in), a weight matrix turned round",
    (6, OTHER_D_OUT): "that is (num_tokens, d_out), the shape of the context vectors",
    (6, D_IN): "that is (num_tokens, d_in), the shape of the inputs",
    (6, D_OUT): "that is (num_tokens, d_out) of the d_out = 2 layer's context vectors",
    (OTHER_D_OUT, OTHER_D_OUT): "that is (d_out, d_out): the weights pair tokens, not features",
}


ValueExercise(
    name="05.weights_shape",
    task="set weights_shape to the shape of the attention weights of SelfAttentionV1(3, 4)",
    answer_names=("weights_shape",),
    accept=shape,
    expected=_weights_shape,
    mistakes={
        "weights_sized_by_d_out": lambda: trainable.TABLE["weights_sized_by_d_out"].make(
            num_tokens=len(example_inputs()), d_out=OTHER_D_OUT
        )
    },
    praise="One weight per pair of tokens: d_out never enters the weights' shape.",
    explain=lambda value: _SHAPES_SEEN.get(value),
)


# --- 05.expected_score: why every row peaks on the same key ----------------------------------
FunctionExercise(
    name="05.expected_score",
    task="make expected_score(d_k) return the mean of q · k when every entry of q and k is "
    "drawn like torch.rand",
    answer_names=("expected_score",),
    # the notebook's 2 first, then sizes a number typed for 2 misses
    cases=lambda: [Case(f"d_k = {d}", {"d_k": d}) for d in (2, 3, 16, 64)],
    call=lambda expected_score, a: as_number(
        expected_score(a["d_k"]), lambda value: torch.tensor(float(value))
    ),
    # d_k independent terms, each the product of two independent means of 0.5 (uniform on [0, 1))
    reference=lambda a: torch.tensor(a["d_k"] * 0.5 * 0.5),
    mistakes=rows(
        "expected_score_zero",
        "expected_score_one_mean",
        "expected_score_square",
        "expected_score_spread",
    ),
    forbids=Forbid(because="arithmetic: nothing in attnlib computes it"),
    praise="d_k / 4: positive, and growing with d_k faster than the spread, about "
    "0.22 * sqrt(d_k). Every query scores every key well above 0.",
)
