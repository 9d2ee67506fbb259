"""Exercises of notebook 09: how fast attention is, how much memory its grid takes, and
attention computed block by block with a running softmax."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

from attnlib.attention import scaled_dot_product_attention
from attnlib.exercises._core import Exercise, register
from attnlib.mistakes import MISTAKES

#: The exponent of the work of attention in num_tokens: n rows of n scores.
SLOPE = 2
#: The sizes the grid exercise is checked at: the course's sentence, and two longer ones.
GRID_SIZES = (6, 1024, 8192)
#: The context lengths of the growth question: "8k" and "1M" tokens.
SHORT, LONG = 8192, 1_048_576
#: Bytes of one float32.
FLOAT32_BYTES = torch.finfo(torch.float32).bits // 8
#: The blockwise exercise's sizes: fewer queries than keys, a last block that is not full.
NUM_QUERIES, NUM_KEYS, D_K, D_V, BLOCK_SIZE = 6, 10, 4, 3, 4


def _number(answer: Any) -> Any:
    """A number given as an int, a float, a one-number tensor or a string of digits."""
    if answer is Ellipsis or answer is None or isinstance(answer, bool):
        return answer
    if isinstance(answer, torch.Tensor) and answer.numel() == 1:
        answer = answer.item()
    if isinstance(answer, str):
        answer = answer.replace(",", "").replace("_", "").strip()
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return answer
    return int(value) if value.is_integer() else value


def _near(tolerance: float) -> Callable[[Any, Any], bool]:
    """Numbers within ``tolerance`` (a fraction of the target) of each other."""

    def same(result: Any, target: Any) -> bool:
        numbers = (int, float)
        if not isinstance(result, numbers) or not isinstance(target, numbers):
            return False
        return abs(result - target) <= tolerance * abs(target)

    return same


# --- 09.slope: read the slope off the log-log plot --------------------------------------------

register(
    Exercise(
        name="09.slope",
        task="set slope to the slope you expect for the matrix product at the right of the plot",
        run=_number,
        expected=lambda: SLOPE,
        mistakes={
            "slope_linear": lambda: 1,
            "slope_cubic": lambda: 3,
            "slope_is_ratio": lambda: 4,
        },
        # "about 2": a slope read off a plot of one's own timings is not exact.
        same=_near(0.25),
        praise="n rows of n scores: twice the tokens, 4 = 2^2 times the work.",
    )
)


# --- 09.grid_bytes: the memory of the (num_tokens, num_tokens) grid ----------------------------


def _grid_bytes(grid_bytes: Callable[[int], Any]) -> Any:
    results = tuple(_number(grid_bytes(num_tokens)) for num_tokens in GRID_SIZES)
    return Ellipsis if any(r is Ellipsis or r is None for r in results) else results


def _grid_mistake(name: str) -> Callable[[], tuple]:
    return lambda: tuple(MISTAKES[name].make(num_tokens) for num_tokens in GRID_SIZES)


register(
    Exercise(
        name="09.grid_bytes",
        task="return the bytes of a float32 grid of num_tokens x num_tokens scores",
        run=_grid_bytes,
        expected=lambda: tuple(FLOAT32_BYTES * n * n for n in GRID_SIZES),
        mistakes={
            name: _grid_mistake(name)
            for name in ("grid_entries_not_bytes", "grid_one_row", "grid_float64")
        },
        praise="4 bytes per score, num_tokens * num_tokens scores: 256 MiB at 8,192 tokens.",
    )
)


# --- 09.grid_growth: from 8k to 1M tokens ------------------------------------------------------

register(
    Exercise(
        name="09.grid_growth",
        task="set times to how many times the 1M-token grid is larger than the 8k-token grid",
        run=_number,
        expected=lambda: (LONG // SHORT) ** 2,
        mistakes={"growth_linear": lambda: LONG // SHORT},
        # 1,000,000 / 8,000 squared (15,625) is the same reasoning in round numbers.
        same=_near(0.05),
        praise="128 times the tokens, 128 * 128 = 16,384 times the bytes.",
    )
)


# --- 09.rescale: the two lines of the running softmax ------------------------------------------


def _qkv() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Queries, keys and values whose row maxima grow from block to block."""
    generator = torch.Generator().manual_seed(9)
    queries = torch.randn(NUM_QUERIES, D_K, generator=generator)
    # Later keys are longer, so later blocks raise most rows' maximum: rescaling matters.
    lengths = torch.linspace(0.5, 3, NUM_KEYS)[:, None]
    keys = torch.randn(NUM_KEYS, D_K, generator=generator) * lengths
    values = torch.randn(NUM_KEYS, D_V, generator=generator)
    return queries, keys, values


def _blockwise(update: Callable[..., Any]) -> Any:
    """The notebook's blockwise attention on :func:`_qkv`, with ``update`` as its two lines.

    ``update(running_sum, context, rescale, exps, block_values)`` returns the new
    ``(running_sum, context)``; the stub's ``...`` in its result means not attempted.
    """
    queries, keys, values = _qkv()
    scale = 1 / D_K**0.5
    running_max = torch.full((NUM_QUERIES, 1), -torch.inf)
    running_sum = torch.zeros(NUM_QUERIES, 1)
    context = torch.zeros(NUM_QUERIES, D_V)
    for start in range(0, NUM_KEYS, BLOCK_SIZE):
        block_keys = keys[start : start + BLOCK_SIZE]
        block_values = values[start : start + BLOCK_SIZE]
        scores = queries @ block_keys.T * scale
        new_max = torch.maximum(running_max, scores.amax(dim=-1, keepdim=True))
        rescale = torch.exp(running_max - new_max)
        exps = torch.exp(scores - new_max)
        result = update(running_sum, context, rescale, exps, block_values)
        if result is Ellipsis or result is None or any(r is Ellipsis for r in result):
            return Ellipsis
        running_sum, context = result
        running_max = new_max
    return context / running_sum


def _sum_without_keepdim(running_sum, context, rescale, exps, block_values):
    return running_sum * rescale + exps.sum(dim=-1), context * rescale + exps @ block_values


def _run_blockwise(answer: Callable[..., Any]) -> Any:
    """The reader's update step inside the loop, or a whole blockwise function, on :func:`_qkv`."""
    if "queries" in inspect.signature(answer).parameters:
        return answer(*_qkv(), block_size=BLOCK_SIZE)
    return _blockwise(answer)


register(
    Exercise(
        name="09.rescale",
        task="write the two lines that rescale running_sum and context, then add the block",
        run=_run_blockwise,
        expected=lambda: scaled_dot_product_attention(*_qkv())[0],
        mistakes={
            **{
                name: (lambda name=name: _blockwise(MISTAKES[name].make))
                for name in ("no_rescale", "context_not_rescaled", "new_block_rescaled")
            },
            "no_keepdim": lambda: _blockwise(_sum_without_keepdim),
        },
        praise="Block by block, the same context vectors as the whole grid at once.",
    )
)


# --- 09.block_growth: the largest tensor of blockwise attention --------------------------------

register(
    Exercise(
        name="09.block_growth",
        task="set times to how many times the largest block grows from 1,024 to 2,048 tokens",
        run=_number,
        expected=lambda: 2,
        mistakes={"block_grows_like_grid": lambda: 4, "block_fixed_size": lambda: 1},
        praise="(num_tokens, block_size): linear in num_tokens, where the grid is quadratic.",
    )
)
