"""Exercises of notebook 06: causal attention, the mask and dropout.

The book's scores are the notebook's: ``SelfAttentionV2(3, 2)`` built after
``torch.manual_seed(789)``. Each function exercise also runs on seeded random inputs of other
sizes; dropout is checked with given keep-masks and rates, and the layer's forward pass against
attnlib's ``CausalAttention`` under the same seeds, with a mask built for more tokens than the
input has and dropout p > 0, so both draw the same dropout mask on whatever machine.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import torch

from attnlib.attention import (
    attention_weights,
    scaled_scores,
    weights_from_scores,
)
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._calls import ATTEND, Forbid
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._core import register
from attnlib.exercises._function import Case, FunctionExercise, Gradient, leaves, rows
from attnlib.exercises._layers import layer_cases, layer_gradient, reused, run
from attnlib.exercises._value import ValueExercise, token
from attnlib.modules import CausalAttention, SelfAttentionV2

D_IN, D_OUT = 3, 2
#: Which weights survive in the dropout exercise: 29 of 36, about 1 - p for p = 0.2.
KEEP = torch.tensor(
    [
        [1, 1, 1, 0, 1, 1],
        [1, 0, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 0, 1],
        [1, 1, 0, 1, 1, 1],
        [1, 0, 1, 1, 1, 1],
    ],
    dtype=torch.bool,
)
DROPOUT_P = 0.2


def _book_scores() -> torch.Tensor:
    """The notebook's scores, queries @ keys.T, of SelfAttentionV2(3, 2) after seed 789."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(789)
        layer = SelfAttentionV2(D_IN, D_OUT)
    inputs = example_inputs()
    with torch.no_grad():
        return scaled_scores(layer.W_query(inputs), layer.W_key(inputs), scale=1.0)


def _causal(attn_scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """attnlib's causal weights: -inf strictly above the diagonal, scaled softmax."""
    return weights_from_scores(attn_scores, scale=1 / math.sqrt(d_k), causal=True)


# --- 06.mask: -inf above the diagonal, then softmax ----------------------------------------


def _mask_cases() -> list[Case]:
    return [
        Case("the book's 6 tokens, d_k = 2", {"attn_scores": _book_scores(), "d_k": D_OUT}),
        Case(
            "4 random tokens, d_k = 3",
            {"attn_scores": random_tensor(4, 4, seed=40, scale=2.0), "d_k": 3},
        ),
        Case(
            "7 random tokens, d_k = 4",
            {"attn_scores": random_tensor(7, 7, seed=41, scale=2.0), "d_k": 4},
        ),
    ]


register(
    FunctionExercise(
        name="06.mask",
        task="build the mask (True above the diagonal), fill those scores with -inf, softmax",
        answer_names=("causal_weights",),
        cases=_mask_cases,
        call=lambda causal_weights, a: causal_weights(a["attn_scores"], a["d_k"]),
        reference=lambda a: _causal(a["attn_scores"], a["d_k"]),
        gradient=Gradient(
            _causal,
            leaves(
                lambda causal_weights, a: causal_weights(a["attn_scores"], a["d_k"]), "attn_scores"
            ),
        ),
        mistakes=rows(
            "mask_diagonal",
            "mask_zero",
            "mask_after_softmax",
            "mask_inverted",
            "mask_not_bool",
            "mask_left_out",
            "no_scale",
            "scale_by_d_k",
            "softmax_dim0",
        ),
        forbids=Forbid(
            attnlib=("causal_mask", *ATTEND),
            torch=("scaled_dot_product_attention",),
            how="with torch.triu, masked_fill and torch.softmax",
        ),
        praise="Zeros above the diagonal, and every row still sums to 1, for 4, 6 and 7 tokens.",
    )
)


# --- 06.dropout: drop with a given keep-mask, scale what is kept -----------------------------


def _dropout_cases() -> list[Case]:
    book = _causal(_book_scores(), D_OUT)
    cases = [
        Case("the book's weights, p = 0.2", {"attn_weights": book, "keep": KEEP, "p": DROPOUT_P})
    ]
    for seed, (n, p) in enumerate(((5, 0.5), (4, 0.1)), start=50):
        weights_n = _causal(random_tensor(n, n, seed=seed, scale=2.0), 2)
        keep = random_tensor(n, n, seed=seed + 10) > 2 * p - 1  # True with probability 1 - p
        label = f"{n} random tokens, p = {p}"
        cases.append(Case(label, {"attn_weights": weights_n, "keep": keep, "p": p}))
    return cases


register(
    FunctionExercise(
        name="06.dropout",
        task="return attn_weights with the dropped entries set to 0 and the kept ones scaled",
        answer_names=("dropout_with",),
        cases=_dropout_cases,
        call=lambda dropout_with, a: dropout_with(a["attn_weights"], a["keep"], a["p"]),
        reference=lambda a: torch.where(
            a["keep"], a["attn_weights"] / (1 - a["p"]), torch.zeros_like(a["attn_weights"])
        ),
        mistakes=rows("dropout_by_p", "dropout_unscaled", "dropout_inverted"),
        forbids=Forbid(because="torch's dropout draws its own mask; the exercise hands over keep"),
        gradient=Gradient(
            lambda attn_weights, keep, p: attn_weights * keep / (1 - p),
            leaves(
                lambda dropout_with, a: dropout_with(a["attn_weights"], a["keep"], a["p"]),
                "attn_weights",
            ),
        ),
        praise="Kept weights are divided by 1 - p: by 0.8 for p = 0.2, by 0.5 for p = 0.5.",
    )
)


# --- 06.forward: the forward pass of CausalAttention ---------------------------------------


def _batch() -> torch.Tensor:
    inputs = example_inputs()
    return torch.stack((inputs, inputs))


#: Asked when only dropout p > 0 changes the result: the sizes are the book's case's.
DROPOUT_STEP = (
    "only dropout changed, so the dropout step is wrong: dropout goes once, on the "
    "attention weights after softmax (not on the scores before it, not on the values, not "
    "twice), through self.dropout"
)


def _forward_cases() -> list[Case]:
    return layer_cases(
        CausalAttention,
        [
            (
                "the book's batch (2, 6, 3), context_length 6, dropout 0",
                (D_IN, D_OUT, 6, 0.0),
                _batch(),
            ),
            (
                "the same batch and sizes with dropout 0.5",
                (D_IN, D_OUT, 6, 0.5),
                _batch(),
            ),
            (
                "the book's batch with context_length 8 and dropout 0.5",
                (D_IN, D_OUT, 8, 0.5),
                _batch(),
            ),
            (
                "a random batch (3, 4, 5), d_out 3, context_length 6, dropout 0.3",
                (5, 3, 6, 0.3),
                random_tensor(3, 4, 5, seed=60),
            ),
            (
                "a random batch (1, 7, 2), d_out 4, context_length 7, dropout 0.5",
                (2, 4, 7, 0.5),
                random_tensor(1, 7, 2, seed=61),
            ),
        ],
        alone={1: DROPOUT_STEP},
    )


register(
    FunctionExercise(
        name="06.forward",
        task="write forward: projections, scores, the cut mask with -inf, scaled softmax, "
        "dropout, the blend of values",
        answer_names=("MyCausalAttention",),
        cases=_forward_cases,
        call=run,
        reference=lambda a: run(CausalAttention, a),
        gradient=layer_gradient(CausalAttention),
        rules=(reused(CausalAttention),),
        mistakes=rows(
            "mask_not_cut",
            "keys_transposed_whole",
            "mask_after_softmax",
            "mask_zero",
            "mask_diagonal",
            "mask_left_out",
            "no_dropout",
            "dropout_before_softmax",
            "no_scale",
            "scale_by_d_k",
            "scale_by_d_in",
            "scale_hardcoded",
            "blend_inputs",
            "weights_not_context",
            "softmax_dim0",
        ),
        forbids=Forbid(
            attnlib=("CausalAttention", "MultiHeadAttentionWrapper", "MultiHeadAttention", *ATTEND),
            torch=("scaled_dot_product_attention",),
            how="with torch, step by step",
        ),
        praise="Checked on batches of 1, 2 and 3, with masks built for more tokens than the "
        "input has, and dropout up to 0.5 under a fixed seed.",
    )
)


# --- 06.unchanged_row: a question before the explorer --------------------------------------


def _unchanged_row() -> str:
    """The query whose weights the mask leaves as they are (simplified attention)."""
    inputs = example_inputs()
    open_rows = attention_weights(inputs, inputs, scale=1.0)
    causal_rows = attention_weights(inputs, inputs, scale=1.0, causal=True)
    same = [i for i in range(len(inputs)) if torch.allclose(open_rows[i], causal_rows[i])]
    return TOKENS[same[0]].lower()


register(
    ValueExercise(
        name="06.unchanged_row",
        task="set unchanged_row to the token (text or index) whose row the causal mask leaves "
        "as it is",
        answer_names=("unchanged_row",),
        accept=token(TOKENS),
        expected=_unchanged_row,
        mistakes={"causal_first_row": lambda: TOKENS[0].lower()},
        praise="'step' comes last: it already sees every token, so the mask hides nothing there.",
    )
)


# --- 06.first_row: the context vector of "Your" --------------------------------------------


class _AttentionComputed(Exception):
    """Raised when the reader's answer runs the layer's attention, which the rule forbids."""


def _first_row_cases() -> list[Case]:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(123)
        book = CausalAttention(D_IN, D_OUT, context_length=6, dropout=0.0)
        torch.manual_seed(7)
        other = CausalAttention(5, 3, context_length=6, dropout=0.0)
    return [
        Case("the book's ca and inputs", {"ca": book, "inputs": example_inputs()}),
        Case(
            "a layer (5 -> 3) and 4 random tokens",
            {"ca": other, "inputs": random_tensor(4, 5, seed=70)},
        ),
    ]


def _detached(result: Any) -> Any:
    return result.detach() if isinstance(result, torch.Tensor) else result


def _no_attention(first_row: Any, case: Case, calls: Any) -> str | None:
    """The rule: one projection, no attention. The layer given refuses to run attention."""
    guarded = copy.deepcopy(case.args["ca"])

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise _AttentionComputed

    guarded.forward = refuse
    try:
        first_row(guarded, case.args["inputs"])
    except _AttentionComputed:
        return (
            "the numbers are right, but they come from running the whole layer, ca(...); the "
            "exercise asks for one call of one of ca's projection layers, with no attention"
        )
    except Exception:  # any other failure was already judged on the plain layer
        return None
    return None


register(
    FunctionExercise(
        name="06.first_row",
        task="write first_row: the context vector of 'Your', from one call of one of ca's layers",
        answer_names=("first_row",),
        cases=_first_row_cases,
        call=lambda first_row, a: _detached(first_row(a["ca"], a["inputs"])),
        reference=lambda a: a["ca"].W_value(a["inputs"][0]).detach(),
        mistakes=rows("query_not_value"),
        forbids=Forbid(because="ca(...) is refused by the rule below; ca's layers are the task"),
        rules=(_no_attention,),
        praise="'Your' puts all its weight on itself, so it gets its own value vector.",
    )
)
