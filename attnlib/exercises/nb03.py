"""Exercises of notebook 03: softmax, from scores to attention weights."""

from __future__ import annotations

from typing import Any

import torch

from attnlib.attention import attention_scores, softmax
from attnlib.data import example_inputs
from attnlib.exercises._core import Exercise, made, register

#: The grid the reader's softmax is tried on: not symmetric (so a sum along the wrong axis
#: shows), with a negative score (the notebook's example row first), nothing large.
SMALL_GRID = ((2.0, -1.0, 0.5), (1.0, 3.0, 0.0), (-0.5, 0.5, 1.5))
#: Scores that overflow exp in float32 in the first row, harmless ones in the second.
BIG_SCORES = ((10.0, 50.0, 100.0), (1.0, 2.0, 3.0))
#: The book's query, "journey", and the factor of the last exercise.
QUERY, FACTOR = 1, 10.0


def _grid(rows: tuple[tuple[float, ...], ...]) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float32)


def _word(answer: Any) -> Any:
    """A one-word answer, lower case, without quotes or a plural "s" ("Columns" -> "column")."""
    if not isinstance(answer, str):
        return answer
    return answer.strip().strip("'\"").strip().lower().removesuffix("s")


def _yes_no(answer: Any) -> Any:
    """True or False, also given as "yes"/"no" or "true"/"false"."""
    if isinstance(answer, str):
        word = answer.strip().strip("'\"").strip().lower()
        return {"true": True, "yes": True, "false": False, "no": False}.get(word, answer)
    return answer


def _scaled_top_weight() -> str:
    """How the largest weight of "journey" moves when its scores are multiplied."""
    scores = attention_scores(example_inputs())[QUERY]
    before, after = softmax(scores).max(), softmax(scores * FACTOR).max()
    return "sharper" if after > before else "flatter" if after < before else "unchanged"


register(
    Exercise(
        name="03.softmax_naive",
        task="return exp(x) divided by the total of exp(x) in each row",
        run=lambda softmax_naive: softmax_naive(_grid(SMALL_GRID)),
        expected=lambda: softmax(_grid(SMALL_GRID)),
        mistakes=made(
            "no_exp",
            "softmax_dim0",
            "no_keepdim",
            "softmax_whole_grid",
            on=lambda: (_grid(SMALL_GRID),),
        ),
        praise="Tried on a 3 x 3 grid with a negative score: every weight is positive and "
        "every row sums to 1.",
    )
)

register(
    Exercise(
        name="03.dim0_sums",
        task='set which_sum_to_1 to "rows" or "columns"',
        run=_word,
        expected=lambda: "column",
        mistakes={"dim0_rows": lambda: "row"},
        praise="dim=0 runs down each column, so each column shares one total.",
    )
)

register(
    Exercise(
        name="03.shift",
        task="set same_weights to True or False",
        run=_yes_no,
        expected=lambda: bool(
            torch.allclose(
                softmax(attention_scores(example_inputs())[QUERY] + 10),
                softmax(attention_scores(example_inputs())[QUERY]),
            )
        ),
        mistakes={"shift_changes_weights": lambda: False},
        praise="e^10 multiplies every exp of the row, above and below the fraction bar: "
        "it cancels.",
    )
)

register(
    Exercise(
        name="03.softmax_stable",
        task="return the softmax of each row of x, computed after subtracting the row's maximum",
        run=lambda softmax_stable: softmax_stable(_grid(BIG_SCORES)),
        expected=lambda: softmax(_grid(BIG_SCORES)),
        mistakes=made(
            "no_max_shift",
            "max_no_keepdim",
            "max_of_grid",
            "max_without_values",
            on=lambda: (_grid(BIG_SCORES),),
        ),
        praise="Scores up to 100 and no nan: the largest exp is now exp(0) = 1.",
    )
)

register(
    Exercise(
        name="03.times_ten",
        task='set after_times_10 to "sharper", "flatter" or "unchanged"',
        run=_word,
        expected=lambda: _word(_scaled_top_weight()),
        mistakes={"scale_like_shift": lambda: "unchanged", "scale_flattens": lambda: "flatter"},
        praise="Ten times the gaps between the scores: the weight piles onto the top scores.",
    )
)
