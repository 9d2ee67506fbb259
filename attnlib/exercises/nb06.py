"""Exercises of notebook 06: causal attention, the mask and dropout.

The book's scores are the notebook's: ``SelfAttentionV2(3, 2)`` built after
``torch.manual_seed(789)``. Each function exercise also runs on seeded random inputs of other
sizes; dropout is checked with given keep-masks and rates, and the rows of a layer (the first,
the last) against attnlib's ``CausalAttention``, some built for more tokens than the input has.
"""

from __future__ import annotations

import math

import torch

from attnlib.attention import attention_weights, scaled_scores, weights_from_scores
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._calls import ATTEND, Forbid, no_forward
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._function import Case, FunctionExercise, detached, rows
from attnlib.exercises._layers import build
from attnlib.exercises._value import ValueExercise, token
from attnlib.mistakes.masks import causal
from attnlib.mistakes.trainable import scaled
from attnlib.modules import CausalAttention, SelfAttentionV2

D_IN, D_OUT = 3, 2
#: Which weights survive in the dropout exercise: 29 of 36, about 1 - p for p = 0.2.
KEEP = torch.tensor(
    [[c == "1" for c in row] for row in "111011 101111 011110 111101 110111 101111".split()]
)
DROPOUT_P = 0.2


def _book_scores() -> torch.Tensor:
    """The notebook's scores, queries @ keys.T, of SelfAttentionV2(3, 2) after seed 789."""
    layer, inputs = build(SelfAttentionV2, (D_IN, D_OUT), seed=789), example_inputs()
    with torch.no_grad():
        return scaled_scores(layer.W_query(inputs), layer.W_key(inputs), scale=1.0)


def _causal(attn_scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """attnlib's causal weights: -inf strictly above the diagonal, scaled softmax."""
    return weights_from_scores(attn_scores, scale=1 / math.sqrt(d_k), causal=True)


# --- 06.mask: -inf above the diagonal, then softmax ----------------------------------------
def _mask_cases() -> list[Case]:
    cases = [Case("the book's 6 tokens, d_k = 2", {"attn_scores": _book_scores(), "d_k": D_OUT})]
    for seed, (n, d_k) in enumerate(((4, 3), (7, 4)), start=40):
        scores = random_tensor(n, n, seed=seed, scale=2.0)
        cases.append(Case(f"{n} random tokens, d_k = {d_k}", {"attn_scores": scores, "d_k": d_k}))
    return cases


FunctionExercise(
    name="06.mask",
    task="build the mask (True above the diagonal), fill those scores with -inf, softmax",
    answer_names=("causal_weights",),
    cases=_mask_cases,
    solution=_causal,
    gradient=("attn_scores",),
    mistakes=rows(
        "mask_diagonal",
        "mask_zero",
        "mask_after_softmax",
        "mask_inverted",
        "mask_not_bool",
        "mask_left_out",
    )
    | rows("no_scale", "scale_by_d_k", via=causal)
    | rows("softmax_dim0", via=lambda weigh: causal(scaled(weigh))),
    forbids=Forbid(
        attnlib=("causal_mask", *ATTEND),
        torch=("scaled_dot_product_attention",),
        how="with torch.triu, masked_fill and torch.softmax",
    ),
    praise="Zeros above the diagonal, and every row still sums to 1, for 4, 6 and 7 tokens.",
)


# --- 06.dropout: drop with a given keep-mask, scale what is kept -----------------------------
def _dropout_cases() -> list[Case]:
    book = {"attn_weights": _causal(_book_scores(), D_OUT), "keep": KEEP, "p": DROPOUT_P}
    cases = [Case("the book's weights, p = 0.2", book)]
    for seed, (n, p) in enumerate(((5, 0.5), (4, 0.1)), start=50):
        weights = _causal(random_tensor(n, n, seed=seed, scale=2.0), 2)
        keep = random_tensor(n, n, seed=seed + 10) > 2 * p - 1  # True with probability 1 - p
        cases.append(
            Case(f"{n} random tokens, p = {p}", {"attn_weights": weights, "keep": keep, "p": p})
        )
    return cases


def _dropped(attn_weights: torch.Tensor, keep: torch.Tensor, p: float) -> torch.Tensor:
    return attn_weights * keep / (1 - p)


FunctionExercise(
    name="06.dropout",
    task="return attn_weights with the dropped entries set to 0 and the kept ones scaled",
    answer_names=("dropout_with",),
    cases=_dropout_cases,
    solution=_dropped,
    mistakes=rows("dropout_by_p", "dropout_unscaled", "dropout_inverted"),
    forbids=Forbid(because="torch's dropout draws its own mask; the exercise hands over keep"),
    gradient=("attn_weights",),
    praise="Kept weights are divided by 1 - p: by 0.8 for p = 0.2, by 0.5 for p = 0.5.",
)


# --- 06.last_row: the last token's context vector, one query against every key -------------
def _last_row_cases() -> list[Case]:
    book = {"ca": build(CausalAttention, (D_IN, D_OUT, 6, 0.0), 123), "x": example_inputs()}
    cases = [Case("the book's ca (seed 123) and the 6 tokens", book)]
    for seed, d_in, d_out, length, n in ((8, 5, 3, 8, 4), (9, 2, 4, 7, 7)):
        x = random_tensor(n, d_in, seed=142 + seed)
        args = {"ca": build(CausalAttention, (d_in, d_out, length, 0.0), seed), "x": x}
        label = f"a layer ({d_in} -> {d_out}) built for {length} tokens, {n} random tokens"
        cases.append(Case(label, args))
    return cases


FunctionExercise(
    name="06.last_row",
    task="write last_row(ca, x): the context vector of x's last token from its query, "
    "every key and every value, without the mask and without calling ca(...)",
    answer_names=("last_row",),
    cases=_last_row_cases,
    call=lambda last_row, a: detached(last_row(a["ca"], a["x"])),
    # attnlib's whole layer on the one sequence, its last row
    solution=lambda ca, x: ca(x[None])[0, -1],
    forbids=Forbid(
        attnlib=ATTEND,
        torch=("scaled_dot_product_attention",),
        how="from one query, with torch.softmax",
    ),
    rules=(no_forward("ca", "the last row alone, from ca's three projection layers"),),
    mistakes=rows(
        "last_row_own_value", "last_row_first_query", "last_row_unscaled", "last_row_inputs_blended"
    ),
    praise="One query against all keys, no mask: the last token sees every token, so its "
    "row needs nothing hidden, and a model writing its next token needs only this row.",
)


# --- 06.unchanged_row: a question before the explorer --------------------------------------
def _unchanged_row() -> str:
    """The query whose weights the mask leaves as they are (simplified attention)."""
    inputs = example_inputs()
    open_rows = attention_weights(inputs, inputs, scale=1.0)
    causal_rows = attention_weights(inputs, inputs, scale=1.0, causal=True)
    same = [i for i in range(len(inputs)) if torch.allclose(open_rows[i], causal_rows[i])]
    return TOKENS[same[0]].lower()


ValueExercise(
    name="06.unchanged_row",
    task="set unchanged_row to the token (text or index) whose row the causal mask leaves as it is",
    answer_names=("unchanged_row",),
    accept=token(TOKENS),
    expected=_unchanged_row,
    mistakes={"causal_first_row": lambda: TOKENS[0].lower()},
    praise="'step' comes last: it already sees every token, so the mask hides nothing there.",
)


# --- 06.first_row: the context vector of "Your" --------------------------------------------
def _first_row_cases() -> list[Case]:
    book = {"ca": build(CausalAttention, (D_IN, D_OUT, 6, 0.0), 123), "inputs": example_inputs()}
    other = {
        "ca": build(CausalAttention, (5, 3, 6, 0.0), 7),
        "inputs": random_tensor(4, 5, seed=70),
    }
    return [
        Case("the book's ca and inputs", book),
        Case("a layer (5 -> 3) and 4 random tokens", other),
    ]


FunctionExercise(
    name="06.first_row",
    task="write first_row: the context vector of 'Your', from one call of one of ca's layers",
    answer_names=("first_row",),
    cases=_first_row_cases,
    call=lambda first_row, a: detached(first_row(a["ca"], a["inputs"])),
    solution=lambda ca, inputs: ca.W_value(inputs[0]),
    mistakes=rows("query_not_value"),
    forbids=Forbid(because="ca(...) is refused by the rule below; ca's layers are the task"),
    rules=(no_forward("ca", "one call of one of ca's projection layers, with no attention"),),
    praise="'Your' puts all its weight on itself, so it gets its own value vector.",
)
