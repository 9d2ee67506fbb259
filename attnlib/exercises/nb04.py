"""Exercises of notebook 04: context vectors, one with a running total, then all at once."""

from __future__ import annotations

from typing import Any

import torch

from attnlib.attention import attention_scores, context_vector, context_vectors, softmax
from attnlib.checks import _name, diagnose
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._calls import ATTEND, SCORES, Forbid, no_whole_grid
from attnlib.exercises._cases import random_tensor, token_inputs
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, tensor, word
from attnlib.mistakes import MISTAKES

#: The book's query, "journey": its z^(2) and attn_weights_2, at Python index 1.
QUERY_NUMBER, QUERY_INDEX = 2, 1
#: The query of the last exercise: "step", the 6th token.
STEP = 5


def _weights(inputs: torch.Tensor | None = None) -> torch.Tensor:
    inputs = example_inputs() if inputs is None else inputs
    return softmax(attention_scores(inputs))


def _diagnosed(answer: Any, value: Any) -> tuple[str, dict, str] | None:
    """The running total's mistakes that checkpoints search, with their hint as found (the
    answer is a tensor: ``accept=tensor`` refused anything else)."""
    found = diagnose(answer.detach(), query=QUERY_INDEX)
    if found.mistake in ("wrong_pairing", "no_zero_start", "wrong_query_index"):
        return found.mistake, {}, found.hint
    return None


def _started_from_row(row: int) -> torch.Tensor:
    """The running total started from ``inputs[row]`` itself, not a clone: the total is a
    view of ``inputs``, so every ``+=`` also changes that row, which the loop then reads."""
    inputs, weights = example_inputs().clone(), _weights()[QUERY_INDEX]
    total = inputs[row]
    for i, x_i in enumerate(inputs):
        total += weights[i] * x_i
    return total.clone()


ValueExercise(
    name="04.running_sum",
    task='set context_vec_2, the context vector of "journey", with the running total',
    answer_names=("context_vec_2",),
    accept=tensor,
    expected=lambda: context_vector(example_inputs(), _weights()[QUERY_INDEX]),
    mistakes={
        "column_not_row": lambda: context_vector(
            example_inputs(),
            MISTAKES["column_not_row"].make(_weights(), QUERY_INDEX),
        ),
        "assigned_not_added": lambda: MISTAKES["assigned_not_added"].make(
            _weights()[QUERY_INDEX], example_inputs()
        ),
        "no_zero_start": lambda: _started_from_row(QUERY_INDEX),
    },
    exact=False,
    praise="z(2) = [0.4419, 0.6515, 0.5683]: each input times its own weight, added to zeros.",
    hint_values={
        "got": _name(QUERY_NUMBER, TOKENS),  # the book's number of "journey", taken as an index
        "query": _name(QUERY_INDEX, TOKENS),
        "index": QUERY_INDEX,
        "offset": "the row it started from, and more",
    },
    search=_diagnosed,
    searched=("wrong_pairing", "no_zero_start", "wrong_query_index"),
)


def _blend_cases() -> list[Case]:
    """The book's weights, then random rows of weights that are NOT the softmax of their
    inputs' scores, so a function that ignores ``attn_weights`` and recomputes them is wrong."""
    cases = []
    for seed, (label, x) in enumerate(token_inputs()):
        raw = random_tensor(len(x), len(x), seed=40 + seed, scale=2.0)
        weights = _weights(x) if seed == 0 else softmax(raw)
        cases.append(Case(label, {"attn_weights": weights, "inputs": x}))
    return cases


FunctionExercise(
    name="04.all_context",
    task="return every query's context vector with one matrix product",
    answer_names=("all_context_vectors",),
    cases=_blend_cases,
    solution=context_vectors,
    mistakes=rows("weights_transposed", "product_order"),
    forbids=Forbid(attnlib=("context_vectors", "context_vector"), how="with @"),
    praise="(6, 6) @ (6, 3) -> (6, 3): row q is the running total of query q, all at once.",
)


def _column_total() -> str:
    """How the weight "journey" receives from all queries (column 1) compares with 1."""
    total = float(_weights()[:, QUERY_INDEX].sum())
    return "less" if total < 1 - 1e-6 else "more" if total > 1 + 1e-6 else "equal"


def _column_hint() -> dict[str, str]:
    column = _weights()[:, QUERY_INDEX]
    giver = int(column.argmin())
    even, smallest = f"{1 / len(column):.4f}", f"{column[giver]:.4f}"
    return dict(token=TOKENS[QUERY_INDEX], even=even, smallest=smallest, giver=TOKENS[giver])


ValueExercise(
    name="04.column_total",
    task='set journey_receives to "less", "equal" or "more": the sum of column 1 of '
    "attn_weights against 1",
    answer_names=("journey_receives",),
    accept=word("less", "equal", "more"),
    expected=_column_total,
    mistakes={"column_sums_to_1": lambda: "equal", "below_even_share": lambda: "less"},
    praise="Every row gives 'journey' more than 1/6, so its column adds up to more than 1 "
    "(1.2970): softmax normalises rows, not columns.",
    hint_values=_column_hint(),
)


def _blended(weigh):
    """A softmax's mistake ``weigh(scores)`` in 04.from_scratch: the query's row of scores
    weighed wrong, then the blend."""
    return lambda inputs, query: weigh(inputs @ inputs[query]) @ inputs


def _scratch_cases() -> list[Case]:
    """Each sentence with one query: "step" of the book's, then a middle token of the others,
    so that the last row, or the book's row 5, is right for the book only."""
    cases = []
    for (label, inputs), query in zip(token_inputs(), (STEP, 1, 3), strict=True):
        scores = inputs @ inputs[query]
        args = {"inputs": inputs, "query": query, "attn_scores": scores}
        cases.append(Case(f"query {query} of {label}", args))
    return cases


FunctionExercise(
    name="04.from_scratch",
    task="return the context vector of token `query_index` computed from `inputs` alone",
    answer_names=("context_from_scratch",),
    cases=_scratch_cases,
    call=lambda from_scratch, args: from_scratch(args["inputs"], args["query"]),
    reference=lambda args: context_vector(args["inputs"], softmax(args["attn_scores"])),
    mistakes=rows("not_from_scratch", "no_softmax") | rows("no_exp", via=_blended),
    forbids=Forbid(
        attnlib=(*SCORES, "context_vector", *ATTEND, "blockwise_attention"),
        how="with torch: the scores, their softmax, the blend",
    ),
    rules=(
        no_whole_grid(
            "the right vector, but from the whole {grid} grid; the exercise asks for the "
            "query's row of scores alone: inputs @ inputs[query]"
        ),
    ),
    praise="The same as row 5 of attn_weights @ inputs, without ever building the grid.",
)
