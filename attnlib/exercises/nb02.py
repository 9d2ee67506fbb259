"""Exercises of notebook 02: the grid of scores as one matrix product."""

from __future__ import annotations

from typing import Any

from attnlib.attention import attention_scores
from attnlib.data import example_inputs
from attnlib.exercises._core import Exercise, made, register
from attnlib.mistakes import MISTAKES

#: How many tokens ask in the "first rows" exercise: "Your", "journey", "starts".
NUM_ASKING = 3


def _shape(answer: Any) -> Any:
    """A shape given as a tuple, a list or a torch.Size, as a tuple of ints."""
    if isinstance(answer, (tuple, list)) and all(isinstance(n, int) for n in answer):
        return tuple(answer)
    return answer


def _number(answer: Any) -> Any:
    """A number given as an int, a float or a string of digits."""
    if answer is Ellipsis or answer is None or isinstance(answer, bool):
        return answer
    try:
        return float(answer)
    except (TypeError, ValueError):
        return answer


def _growth(num_tokens: int) -> float:
    """How many times more cells (one call each) the loops fill for twice the tokens."""
    return float((2 * num_tokens) ** 2 / num_tokens**2)


register(
    Exercise(
        name="02.transposed_shape",
        task="set shape to the shape of inputs.T @ inputs, e.g. (2, 5)",
        run=_shape,
        expected=lambda: tuple((example_inputs().T @ example_inputs()).shape),
        mistakes={"inner_sizes_kept": lambda: (len(example_inputs()),) * 2},
        praise="(3, 6) @ (6, 3): the outer sizes stay, the inner 6 is summed away.",
    )
)

register(
    Exercise(
        name="02.matmul",
        task="return the grid of scores of inputs with one matrix product",
        run=lambda scores: scores(example_inputs()),
        expected=lambda: attention_scores(example_inputs()),
        mistakes={
            **made("transposed_product", "elementwise_product", on=lambda: (example_inputs(),)),
            "no_transpose": lambda: MISTAKES["no_transpose"].make(
                example_inputs(), example_inputs()
            ),
        },
        praise="inputs @ inputs.T: row i of inputs times column j of inputs.T, token i · token j.",
        hint_values={"d": 3, "t": 6, "left": "(6, 3)", "right": "(6, 3)"},
    )
)

register(
    Exercise(
        name="02.first_rows",
        task="return the first three rows of the grid with one product, not the whole grid",
        run=lambda rows: rows(example_inputs()),
        expected=lambda: attention_scores(example_inputs())[:NUM_ASKING],
        mistakes=made(
            "operands_swapped",
            "no_transpose",
            on=lambda: (example_inputs()[:NUM_ASKING], example_inputs()),
        ),
        praise="The tokens that ask go on the left: one row each; the tokens compared, "
        "transposed, on the right: one column each.",
        hint_values={"left": "(3, 3)", "right": "(6, 3)"},
    )
)

register(
    Exercise(
        name="02.calls_growth",
        task="set times to how many times more torch.dot calls the loops make for 12 tokens "
        "than for 6",
        run=_number,
        expected=lambda: _growth(len(example_inputs())),
        mistakes={"cost_linear": lambda: 2.0},
        praise="144 calls against 36: twice the rows, each twice as long.",
    )
)
