"""attnlib.attention against the book's printed values and against plain PyTorch; every
refusal's whole sentence; batches and masks that broadcast; scores far apart; the memory and
work limits, checked before any work.

Expected values come from plain torch or are written out by hand, never from attnlib.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import resource
import signal
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from book import (
    ALL_CONTEXT_VECS,
    ATTN_SCORES,
    ATTN_WEIGHTS,
    BOOK_INPUTS,
    JOURNEY_CONTEXT,
    TOKENS,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import attention as A
from attnlib.checks import check_scores
from attnlib.data import TOKENS as LIB_TOKENS
from attnlib.data import example_inputs
from attnlib.modules import CausalAttention

PRINTED = dict(atol=5e-5, rtol=0)  # equal to 4 printed decimals
INF = float("inf")
NAN = float("nan")


def tensors(min_tokens: int = 1, max_tokens: int = 8, max_d: int = 6, batch: bool = False):
    """Random float32 inputs (num_tokens, d) or (b, num_tokens, d), values in [-5, 5]."""

    @st.composite
    def build(draw):
        shape = [draw(st.integers(min_tokens, max_tokens)), draw(st.integers(1, max_d))]
        if batch:
            shape = [draw(st.integers(1, 3))] + shape
        seed = draw(st.integers(0, 2**31 - 1))
        gen = torch.Generator().manual_seed(seed)
        return (torch.rand(shape, generator=gen) - 0.5) * 10

    return build()


def book(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


# --- the book's numbers ----------------------------------------------------------------------


def test_example_inputs_are_the_books_six_tokens():
    inputs = example_inputs()
    assert LIB_TOKENS == TOKENS
    assert inputs.dtype == torch.float32
    torch.testing.assert_close(inputs, book(BOOK_INPUTS), atol=0, rtol=0)
    inputs[0] = 0  # a fresh copy each call: editing one cannot change the next
    torch.testing.assert_close(example_inputs(), book(BOOK_INPUTS), atol=0, rtol=0)


@pytest.mark.parametrize("scores", [A.attention_scores_loop, A.attention_scores])
def test_scores_book_values(scores):
    torch.testing.assert_close(scores(example_inputs()), book(ATTN_SCORES), **PRINTED)


@pytest.mark.parametrize("softmax", [A.softmax_naive, A.softmax])
def test_weights_book_values(softmax):
    attn_weights = softmax(A.attention_scores(example_inputs()), dim=-1)
    torch.testing.assert_close(attn_weights, book(ATTN_WEIGHTS), **PRINTED)


def test_journey_context_vector_book_value():
    inputs = example_inputs()
    weights = A.softmax(A.attention_scores(inputs), dim=-1)[1]
    torch.testing.assert_close(A.context_vector(inputs, weights), book(JOURNEY_CONTEXT), **PRINTED)


def test_all_context_vectors_book_values_and_row_1_equals_loop():
    inputs = example_inputs()
    attn_weights = A.softmax(A.attention_scores(inputs), dim=-1)
    all_vecs = A.context_vectors(attn_weights, inputs)
    torch.testing.assert_close(all_vecs, book(ALL_CONTEXT_VECS), **PRINTED)
    torch.testing.assert_close(all_vecs[1], A.context_vector(inputs, attn_weights[1]))


def test_sdpa_with_scale_one_is_the_simplified_attention_of_the_book():
    inputs = example_inputs()
    context_vecs, attn_weights = A.scaled_dot_product_attention(inputs, inputs, inputs, scale=1.0)
    torch.testing.assert_close(attn_weights, book(ATTN_WEIGHTS), **PRINTED)
    torch.testing.assert_close(context_vecs, book(ALL_CONTEXT_VECS), **PRINTED)


# --- against plain torch over random inputs --------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tensors())
def test_loop_equals_matmul_and_is_symmetric(inputs):
    loop = A.attention_scores_loop(inputs)
    torch.testing.assert_close(loop, inputs @ inputs.T, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(A.attention_scores(inputs), inputs @ inputs.T)
    torch.testing.assert_close(loop, loop.T)


@settings(max_examples=60, deadline=None)
@given(tensors(), st.sampled_from([-1, 0, 1, -2]))
def test_softmax_matches_torch_and_sums_to_one(x, dim):
    got = A.softmax(x, dim=dim)
    torch.testing.assert_close(got, torch.softmax(x, dim=dim))
    torch.testing.assert_close(A.softmax_naive(x, dim=dim), torch.softmax(x, dim=dim))
    torch.testing.assert_close(got.sum(dim=dim), torch.ones(got.sum(dim=dim).shape))


def test_stable_softmax_handles_what_overflows_the_naive_one():
    torch.testing.assert_close(A.softmax(torch.tensor([1.0, 2.0, 100.0])), book([0, 0, 1]))


def test_softmax_gives_masked_entries_zero_weight():
    got = A.softmax(torch.tensor([[1.0, -INF], [1.0, 2.0]]))
    assert got[0].tolist() == [1.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(tensors())
def test_context_vector_loop_equals_matmul(inputs):
    attn_weights = torch.softmax(inputs @ inputs.T, dim=-1)
    all_vecs = A.context_vectors(attn_weights, inputs)
    torch.testing.assert_close(all_vecs, attn_weights @ inputs)
    for q in range(inputs.shape[0]):
        torch.testing.assert_close(A.context_vector(inputs, attn_weights[q]), all_vecs[q])


def test_causal_mask():
    assert A.causal_mask(4).tolist() == [
        [False, True, True, True],
        [False, False, True, True],
        [False, False, False, True],
        [False, False, False, False],
    ]
    assert A.causal_mask(2, 3).tolist() == [[False, True, True], [False, False, True]]


@settings(max_examples=60, deadline=None)
@given(tensors(batch=True), st.booleans(), st.integers(1, 4), st.integers(1, 9))
def test_sdpa_and_blockwise_attention_match_torch(x, causal, d_v, block_size):
    gen = torch.Generator().manual_seed(0)
    queries, keys = x, x.flip(-2) * 0.5
    values = torch.rand(x.shape[:-1] + (d_v,), generator=gen)
    for q, k, v in ((queries, keys, values), (queries[0], keys[0], values[0])):  # batched, 2-d
        context_vecs, attn_weights = A.scaled_dot_product_attention(q, k, v, causal=causal)
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(context_vecs, expected, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(attn_weights.sum(-1), torch.ones(attn_weights.shape[:-1]))
        if causal:
            upper = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(1)
            assert (attn_weights[..., upper] == 0).all()
        else:  # blockwise attention has no mask: the same result, one block of keys at a time
            got = A.blockwise_attention(q, k, v, block_size=block_size)
            torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)


def test_blockwise_attention_keeps_large_scores_finite():
    # Scores of 1e6: exp of a raw score would overflow; the running maximum keeps it at exp(0).
    queries = torch.tensor([[1e3, 0.0], [0.0, 1e3]])
    keys = torch.tensor([[1e3, 0.0], [0.0, 1e3], [1e3, 1e3]])
    values = torch.tensor([[1.0], [2.0], [3.0]])
    got = A.blockwise_attention(queries, keys, values, block_size=1)
    torch.testing.assert_close(got, F.scaled_dot_product_attention(queries, keys, values))


def test_sdpa_causal_equals_a_causal_mask_and_dropout_sees_the_weights():
    inputs = example_inputs()
    causal, _ = A.scaled_dot_product_attention(inputs, inputs, inputs, causal=True)
    masked, _ = A.scaled_dot_product_attention(
        inputs, inputs, inputs, attn_mask=~A.causal_mask(8)[:6, :6]
    )
    torch.testing.assert_close(causal, masked)
    ctx, w = A.scaled_dot_product_attention(inputs, inputs, inputs, scale=1.0)
    doubled, w2 = A.scaled_dot_product_attention(
        inputs, inputs, inputs, scale=1.0, dropout=lambda t: 2 * t
    )
    torch.testing.assert_close(doubled, 2 * ctx)
    torch.testing.assert_close(w2, w)  # weights are reported before dropout


def test_mask_may_carry_the_batch_of_the_keys():
    queries, keys = torch.rand(5, 3), torch.rand(2, 5, 3)
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[1, :, 0] = True
    _, w = A.scaled_dot_product_attention(queries, keys, keys, attn_mask=~mask)
    assert w.shape == (2, 5, 5) and (w[1, :, 0] == 0).all() and (w[0, :, 0] > 0).all()


def test_attn_mask_means_what_torchs_means_true_attends():
    gen = torch.Generator().manual_seed(4)
    queries, keys, values = (torch.rand(2, 5, 3, generator=gen) for _ in range(3))
    attn_mask = torch.rand(2, 5, 5, generator=gen) > 0.4
    attn_mask[..., 0] = True  # every query attends to at least one key
    got, weights = A.scaled_dot_product_attention(queries, keys, values, attn_mask=attn_mask)
    expected = F.scaled_dot_product_attention(queries, keys, values, attn_mask=attn_mask)
    torch.testing.assert_close(got, expected)
    assert (weights[~attn_mask] == 0).all() and (weights[attn_mask] > 0).all()


def test_attention_weights_along_columns():
    inputs = example_inputs()
    by_column = A.attention_weights(inputs, inputs, scale=1.0, dim=-2)
    torch.testing.assert_close(by_column, torch.softmax(inputs @ inputs.T, dim=0))
    causal = A.attention_weights(inputs, inputs, scale=1.0, causal=True, dim=0)
    torch.testing.assert_close(causal.sum(dim=0), torch.ones(6))
    assert (causal[torch.ones(6, 6, dtype=torch.bool).triu(1)] == 0).all()


@pytest.mark.parametrize(
    "scale, as_float",
    [(np.float32(0.5), 0.5), (np.int64(2), 2.0), (np.float64(0.25), 0.25)],
    ids=["np.float32", "np.int64", "np.float64"],
)
def test_numpy_numbers_are_accepted_as_scale(scale, as_float):
    inputs = example_inputs()
    expected = torch.softmax(inputs @ inputs.T * as_float, dim=-1)
    torch.testing.assert_close(A.attention_weights(inputs, inputs, scale=scale), expected)


def test_numpy_integers_are_accepted_where_ints_are():
    assert A.causal_mask(np.int64(3)).tolist() == A.causal_mask(3).tolist()
    assert A.causal_mask(3, np.int32(4)).shape == (3, 4)
    torch.testing.assert_close(A.softmax(torch.ones(4, 3), dim=np.int64(0)).sum(0), torch.ones(3))


# --- devices and dtypes: nothing is pinned to the CPU or to float32 ---------------------------


def _mask_like(x: torch.Tensor) -> torch.Tensor:
    """Hides key 0 from every query but the first (which, causal, sees key 0 only)."""
    mask = torch.zeros(6, 6, dtype=torch.bool, device=x.device)
    mask[1:, 0] = True
    return mask


def _masked_reference() -> torch.Tensor:
    x = book(BOOK_INPUTS)
    hidden = torch.ones(6, 6, dtype=torch.bool).triu(1) | _mask_like(x)
    return torch.softmax((x @ x.T).masked_fill(hidden, -INF), dim=-1)


def _same_dtype(x: torch.Tensor, values) -> torch.Tensor:
    return torch.tensor(values, dtype=x.dtype, device=x.device)


# name -> (call on inputs x (6, 3) of any dtype and device, float32 reference on the CPU).
EVERY_FUNCTION = {
    "attention_scores_loop": (A.attention_scores_loop, lambda: book(ATTN_SCORES)),
    "attention_scores": (A.attention_scores, lambda: book(ATTN_SCORES)),
    "softmax_naive": (lambda x: A.softmax_naive(x @ x.T), lambda: book(ATTN_WEIGHTS)),
    "softmax": (lambda x: A.softmax(x @ x.T), lambda: book(ATTN_WEIGHTS)),
    "context_vector": (
        lambda x: A.context_vector(x, torch.softmax(x @ x.T, dim=-1)[1]),
        lambda: book(JOURNEY_CONTEXT),
    ),
    "context_vectors": (
        lambda x: A.context_vectors(torch.softmax(x @ x.T, dim=-1), x),
        lambda: book(ALL_CONTEXT_VECS),
    ),
    "causal_mask": (
        lambda x: A.causal_mask(6, device=x.device),
        lambda: torch.ones(6, 6, dtype=torch.bool).triu(1),
    ),
    "attention_weights": (
        lambda x: A.attention_weights(x, x, scale=1.0, causal=True, hidden=_mask_like(x)),
        _masked_reference,
    ),
    "scaled_scores": (
        # the unmasked entries of the book's scores (the masked ones are -inf on both sides)
        lambda x: A.scaled_scores(x, x, scale=1.0, causal=True).nan_to_num(neginf=0.0),
        lambda: book(ATTN_SCORES).tril(),
    ),
    "weights_from_scores": (
        lambda x: A.weights_from_scores(x @ x.T, causal=True, hidden=_mask_like(x)),
        _masked_reference,
    ),
    "scaled_dot_product_attention": (
        lambda x: A.scaled_dot_product_attention(x, x, x, causal=True)[0],
        lambda: F.scaled_dot_product_attention(
            book(BOOK_INPUTS), book(BOOK_INPUTS), book(BOOK_INPUTS), is_causal=True
        ),
    ),
    "blockwise_attention": (
        lambda x: A.blockwise_attention(x, x, x, block_size=4),
        lambda: F.scaled_dot_product_attention(
            book(BOOK_INPUTS), book(BOOK_INPUTS), book(BOOK_INPUTS)
        ),
    ),
}
# Within the book's 4 printed decimals in float64; within the dtype's own rounding otherwise.
DTYPE_ATOL = {torch.float64: 1e-4, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def test_every_public_function_is_run_on_other_devices_and_dtypes():
    public = {
        name
        for name, obj in vars(A).items()
        if inspect.isfunction(obj) and obj.__module__ == A.__name__ and not name.startswith("_")
    }
    assert public == set(EVERY_FUNCTION)


@pytest.mark.parametrize("name", EVERY_FUNCTION)
def test_runs_on_the_meta_device(name):
    call, reference = EVERY_FUNCTION[name]
    result = call(example_inputs().to("meta"))
    expected = reference()
    assert result.device.type == "meta"
    assert (result.shape, result.dtype) == (expected.shape, expected.dtype)


@pytest.mark.parametrize("dtype", DTYPE_ATOL, ids=str)
@pytest.mark.parametrize("name", EVERY_FUNCTION)
def test_keeps_the_dtype_of_its_inputs(name, dtype):
    call, reference = EVERY_FUNCTION[name]
    result = call(example_inputs().to(dtype))
    expected = reference()
    assert result.device.type == "cpu"
    if expected.dtype == torch.bool:
        assert result.dtype == torch.bool and torch.equal(result, expected)
        return
    assert result.dtype == dtype
    torch.testing.assert_close(result.float(), expected, atol=DTYPE_ATOL[dtype], rtol=0)


# --- what is refused, and the words that say why --------------------------------------------

F32 = torch.ones(4, 3)
HUGE = torch.full((4, 3), 1e20)  # its dot products, 3e40, overflow float32


def refused(id: str, call, message: str, marks=()):
    return pytest.param(call, message, id=id, marks=marks)


BAD_INPUTS = [
    refused("scores-1d", lambda: A.attention_scores(torch.ones(3)),
            "expected shape (num_tokens, d_in) (2-d), got 1-d"),
    refused("scores-3d", lambda: A.attention_scores(torch.ones(2, 4, 3)),
            "got 3-d shape (2, 4, 3)"),
    refused("loop-no-tokens", lambda: A.attention_scores_loop(torch.ones(0, 3)),
            "at least one of the tokens, got shape (0, 3)"),
    refused("scores-long", lambda: A.attention_scores(torch.ones(4, 3, dtype=torch.long)),
            "floating-point dtype"),
    refused("scores-list", lambda: A.attention_scores([[1.0, 2.0]]),
            "expected a torch.Tensor of floats, got list"),
    refused("softmax-int32", lambda: A.softmax(torch.ones(3, dtype=torch.int32)),
            "got torch.int32"),
    refused("softmax-dim-2", lambda: A.softmax(F32, 2),
            "dim: expected an int in [-2, 1], got int 2"),
    refused("softmax_naive-empty", lambda: A.softmax_naive(torch.ones(2, 0)), "got shape (2, 0)"),
    refused("context_vector-3-weights", lambda: A.context_vector(F32, torch.ones(3)),
            "one weight per input, num_tokens = 4, got 3 (shape (3,))"),
    refused("context_vector-2d-weights", lambda: A.context_vector(F32, torch.ones(4, 4)),
            "weights: expected shape (num_tokens,)"),
    refused("context_vectors-5-columns", lambda: A.context_vectors(torch.ones(4, 5), F32),
            "one column per input token = 4, got 5"),
    refused("context_vectors-1d", lambda: A.context_vectors(torch.ones(4), F32),
            "attn_weights: expected shape"),
    refused("context_vectors-batches",
            lambda: A.context_vectors(torch.ones(2, 4, 4), torch.ones(3, 4, 3)), "batch axes"),
    refused("context_vectors-float64", lambda: A.context_vectors(torch.ones(4, 4), F32.double()),
            "attn_weights: expected dtype torch.float64"),
    refused("causal_mask-0", lambda: A.causal_mask(0), "num_tokens: expected an int >= 1, got 0"),
    refused("causal_mask-float", lambda: A.causal_mask(2.5), "got float 2.5"),
    refused("causal_mask-bool", lambda: A.causal_mask(True),
            "num_tokens: expected an int >= 1, got bool True"),
    refused("sdpa-d_k", lambda: A.scaled_dot_product_attention(F32, torch.ones(4, 2), F32),
            "d_k = 3"),
    refused("sdpa-values-rows", lambda: A.scaled_dot_product_attention(F32, F32, torch.ones(5, 3)),
            "one row per key, num_keys = 4, got 5"),
    refused("sdpa-1d-queries", lambda: A.scaled_dot_product_attention(torch.ones(3), F32, F32),
            "queries: expected shape"),
    refused("sdpa-no-queries", lambda: A.scaled_dot_product_attention(torch.ones(0, 3), F32, F32),
            "at least one of the tokens"),
    refused("sdpa-causal-str", lambda: A.scaled_dot_product_attention(F32, F32, F32, "yes"),
            "causal: expected True or False"),
    refused("sdpa-float-mask",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, attn_mask=torch.ones(4, 4)),
            "attn_mask: expected a bool tensor"),
    refused("sdpa-long-mask",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, attn_mask=A.causal_mask(6)),
            "slice a longer mask with mask[:num_tokens"),
    refused("sdpa-scale-negative", lambda: A.scaled_dot_product_attention(F32, F32, F32, scale=-1),
            "scale: expected a float > 0, a positive finite number, got -1"),
    refused("sdpa-scale-inf", lambda: A.scaled_dot_product_attention(F32, F32, F32, scale=INF),
            "scale: expected a float > 0, a positive finite number, got inf"),
    refused("sdpa-keys-float64",
            lambda: A.scaled_dot_product_attention(F32, F32.double(), F32),
            "keys: expected dtype torch.float32"),
    refused("sdpa-values-float64",
            lambda: A.scaled_dot_product_attention(F32, F32, F32.double()),
            "values: expected dtype torch.float32"),
    refused("sdpa-batches", lambda: A.scaled_dot_product_attention(
                torch.rand(5, 3), torch.rand(2, 5, 3), torch.rand(3, 5, 3)),
            "keys (2,), values (3,)"),
    refused("sdpa-dropout-float",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=0.1),
            "dropout: expected a callable"),
    refused("blockwise-block_size-0", lambda: A.blockwise_attention(F32, F32, F32, 0),
            "block_size: expected an int >= 1, got 0"),
    refused("blockwise-block_size-float", lambda: A.blockwise_attention(F32, F32, F32, 2.0),
            "block_size: expected an int >= 1, got float 2.0"),
    refused("blockwise-d_k", lambda: A.blockwise_attention(F32, torch.ones(4, 2), F32), "d_k = 3"),
    refused("blockwise-values-rows", lambda: A.blockwise_attention(F32, F32, torch.ones(5, 3)),
            "one row per key, num_keys = 4, got 5"),
    refused("blockwise-values-float64", lambda: A.blockwise_attention(F32, F32, F32.double()),
            "values: expected dtype torch.float32"),
    refused("blockwise-batches", lambda: A.blockwise_attention(
                torch.rand(5, 3), torch.rand(2, 5, 3), torch.rand(3, 5, 3)),
            "batch axes"),
]  # fmt: skip

# A result that would hold inf or NaN is refused, with what to do about it, not returned.
NON_FINITE = [
    refused("softmax-row-of-minus-inf", lambda: A.softmax(torch.tensor([[-INF] * 3, [0, 1, 2]])),
            "x: expected a score above -inf in every slice along dim=-1 (is a mask hiding all?), "
            "got only -inf in x[0, :]"),
    refused("softmax-plus-inf", lambda: A.softmax(torch.tensor([0.0, INF, 1.0])),
            "no +inf or NaN"),
    refused("softmax-nan", lambda: A.softmax(torch.tensor([0.0, NAN, 1.0])), "no +inf or NaN"),
    refused("softmax_naive-exp-overflow", lambda: A.softmax_naive(torch.tensor([1.0, 2.0, 100.0])),
            "exp overflowed (scores above ~88 in float32); use softmax"),
    refused("attention_scores-1e20", lambda: A.attention_scores(HUGE), "overflowed"),
    refused("attention_scores_loop-1e20", lambda: A.attention_scores_loop(HUGE), "overflowed"),
    refused("attention_weights-scale-1e300",
            lambda: A.attention_weights(example_inputs(), example_inputs(), scale=1e300),
            "overflowed"),
    refused("sdpa-1e20", lambda: A.scaled_dot_product_attention(HUGE, HUGE, HUGE), "overflowed"),
    refused("blockwise-1e20", lambda: A.blockwise_attention(HUGE, HUGE, HUGE), "overflowed"),
    refused("sdpa-mask-hides-every-key",  # an inverted causal mask leaves the last query nothing
            lambda: A.scaled_dot_product_attention(F32, F32, F32, attn_mask=A.causal_mask(4)),
            "a mask hides every key of a query"),
    # The module promises this for every function, blends included.
    refused("context_vector-overflow",
            lambda: A.context_vector(torch.full((2, 3), 3e38), torch.ones(2)),
            "inf or NaN"),
    refused("context_vectors-overflow",
            lambda: A.context_vectors(torch.ones(1, 2), torch.full((2, 3), 3e38)),
            "inf or NaN"),
    refused("sdpa-nan-values",
            lambda: A.scaled_dot_product_attention(F32, F32, torch.full((4, 3), NAN)),
            "inf or NaN"),
]  # fmt: skip

# Sizes beyond the limits are refused before anything is allocated, naming the limit.
SIZE_LIMITS = [
    refused("causal_mask-queries", lambda: A.causal_mask(10**6), "<= 16384 (the limit)"),
    refused("causal_mask-keys", lambda: A.causal_mask(4, 10**6),
            "num_keys: expected an int <= 16384"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", BAD_INPUTS + NON_FINITE + SIZE_LIMITS)
def test_refused_with_a_value_error_that_says_why(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


def test_the_scale_refused_is_the_one_that_overflows():
    # Just below the overflow, the same call works: the refusal is about the numbers.
    inputs = example_inputs()
    scale = 1e38 / float((inputs @ inputs.T).max())
    weights = A.attention_weights(inputs, inputs, scale=scale)
    assert torch.isfinite(weights).all() and math.isclose(float(weights.sum()), 6.0, rel_tol=1e-6)


# --- the steps of attention_weights, public for the views and the exercises' references ----


def test_scaled_scores_are_what_softmax_gets():
    torch.manual_seed(11)
    queries, keys = torch.randn(2, 4, 3), torch.randn(2, 5, 3)
    hidden = torch.rand(4, 5) > 0.7
    plain = torch.einsum("bqd,bkd->bqk", queries, keys)
    scale = 0.25
    expected = (plain * scale).masked_fill(
        torch.ones(4, 5, dtype=torch.bool).triu(1) | hidden, float("-inf")
    )
    got = A.scaled_scores(queries, keys, scale=scale, causal=True, hidden=hidden)
    assert torch.equal(torch.isinf(got), torch.isinf(expected))
    assert torch.allclose(got.nan_to_num(neginf=0.0), expected.nan_to_num(neginf=0.0), atol=1e-6)
    assert torch.allclose(A.scaled_scores(queries, keys, scale=1.0), plain, atol=1e-6)
    default = A.scaled_scores(queries, keys)
    assert torch.allclose(default, plain / math.sqrt(3), atol=1e-6)


def test_weights_from_scores_is_attention_weights_after_the_product():
    torch.manual_seed(12)
    queries, keys = torch.randn(4, 3), torch.randn(4, 3)
    plain = queries @ keys.T
    for causal in (False, True):
        for dim in (-1, -2):
            expected = A.attention_weights(queries, keys, scale=0.5, causal=causal, dim=dim)
            got = A.weights_from_scores(plain, scale=0.5, causal=causal, dim=dim)
            assert torch.allclose(got, expected, atol=1e-6)
    unscaled = torch.softmax(plain, dim=-1)
    assert torch.allclose(A.weights_from_scores(plain), unscaled, atol=1e-6)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: A.scaled_scores(torch.ones(2, 3), torch.ones(2, 4)), "keys"),
        (
            lambda: A.scaled_scores(torch.ones(2, 3), torch.ones(2, 3), scale=0),
            "scale",
        ),
        (lambda: A.weights_from_scores(torch.ones(3)), "attn_scores"),
        (lambda: A.weights_from_scores(torch.ones(2, 2), causal=1), "causal"),
        (lambda: A.weights_from_scores(torch.ones(2, 2), scale=-1.0), "scale"),
        (
            lambda: A.weights_from_scores(
                torch.ones(2, 2), hidden=torch.ones(2, 2, dtype=torch.bool)
            ),
            "attn_weights",
        ),
        (
            lambda: A.scaled_scores(torch.full((1, 2), 1e30), torch.full((1, 2), 1e30)),
            "attn_scores",
        ),
    ],
)
def test_the_steps_refuse_bad_arguments_in_words(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# --- every refusal's whole sentence: the argument's name, what was expected, what came ---------

F64 = torch.ones(4, 3, dtype=torch.float64)

OVERFLOW = "the numbers overflowed; use smaller inputs (or scale)"
BAD_VALUES = "the values hold inf or NaN, or their blend overflowed; use finite, smaller values"


# The reader sees the whole sentence: the argument's name first, then what was expected
# (with the course's names for the axes), then what came.
REFUSALS = [
    # scores
    refused("loop-1d", lambda: A.attention_scores_loop(torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refused("loop-3d", lambda: A.attention_scores_loop(torch.ones(2, 4, 3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 4, 3)"),
    refused("loop-overflow", lambda: A.attention_scores_loop(HUGE),
            f"attn_scores: got inf or NaN; {OVERFLOW}"),
    refused("scores-1d", lambda: A.attention_scores(torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refused("scores-overflow", lambda: A.attention_scores(HUGE),
            f"attn_scores: got inf or NaN; {OVERFLOW}"),
    # softmax
    refused("softmax_naive-empty", lambda: A.softmax_naive(torch.ones(2, 0)),
            "x: expected no empty axis in (..., n), got shape (2, 0)"),
    refused("softmax_naive-overflow", lambda: A.softmax_naive(torch.tensor([1.0, 2.0, 100.0])),
            "softmax_naive(x): got inf or NaN; exp overflowed (scores above ~88 in float32); "
            "use softmax, which subtracts the max"),
    refused("softmax-empty", lambda: A.softmax(torch.ones(0)),
            "x: expected no empty axis in (..., n), got shape (0,)"),
    refused("softmax-nan", lambda: A.softmax(torch.tensor([0.0, NAN, 1.0])),
            "softmax(x): got inf or NaN; no +inf or NaN: softmax needs finite scores, or -inf "
            "where masked"),
    # one context vector
    refused("context_vector-1d-inputs", lambda: A.context_vector(torch.ones(3), torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refused("context_vector-3d-inputs",
            lambda: A.context_vector(torch.ones(2, 4, 3), torch.ones(4)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 4, 3)"),
    refused("context_vector-3-weights", lambda: A.context_vector(F32, torch.ones(3)),
            "weights: expected one weight per input, num_tokens = 4, got 3 (shape (3,))"),
    refused("context_vector-float64-weights", lambda: A.context_vector(F32, torch.ones(4).double()),
            "weights: expected dtype torch.float32 on cpu (as inputs), got dtype torch.float64 "
            "on cpu; convert with weights.to(torch.float32) (or .to('cpu'))"),
    refused("context_vector-overflow",
            lambda: A.context_vector(torch.full((2, 3), 3e38), torch.ones(2)),
            f"context_vec: got inf or NaN; {OVERFLOW}"),
    # all context vectors
    refused("context_vectors-1d-weights", lambda: A.context_vectors(torch.ones(4), F32),
            "attn_weights: expected shape (..., num_queries, num_tokens) (at least 2-d), "
            "got 1-d shape (4,)"),
    refused("context_vectors-1d-inputs", lambda: A.context_vectors(torch.ones(4, 4), torch.ones(4)),
            "inputs: expected shape (..., num_tokens, d) (at least 2-d), got 1-d shape (4,)"),
    refused("context_vectors-5-columns", lambda: A.context_vectors(torch.ones(4, 5), F32),
            "attn_weights: expected one column per input token = 4, got 5 (shape (4, 5))"),
    refused("context_vectors-float64-inputs", lambda: A.context_vectors(torch.ones(4, 4), F64),
            "attn_weights: expected dtype torch.float64 on cpu (as inputs), got dtype "
            "torch.float32 on cpu; convert with attn_weights.to(torch.float64) (or .to('cpu'))"),
    refused("context_vectors-overflow",
            lambda: A.context_vectors(torch.ones(1, 2), torch.full((2, 3), 3e38)),
            f"context_vecs: got inf or NaN; {OVERFLOW}"),
    # the causal mask: the limit is checked on the first size itself
    refused("causal_mask-too-long", lambda: A.causal_mask(10**6),
            "num_tokens: expected an int <= 16384 (the limit), got 1000000"),
    # queries against keys
    refused("sdpa-1d-queries", lambda: A.scaled_dot_product_attention(torch.ones(3), F32, F32),
            "queries: expected shape (..., num_queries, d_k) (at least 2-d), got 1-d shape (3,)"),
    refused("sdpa-1d-keys", lambda: A.scaled_dot_product_attention(F32, torch.ones(3), F32),
            "keys: expected shape (..., num_keys, d_k) (at least 2-d), got 1-d shape (3,)"),
    refused("sdpa-d_k", lambda: A.scaled_dot_product_attention(F32, torch.ones(4, 2), F32),
            "keys: expected the queries' last dimension d_k = 3, got 2 (shape (4, 2))"),
    refused("sdpa-float64-keys", lambda: A.scaled_dot_product_attention(F32, F64, F32),
            "keys: expected dtype torch.float32 on cpu (as queries), got dtype torch.float64 "
            "on cpu; convert with keys.to(torch.float32) (or .to('cpu'))"),
    refused("weights-batches",
            lambda: A.attention_weights(torch.ones(2, 5, 3), torch.ones(3, 5, 3)),
            "expected batch axes that broadcast together, got queries (2,), keys (3,)"),
    refused("weights-mask-too-big",
            lambda: A.attention_weights(F32, F32, hidden=torch.ones(5, 5, dtype=torch.bool)),
            "hidden: expected a shape broadcastable to the scores' (4, 4), got (5, 5); slice a "
            "longer mask with mask[:num_tokens, :num_tokens]"),
    refused("sdpa-float-mask",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, attn_mask=torch.ones(4, 4)),
            "attn_mask: expected a bool tensor (True = attend, as torch's), got a tensor of "
            "shape (4, 4) and dtype torch.float32"),
    refused("weights-overflow", lambda: A.attention_weights(F32, F32, scale=1e300),
            f"attn_weights: got inf or NaN; either {OVERFLOW}, or a mask hides every key of a "
            "query (an inverted mask?)"),
    # dropout
    refused("sdpa-dropout-a-float",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=0.1),
            "dropout: expected a callable such as torch.nn.Dropout(p), got float 0.1"),
    refused("sdpa-dropout-returns-a-float",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: 0.5),
            "dropout: expected it to return the weights' shape, got float 0.5"),
    refused("sdpa-dropout-returns-a-column",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: w[:, :1]),
            "dropout: expected it to return the weights' shape, got a tensor of shape (4, 1) "
            "and dtype torch.float32"),
]  # fmt: skip

# Both functions that blend values refuse the same values in the same words.
VALUES = [
    ("1d", lambda: (F32, F32, torch.ones(4)),
     "values: expected shape (..., num_keys, d_v) (at least 2-d), got 1-d shape (4,)"),
    ("rows", lambda: (F32, F32, torch.ones(5, 3)),
     "values: expected one row per key, num_keys = 4, got 5 (shape (5, 3))"),
    ("float64", lambda: (F32, F32, F64),
     "values: expected dtype torch.float32 on cpu (as queries), got dtype torch.float64 "
     "on cpu; convert with values.to(torch.float32) (or .to('cpu'))"),
    ("batches", lambda: (torch.ones(2, 5, 3), torch.ones(5, 3), torch.ones(3, 5, 3)),
     "expected batch axes that broadcast together, got queries (2,), keys (), values (3,)"),
    ("none", lambda: (F32, F32, None),
     "values: expected a torch.Tensor of floats, got NoneType None"),
    ("nan", lambda: (F32, F32, torch.full((4, 3), NAN)),
     f"context_vecs: got inf or NaN; {BAD_VALUES}"),
]  # fmt: skip
REFUSALS += [
    refused(f"{name}-{case}-values", lambda f=f, args=args: f(*args()), message)
    for name, f in (("sdpa", A.scaled_dot_product_attention), ("blockwise", A.blockwise_attention))
    for case, args, message in VALUES
]  # fmt: skip


@pytest.mark.parametrize("call, message", REFUSALS)
def test_a_refusal_names_the_argument_what_was_expected_and_what_came(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# --- shapes that broadcast ---------------------------------------------------------------------


def test_context_vectors_of_a_batch_with_fewer_queries_than_tokens():
    gen = torch.Generator().manual_seed(0)
    attn_weights = torch.softmax(torch.rand(2, 3, 4, generator=gen), dim=-1)  # 3 queries
    inputs = torch.rand(2, 4, 5, generator=gen)  # 4 tokens
    expected = torch.einsum("bqt,btd->bqd", attn_weights, inputs)
    torch.testing.assert_close(A.context_vectors(attn_weights, inputs), expected)


@pytest.mark.parametrize("shape", [(4,), (1, 4)], ids=["(num_keys,)", "(1, num_keys)"])
def test_a_mask_of_one_row_hides_the_same_keys_from_every_query(shape):
    gen = torch.Generator().manual_seed(1)
    queries, keys = torch.rand(3, 2, generator=gen), torch.rand(4, 2, generator=gen)
    mask = torch.tensor([False, True, False, True]).reshape(shape)
    scores = (queries @ keys.T).masked_fill(torch.tensor([False, True, False, True]), -math.inf)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=mask)
    torch.testing.assert_close(got, torch.softmax(scores, dim=-1))
    assert (got[:, [1, 3]] == 0).all()


def test_a_batch_of_queries_over_shared_keys_takes_a_mask_per_sequence():
    gen = torch.Generator().manual_seed(2)
    queries, keys = torch.rand(2, 5, 3, generator=gen), torch.rand(5, 3, generator=gen)
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[0, :, 4] = True  # sequence 0 hides key 4, sequence 1 hides nothing
    scores = (queries @ keys.T).masked_fill(mask, -math.inf)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=mask)
    torch.testing.assert_close(got, torch.softmax(scores, dim=-1))


def test_an_int_too_big_for_a_float_is_refused_in_words_not_by_float():
    # float(10**400) raises OverflowError: check.is_real turns such an int away first.
    queries = torch.ones(2, 3)
    expected = "^scale: expected a float > 0, a positive finite number, got int 1000"
    with pytest.raises(ValueError, match=expected):
        A.attention_weights(queries, queries, scale=10**400)
    with pytest.raises(ValueError, match=r"^dropout: expected a float in \[0, 1\), got int 1000"):
        CausalAttention(3, 2, context_length=4, dropout=10**400)


def test_batch_axes_beyond_numpys_64_broadcast_as_torch_broadcasts_them():
    # numpy's broadcast_shapes stops at 64 axes; torch does not, so neither may the check.
    gen = torch.Generator().manual_seed(3)
    queries = torch.rand((1,) * 68 + (3, 4), generator=gen)
    keys = torch.rand((1,) * 67 + (2, 5, 4), generator=gen)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=torch.zeros(5, dtype=torch.bool))
    assert got.shape == (1,) * 67 + (2, 3, 5)
    expected = torch.softmax(queries @ keys.transpose(-2, -1), dim=-1)
    torch.testing.assert_close(got.reshape(2, 3, 5), expected.reshape(2, 3, 5))  # its 64-axis cap


# --- scores far apart: each row is shifted by its own maximum -----------------------------------

FAR_APART = torch.tensor([[0.0, 1.0], [-200.0, -199.0]])  # row 1 far below the grid's maximum


def test_softmax_of_rows_far_apart_is_each_rows_own():
    # softmax([0, 1]) = [1 / (1 + e), e / (1 + e)], and a shift of a whole row cancels.
    row = [1 / (1 + math.e), math.e / (1 + math.e)]
    torch.testing.assert_close(A.softmax(FAR_APART), torch.tensor([row, row]))
    torch.testing.assert_close(A.softmax(FAR_APART.T, dim=0), torch.tensor([row, row]).T)


@pytest.mark.parametrize("block_size", [1, 128])
def test_blockwise_attention_of_queries_far_apart_matches_torch(block_size):
    # Scaled scores of about +-212: one query's exps, taken against the other's maximum, vanish.
    queries = torch.tensor([[300.0, 0.0], [-300.0, 0.0]])
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    values = torch.tensor([[1.0], [2.0]])
    got = A.blockwise_attention(queries, keys, values, block_size=block_size)
    torch.testing.assert_close(got, F.scaled_dot_product_attention(queries, keys, values))


# --- sizes refused before they are tried: one rule, bytes against a 2 GiB limit ------------------

LIMIT = "over the limit of 2,147,483,648 bytes (2 GiB)"
BIG = torch.zeros(1, 1).expand(100_000, 1)  # 100,000 tokens in 4 bytes of storage


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.attention_scores(torch.zeros(1, 1).expand(200_000, 1)),
            "attention_scores: inputs (copied) (200000, 1) + attn_scores (200000, 200000) need "
            f"160,000,800,000 bytes, {LIMIT}",
            id="scores-200000-tokens",
        ),
        pytest.param(
            lambda: A.softmax(torch.zeros(1).expand(100_000, 100_000)),
            "softmax(x): exps (100000, 100000) + weights (100000, 100000) need "
            f"80,000,000,000 bytes, {LIMIT}",
            id="softmax-expanded",
        ),
        pytest.param(
            lambda: A.softmax_naive(torch.zeros(1, dtype=torch.float64).expand(30_000, 10_000)),
            "softmax(x): exps (30000, 10000) + weights (30000, 10000) need 4,800,000,000 bytes, "
            f"{LIMIT}",
            id="softmax_naive-float64",
        ),
        pytest.param(
            lambda: A.attention_weights(BIG, BIG),
            "attention_weights: queries (copied) (100000, 1) + keys (copied) (100000, 1) + "
            "attn_scores (100000, 100000) + attn_weights (100000, 100000) need "
            f"80,000,800,000 bytes, {LIMIT}",
            id="weights",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(BIG, BIG, BIG),
            "scaled_dot_product_attention: queries (copied) (100000, 1) + keys (copied) "
            "(100000, 1) + values (copied) (100000, 1) + attn_scores (100000, 100000) + "
            "attn_weights (100000, 100000) + context_vecs (100000, 1) need 80,001,600,000 bytes, "
            f"{LIMIT}",
            id="sdpa",
        ),
        pytest.param(
            lambda: A.blockwise_attention(BIG, BIG, BIG, block_size=10**5),
            "blockwise_attention: queries (copied) (100000, 1) + keys (copied) (100000, 1) + "
            "values (copied) (100000, 1) + a block of attn_scores (100000, 100000) + its exps "
            f"(100000, 100000) + context_vecs (100000, 1) need 80,001,600,000 bytes, {LIMIT}",
            id="blockwise-one-big-block",
        ),
        pytest.param(
            lambda: A.context_vectors(BIG, torch.zeros(1, 1).expand(1, 100_000)),
            "context_vectors: attn_weights (copied) (100000, 1) + inputs (copied) (1, 100000) + "
            f"context_vecs (100000, 100000) need 40,000,800,000 bytes, {LIMIT}",
            id="context_vectors",
        ),
    ],
)
def test_a_call_that_needs_more_than_the_memory_limit_is_refused_naming_its_bytes(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_blockwise_attention_in_small_blocks_is_not_held_to_the_whole_grid():
    queries = torch.zeros(1, 1).expand(3_000, 1)
    # 3,000 x 3,000 scores would be 36 MB; blocks of 16 keys hold 192 KB at a time.
    assert A.blockwise_attention(queries, queries, queries[:, :1], block_size=16).shape == (3000, 1)


# --- odd calls that once hung or ran out of memory: each refused in words at once ------------
# (run in a child with a time and memory limit, so that a regression fails instead of hanging)

WORK = (
    "over the limit of 8,589,934,592 (a few seconds; a multiply-add is 1 step, an entry 128, "
    "a row of softmax 1024)"
)
BATCH = torch.zeros(1, 1, 1).expand(30_000_000, 2, 1)  # 30 million sequences of 2 tokens


def in_a_child(call, seconds: int = 10, memory: int = 4 * 1024**3) -> tuple[str, str]:
    """What ``call()`` does in a forked child with ``memory`` bytes of address space and
    ``seconds`` of time, as the odd calls were run: ``(exception's name, message)``,
    ``("returned", "")`` or ``("hang", "")``; so a regression fails here instead of hanging."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            signal.alarm(seconds)
            call()
            outcome = ["returned", ""]
        except BaseException as err:  # noqa: BLE001  what it raised is the answer
            outcome = [type(err).__name__, str(err)]
        os.write(write, json.dumps(outcome).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return tuple(json.loads(data)) if data and not os.WIFSIGNALED(status) else ("hang", "")


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.attention_weights(BATCH, BATCH),
            "attention_weights: queries (copied) (30000000, 2, 1) + keys (copied) (30000000, 2, 1)"
            " + attn_scores (30000000, 2, 2) + attn_weights (30000000, 2, 2) take about "
            f"76,920,000,000 steps of work, {WORK}",
            id="weights-huge-batch",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(BATCH, BATCH, BATCH),
            "scaled_dot_product_attention: queries (copied) (30000000, 2, 1) + keys (copied) "
            "(30000000, 2, 1) + values (copied) (30000000, 2, 1) + attn_scores (30000000, 2, 2) + "
            "attn_weights (30000000, 2, 2) + context_vecs (30000000, 2, 1) take about "
            f"84,720,000,000 steps of work, {WORK}",
            id="sdpa-huge-batch",
        ),
        pytest.param(
            lambda: A.blockwise_attention(BATCH, BATCH, BATCH),
            "blockwise_attention: queries (copied) (30000000, 2, 1) + keys (copied) "
            "(30000000, 2, 1) + values (copied) (30000000, 2, 1) + a block of attn_scores "
            "(30000000, 2, 2) + its exps (30000000, 2, 2) + context_vecs (30000000, 2, 1) take "
            f"about 77,040,000,000 steps of work, {WORK}",
            id="blockwise-huge-batch",
        ),
        pytest.param(
            lambda: A.context_vector(
                torch.zeros(1, 3).expand(10**6, 3), torch.zeros(1).expand(10**6)
            ),
            "inputs: expected at most 65536 tokens (the loop takes one Python step per token; use "
            "context_vectors), got 1000000",
            id="context_vector-a-million-tokens",
        ),
        pytest.param(
            lambda: A.context_vectors(
                torch.zeros(1, 1).expand(10**5, 10**5), torch.zeros(1, 1).expand(10**5, 1)
            ),
            "context_vectors: attn_weights (copied) (100000, 100000) + inputs (copied) (100000, 1) "
            f"+ context_vecs (100000, 1) need 40,000,800,000 bytes, {LIMIT}",
            id="context_vectors-expanded",
        ),
        pytest.param(
            lambda: check_scores(torch.zeros(6, 6), inputs=torch.zeros(1, 3).expand(23_000, 3)),
            "attention_scores: inputs (copied) (23000, 3) + attn_scores (23000, 23000) take about "
            f"69,299,000,000 steps of work, {WORK}",
            id="check_scores-expanded-inputs",
        ),
        pytest.param(
            lambda: A.softmax(torch.tensor([[0.0, 1.0], [-math.inf, -math.inf]])),
            "x: expected a score above -inf in every slice along dim=-1 (is a mask hiding all?), "
            "got only -inf in x[1, :]",
            id="softmax-a-row-of-only-minus-inf",
        ),
        pytest.param(
            lambda: A.softmax_naive(torch.full((2, 3), -math.inf), dim=0),
            "x: expected a score above -inf in every slice along dim=0 (is a mask hiding all?), "
            "got only -inf in x[:, 0]",
            id="softmax_naive-a-column-of-only-minus-inf",
        ),
    ],
)
def test_an_odd_call_is_refused_in_words_at_once(call, message):
    start = time.monotonic()
    kind, said = in_a_child(call)
    assert (kind, said) == ("ValueError", message)
    assert time.monotonic() - start < 5, "refused, but only after the work it refuses"


def test_the_child_tells_a_hang_and_a_raw_error_from_a_refusal():
    assert in_a_child(lambda: time.sleep(5), seconds=1) == ("hang", "")
    assert in_a_child(lambda: torch.ones(2) @ torch.ones(3))[0] == "RuntimeError"
    too_big = in_a_child(lambda: torch.empty(2**31), memory=2**30)
    assert too_big[0] == "RuntimeError" and "alloc" in too_big[1]


def test_the_loop_has_its_own_limit_on_tokens():
    with pytest.raises(ValueError) as info:
        A.attention_scores_loop(torch.zeros(1, 3).expand(400, 3))
    assert str(info.value) == (
        "inputs: expected at most 256 tokens (the loop takes num_tokens**2 Python steps; "
        "use attention_scores), got 400"
    )


# --- no raw exception from torch: what torch cannot take is refused in words -------------------

AXES_65 = torch.ones((1,) * 63 + (2, 3))  # 65 axes, one more than torch's elementwise operations


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.softmax(AXES_65),
            "x: expected at most 64 axes (torch's elementwise operations take no more), got 65-d",
            id="softmax",
        ),
        pytest.param(
            lambda: A.softmax_naive(AXES_65),
            "x: expected at most 64 axes (torch's elementwise operations take no more), got 65-d",
            id="softmax_naive",
        ),
        pytest.param(
            lambda: A.blockwise_attention(AXES_65, AXES_65, AXES_65),
            "queries, keys: expected scores of at most 64 axes, torch's elementwise limit, "
            "got 65-d",
            id="blockwise",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(AXES_65, AXES_65, AXES_65 * NAN),
            f"context_vecs: got inf or NaN; {BAD_VALUES}",
            id="sdpa-65-axes-nan",
        ),
        pytest.param(
            lambda: A.attention_scores(torch.ones(3, 3).to_sparse()),
            "inputs: expected a dense tensor (layout torch.strided), got layout torch.sparse_coo; "
            "use inputs.to_dense()",
            id="sparse-scores",
        ),
        pytest.param(
            lambda: A.softmax(torch.ones(3, 3).to_sparse_csr()),
            "x: expected a dense tensor (layout torch.strided), got layout torch.sparse_csr; "
            "use x.to_dense()",
            id="sparse-softmax",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: w.double()),
            "dropout(attn_weights): expected dtype torch.float32 on cpu (as attn_weights), got "
            "dtype torch.float64 on cpu",
            id="dropout-returns-float64",
        ),
    ],
)
def test_what_torch_would_refuse_with_its_own_error_is_refused_in_words(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(message)
