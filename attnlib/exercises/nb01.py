"""Exercises of notebook 01: attention scores, one dot product at a time, with loops."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from attnlib.attention import attention_scores_loop
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._core import Exercise, made, register
from attnlib.mistakes import MISTAKES

#: The book's query, "journey": its x^(2), at Python index 1.
QUERY_NUMBER, QUERY_INDEX = 2, 1
#: The token of the "highest score" question: "one", whose own score is not its highest.
SHORT_TOKEN = 4


def _tensor(result: Any) -> Any:
    """A number the reader returned, as a float32 tensor (the stub's ``...`` stays as it is)."""
    if result is Ellipsis or result is None or isinstance(result, torch.Tensor):
        return result
    try:
        if np.iscomplexobj(result):  # stays complex: casting would drop the imaginary part
            return result
        return torch.as_tensor(result, dtype=torch.float32)
    except (TypeError, ValueError, RuntimeError):
        return result


def _token(answer: Any) -> Any:
    """A token named by its text or by its index."""
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(TOKENS):
        return TOKENS[answer]
    return answer


def _count(answer: Any) -> Any:
    """A count given as an int, a whole float or a string of digits."""
    if answer is Ellipsis or answer is None or isinstance(answer, bool):
        return answer
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return answer
    return int(value) if value.is_integer() else value


def _one_cell_gets_a_vector() -> None:
    """What ``attn_scores[i, j] = x_i * x_j`` does: assigning 3 numbers to one cell raises."""
    inputs = example_inputs()
    attn_scores = torch.zeros(len(inputs), len(inputs))
    attn_scores[0, 0] = MISTAKES["products_not_summed"].make(inputs[0], inputs[0])


def _scores() -> torch.Tensor:
    return attention_scores_loop(example_inputs())


register(
    Exercise(
        name="01.dot",
        task="return the dot product of a and b: multiply position by position, then add",
        run=lambda dot: _tensor(dot(example_inputs()[0], example_inputs()[1])),
        expected=lambda: _scores()[0, 1],
        mistakes=made(
            "products_not_summed",
            "sums_multiplied",
            on=lambda: (example_inputs()[0], example_inputs()[1]),
        ),
        praise="dot(x_0, x_1) = 0.9544, the score of 'Your' with 'journey'.",
    )
)

register(
    Exercise(
        name="01.query",
        task="set query to the embedding of 'journey', the book's x^(2)",
        run=lambda query: query,
        expected=lambda: example_inputs()[QUERY_INDEX],
        mistakes={
            "book_number_as_index": lambda: MISTAKES["book_number_as_index"].make(
                example_inputs(), QUERY_NUMBER
            ),
            "column_not_token": lambda: MISTAKES["column_not_token"].make(
                example_inputs(), QUERY_INDEX
            ),
        },
        praise="'journey' is the book's second token, x^(2), and Python's inputs[1].",
    )
)

register(
    Exercise(
        name="01.loop_body",
        task="fill in the line inside the two loops that sets attn_scores[i, j]",
        run=lambda scores_loop: scores_loop(example_inputs()),
        expected=_scores,
        mistakes={
            **made("same_token", "row_written_whole", on=lambda: (example_inputs(),)),
            "products_not_summed": _one_cell_gets_a_vector,
        },
        praise="Every cell is the dot product of token i's vector with token j's.",
    )
)


def _highest_hint() -> dict[str, Any]:
    row = _scores()[SHORT_TOKEN]
    best = int(row.argmax())
    return {
        "token": TOKENS[SHORT_TOKEN],
        "own": f"{row[SHORT_TOKEN]:.4f}",
        "other": TOKENS[best],
        "best": f"{row[best]:.4f}",
        "row": SHORT_TOKEN,
    }


register(
    Exercise(
        name="01.highest",
        task=f"set answer to the token that {TOKENS[SHORT_TOKEN]!r} scores highest with",
        run=_token,
        expected=lambda: TOKENS[int(_scores()[SHORT_TOKEN].argmax())],
        mistakes={"itself_highest": lambda: TOKENS[SHORT_TOKEN]},
        praise="'one' is a short vector; the long 'starts' beats it even on its own row.",
        hint_values=_highest_hint(),
    )
)


def _repeats() -> int:
    num_tokens = len(example_inputs())
    return num_tokens * (num_tokens - 1) // 2


register(
    Exercise(
        name="01.repeats",
        task="set repeats to how many of the 36 dot products give a number already in the grid",
        run=_count,
        expected=_repeats,
        mistakes={
            "repeats_both_halves": lambda: 2 * _repeats(),
            "repeats_distinct": lambda: len(example_inputs()) + _repeats(),
            "repeats_diagonal": lambda: len(example_inputs()),
        },
        praise="Every cell below the diagonal mirrors one above it: 15 of the 36 are repeats.",
    )
)
