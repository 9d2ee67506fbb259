"""attnlib.attention against the book's printed values and against plain PyTorch."""

from __future__ import annotations

import inspect
import math

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
from attnlib.data import TOKENS as LIB_TOKENS
from attnlib.data import example_inputs

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
