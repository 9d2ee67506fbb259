"""Exercises of notebook 03: softmax, from scores to attention weights."""

from __future__ import annotations

import torch

from attnlib.attention import attention_scores, softmax
from attnlib.data import example_inputs
from attnlib.exercises._calls import SOFTMAX, TORCH_SOFTMAX, Forbid
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, boolean, word

#: The grid the reader's softmax is tried on first: not symmetric (so a sum along the wrong
#: axis shows), with a negative score (the notebook's example row first), nothing large.
SMALL_GRID = ((2.0, -1.0, 0.5), (1.0, 3.0, 0.0), (-0.5, 0.5, 1.5))
#: Scores that overflow exp in float32 in the first row, harmless ones in the second.
BIG_SCORES = ((10.0, 50.0, 100.0), (1.0, 2.0, 3.0))
#: The book's query, "journey", and the factor of the last exercise.
QUERY, FACTOR = 1, 10.0
#: Where nan comes from in a softmax.
EXP_NAN = "did exp overflow (exp(100) is inf in float32, and inf / inf is nan), or 0 / 0?"

# The same eight ways to get a softmax wrong, for both of the notebook's softmax exercises.
SOFTMAX_MISTAKES = rows(
    "softmax_dim0",
    "no_exp",
    "no_keepdim",
    "softmax_whole_grid",
    "no_max_shift",
    "max_no_keepdim",
    "max_of_grid",
    "max_without_values",
)


def _grids(first: tuple, label: str, scale: float) -> list[Case]:
    """``first``, the book's scores, then random grids of other shapes, up to ``scale``."""
    cases = [Case(label, {"x": torch.tensor(first)})]
    cases.append(Case("the book's 6 x 6 scores", {"x": attention_scores(example_inputs())}))
    for seed, (n_rows, cols) in enumerate(((4, 5), (2, 7))):
        x = random_tensor(n_rows, cols, seed=20 + seed, scale=scale)
        cases.append(Case(f"a random {n_rows} x {cols} grid up to {scale:g}", {"x": x}))
    return cases


def _scaled_top_weight() -> str:
    """How the largest weight of "journey" moves when its scores are multiplied."""
    scores = attention_scores(example_inputs())[QUERY]
    before, after = softmax(scores).max(), softmax(scores * FACTOR).max()
    return "sharper" if after > before else "flatter" if after < before else "unchanged"


FunctionExercise(
    name="03.softmax_naive",
    task="return exp(x) divided by the total of exp(x) in each row",
    answer_names=("softmax_naive",),
    cases=lambda: _grids(SMALL_GRID, "the 3 x 3 grid with a negative score", 3.0),
    solution=softmax,
    mistakes=SOFTMAX_MISTAKES,
    forbids=Forbid(SOFTMAX, TORCH_SOFTMAX, "from torch.exp and .sum()"),
    nan_hint=EXP_NAN,
    praise="Tried on grids of several shapes, with negative scores: every weight is "
    "positive and every row sums to 1.",
)

ValueExercise(
    name="03.dim0_sums",
    task='set which_sum_to_1 to "rows" or "columns"',
    answer_names=("which_sum_to_1",),
    accept=word("rows", "columns"),
    expected=lambda: "columns",
    mistakes={"dim0_rows": lambda: "rows"},
    praise="dim=0 runs down each column, so each column shares one total.",
)

ValueExercise(
    name="03.shift",
    task="set same_weights to True or False",
    answer_names=("same_weights",),
    accept=boolean,
    expected=lambda: bool(
        torch.allclose(
            softmax(attention_scores(example_inputs())[QUERY] + 10),
            softmax(attention_scores(example_inputs())[QUERY]),
        )
    ),
    mistakes={"shift_changes_weights": lambda: False},
    praise="e^10 multiplies every exp of the row, above and below the fraction bar: it cancels.",
)

FunctionExercise(
    name="03.softmax_stable",
    task="return the softmax of each row of x, computed after subtracting the row's maximum",
    answer_names=("softmax_stable",),
    cases=lambda: _grids(BIG_SCORES, "the scores up to 100", 200.0),
    solution=softmax,
    mistakes=SOFTMAX_MISTAKES,
    forbids=Forbid(SOFTMAX, TORCH_SOFTMAX, "from the row's max, torch.exp and .sum()"),
    nan_hint=EXP_NAN,
    praise="Scores up to 100 and no nan: the largest exp is now exp(0) = 1.",
)

ValueExercise(
    name="03.times_ten",
    task='set after_times_10 to "sharper", "flatter" or "unchanged"',
    answer_names=("after_times_10",),
    accept=word("sharper", "flatter", "unchanged"),
    expected=_scaled_top_weight,
    mistakes={"scale_like_shift": lambda: "unchanged", "scale_flattens": lambda: "flatter"},
    praise="Ten times the gaps between the scores: the weight piles onto the top scores.",
)
