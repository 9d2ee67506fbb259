"""Exercises of notebook 09: how fast attention is, how much memory its grid takes, and
attention computed block by block with a running softmax."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

from attnlib.attention import scaled_dot_product_attention
from attnlib.exercises._calls import ATTEND, Forbid
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, as_number, number, whole
from attnlib.mistakes.blockwise import blocks

#: The context lengths of the growth question: "8k" and "1M" tokens.
SHORT, LONG = 8192, 1_048_576
GROWTH = (LONG // SHORT) ** 2  # the grid has num_tokens ** 2 entries


ValueExercise(
    name="09.slope",
    task="set slope to the slope you expect for the matrix product at the right of the plot",
    answer_names=("slope",),
    accept=number,
    expected=lambda: 2,  # the exponent of num_tokens in the work: n rows of n scores
    mistakes={"slope_linear": lambda: 1, "slope_cubic": lambda: 3, "slope_is_ratio": lambda: 4},
    explain=lambda value: (
        "64 is d, the size of each vector: the slope is how fast the time grows with "
        "num_tokens on the log-log plot, the power of num_tokens"
        if value == 64
        else None
    ),
    praise="n rows of n scores: twice the tokens, 4 = 2^2 times the work.",
    near={"slope_measured": lambda v: 1.5 <= v <= 2.5},  # measured off the plot
)


# --- 09.grid_bytes: the memory of the (num_tokens, num_tokens) grid ----------------------------
FunctionExercise(
    name="09.grid_bytes",
    task="return the bytes of a float32 grid of num_tokens x num_tokens scores",
    answer_names=("grid_bytes",),
    # the course's sentence, two longer ones, and sizes that are not powers of 2 (a size
    # written as a number is right for one of them only)
    cases=lambda: [
        Case(f"{n:,} tokens", {"num_tokens": n}) for n in (6, 1024, 8192, 5, 1000, 3000)
    ],
    call=lambda grid_bytes, args: as_number(grid_bytes(args["num_tokens"])),
    reference=lambda args: torch.finfo(torch.float32).bits // 8 * args["num_tokens"] ** 2,
    mistakes=rows(
        "grid_entries_not_bytes",
        "grid_one_row",
        "grid_float64",
        "grid_bits",
        "grid_in_mib",
        "grid_in_mb",
    ),
    forbids=Forbid(because="arithmetic: nothing in attnlib computes it"),
    praise="4 bytes per score, num_tokens * num_tokens scores: 256 MiB at 8,192 tokens.",
)


# --- 09.grid_growth: from 8k to 1M tokens ------------------------------------------------------
ValueExercise(
    name="09.grid_growth",
    task="set grid_times to how many times the 1M-token grid is larger than the 8k-token grid",
    answer_names=("grid_times",),
    accept=whole,
    expected=lambda: GROWTH,
    mistakes={
        "growth_linear": lambda: LONG // SHORT,
        "growth_doubled": lambda: 2 * (LONG // SHORT),
        "growth_decimal": lambda: (1_000_000 // 8_000) ** 2,
        "growth_inverted": lambda: (SHORT / LONG) ** 2,
    },
    praise="128 times the tokens, 128 * 128 = 16,384 times the bytes.",
    # within 5% of the right one, read off a measurement
    near={"growth_rounded": lambda v: abs(v - GROWTH) <= 0.05 * GROWTH},
)


# --- 09.rescale: the two lines of the running softmax ------------------------------------------
def _block_cases() -> list[Case]:
    """Random queries, keys and values whose row maxima grow from block to block, of sizes
    (num_queries, num_keys, d_k, d_v, block_size): the notebook's first (fewer queries than
    keys, a last block that is not full), then other sizes, one block only."""
    sizes = ((6, 10, 4, 3, 4), (3, 9, 5, 2, 2), (5, 7, 2, 4, 3), (4, 3, 3, 3, 8))
    cases = []
    for seed, (n_q, n_k, d_k, d_v, size) in enumerate(sizes, start=9):
        # Later keys are longer, so later blocks raise most rows' maximum: rescaling matters.
        lengths = torch.linspace(0.5, 3, n_k)[:, None]
        args = {
            "queries": random_tensor(n_q, d_k, seed=seed, scale=2.0),
            "keys": random_tensor(n_k, d_k, seed=seed + 100, scale=2.0) * lengths,
            "values": random_tensor(n_k, d_v, seed=seed + 200, scale=2.0),
            "block_size": size,
        }
        label = (
            f"{n_q} queries, {n_k} keys of {d_k} dimensions, values of {d_v}, in blocks of {size}"
        )
        cases.append(Case(label, args))
    return cases


def _run_blockwise(answer: Callable[..., Any], args: dict[str, Any]) -> Any:
    """The reader's update step inside the loop, or a whole blockwise function."""
    q, k, v, size = args["queries"], args["keys"], args["values"], args["block_size"]
    if "queries" in inspect.signature(answer).parameters:
        return answer(q, k, v, block_size=size)
    return blocks(q, k, v, size, answer)


FunctionExercise(
    name="09.rescale",
    task="write the two lines that rescale running_sum and context, then add the block",
    answer_names=("rescale_and_add",),
    cases=_block_cases,
    call=_run_blockwise,
    reference=lambda a: scaled_dot_product_attention(a["queries"], a["keys"], a["values"])[0],
    mistakes=rows(
        "no_rescale",
        "context_not_rescaled",
        "sum_not_rescaled",
        "new_block_rescaled",
        "rescale_divides",
        "block_replaces_sums",
        "running_sum_no_keepdim",
        "block_sum_of_all",
    ),
    forbids=Forbid(
        attnlib=("blockwise_attention", *ATTEND),
        torch=("scaled_dot_product_attention",),
        how="block by block, rescaling the sums",
    ),
    praise="Block by block, the same context vectors as the whole grid at once.",
)


# --- 09.block_growth: the largest tensor of blockwise attention --------------------------------
ValueExercise(
    name="09.block_growth",
    task="set block_times to how many times the largest block grows from 1,024 to 2,048 tokens",
    answer_names=("block_times",),
    accept=whole,
    expected=lambda: 2,
    mistakes={"block_grows_like_grid": lambda: 4, "block_fixed_size": lambda: 1},
    praise="(num_tokens, block_size): linear in num_tokens, where the grid is quadratic.",
)
