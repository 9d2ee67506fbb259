"""Exercises of notebook 02: the grid of scores as one matrix product."""

from __future__ import annotations

from attnlib.attention import attention_scores, scaled_scores
from attnlib.data import example_inputs
from attnlib.exercises._calls import SCORES, Forbid, no_whole_grid, one_product
from attnlib.exercises._function import FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, number, shape
from attnlib.exercises.nb01 import GRID_MISTAKES, grid_cases
from attnlib.mistakes import scores

#: How many tokens ask in the "first rows" exercise: "Your", "journey", "starts".
NUM_ASKING = 3


def _grid(scores_of, args):
    return scores_of(args["inputs"])


def _product_shape(answer: tuple) -> str:
    """How the shape of a product of two matrices is made, for a wrong shape."""
    sizes = "one size" if len(answer) == 1 else f"{len(answer)} sizes"
    many = "" if len(answer) == 2 else f"; {answer} has {sizes}"
    return (
        "a product of two matrices is a matrix, (rows of the left factor, columns of the right "
        f"factor), and here the left factor is inputs.T, of shape "
        f"{tuple(example_inputs().T.shape)}{many}"
    )


ValueExercise(
    name="02.transposed_shape",
    task="set shape to the shape of inputs.T @ inputs, e.g. (2, 5)",
    answer_names=("shape",),
    accept=shape,
    expected=lambda: (example_inputs().shape[1],) * 2,  # (d_in, n) @ (n, d_in)
    mistakes={
        "inner_sizes_kept": lambda: (len(example_inputs()),) * 2,
        "transpose_shape_taken": lambda: tuple(example_inputs().T.shape),
        "operand_shape_taken": lambda: tuple(example_inputs().shape),
    },
    explain=_product_shape,
    praise="(3, 6) @ (6, 3): the outer sizes stay, the inner 6 is summed away.",
)

FunctionExercise(
    name="02.matmul",
    task="return the grid of scores of inputs with one matrix product",
    answer_names=("attention_scores",),
    cases=grid_cases,
    call=_grid,
    solution=attention_scores,
    mistakes=GRID_MISTAKES,  # 01.loop_body's grid, in one product: the same wrong grids
    forbids=Forbid(attnlib=SCORES, how="with @"),
    rules=(one_product("inputs @ inputs.T"),),
    praise="inputs @ inputs.T: row i of inputs times column j of inputs.T, token i · token j.",
)

FunctionExercise(
    name="02.first_rows",
    task="return the first three rows of the grid with one product, not the whole grid",
    answer_names=("first_three_rows",),
    cases=lambda: grid_cases(NUM_ASKING),
    call=_grid,
    reference=lambda args: scaled_scores(args["asking"], args["inputs"], scale=1.0),
    mistakes=rows("operands_swapped", "no_transpose", via=scores.asking(NUM_ASKING)),
    forbids=Forbid(attnlib=SCORES, how="with @"),
    rules=(
        no_whole_grid(
            "the right rows, but cut from the whole {grid} grid; the exercise asks for "
            "the 3 rows alone: put only the asking tokens on the left"
        ),
        one_product("inputs[:3] @ inputs.T"),
    ),
    praise="The tokens that ask go on the left: one row each; the tokens compared, "
    "transposed, on the right: one column each.",
)

ValueExercise(
    name="02.calls_growth",
    task="set times to how many times more torch.dot calls the loops make for 12 tokens than for 6",
    answer_names=("times",),
    accept=number,
    expected=lambda: 4,
    mistakes={"cost_linear": lambda: 2, "calls_not_ratio": lambda: 12 * 12},
    praise="144 calls against 36: twice the rows, each twice as long.",
)
