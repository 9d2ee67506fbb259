"""Exercises of notebook 07: multi-head attention, heads split and merged.

The step-by-step example of the notebook: the book's sentence twice, ``batch`` of
shape ``(2, 6, 3)``, projected by ``MultiHeadAttention(3, 12, 6, 0.0, num_heads=3)``
built right after ``torch.manual_seed(123)``: ``d_out = 12``, 3 heads of ``head_dim`` 4.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import torch

from attnlib.data import example_inputs
from attnlib.exercises._core import Exercise, made, register
from attnlib.mistakes import MISTAKES
from attnlib.modules import MultiHeadAttention, MultiHeadAttentionWrapper, split_heads

NUM_HEADS = 3  # of the step-by-step example: d_out = 12, head_dim = 4


def _seeded(build: Callable[..., Any]) -> Callable[..., Any]:
    """``build`` run right after ``torch.manual_seed(123)``, as the book builds its layers,
    without moving the reader's own random stream."""

    @functools.wraps(build)
    def run(*args: Any) -> Any:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(123)
            return build(*args)

    return run


def _batch() -> torch.Tensor:
    """The book's batch: the example sentence twice, ``(2, 6, 3)``."""
    inputs = example_inputs()
    return torch.stack((inputs, inputs))


@_seeded
def _example() -> MultiHeadAttention:
    """The notebook's step-by-step layer, with its seed."""
    return MultiHeadAttention(3, 12, context_length=6, dropout=0.0, num_heads=NUM_HEADS)


def _queries() -> torch.Tensor:
    """Step 1's queries ``(b, num_tokens, d_out) = (2, 6, 12)``."""
    with torch.no_grad():
        return _example().W_query(_batch())


def _context() -> torch.Tensor:
    """Step 5's context vectors, ``(b, num_heads, num_tokens, head_dim) = (2, 3, 6, 4)``."""
    module = _example()
    with torch.no_grad():
        module(_batch())
        values = split_heads(module.W_value(_batch()), NUM_HEADS)
    return module.last_attn_weights @ values


def _merge(context_vec: torch.Tensor) -> torch.Tensor:
    b, num_heads, num_tokens, head_dim = context_vec.shape
    return context_vec.transpose(1, 2).contiguous().view(b, num_tokens, num_heads * head_dim)


# --- 07.wrapper_forward: heads side by side ------------------------------------------------

_WRAPPER = {"d_in": 3, "d_out": 2, "context_length": 6, "dropout": 0.0, "num_heads": 2}


@_seeded
def _wrapper_run(cls: type) -> torch.Tensor:
    """``cls`` built like the book's wrapper, right after seed 123, run on the batch."""
    module = cls(**_WRAPPER)
    with torch.no_grad():
        return module(_batch())


@_seeded
def _head_outputs() -> list[torch.Tensor]:
    """Each head's output ``(b, num_tokens, d_out)`` in the same wrapper."""
    wrapper = MultiHeadAttentionWrapper(**_WRAPPER)
    with torch.no_grad():
        return [head(_batch()) for head in wrapper.heads]


register(
    Exercise(
        name="07.wrapper_forward",
        task="write the wrapper's forward: every head on x, their outputs side by side",
        run=_wrapper_run,
        expected=lambda: _wrapper_run(MultiHeadAttentionWrapper),
        mistakes=made("heads_cat_wrong_axis", "heads_summed", on=lambda: (_head_outputs(),)),
        praise="Each token's row now holds head 0's 2 features, then head 1's: 4 in all.",
    )
)

# --- 07.d_out: is d_out per head or in total? ----------------------------------------------


def _sizes(answer: tuple) -> tuple | None:
    if any(value is Ellipsis for value in answer):
        return None
    return tuple(answer)


@_seeded
def _book_layer_sizes() -> tuple[int, int]:
    module = MultiHeadAttention(3, 2, context_length=6, dropout=0.0, num_heads=2)
    with torch.no_grad():
        return module.head_dim, module(_batch()).shape[-1]


@_seeded
def _wrapper_sizes() -> tuple[int, int]:
    """What reading d_out per head gives: the wrapper's sizes for the same call."""
    wrapper = MultiHeadAttentionWrapper(3, 2, context_length=6, dropout=0.0, num_heads=2)
    with torch.no_grad():
        return wrapper.heads[0].d_out, wrapper(_batch()).shape[-1]


register(
    Exercise(
        name="07.d_out",
        task="set head_dim and out_features for MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)",
        run=_sizes,
        expected=_book_layer_sizes,
        mistakes={"d_out_per_head": _wrapper_sizes},
        praise="d_out = 2 is shared by the 2 heads: 1 feature each, 2 features out.",
    )
)

# --- 07.split_heads ----------------------------------------------------------------------


register(
    Exercise(
        name="07.split_heads",
        task="return x cut into heads, shape (b, num_heads, num_tokens, head_dim)",
        run=lambda split: split(_queries(), NUM_HEADS),
        expected=lambda: split_heads(_queries(), NUM_HEADS),
        mistakes=made(
            "split_without_transpose", "split_transpose_last", on=lambda: (_queries(), NUM_HEADS)
        ),
        praise="view cuts each token's 12 features into 3 heads of 4; transpose(1, 2) puts "
        "the heads before the tokens.",
    )
)

# --- 07.merge_heads ----------------------------------------------------------------------


register(
    Exercise(
        name="07.merge_heads",
        task="return the heads side by side again, shape (b, num_tokens, num_heads * head_dim)",
        run=lambda merge: merge(_context()),
        expected=lambda: _merge(_context()),
        mistakes=made(
            "merge_without_transpose", "view_without_contiguous", on=lambda: (_context(),)
        ),
        praise="Each token's row holds its 3 heads' 4 features, head 0 first.",
    )
)

# --- 07.forward: the whole forward pass --------------------------------------------------

# A layer whose mask is longer than the input (context_length 8, 6 tokens) and whose
# d_out (4) differs from head_dim (2), so that each mistake changes the result.
_FORWARD = {"d_in": 3, "d_out": 4, "context_length": 8, "dropout": 0.0, "num_heads": 2}
# What torch says for the two mistakes that raise, in whichever form the reader wrote them.
_UNCUT = re.compile(r"size of tensor a \((6|8)\) must match the size of tensor b \((8|6)\)")
_UNCUT_TEXT = "the (8, 8) mask does not fit the (6, 6) scores: cut it to num_tokens"
_PER_HEAD = re.compile(r"shape '\[2, 6, (2, 4|8)\]' is invalid for input of size (48|24)")
_PER_HEAD_TEXT = "a view with head_dim = d_out asks for more numbers than there are"


def _one_message(compute: Callable[[], torch.Tensor]) -> torch.Tensor:
    """``compute()``, with the two mistakes that raise reported the same way however written."""
    try:
        return compute()
    except RuntimeError as err:  # e.g. masked_fill_ and masked_fill word it differently
        if _UNCUT.search(str(err)):
            raise RuntimeError(_UNCUT_TEXT) from None
        if _PER_HEAD.search(str(err)):
            raise RuntimeError(_PER_HEAD_TEXT) from None
        raise


@_seeded
def _run(cls: type) -> torch.Tensor:
    module = cls(**_FORWARD)
    with torch.no_grad():
        return module(_batch())


def _forward(cls: type) -> torch.Tensor:
    """``cls`` built as the book builds it, right after seed 123, run on the batch."""
    return _one_message(lambda: _run(cls))


@_seeded
def _mistaken(mistake: str) -> torch.Tensor:
    """The forward pass with one ``mistake`` of :data:`MISTAKES` in it."""
    module = MultiHeadAttention(**_FORWARD)
    x = _batch()
    b, num_tokens, _ = x.shape
    num_heads, head_dim, d_out = module.num_heads, module.head_dim, module.d_out
    splits = ("split_without_transpose", "d_out_per_head")
    split = MISTAKES[mistake].make if mistake in splits else split_heads
    with torch.no_grad():
        queries, keys, values = (
            split(layer(x), num_heads) for layer in (module.W_query, module.W_key, module.W_value)
        )
        attn_scores = queries @ keys.transpose(-2, -1)
        mask = module.mask if mistake == "mask_not_cut" else module.mask[:num_tokens, :num_tokens]
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        d_k = d_out if mistake == "scale_by_d_out" else head_dim
        attn_weights = module.dropout(torch.softmax(attn_scores / d_k**0.5, dim=-1))
        context_vec = attn_weights @ values
        if mistake == "merge_without_transpose":
            merged = MISTAKES[mistake].make(context_vec)
        else:
            merged = _merge(context_vec)
        return merged if mistake == "no_out_proj" else module.out_proj(merged)


def _forward_with(mistake: str) -> Callable[[], torch.Tensor]:
    return lambda: _one_message(lambda: _mistaken(mistake))


_FORWARD_MISTAKES = (
    "split_without_transpose",
    "d_out_per_head",
    "mask_not_cut",
    "scale_by_d_out",
    "merge_without_transpose",
    "no_out_proj",
)

register(
    Exercise(
        name="07.forward",
        task="write forward(self, x): steps 1 to 8, from x to the (b, num_tokens, d_out) output",
        run=_forward,
        expected=lambda: _forward(MultiHeadAttention),
        mistakes={mistake: _forward_with(mistake) for mistake in _FORWARD_MISTAKES},
        praise="Your forward pass gives attnlib's numbers: project, split, attend per head, "
        "merge, out_proj.",
    )
)

# --- 07.head_dim_one: the explorer's question --------------------------------------------

_NUM_TOKENS = example_inputs().shape[0]

register(
    Exercise(
        name="07.head_dim_one",
        task="set most_weighted to the largest number of different tokens that can be some "
        "query's most weighted token, in one head with head_dim 1",
        run=lambda answer: answer,
        expected=lambda: 2,
        mistakes={
            "argmax_per_query": lambda: _NUM_TOKENS,
            "query_sign_ignored": lambda: 1,
        },
        praise="A score is q_i * k_j: a positive query picks the largest key, a negative one "
        "the smallest, whatever the query's size.",
    )
)
