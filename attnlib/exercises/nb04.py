"""Exercises of notebook 04: context vectors, one with a running total, then all at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from attnlib.attention import attention_scores, context_vector, context_vectors, softmax
from attnlib.checks import diagnose
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._core import Exercise, made, register, same_result
from attnlib.mistakes import MISTAKES

#: The book's query, "journey": its z^(2) and attn_weights_2, at Python index 1.
QUERY_NUMBER, QUERY_INDEX = 2, 1
#: The query of the explorer's question and of the last exercise: "step", the 6th token.
STEP = 5


def _weights() -> torch.Tensor:
    return softmax(attention_scores(example_inputs()))


@dataclass(frozen=True)
class _Diagnosed:
    """Every result that :func:`attnlib.checks.diagnose` names ``mistake`` for ``query``.

    A mistake such as a wrong pairing has many forms (any order of the weights); the
    checkpoints already search them, so the exercise asks them instead of listing one.
    """

    mistake: str
    query: int


def _same_or_diagnosed(result: Any, target: Any) -> bool:
    if isinstance(target, _Diagnosed):
        return (
            isinstance(result, torch.Tensor)
            and diagnose(result, query=target.query).mistake == target.mistake
        )
    return same_result(result, target)


def _token(answer: Any) -> Any:
    """A token named by its text (any case, quotes allowed) or by its index."""
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(TOKENS):
        return TOKENS[answer].lower()
    if isinstance(answer, str):
        return answer.strip().strip("'\"").strip().lower()
    return answer


def _why_not_itself() -> str:
    scores, weights = attention_scores(example_inputs()), _weights()
    top = int(weights[STEP].argmax())
    return (
        f"{TOKENS[top]!r} is longer than {TOKENS[STEP]!r} and points in a similar direction, so "
        f"{TOKENS[STEP]} · {TOKENS[top]} = {scores[STEP, top]:.4f} beats "
        f"{TOKENS[STEP]} · {TOKENS[STEP]} = {scores[STEP, STEP]:.4f}, and {TOKENS[top]!r} gets "
        f"{weights[STEP, top]:.4f} of the weight against {weights[STEP, STEP]:.4f}."
    )


register(
    Exercise(
        name="04.running_sum",
        task='set context_vec_2, the context vector of "journey", with the running total',
        run=lambda context_vec: context_vec,
        expected=lambda: context_vector(example_inputs(), _weights()[QUERY_INDEX]),
        mistakes={
            "wrong_query_index": lambda: context_vector(example_inputs(), _weights()[QUERY_NUMBER]),
            "column_not_row": lambda: context_vector(
                example_inputs(), MISTAKES["column_not_row"].make(_weights(), QUERY_INDEX)
            ),
            "wrong_pairing": lambda: _Diagnosed("wrong_pairing", QUERY_INDEX),
            "no_zero_start": lambda: _Diagnosed("no_zero_start", QUERY_INDEX),
        },
        same=_same_or_diagnosed,
        praise="z(2) = [0.4419, 0.6515, 0.5683]: each input times its own weight, added to zeros.",
        hint_values={
            "got": f"{QUERY_NUMBER} ({TOKENS[QUERY_NUMBER]!r})",
            "query": f"{QUERY_INDEX} ({TOKENS[QUERY_INDEX]!r})",
            "number": QUERY_NUMBER,
            "index": QUERY_INDEX,
            "offset": "the value it started from",
        },
    )
)

register(
    Exercise(
        name="04.all_context",
        task="return every query's context vector with one matrix product",
        run=lambda all_context_vectors: all_context_vectors(_weights(), example_inputs()),
        expected=lambda: context_vectors(_weights(), example_inputs()),
        mistakes=made(
            "weights_transposed", "product_order", on=lambda: (_weights(), example_inputs())
        ),
        praise="(6, 6) @ (6, 3) -> (6, 3): row q is the running total of query q, all at once.",
        hint_values={"t": len(TOKENS), "d": 3},
    )
)

register(
    Exercise(
        name="04.step_top",
        task='set step_weighs_most to the token that "step" gives the largest weight, e.g. "Your"',
        run=_token,
        expected=lambda: TOKENS[int(_weights()[STEP].argmax())].lower(),
        mistakes={"weighs_itself_most": lambda: TOKENS[STEP].lower()},
        praise="The largest score of the row gets the largest weight: softmax keeps the order.",
        hint_values={"why": _why_not_itself()},
    )
)

register(
    Exercise(
        name="04.from_scratch",
        task='set context_vec_6, the context vector of "step", from its own scores',
        run=lambda context_vec: context_vec,
        expected=lambda: context_vector(example_inputs(), _weights()[STEP]),
        mistakes={
            "no_softmax": lambda: MISTAKES["no_softmax"].make(
                attention_scores(example_inputs())[STEP], example_inputs()
            ),
            "no_exp": lambda: (
                MISTAKES["no_exp"].make(attention_scores(example_inputs())[STEP]) @ example_inputs()
            ),
        },
        praise="The same as row 5 of attn_weights @ inputs, without ever building the grid.",
    )
)
