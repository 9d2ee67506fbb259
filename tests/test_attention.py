"""attnlib.attention against the book's printed values and against PyTorch."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from book import ALL_CONTEXT_VECS, JOURNEY_WEIGHTS
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import attention as A
from attnlib.data import TOKENS, example_inputs

PRINTED = dict(atol=5e-5, rtol=0)  # equal to 4 printed decimals


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


def test_example_inputs_are_the_six_tokens():
    inputs = example_inputs()
    assert inputs.shape == (6, 3) and inputs.dtype == torch.float32
    assert TOKENS == ("Your", "journey", "starts", "with", "one", "step")
    assert inputs[1].tolist() == pytest.approx([0.55, 0.87, 0.66])
    inputs[0] = 0  # a fresh copy each call: editing one cannot change the next
    assert example_inputs()[0, 0].item() == pytest.approx(0.43)


def test_scores_book_values():
    attn_scores = A.attention_scores_loop(example_inputs())
    assert attn_scores.shape == (6, 6)
    torch.testing.assert_close(attn_scores[0, 1], torch.tensor(0.9544), **PRINTED)
    torch.testing.assert_close(attn_scores[1, 0], torch.tensor(0.9544), **PRINTED)
    torch.testing.assert_close(attn_scores[0, 0], torch.tensor(0.9995), **PRINTED)


def test_weights_book_values():
    attn_weights = A.softmax(A.attention_scores(example_inputs()), dim=-1)
    torch.testing.assert_close(attn_weights[0, 1], torch.tensor(0.2006), **PRINTED)
    torch.testing.assert_close(attn_weights[1, 0], torch.tensor(0.1385), **PRINTED)
    torch.testing.assert_close(attn_weights[1], torch.tensor(JOURNEY_WEIGHTS), **PRINTED)


def test_journey_context_vector_book_value():
    inputs = example_inputs()
    weights = A.softmax(A.attention_scores(inputs), dim=-1)[1]
    torch.testing.assert_close(
        A.context_vector(inputs, weights), torch.tensor([0.4419, 0.6515, 0.5683]), **PRINTED
    )


def test_all_context_vectors_book_values_and_row_1_equals_loop():
    inputs = example_inputs()
    attn_weights = A.softmax(A.attention_scores(inputs), dim=-1)
    all_vecs = A.context_vectors(attn_weights, inputs)
    torch.testing.assert_close(all_vecs, torch.tensor(ALL_CONTEXT_VECS), **PRINTED)
    torch.testing.assert_close(all_vecs[1], A.context_vector(inputs, attn_weights[1]))


def test_loop_and_matmul_agree_on_the_example():
    # Not bit-identical: MKL's matmul sums in another order than torch.dot (1 ulp).
    inputs = example_inputs()
    torch.testing.assert_close(A.attention_scores_loop(inputs), inputs @ inputs.T)


@settings(max_examples=60, deadline=None)
@given(tensors())
def test_loop_equals_matmul_and_is_symmetric(inputs):
    loop = A.attention_scores_loop(inputs)
    torch.testing.assert_close(loop, A.attention_scores(inputs), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(loop, loop.T)


@settings(max_examples=60, deadline=None)
@given(tensors(), st.sampled_from([-1, 0, 1, -2]))
def test_softmax_matches_torch_and_sums_to_one(x, dim):
    got = A.softmax(x, dim=dim)
    torch.testing.assert_close(got, torch.softmax(x, dim=dim))
    torch.testing.assert_close(A.softmax_naive(x, dim=dim), torch.softmax(x, dim=dim))
    torch.testing.assert_close(got.sum(dim=dim), torch.ones(got.sum(dim=dim).shape))


def test_naive_softmax_overflows_where_stable_does_not():
    attn_scores = torch.tensor([1.0, 2.0, 100.0])
    with pytest.raises(ValueError, match="exp overflowed .* use softmax"):
        A.softmax_naive(attn_scores)
    torch.testing.assert_close(A.softmax(attn_scores), torch.tensor([0.0, 0.0, 1.0]))


def test_softmax_gives_masked_entries_zero_weight():
    x = torch.tensor([[1.0, float("-inf")], [1.0, 2.0]])
    got = A.softmax(x)
    assert got[0].tolist() == [1.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(tensors())
def test_context_vector_loop_equals_matmul(inputs):
    attn_weights = A.softmax(A.attention_scores(inputs), dim=-1)
    all_vecs = A.context_vectors(attn_weights, inputs)
    for q in range(inputs.shape[0]):
        torch.testing.assert_close(A.context_vector(inputs, attn_weights[q]), all_vecs[q])


def test_causal_mask():
    mask = A.causal_mask(4)
    assert mask.dtype == torch.bool
    assert mask.tolist() == [
        [False, True, True, True],
        [False, False, True, True],
        [False, False, False, True],
        [False, False, False, False],
    ]
    assert A.causal_mask(2, 3).shape == (2, 3)


@settings(max_examples=60, deadline=None)
@given(tensors(batch=True), st.booleans(), st.integers(1, 4))
def test_sdpa_matches_torch(x, causal, d_v):
    gen = torch.Generator().manual_seed(0)
    queries, keys = x, x.flip(-2) * 0.5
    values = torch.rand(x.shape[:-1] + (d_v,), generator=gen)
    for q, k, v in ((queries, keys, values), (queries[0], keys[0], values[0])):  # batched, 2-d
        context_vecs, attn_weights = A.scaled_dot_product_attention(q, k, v, causal=causal)
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.testing.assert_close(context_vecs, expected, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(attn_weights.sum(-1), torch.ones(attn_weights.shape[:-1]))
        if causal:
            upper = A.causal_mask(q.shape[-2])
            assert (attn_weights[..., upper] == 0).all()


def test_sdpa_scale_mask_and_dropout():
    inputs = example_inputs()
    ctx, w = A.scaled_dot_product_attention(inputs, inputs, inputs, scale=1.0)
    torch.testing.assert_close(ctx[1], torch.tensor([0.4419, 0.6515, 0.5683]), **PRINTED)
    causal, _ = A.scaled_dot_product_attention(inputs, inputs, inputs, causal=True)
    masked, _ = A.scaled_dot_product_attention(
        inputs, inputs, inputs, mask=A.causal_mask(8)[:6, :6]
    )
    torch.testing.assert_close(causal, masked)
    doubled, w2 = A.scaled_dot_product_attention(
        inputs, inputs, inputs, scale=1.0, dropout=lambda t: 2 * t
    )
    torch.testing.assert_close(doubled, 2 * ctx)
    torch.testing.assert_close(w2, w)  # weights are reported before dropout


# Each bad input, and the words its ValueError must contain.
F32 = torch.ones(4, 3)
BAD_INPUTS = [
    (A.attention_scores, (torch.ones(3),), "expected shape (num_tokens, d_in) (2-d), got 1-d"),
    (A.attention_scores, (torch.ones(2, 4, 3),), "got 3-d shape (2, 4, 3)"),
    (A.attention_scores_loop, (torch.ones(0, 3),), "at least one of the tokens, got shape (0, 3)"),
    (A.attention_scores, (torch.ones(4, 3, dtype=torch.long),), "floating-point dtype"),
    (A.attention_scores, ([[1.0, 2.0]],), "expected a torch.Tensor of floats, got list"),
    (A.softmax, (torch.ones(3, dtype=torch.int32),), "got torch.int32"),
    (A.softmax, (F32, 2), "dim: expected an int in [-2, 1], got int 2"),
    (A.softmax_naive, (torch.ones(2, 0),), "got shape (2, 0)"),
    (A.context_vector, (F32, torch.ones(3)), "one weight per input, num_tokens = 4, got 3 (shape (3,))"),
    (A.context_vector, (F32, torch.ones(4, 4)), "weights: expected shape (num_tokens,)"),
    (A.context_vectors, (torch.ones(4, 5), F32), "one column per input token = 4, got 5"),
    (A.context_vectors, (torch.ones(4), F32), "attn_weights: expected shape"),
    (A.context_vectors, (torch.ones(2, 4, 4), torch.ones(3, 4, 3)), "batch axes"),
    (A.causal_mask, (0,), "num_queries: expected an int >= 1, got 0"),
    (A.causal_mask, (2.5,), "got float 2.5"),
    (A.scaled_dot_product_attention, (F32, torch.ones(4, 2), F32), "d_k = 3"),
    (A.scaled_dot_product_attention, (F32, F32, torch.ones(5, 3)), "one row per key, num_keys = 4, got 5"),
    (A.scaled_dot_product_attention, (torch.ones(3), F32, F32), "queries: expected shape"),
    (A.scaled_dot_product_attention, (torch.ones(0, 3), F32, F32), "at least one of the tokens"),
    (A.scaled_dot_product_attention, (F32, F32, F32, "yes"), "causal: expected True or False"),
]


@pytest.mark.parametrize("fn, args, message", BAD_INPUTS)
def test_bad_input_raises_clear_value_error(fn, args, message):
    with pytest.raises(ValueError) as info:
        fn(*args)
    assert message in str(info.value)


def test_bad_mask_and_scale():
    with pytest.raises(ValueError, match=r"mask: expected a bool tensor"):
        A.scaled_dot_product_attention(F32, F32, F32, mask=torch.ones(4, 4))
    with pytest.raises(ValueError, match=r"slice a longer mask with mask\[:num_tokens"):
        A.scaled_dot_product_attention(F32, F32, F32, mask=A.causal_mask(6))
    with pytest.raises(ValueError, match="scale: expected a float > 0, a positive finite number, got -1"):
        A.scaled_dot_product_attention(F32, F32, F32, scale=-1)
    with pytest.raises(ValueError, match="scale: expected a float > 0, a positive finite number, got inf"):
        A.scaled_dot_product_attention(F32, F32, F32, scale=float("inf"))


def test_a_mask_that_hides_every_key_of_a_query_is_refused_not_nan():
    # An inverted causal mask leaves the last query nothing to attend to: softmax would be 0/0.
    with pytest.raises(ValueError, match="a mask hides every key of a query"):
        A.scaled_dot_product_attention(F32, F32, F32, mask=~A.causal_mask(4))


def test_mixed_dtypes_and_batches_get_value_errors():
    f64 = F32.double()
    with pytest.raises(ValueError, match="keys: expected dtype torch.float32"):
        A.scaled_dot_product_attention(F32, f64, F32)
    with pytest.raises(ValueError, match="values: expected dtype torch.float32"):
        A.scaled_dot_product_attention(F32, F32, f64)
    with pytest.raises(ValueError, match="attn_weights: expected dtype torch.float64"):
        A.context_vectors(torch.ones(4, 4), f64)
    with pytest.raises(ValueError, match=r"keys \(2,\), values \(3,\)"):
        A.scaled_dot_product_attention(torch.rand(5, 3), torch.rand(2, 5, 3), torch.rand(3, 5, 3))
    with pytest.raises(ValueError, match="dropout: expected a callable"):
        A.scaled_dot_product_attention(F32, F32, F32, dropout=0.1)


def test_mask_may_carry_the_batch_of_the_keys():
    queries, keys = torch.rand(5, 3), torch.rand(2, 5, 3)
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[1, :, 0] = True
    ctx, w = A.scaled_dot_product_attention(queries, keys, keys, mask=mask)
    assert w.shape == (2, 5, 5) and (w[1, :, 0] == 0).all() and (w[0, :, 0] > 0).all()


def test_attention_weights_along_columns():
    inputs = example_inputs()
    by_column = A.attention_weights(inputs, inputs, scale=1.0, dim=-2)
    torch.testing.assert_close(by_column, torch.softmax(inputs @ inputs.T, dim=0))
    causal = A.attention_weights(inputs, inputs, scale=1.0, causal=True, dim=0)
    torch.testing.assert_close(causal.sum(dim=0), torch.ones(6))
    assert (causal[A.causal_mask(6)] == 0).all()


def test_numpy_integers_are_accepted_where_ints_are():
    import numpy as np

    assert A.causal_mask(np.int64(3)).shape == (3, 3)
    torch.testing.assert_close(A.softmax(F32, dim=np.int64(0)).sum(0), torch.ones(3))
    with pytest.raises(ValueError, match="num_queries: expected an int >= 1, got bool True"):
        A.causal_mask(True)
