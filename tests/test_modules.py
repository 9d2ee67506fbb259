"""Tests for attnlib.modules: the book's numbers, torch's own attention, invariants, errors.

Every expected value comes from outside the code under test: the numbers printed in
chapter 3 of Raschka's book, or a recomputation with plain torch operations
(``torch.nn.functional.scaled_dot_product_attention``, ``torch.nn.MultiheadAttention``).
"""

from __future__ import annotations

import math
import re

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import attnlib.modules as modules
from attnlib.data import example_inputs
from attnlib.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttentionV1,
    SelfAttentionV2,
)

# The book prints 4 decimals; 1e-4 is below that rounding (half a unit is 5e-5, plus float noise).
BOOK_ATOL = 1e-4
# Two float32 computations of the same quantity in a different order.
ATOL = 1e-5


@pytest.fixture
def inputs() -> torch.Tensor:
    return example_inputs()


@pytest.fixture
def batch(inputs: torch.Tensor) -> torch.Tensor:
    return torch.stack((inputs, inputs))


def assert_close(actual: torch.Tensor, expected, atol: float = ATOL) -> None:
    expected = torch.as_tensor(expected, dtype=actual.dtype)
    torch.testing.assert_close(actual.detach(), expected, atol=atol, rtol=0)


# --- the book's numbers ------------------------------------------------------------------

BOOK_V1 = [
    [0.2996, 0.8053],
    [0.3061, 0.8210],
    [0.3058, 0.8203],
    [0.2948, 0.7939],
    [0.2927, 0.7891],
    [0.2990, 0.8040],
]
BOOK_V2 = [
    [-0.0739, 0.0713],
    [-0.0748, 0.0703],
    [-0.0749, 0.0702],
    [-0.0760, 0.0685],
    [-0.0763, 0.0679],
    [-0.0754, 0.0693],
]
BOOK_CAUSAL = [
    [-0.4519, 0.2216],
    [-0.5874, 0.0058],
    [-0.6300, -0.0632],
    [-0.5675, -0.0843],
    [-0.5526, -0.0981],
    [-0.5299, -0.1081],
]
BOOK_WRAPPER = [
    [-0.4519, 0.2216, 0.4772, 0.1063],
    [-0.5874, 0.0058, 0.5891, 0.3257],
    [-0.6300, -0.0632, 0.6202, 0.3860],
    [-0.5675, -0.0843, 0.5478, 0.3589],
    [-0.5526, -0.0981, 0.5321, 0.3428],
    [-0.5299, -0.1081, 0.5077, 0.3493],
]
BOOK_MHA = [
    [0.3190, 0.4858],
    [0.2943, 0.3897],
    [0.2856, 0.3593],
    [0.2693, 0.3873],
    [0.2639, 0.3928],
    [0.2575, 0.4028],
]


def test_self_attention_v1_book_values(inputs):
    torch.manual_seed(123)
    sa_v1 = SelfAttentionV1(3, 2)
    context_vecs = sa_v1(inputs)
    assert context_vecs.shape == (6, 2)
    assert_close(context_vecs[1], [0.3061, 0.8210], atol=BOOK_ATOL)  # z(2), "journey"
    assert_close(context_vecs, BOOK_V1, atol=BOOK_ATOL)


def test_self_attention_v2_book_values(inputs):
    torch.manual_seed(789)
    context_vecs = SelfAttentionV2(3, 2)(inputs)
    assert_close(context_vecs, BOOK_V2, atol=BOOK_ATOL)


def test_causal_attention_book_values(batch):
    torch.manual_seed(123)
    context_vecs = CausalAttention(3, 2, 6, 0.0)(batch)
    assert context_vecs.shape == (2, 6, 2)
    assert_close(context_vecs[0], BOOK_CAUSAL, atol=BOOK_ATOL)
    assert_close(context_vecs[1], BOOK_CAUSAL, atol=BOOK_ATOL)


def test_wrapper_book_values(batch):
    torch.manual_seed(123)
    context_vecs = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)(batch)
    assert context_vecs.shape == (2, 6, 4)
    assert_close(context_vecs[0], BOOK_WRAPPER, atol=BOOK_ATOL)
    assert_close(context_vecs[1], BOOK_WRAPPER, atol=BOOK_ATOL)


def test_multi_head_attention_book_values(batch):
    torch.manual_seed(123)
    context_vecs = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)(batch)
    assert context_vecs.shape == (2, 6, 2)
    assert_close(context_vecs[0], BOOK_MHA, atol=BOOK_ATOL)
    assert_close(context_vecs[1], BOOK_MHA, atol=BOOK_ATOL)


def test_v2_weights_copied_into_v1_give_the_same_output(inputs):
    torch.manual_seed(789)
    sa_v2 = SelfAttentionV2(3, 2)
    sa_v1 = SelfAttentionV1(3, 2)
    with torch.no_grad():
        # A Linear stores (d_out, d_in) and computes x @ weight.T.
        sa_v1.W_query.copy_(sa_v2.W_query.weight.T)
        sa_v1.W_key.copy_(sa_v2.W_key.weight.T)
        sa_v1.W_value.copy_(sa_v2.W_value.weight.T)
    assert_close(sa_v1(inputs), sa_v2(inputs).detach())
    assert_close(sa_v1.last_attn_weights, sa_v2.last_attn_weights)
    assert_close(sa_v1(inputs), BOOK_V2, atol=BOOK_ATOL)


def test_parameter_shapes_and_names():
    v1 = SelfAttentionV1(3, 2)
    assert [name for name, _ in v1.named_parameters()] == ["W_query", "W_key", "W_value"]
    assert all(p.shape == (3, 2) for p in v1.parameters())
    mha = MultiHeadAttention(4, 6, 5, 0.0, num_heads=3, qkv_bias=True)
    assert [name for name, _ in mha.named_parameters()] == [
        "W_query.weight",
        "W_query.bias",
        "W_key.weight",
        "W_key.bias",
        "W_value.weight",
        "W_value.bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    assert mha.head_dim == 2
    assert mha.W_query.weight.shape == (6, 4)
    assert mha.out_proj.weight.shape == (6, 6)


@pytest.mark.parametrize("cls", [CausalAttention, MultiHeadAttention])
def test_mask_buffer(cls):
    module = cls(3, 2, 5, 0.0, **({"num_heads": 1} if cls is MultiHeadAttention else {}))
    expected = torch.triu(torch.ones(5, 5), diagonal=1).bool()
    assert module.mask.dtype == torch.bool
    assert torch.equal(module.mask, expected)
    assert "mask" in module.state_dict()
    assert "mask" not in dict(module.named_parameters())


# --- against torch's own attention -------------------------------------------------------


def _linear(x: torch.Tensor, layer) -> torch.Tensor:
    """A projection written with torch ops: a raw (d_in, d_out) Parameter or an nn.Linear."""
    if isinstance(layer, nn.Linear):
        return F.linear(x, layer.weight, layer.bias)
    return x @ layer


def _reference_weights(queries, keys, causal: bool) -> torch.Tensor:
    attn_scores = queries @ keys.transpose(-2, -1) / math.sqrt(keys.shape[-1])
    if causal:
        num_tokens = queries.shape[-2]
        hidden = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
        attn_scores = attn_scores.masked_fill(hidden, float("-inf"))
    return torch.softmax(attn_scores, dim=-1)


def _reference_single(module, x: torch.Tensor, causal: bool):
    queries = _linear(x, module.W_query)
    keys = _linear(x, module.W_key)
    values = _linear(x, module.W_value)
    context_vecs = F.scaled_dot_product_attention(queries, keys, values, is_causal=causal)
    return context_vecs, _reference_weights(queries, keys, causal)


def _reference_mha(module: MultiHeadAttention, x: torch.Tensor):
    b, num_tokens, _ = x.shape
    h, head_dim = module.num_heads, module.d_out // module.num_heads

    def heads(t):
        return t.reshape(b, num_tokens, h, head_dim).permute(0, 2, 1, 3)

    queries = heads(_linear(x, module.W_query))
    keys = heads(_linear(x, module.W_key))
    values = heads(_linear(x, module.W_value))
    context_vecs = F.scaled_dot_product_attention(queries, keys, values, is_causal=True)
    merged = context_vecs.permute(0, 2, 1, 3).reshape(b, num_tokens, module.d_out)
    return _linear(merged, module.out_proj), _reference_weights(queries, keys, True)


@pytest.mark.parametrize("qkv_bias", [False, True])
def test_single_head_modules_match_torch(qkv_bias):
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    for module in (SelfAttentionV1(4, 3), SelfAttentionV2(4, 3, qkv_bias=qkv_bias)):
        expected, expected_weights = _reference_single(module, x, causal=False)
        assert_close(module(x), expected)
        assert_close(module.last_attn_weights, expected_weights)
        assert module.last_attn_weights.shape == (5, 5)

    batch = torch.randn(3, 5, 4)
    causal = CausalAttention(4, 3, 7, 0.0, qkv_bias=qkv_bias)
    expected, expected_weights = _reference_single(causal, batch, causal=True)
    assert_close(causal(batch), expected)
    assert_close(causal.last_attn_weights, expected_weights)
    assert causal.last_attn_weights.shape == (3, 5, 5)


@pytest.mark.parametrize("qkv_bias", [False, True])
def test_wrapper_matches_torch_head_by_head(qkv_bias):
    torch.manual_seed(1)
    x = torch.randn(2, 6, 4)
    wrapper = MultiHeadAttentionWrapper(4, 3, 6, 0.0, num_heads=3, qkv_bias=qkv_bias)
    out = wrapper(x)
    assert out.shape == (2, 6, 9)
    assert wrapper.last_attn_weights.shape == (2, 3, 6, 6)
    for i, head in enumerate(wrapper.heads):
        expected, expected_weights = _reference_single(head, x, causal=True)
        assert_close(out[..., 3 * i : 3 * (i + 1)], expected)
        assert_close(wrapper.last_attn_weights[:, i], expected_weights)
        assert_close(head.last_attn_weights, expected_weights)


@pytest.mark.parametrize("qkv_bias", [False, True])
def test_multi_head_attention_matches_torch_ops(qkv_bias):
    torch.manual_seed(2)
    x = torch.randn(2, 5, 4)
    mha = MultiHeadAttention(4, 6, 8, 0.0, num_heads=3, qkv_bias=qkv_bias)
    expected, expected_weights = _reference_mha(mha, x)
    assert_close(mha(x), expected)
    assert mha.last_attn_weights.shape == (2, 3, 5, 5)
    assert_close(mha.last_attn_weights, expected_weights)


@pytest.mark.parametrize("qkv_bias", [False, True])
@pytest.mark.parametrize("num_heads", [1, 2, 4])
def test_multi_head_attention_matches_nn_multihead_attention(qkv_bias, num_heads):
    d = 8  # torch's module needs d_in == d_out (embed_dim)
    torch.manual_seed(3)
    mha = MultiHeadAttention(d, d, 6, 0.0, num_heads=num_heads, qkv_bias=qkv_bias).eval()
    ref = nn.MultiheadAttention(d, num_heads, bias=qkv_bias, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(
            torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight])
        )
        ref.out_proj.weight.copy_(mha.out_proj.weight)
        if qkv_bias:
            ref.in_proj_bias.copy_(torch.cat([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
            ref.out_proj.bias.copy_(mha.out_proj.bias)
        else:
            # bias=False drops torch's out_proj bias too; ours always has one, so zero it.
            mha.out_proj.bias.zero_()
    x = torch.randn(3, 6, d)
    attn_mask = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)  # True = hidden
    expected, expected_weights = ref(
        x, x, x, attn_mask=attn_mask, need_weights=True, average_attn_weights=False
    )
    assert_close(mha(x), expected)
    assert_close(mha.last_attn_weights, expected_weights)


def test_forward_uses_the_one_attention_function(monkeypatch, inputs, batch):
    """Every module delegates the arithmetic to attention.scaled_dot_product_attention."""
    calls = []
    original = modules.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(modules, "scaled_dot_product_attention", spy)
    SelfAttentionV1(3, 2)(inputs)
    SelfAttentionV2(3, 2)(inputs)
    assert len(calls) == 2
    CausalAttention(3, 2, 6, 0.1)(batch)
    MultiHeadAttention(3, 2, 6, 0.1, num_heads=2)(batch)
    assert len(calls) == 4
    assert all(isinstance(kw["dropout"], nn.Dropout) for kw in calls[2:])
    MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=3)(batch)
    assert len(calls) == 7


# --- invariants over random shapes -------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    b=st.integers(1, 3),
    num_tokens=st.integers(1, 7),
    extra_context=st.integers(0, 3),
    d_in=st.integers(1, 5),
    num_heads=st.integers(1, 4),
    head_dim=st.integers(1, 3),
    qkv_bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_causal_paths_hide_later_tokens(
    b, num_tokens, extra_context, d_in, num_heads, head_dim, qkv_bias, seed
):
    torch.manual_seed(seed)
    context_length = num_tokens + extra_context  # shorter inputs use a slice of the mask
    d_out = num_heads * head_dim
    x = torch.randn(b, num_tokens, d_in)
    causal = CausalAttention(d_in, head_dim, context_length, 0.0, qkv_bias=qkv_bias)
    wrapper = MultiHeadAttentionWrapper(d_in, head_dim, context_length, 0.0, num_heads, qkv_bias)
    mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads, qkv_bias)

    assert causal(x).shape == (b, num_tokens, head_dim)
    assert wrapper(x).shape == (b, num_tokens, num_heads * head_dim)
    assert mha(x).shape == (b, num_tokens, d_out)

    above = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
    for attn_weights in (
        causal.last_attn_weights,
        wrapper.last_attn_weights,
        *(head.last_attn_weights for head in wrapper.heads),
        mha.last_attn_weights,
    ):
        assert not attn_weights.requires_grad
        assert torch.all(attn_weights[..., above] == 0)
        assert torch.all(attn_weights[..., ~above] > 0)
        assert_close(attn_weights.sum(dim=-1), torch.ones(attn_weights.shape[:-1]))

    expected, _ = _reference_mha(mha, x)
    assert_close(mha(x), expected)
    expected, _ = _reference_single(causal, x, causal=True)
    assert_close(causal(x), expected)


@settings(max_examples=25, deadline=None)
@given(num_tokens=st.integers(2, 7), d_in=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_a_later_token_does_not_change_earlier_outputs(num_tokens, d_in, seed):
    """Causality seen from outside: editing the last token leaves the other rows unchanged."""
    torch.manual_seed(seed)
    mha = MultiHeadAttention(d_in, 4, num_tokens, 0.0, num_heads=2)
    x = torch.randn(1, num_tokens, d_in)
    edited = x.clone()
    edited[0, -1] += 1.0
    assert_close(mha(edited)[0, :-1], mha(x)[0, :-1].detach())


# --- dropout -------------------------------------------------------------------------------


def _build(cls, p: float):
    if cls is CausalAttention:
        return CausalAttention(3, 2, 6, p)
    return MultiHeadAttention(3, 4, 6, p, num_heads=2)


# p = 0.5 is the book's example; p = 0.2 tells 1/(1-p) = 1.25 apart from 1/p = 5.
@pytest.mark.parametrize("p", [0.5, 0.2])
@pytest.mark.parametrize("cls", [CausalAttention, MultiHeadAttention])
def test_dropout_scales_kept_weights_by_one_over_one_minus_p(cls, p, batch):
    torch.manual_seed(123)
    module = _build(cls, p)
    module.eval()
    eval_out = module(batch).detach()
    eval_weights = module.last_attn_weights

    dropped_weights = []
    module.dropout.register_forward_hook(lambda _m, _i, out: dropped_weights.append(out.detach()))
    module.train()
    torch.manual_seed(7)
    train_out = module(batch).detach()
    (seen,) = dropped_weights

    # last_attn_weights is the weights before dropout, so it matches eval mode.
    assert_close(module.last_attn_weights, eval_weights)
    visible = eval_weights > 0
    kept = (seen != 0) & visible
    dropped = (seen == 0) & visible
    assert kept.any() and dropped.any()
    assert_close(seen[kept], eval_weights[kept] / (1 - p))
    assert kept.sum() + dropped.sum() == visible.sum()
    assert not torch.allclose(train_out, eval_out)


@pytest.mark.parametrize("p", [0.5, 0.2])
@pytest.mark.parametrize("cls", [CausalAttention, MultiHeadAttention])
def test_dropout_preserves_the_mean(cls, p, inputs):
    torch.manual_seed(123)
    module = _build(cls, p).eval()
    eval_out = module(inputs.unsqueeze(0))[0].detach()

    # Many independent draws at once: every sequence of the batch gets its own dropout mask.
    n = 4000
    module.train()
    torch.manual_seed(0)
    draws = module(inputs.expand(n, -1, -1)).detach()
    mean, std = draws.mean(dim=0), draws.std(dim=0)
    assert std.max() > 0.01  # dropout does vary the output ...
    # ... yet its expectation is the eval output: a 5-sigma bound on the sample mean.
    assert torch.all((mean - eval_out).abs() <= 5 * std / math.sqrt(n) + 1e-6)


@pytest.mark.parametrize("cls", [CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper])
def test_eval_mode_is_deterministic_and_equals_no_dropout(cls, batch):
    kwargs = {"num_heads": 2} if cls is not CausalAttention else {}
    torch.manual_seed(5)
    with_dropout = cls(3, 2, 6, 0.5, **kwargs)
    without = cls(3, 2, 6, 0.0, **kwargs)
    without.load_state_dict(with_dropout.state_dict())
    with_dropout.eval()
    torch.manual_seed(1)
    first = with_dropout(batch)
    torch.manual_seed(2)
    second = with_dropout(batch)
    assert torch.equal(first, second)
    assert_close(first, without(batch).detach())


# --- training and dtypes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: SelfAttentionV1(3, 2), (6, 3)),
        (lambda: SelfAttentionV2(3, 2), (6, 3)),
        (lambda: CausalAttention(3, 2, 6, 0.1), (2, 6, 3)),
        (lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.1, num_heads=2), (2, 6, 3)),
        (lambda: MultiHeadAttention(3, 4, 6, 0.1, num_heads=2), (2, 6, 3)),
    ],
)
def test_gradients_reach_every_parameter_and_float64_works(make, shape):
    torch.manual_seed(0)
    module = make()
    assert module.last_attn_weights is None
    module(torch.rand(shape)).sum().backward()
    for name, param in module.named_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0, name
    module.double()
    assert module(torch.rand(shape, dtype=torch.float64)).dtype == torch.float64


# --- bad inputs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: SelfAttentionV1(0, 2), "d_in: expected an int >= 1, got 0"),
        (lambda: SelfAttentionV1(3, 2.0), "d_out: expected an int >= 1, got float 2.0"),
        (lambda: SelfAttentionV2(3, -1), "d_out: expected an int >= 1, got -1"),
        (lambda: SelfAttentionV2(3, 2, qkv_bias="no"), "qkv_bias: expected True or False"),
        (lambda: CausalAttention(3, 2, 0, 0.0), "context_length: expected an int >= 1, got 0"),
        (lambda: CausalAttention(3, 2, 6, 1.0), "dropout: expected a float in [0, 1), got 1.0"),
        (lambda: CausalAttention(3, 2, 6, -0.1), "dropout: expected a float in [0, 1), got -0.1"),
        (lambda: CausalAttention(3, 2, 6, float("nan")), "got nan"),
        (lambda: CausalAttention(3, 2, 6, "0.1"), "dropout: expected a float in [0, 1), got str"),
        (lambda: CausalAttention(3, 2, 6, True), "dropout: expected a float in [0, 1), got bool"),
        (
            lambda: MultiHeadAttention(3, 5, 6, 0.0, 2),
            "d_out (5) must be divisible by num_heads (2)",
        ),
        (lambda: MultiHeadAttention(3, 4, 6, 0.0, 0), "num_heads: expected an int >= 1, got 0"),
        (
            lambda: MultiHeadAttention(3, 4, 6, 1.5, 2),
            "dropout: expected a float in [0, 1), got 1.5",
        ),
        (lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, 0), "num_heads: expected an int >= 1"),
        (lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2.0), "num_heads: expected an int >= 1"),
        (lambda: MultiHeadAttentionWrapper(3, 2, 6, 2.0, 2), "dropout: expected a float in [0, 1)"),
    ],
)
def test_constructor_errors(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_dropout_zero_as_int_is_accepted(batch):
    assert CausalAttention(3, 2, 6, 0)(batch).shape == (2, 6, 2)


SINGLE = [lambda: SelfAttentionV1(3, 2), lambda: SelfAttentionV2(3, 2)]
BATCHED = [
    lambda: CausalAttention(3, 2, 6, 0.0),
    lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2),
    lambda: MultiHeadAttention(3, 2, 6, 0.0, num_heads=2),
]


@pytest.mark.parametrize(
    "x, message",
    [
        (torch.rand(2, 6, 3), "expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 6, 3)"),
        (torch.rand(3), "expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
        (torch.rand(6, 4), "x: expected last dimension d_in = 3, got 4 (shape (6, 4))"),
        (torch.rand(0, 3), "x: expected at least one of the tokens, got shape (0, 3)"),
        (torch.ones(6, 3, dtype=torch.int64), "expected a floating-point dtype"),
        (torch.rand(6, 3, dtype=torch.float64), "expected dtype torch.float32"),
        ([[0.1, 0.2, 0.3]], "x: expected a torch.Tensor of floats, got list"),
    ],
)
@pytest.mark.parametrize("make", SINGLE)
def test_single_sequence_forward_errors(make, x, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()(x)


@pytest.mark.parametrize(
    "x, message",
    [
        (
            torch.rand(6, 3),
            "expected shape (b, num_tokens, d_in) (3-d), got 2-d shape (6, 3); "
            "add a batch axis with x.unsqueeze(0)",
        ),
        (torch.rand(1, 2, 6, 3), "(3-d), got 4-d shape (1, 2, 6, 3)"),
        (torch.rand(2, 6, 4), "x: expected last dimension d_in = 3, got 4 (shape (2, 6, 4))"),
        (torch.rand(2, 7, 3), "num_tokens (7) exceeds context_length (6)"),
        (torch.rand(2, 0, 3), "x: expected at least one of the tokens, got shape (2, 0, 3)"),
        (torch.rand(0, 6, 3), "x: expected no empty axis in (b, num_tokens, d_in)"),
        (torch.ones(2, 6, 3, dtype=torch.int64), "got torch.int64"),
        (torch.rand(2, 6, 3, dtype=torch.float64), "got dtype torch.float64"),
        (None, "x: expected a torch.Tensor of floats, got NoneType"),
    ],
)
@pytest.mark.parametrize("make", BATCHED)
def test_batched_forward_errors(make, x, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()(x)
