"""Exercises of notebook 08: predictions about the explorer, checked before it is touched.

Each answer is a prediction (a number, a pair of True/False, or a function of
``num_tokens``); the right value is computed with attnlib's own functions, never
with the explorer, so that these checks hold whatever the widgets draw.
"""

from __future__ import annotations

from typing import Any

import torch

from attnlib.attention import attention_scores, attention_weights, context_vectors, softmax
from attnlib.data import TOKENS, embed, example_inputs
from attnlib.exercises._calls import Forbid
from attnlib.exercises._compare import shown
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import Refused, ValueExercise, boolean, number, token, whole
from attnlib.modules import MultiHeadAttention

#: Decimals a predicted weight is compared at: the 4 the notebook prints.
DECIMALS = 4


def _weights(causal: bool) -> torch.Tensor:
    inputs = example_inputs()
    return attention_weights(inputs, inputs, scale=1.0, causal=causal)


# --- 08.first_self: the causal mask on a sentence of your own ------------------------------
ValueExercise(
    name="08.first_self",
    task="set first_self to the weight the first token gives itself under the causal mask",
    answer_names=("first_self",),
    accept=number,
    expected=lambda: float(_weights(causal=True)[0, 0]),
    mistakes={"first_token_hidden": lambda: 0},
    # a weight read without the mask
    near={
        "first_self_unmasked": lambda v: (
            isinstance(v, float) and round(v, 2) == round(float(_weights(causal=False)[0, 0]), 2)
        )
    },
    praise="The first token sees only itself: one score, and softmax of one score is 1.",
)


# --- 08.hot_limit: the temperature ---------------------------------------------------------
def _hot_weight(num_tokens: int) -> float:
    """The first query's weight on the first token, at a temperature (1e6) high enough for
    the limit at 4 decimals."""
    generator = torch.Generator().manual_seed(num_tokens)
    inputs = example_inputs() if num_tokens <= 6 else torch.rand(num_tokens, 3, generator=generator)
    row = softmax(attention_scores(inputs[:num_tokens]) / 1e6)[0]
    return round(float(row[0]), DECIMALS)


def _weight(result: Any) -> Any:
    """A number the reader returned, at the printed decimals; anything else as it is."""
    value = number(result)
    return result if isinstance(value, Refused) else round(value, DECIMALS)


FunctionExercise(
    name="08.hot_limit",
    task="make hot_limit(num_tokens) return the value each weight approaches as the "
    "temperature grows",
    answer_names=("hot_limit",),
    # the book's 6 tokens first, then the first n of its tokens and a longer random
    # sentence, so that 1 / 6 written as a number is right once only
    cases=lambda: [
        Case("the book's 6 tokens" if n == 6 else f"{n} tokens", {"num_tokens": n})
        for n in (6, 2, 4, 9)
    ],
    call=lambda hot_limit, args: _weight(hot_limit(args["num_tokens"])),
    solution=_hot_weight,
    mistakes=rows("hot_weights_vanish", "hot_weights_to_one", "hot_weights_count"),
    forbids=Forbid(because="a prediction; measuring it with attnlib is an experiment"),
    praise="The scores shrink towards 0, every exp towards 1: the weights become equal, "
    "1 / num_tokens each.",
)


# --- 08.repeated_word: a word that comes twice ----------------------------------------------
def _rows_equal() -> tuple[bool, bool]:
    """Rows 1 and 4 (the two "dog") of the simplified weights, without and with the mask."""
    _, inputs = embed("the dog saw the dog")
    plain, masked = (
        attention_weights(inputs, inputs, scale=1.0, causal=causal) for causal in (False, True)
    )
    return bool(torch.equal(plain[1], plain[4])), bool(torch.equal(masked[1], masked[4]))


ValueExercise(
    name="08.repeated_word",
    task="set same_without_mask and same_with_mask to True or False for the two 'dog' rows",
    answer_names=("same_without_mask", "same_with_mask"),
    accept=boolean,
    expected=_rows_equal,
    mistakes={
        "repeat_rows_differ": lambda: (False, False),
        "causal_rows_same": lambda: (True, True),
        "mask_effect_swapped": lambda: (False, True),
    },
    praise="Equal vectors, equal scores: only the mask, which cuts each row at its own "
    "position, tells the two copies apart.",
)


# --- 08.head_size: one head's context vector ----------------------------------------------
def _head_size() -> int:
    """What AttentionExplorer(num_heads=2) builds: MultiHeadAttention(3, 4, ..., 2)."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():  # the reader's stream stays
        module = MultiHeadAttention(3, 4, context_length=32, dropout=0.0, num_heads=2)
        return int(module.W_value(example_inputs()).shape[-1] // module.num_heads)


ValueExercise(
    name="08.head_size",
    task="set head_size to the number of features in one head's context vector",
    answer_names=("head_size",),
    accept=whole,
    expected=_head_size,
    mistakes={"d_out_per_head": lambda: 4, "context_size_d_in": lambda: 3},
    praise="d_out = 4 shared by 2 heads: each head's values, and so its context vector, "
    "have head_dim = 2 features.",
)


# --- 08.swap_rows: two tokens swapped, with and without the mask ------------------------------
#: The two positions swapped: "journey" and "starts" of the book's sentence.
SWAPPED = (1, 2)


def _words(answer: Any) -> Any:
    """A collection of tokens (words in any case, or indices) as a frozenset of lower-case
    words, else a :class:`Refused`."""
    if isinstance(answer, str) or not isinstance(answer, (set, frozenset, list, tuple, type(None))):
        return Refused(
            f"expected a set of tokens such as {{'one', 'step'}}, or set() for none, "
            f"got {shown(answer)}"
        )
    words = [token(TOKENS)(item) for item in answer or ()]
    return next((w for w in words if isinstance(w, Refused)), frozenset(words))


def _contexts(inputs: torch.Tensor, causal: bool) -> torch.Tensor:
    """The simplified context vectors of ``inputs`` (no projections, no scale)."""
    return context_vectors(attention_weights(inputs, inputs, scale=1.0, causal=causal), inputs)


def _changed_words() -> tuple[frozenset[str], ...]:
    """The words whose simplified context vector changes when the two tokens swap places."""
    inputs = example_inputs()
    order = list(range(len(inputs)))
    i, j = SWAPPED
    order[i], order[j] = order[j], order[i]
    changed = []
    for causal in (False, True):
        before, after = _contexts(inputs, causal), _contexts(inputs[order], causal)
        # row p of `after` is the word that now stands at p, order[p] of the sentence
        moved = [
            q for p, q in enumerate(order) if not torch.allclose(after[p], before[q], atol=1e-6)
        ]
        changed.append(frozenset(TOKENS[q].lower() for q in moved))
    return tuple(changed)


def _swap_mistake(without: tuple[int, ...], with_mask: tuple[int, ...]) -> Any:
    return lambda: (
        frozenset(TOKENS[i].lower() for i in without),
        frozenset(TOKENS[i].lower() for i in with_mask),
    )


ValueExercise(
    name="08.swap_rows",
    task="set changed_without_mask and changed_with_mask to the words whose context vector "
    "changes when 'journey' and 'starts' swap places",
    answer_names=("changed_without_mask", "changed_with_mask"),
    accept=_words,
    expected=_changed_words,
    mistakes={
        "swap_moves_unmasked": _swap_mistake(SWAPPED, SWAPPED),
        "swap_mask_every_later": _swap_mistake((), range(SWAPPED[0], len(TOKENS))),
        "swap_mask_swapped": _swap_mistake(SWAPPED, ()),
        "swap_nothing_changes": _swap_mistake((), ()),
    },
    praise="Without the mask attention sees a set of tokens, not a sequence: order changes "
    "nothing. The mask brings in order, but only as far as who sees whom.",
)
