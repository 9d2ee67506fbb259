"""Exercises of notebook 01: attention scores, one dot product at a time, with loops."""

from __future__ import annotations

import torch

from attnlib.attention import attention_scores
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._calls import SCORES, Forbid, no_product
from attnlib.exercises._cases import random_tensor, token_inputs
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, tensor, token, whole
from attnlib.mistakes import MISTAKES, scores

#: The book's query, "journey": its x^(2), at Python index 1.
QUERY_NUMBER, QUERY_INDEX = 2, 1
#: The token of the "highest score" question: "one", whose own score is not its highest.
SHORT_TOKEN = 4


def _pairs() -> list[Case]:
    """The book's x_0 and x_1, then random vectors of 5 entries and of 1."""
    inputs = example_inputs()
    cases = [Case("the book's x_0 and x_1", {"a": inputs[0], "b": inputs[1]})]
    for seed, size in enumerate((5, 1)):
        a, b = random_tensor(2, size, seed=10 + seed)
        cases.append(Case(f"two random vectors of {size} entries", {"a": a, "b": b}))
    return cases


FunctionExercise(
    name="01.dot",
    task="return the dot product of a and b: multiply position by position, then add",
    answer_names=("dot",),
    cases=_pairs,
    solution=torch.dot,
    mistakes=rows("products_not_summed", "sums_multiplied"),
    forbids=Forbid(attnlib=(*SCORES, "context_vector"), how="with * and .sum()"),
    # literally the rule stated: torch.dot (or its aliases) is refused; `@` and einsum are
    # other ways to write the formula, and are taken
    rules=(no_product("torch.dot", ("dot", "vdot", "inner")),),
    praise="dot(x_0, x_1) = 0.9544, the score of 'Your' with 'journey'.",
)

ValueExercise(
    name="01.query",
    task="set query to the embedding of 'journey', the book's x^(2)",
    answer_names=("query",),
    accept=tensor,
    expected=lambda: example_inputs()[QUERY_INDEX],
    mistakes={
        "book_number_as_index": lambda: MISTAKES["book_number_as_index"].make(
            example_inputs(), QUERY_NUMBER
        ),
        "column_not_token": lambda: MISTAKES["column_not_token"].make(
            example_inputs(), QUERY_INDEX
        ),
    },
    exact=False,
    praise="'journey' is the book's second token, x^(2), and Python's inputs[1].",
)

#: The wrong grids of scores, for the loops here and for 02's one product alike. (Swapped
#: operands are not among them: inputs @ inputs.T swapped is the same grid.)
GRID_MISTAKES = rows(
    "products_in_one_cell",
    "same_token",
    "row_written_whole",
    "transposed_product",
    "elementwise_product",
) | rows("no_transpose", via=scores.asking())


def grid_cases(asking: int | None = None) -> list[Case]:
    """The book's inputs and random ones; ``asking``: how many first tokens ask (None: all)."""
    return [Case(label, {"inputs": x, "asking": x[:asking]}) for label, x in token_inputs()]


FunctionExercise(
    name="01.loop_body",
    task="fill in the line inside the two loops that sets attn_scores[i, j]",
    answer_names=("attention_scores_loop",),
    cases=grid_cases,
    call=lambda scores_loop, args: scores_loop(args["inputs"]),
    solution=attention_scores,
    mistakes=GRID_MISTAKES,
    forbids=Forbid(attnlib=SCORES, how="with torch.dot, one cell at a time"),
    stub_gives_zeros=True,
    praise="Every cell is the dot product of token i's vector with token j's.",
)


def _highest_hint() -> dict[str, str | int]:
    row = attention_scores(example_inputs())[SHORT_TOKEN]
    best = int(row.argmax())
    own, top = f"{row[SHORT_TOKEN]:.4f}", f"{row[best]:.4f}"
    return dict(token=TOKENS[SHORT_TOKEN], own=own, other=TOKENS[best], best=top, row=SHORT_TOKEN)


def _score_with(token: str) -> str:
    """What the reader's token scores with "one", against the row's largest score."""
    row = attention_scores(example_inputs())[SHORT_TOKEN]
    index = [t.lower() for t in TOKENS].index(token)
    return (
        f"{TOKENS[SHORT_TOKEN]!r} scores {row[index]:.4f} with {TOKENS[index]!r}, and the "
        f"largest number of its row, row {SHORT_TOKEN}, is {row.max():.4f}"
    )


ValueExercise(
    name="01.highest",
    task=f"set answer to the token that {TOKENS[SHORT_TOKEN]!r} scores highest with",
    answer_names=("answer",),
    accept=token(TOKENS),
    expected=lambda: TOKENS[int(attention_scores(example_inputs())[SHORT_TOKEN].argmax())].lower(),
    mistakes={
        "itself_highest": lambda: TOKENS[SHORT_TOKEN].lower(),
        "lowest_for_highest": lambda: TOKENS[
            int(attention_scores(example_inputs())[SHORT_TOKEN].argmin())
        ].lower(),
    },
    praise="'one' is a short vector; the long 'starts' beats it even on its own row.",
    hint_values=_highest_hint(),
    explain=_score_with,
)


def _repeats() -> int:
    num_tokens = len(example_inputs())
    return num_tokens * (num_tokens - 1) // 2


ValueExercise(
    name="01.repeats",
    task="set repeats to how many of the 36 dot products give a number already in the grid",
    answer_names=("repeats",),
    accept=whole,
    expected=_repeats,
    mistakes={
        "repeats_both_halves": lambda: 2 * _repeats(),
        "repeats_distinct": lambda: len(example_inputs()) + _repeats(),
        "repeats_diagonal": lambda: len(example_inputs()),
        "repeats_all": lambda: len(example_inputs()) ** 2,
    },
    praise="Every cell below the diagonal mirrors one above it: 15 of the 36 are repeats.",
)
