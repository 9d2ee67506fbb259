"""Exercises of notebook 08: predictions about the explorer, checked before it is touched.

Each answer is a prediction (a number, a pair of yes/no, or a formula in
``num_tokens``); the right value is computed with attnlib's own functions, never
with the explorer, so that these checks hold whatever the widgets draw.
"""

from __future__ import annotations

from typing import Any

import torch

from attnlib.attention import attention_scores, attention_weights
from attnlib.data import embed, example_inputs
from attnlib.exercises._core import Exercise, register
from attnlib.modules import MultiHeadAttention

#: Tolerance for a predicted weight: below the 4 printed decimals.
_TOLERANCE = 5e-4


def _number(answer: Any) -> float:
    return float(answer)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return abs(float(a) - float(b)) <= _TOLERANCE


# --- 08.first_self: the causal mask on a sentence of your own ------------------------------


def _first_self() -> float:
    inputs = example_inputs()
    return float(attention_weights(inputs, inputs, scale=1.0, causal=True)[0, 0])


register(
    Exercise(
        name="08.first_self",
        task="set first_self to the weight the first token gives itself under the causal mask",
        run=_number,
        expected=_first_self,
        mistakes={"first_token_hidden": lambda: 0.0},
        same=_close,
        praise="The first token sees only itself: one score, and softmax of one score is 1.",
    )
)

# --- 08.hot_limit: the temperature ---------------------------------------------------------

# Sentences of these lengths: the first num_tokens tokens of the book's sentence.
_LENGTHS = (2, 4, 6)
_HOT = 1e6  # a temperature high enough for the limit, at 4 decimals


def _limits(hot_limit: Any) -> tuple | None:
    values = [hot_limit(n) for n in _LENGTHS]
    if any(value is Ellipsis or value is None for value in values):
        return None
    return tuple(float(value) for value in values)


def _hot_weights() -> tuple[float, ...]:
    """The first query's weight on the first token, at a huge temperature, per length."""
    inputs = example_inputs()
    return tuple(
        float(torch.softmax(attention_scores(inputs[:n]) / _HOT, dim=-1)[0, 0]) for n in _LENGTHS
    )


register(
    Exercise(
        name="08.hot_limit",
        task="make hot_limit(num_tokens) return the value each weight approaches as the "
        "temperature grows",
        run=_limits,
        expected=_hot_weights,
        mistakes={
            "hot_weights_vanish": lambda: (0.0,) * len(_LENGTHS),
            "hot_weights_to_one": lambda: (1.0,) * len(_LENGTHS),
        },
        same=_close,
        praise="The scores shrink towards 0, every exp towards 1: the weights become equal, "
        "1 / num_tokens each.",
    )
)

# --- 08.repeated_word: a word that comes twice ----------------------------------------------

_REPEATED = "the dog saw the dog"


def _pair(answer: Any) -> tuple | None:
    if any(value is Ellipsis for value in answer):
        return None
    return tuple(answer)


def _rows_equal() -> tuple[bool, bool]:
    """Rows 1 and 4 (the two "dog") of the simplified weights, without and with the mask."""
    _, inputs = embed(_REPEATED)
    plain, masked = (
        attention_weights(inputs, inputs, scale=1.0, causal=causal) for causal in (False, True)
    )
    return bool(torch.equal(plain[1], plain[4])), bool(torch.equal(masked[1], masked[4]))


register(
    Exercise(
        name="08.repeated_word",
        task="set same_without_mask and same_with_mask to True or False for the two 'dog' rows",
        run=_pair,
        expected=_rows_equal,
        mistakes={
            "repeat_rows_differ": lambda: (False, False),
            "causal_rows_same": lambda: (True, True),
        },
        praise="Equal vectors, equal scores: only the mask, which cuts each row at its own "
        "position, tells the two copies apart.",
    )
)

# --- 08.head_size: one head's context vector ----------------------------------------------


def _head_size() -> int:
    """What AttentionExplorer(num_heads=2) builds: MultiHeadAttention(3, 4, ..., 2)."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():  # the reader's stream stays
        module = MultiHeadAttention(3, 4, context_length=32, dropout=0.0, num_heads=2)
        return int(module.W_value(example_inputs()).shape[-1] // module.num_heads)


register(
    Exercise(
        name="08.head_size",
        task="set head_size to the number of features in one head's context vector",
        run=lambda answer: answer,
        expected=_head_size,
        mistakes={"d_out_per_head": lambda: 4, "context_size_d_in": lambda: 3},
        praise="d_out = 4 shared by 2 heads: each head's values, and so its context vector, "
        "have head_dim = 2 features.",
    )
)
