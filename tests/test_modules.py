"""Tests for attnlib.modules: the book's numbers, torch's own attention, invariants, errors.

Every expected value comes from outside the code under test: the numbers printed in
chapter 3 of Raschka's book (tests/book.py), or a recomputation with plain torch operations
(``torch.nn.functional.scaled_dot_product_attention``, ``torch.nn.MultiheadAttention``).
"""

from __future__ import annotations

import math
import re

import nbformat
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from book import BOOK_MODULES
from course import ROOT
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


def book_module(name: str) -> tuple[nn.Module, torch.Tensor]:
    """The module ``name`` as the book builds it (its seed, its arguments) and its input."""
    seed, args, batched, _ = BOOK_MODULES[name]
    torch.manual_seed(seed)
    module = getattr(modules, name)(*args)
    inputs = example_inputs()
    return module, torch.stack((inputs, inputs)) if batched else inputs


def book_output(name: str, like: torch.Tensor) -> torch.Tensor:
    """What the book prints for ``name``, repeated for each sequence of a batch like ``like``."""
    output = torch.tensor(BOOK_MODULES[name].output)
    return output.expand(like.shape[0], -1, -1) if BOOK_MODULES[name].batched else output


@pytest.mark.parametrize("name", BOOK_MODULES)
def test_book_values(name):
    module, x = book_module(name)
    assert_close(module(x), book_output(name, x), atol=BOOK_ATOL)


def test_v2_weights_copied_into_v1_give_the_same_output(inputs):
    sa_v2, _ = book_module("SelfAttentionV2")
    sa_v1 = SelfAttentionV1(3, 2)
    with torch.no_grad():
        # A Linear stores (d_out, d_in) and computes x @ weight.T.
        sa_v1.W_query.copy_(sa_v2.W_query.weight.T)
        sa_v1.W_key.copy_(sa_v2.W_key.weight.T)
        sa_v1.W_value.copy_(sa_v2.W_value.weight.T)
    assert_close(sa_v1(inputs), sa_v2(inputs).detach())
    assert_close(sa_v1.last_attn_weights, sa_v2.last_attn_weights)
    assert_close(sa_v1(inputs), BOOK_MODULES["SelfAttentionV2"].output, atol=BOOK_ATOL)


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


# --- training --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BOOK_MODULES)
def test_gradients_reach_every_parameter(name):
    module, x = book_module(name)
    assert module.last_attn_weights is None
    module(torch.rand(x.shape)).sum().backward()
    for param_name, param in module.named_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0, param_name


# --- devices and dtypes: nothing is pinned to the CPU or to float32 ---------------------------


def test_every_module_class_is_one_of_the_books():
    classes = {
        name
        for name, obj in vars(modules).items()
        if isinstance(obj, type)
        and issubclass(obj, nn.Module)
        and obj.__module__ == modules.__name__
        and not name.startswith("_")
    }
    assert classes == set(BOOK_MODULES)


@pytest.mark.parametrize("name", BOOK_MODULES)
def test_runs_on_the_meta_device(name):
    module, x = book_module(name)
    expected = book_output(name, x)
    module.to("meta")
    out = module(x.to("meta"))
    assert (out.device.type, out.dtype, out.shape) == ("meta", torch.float32, expected.shape)
    assert module.last_attn_weights.device.type == "meta"


# Within the book's 4 printed decimals in float64; within the dtype's own rounding otherwise.
DTYPE_ATOL = {torch.float64: BOOK_ATOL, torch.float16: 2e-3, torch.bfloat16: 1e-2}


@pytest.mark.parametrize("dtype", DTYPE_ATOL, ids=str)
@pytest.mark.parametrize("name", BOOK_MODULES)
def test_keeps_the_dtype_it_is_moved_to(name, dtype):
    module, x = book_module(name)
    module.to(dtype)
    out = module(x.to(dtype))
    assert out.dtype == dtype and module.last_attn_weights.dtype == dtype
    assert_close(out.float(), book_output(name, x), atol=DTYPE_ATOL[dtype])


@pytest.mark.parametrize("name", BOOK_MODULES)
def test_inputs_that_overflow_are_refused_not_returned_as_inf(name):
    module, x = book_module(name)
    with pytest.raises(ValueError, match="overflowed"):
        module(torch.full(x.shape, 1e20))


# --- the multi-head helpers ---------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_split_heads_cuts_the_features_into_consecutive_heads(device):
    x = torch.arange(2 * 5 * 6, dtype=torch.float32).reshape(2, 5, 6).to(device)
    heads = modules.split_heads(x, 3)
    assert heads.shape == (2, 3, 5, 2) and heads.device.type == device
    if device == "cpu":
        for h in range(3):  # head h holds features 2h, 2h + 1 of every token
            assert torch.equal(heads[:, h], x[..., 2 * h : 2 * h + 2])


def test_split_heads_refuses_a_size_it_cannot_split_with_a_value_error():
    with pytest.raises(ValueError, match="num_heads"):
        modules.split_heads(torch.ones(1, 2, 5), 2)


def test_head_projections_give_each_heads_queries_keys_and_values(inputs):
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 4, 6, 0.0, num_heads=2)
    projections = modules.head_projections(mha)
    for weights, linear in zip(projections, (mha.W_query, mha.W_key, mha.W_value), strict=True):
        assert weights.shape == (2, 3, 2) and not weights.requires_grad
        full = F.linear(inputs, linear.weight)  # (num_tokens, d_out): every head side by side
        for h in range(2):
            assert_close(inputs @ weights[h], full[:, 2 * h : 2 * h + 2].detach())


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: MultiHeadAttention(3, 4, 6, 0.0, 2, qkv_bias=True), id="qkv_bias"),
        pytest.param(lambda: CausalAttention(3, 4, 6, 0.0), id="not-multi-head"),
    ],
)
def test_head_projections_refuse_what_they_cannot_split(make):
    with pytest.raises(ValueError, match="expected an attnlib.modules.MultiHeadAttention"):
        modules.head_projections(make())


# --- numbers from numpy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    list(BOOK_MODULES),
)
def test_numpy_sizes_build_the_same_module_with_plain_int_sizes(name):
    seed, args, _, _ = BOOK_MODULES[name]
    torch.manual_seed(seed)
    from_numpy = getattr(modules, name)(*(np.int64(a) if type(a) is int else a for a in args))
    module, x = book_module(name)
    assert_close(from_numpy(x), module(x).detach())
    for size in ("d_in", "d_out", "context_length", "num_heads", "head_dim"):
        if getattr(module, size, None) is not None:
            assert type(getattr(from_numpy, size)) is int, size


@pytest.mark.parametrize("name", [n for n, m in BOOK_MODULES.items() if m.batched])
def test_numpy_float_dropout_is_the_same_dropout(name, batch):
    seed, args, _, _ = BOOK_MODULES[name]
    outputs = []
    for p in (np.float32(0.5), 0.5):
        torch.manual_seed(seed)
        module = getattr(modules, name)(*args[:3], p, *args[4:])
        torch.manual_seed(7)  # the same dropout draws for both
        outputs.append(module(batch).detach())
    assert torch.equal(outputs[0], outputs[1])
    assert not torch.allclose(outputs[0], book_output(name, batch))  # dropout did drop


# --- bad inputs ----------------------------------------------------------------------------


def bad(id: str, make, message: str):
    return pytest.param(make, message, id=id)


@pytest.mark.parametrize(
    "make, message",
    [
        bad("d_in-0", lambda: SelfAttentionV1(0, 2), "d_in: expected an int >= 1, got 0"),
        bad("d_out-float", lambda: SelfAttentionV1(3, 2.0),
            "d_out: expected an int >= 1, got float 2.0"),
        bad("d_out-negative", lambda: SelfAttentionV2(3, -1),
            "d_out: expected an int >= 1, got -1"),
        bad("qkv_bias-str", lambda: SelfAttentionV2(3, 2, qkv_bias="no"),
            "qkv_bias: expected True or False"),
        bad("context_length-0", lambda: CausalAttention(3, 2, 0, 0.0),
            "context_length: expected an int >= 1, got 0"),
        bad("dropout-1", lambda: CausalAttention(3, 2, 6, 1.0),
            "dropout: expected a float in [0, 1), got 1.0"),
        bad("dropout-negative", lambda: CausalAttention(3, 2, 6, -0.1),
            "dropout: expected a float in [0, 1), got -0.1"),
        bad("dropout-nan", lambda: CausalAttention(3, 2, 6, float("nan")), "got nan"),
        bad("dropout-str", lambda: CausalAttention(3, 2, 6, "0.1"),
            "dropout: expected a float in [0, 1), got str"),
        bad("dropout-bool", lambda: CausalAttention(3, 2, 6, True),
            "dropout: expected a float in [0, 1), got bool"),
        bad("mha-indivisible", lambda: MultiHeadAttention(3, 5, 6, 0.0, 2),
            "d_out (5) must be divisible by num_heads (2)"),
        bad("mha-num_heads-0", lambda: MultiHeadAttention(3, 4, 6, 0.0, 0),
            "num_heads: expected an int >= 1, got 0"),
        bad("mha-dropout", lambda: MultiHeadAttention(3, 4, 6, 1.5, 2),
            "dropout: expected a float in [0, 1), got 1.5"),
        bad("wrapper-num_heads-0", lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, 0),
            "num_heads: expected an int >= 1"),
        bad("wrapper-num_heads-float", lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2.0),
            "num_heads: expected an int >= 1"),
        bad("wrapper-dropout", lambda: MultiHeadAttentionWrapper(3, 2, 6, 2.0, 2),
            "dropout: expected a float in [0, 1)"),
        # Sizes beyond the limits, refused before anything is allocated, naming the limit.
        bad("causal-context_length-1e6", lambda: CausalAttention(3, 2, 10**6, 0.0),
            "context_length: expected an int <= 16384 (the limit), got 1000000"),
        bad("wrapper-context_length-1e6", lambda: MultiHeadAttentionWrapper(3, 2, 10**6, 0.0, 2),
            "context_length: expected an int <= 16384"),
        bad("mha-context_length-1e6", lambda: MultiHeadAttention(3, 2, 10**6, 0.0, 2),
            "context_length: expected an int <= 16384"),
        bad("d_in-1e12", lambda: SelfAttentionV1(10**12, 2),
            "d_in: expected an int <= 65536 (the limit), got 1000000000000"),
        bad("d_out-1e6", lambda: SelfAttentionV2(3, 10**6), "d_out: expected an int <= 65536"),
        bad("wrapper-heads-times-d_out", lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, 40_000),
            "num_heads: expected an int <= 32768"),
    ],
)  # fmt: skip
def test_constructor_errors(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_dropout_zero_as_int_is_accepted(batch):
    assert CausalAttention(3, 2, 6, 0)(batch).shape == (2, 6, 2)


@pytest.mark.parametrize(
    "x, message",
    [
        bad("3d", torch.rand(2, 6, 3),
            "expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 6, 3); "
            "this module takes one sequence at a time"),
        bad("1d", torch.rand(3), "expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
        bad("d_in-4", torch.rand(6, 4),
            "x: expected last dimension d_in = 3, got 4 (shape (6, 4))"),
        bad("no-tokens", torch.rand(0, 3),
            "x: expected at least one of the tokens, got shape (0, 3)"),
        bad("int64", torch.ones(6, 3, dtype=torch.int64), "expected a floating-point dtype"),
        bad("float64", torch.rand(6, 3, dtype=torch.float64), "expected dtype torch.float32"),
        bad("list", [[0.1, 0.2, 0.3]], "x: expected a torch.Tensor of floats, got list"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("name", [n for n, m in BOOK_MODULES.items() if not m.batched])
def test_single_sequence_forward_errors(name, x, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        book_module(name)[0](x)


@pytest.mark.parametrize(
    "x, message",
    [
        bad("2d", torch.rand(6, 3),
            "expected shape (b, num_tokens, d_in) (3-d), got 2-d shape (6, 3); "
            "add a batch axis with x.unsqueeze(0)"),
        bad("4d", torch.rand(1, 2, 6, 3), "(3-d), got 4-d shape (1, 2, 6, 3)"),
        bad("d_in-4", torch.rand(2, 6, 4),
            "x: expected last dimension d_in = 3, got 4 (shape (2, 6, 4))"),
        bad("past-context_length", torch.rand(2, 7, 3),
            "num_tokens (7) exceeds context_length (6)"),
        bad("no-tokens", torch.rand(2, 0, 3),
            "x: expected at least one of the tokens, got shape (2, 0, 3)"),
        bad("empty-batch", torch.rand(0, 6, 3),
            "x: expected no empty axis in (b, num_tokens, d_in)"),
        bad("int64", torch.ones(2, 6, 3, dtype=torch.int64), "got torch.int64"),
        bad("float64", torch.rand(2, 6, 3, dtype=torch.float64), "got dtype torch.float64"),
        bad("none", None, "x: expected a torch.Tensor of floats, got NoneType"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("name", [n for n, m in BOOK_MODULES.items() if m.batched])
def test_batched_forward_errors(name, x, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        book_module(name)[0](x)


# --- sizes refused before they are tried; the output checked as the input is ------------------

MODULE_LIMIT = "over the limit of 2,147,483,648 bytes (2 GiB)"


@pytest.mark.parametrize(
    "make, message",
    [
        pytest.param(
            lambda: SelfAttentionV1(65536, 65536),
            "SelfAttentionV1: weights (65536, 65536) + weights (65536, 65536) + weights "
            f"(65536, 65536) need 51,539,607,552 bytes, {MODULE_LIMIT}",
            id="v1-65536",
        ),
        pytest.param(
            lambda: MultiHeadAttention(1, 65536, 2, 0.0, 65536),
            "MultiHeadAttention: weights (65536, 1) + weights (65536, 1) + weights (65536, 1) + "
            f"weights (65536, 65536) + mask (2, 2) need 17,180,655,620 bytes, {MODULE_LIMIT}",
            id="mha-d_out-65536",
        ),
        pytest.param(
            lambda: MultiHeadAttentionWrapper(1, 1, 16384, 0.0, 65536),
            "MultiHeadAttentionWrapper: weights (65536, 1, 1) + weights (65536, 1, 1) + weights "
            "(65536, 1, 1) + mask (65536, 16384, 16384) need 17,592,186,830,848 bytes, "
            f"{MODULE_LIMIT}",
            id="wrapper-65536-masks",
        ),
        pytest.param(
            lambda: CausalAttention(3, 2, None, 0.0),
            "context_length: expected an int >= 1, got NoneType None",
            id="causal-context_length-None",
        ),
    ],
)
def test_a_layer_too_big_for_memory_is_refused_before_it_is_built(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message


def test_a_batch_whose_scores_exceed_the_memory_limit_is_refused():
    module = MultiHeadAttention(3, 4, 64, 0.0, num_heads=2)
    x = torch.zeros(1, 64, 3).expand(100_000, 64, 3)  # 2 heads of 64 x 64 scores each: 3.3 GB
    with pytest.raises(ValueError) as info:
        module(x)
    expected = (  # x expanded: torch's projections copy it out, 100,000 x 64 x 3 floats
        "the forward pass: x (copied) (100000, 64, 3) + queries, keys, values (3, 100000, 64, 4) "
        "+ attn_scores (100000, 2, 64, 64) + attn_weights (100000, 2, 64, 64) need "
        f"6,937,600,000 bytes, {MODULE_LIMIT}"
    )
    assert str(info.value) == expected


def test_multi_head_attention_checks_its_output_after_the_projection(batch):
    module = MultiHeadAttention(3, 4, 6, 0.0, num_heads=2)
    with torch.no_grad():
        module.out_proj.bias[0] = float("nan")
    with pytest.raises(ValueError, match="^context_vec: got inf or NaN"):
        module(batch)


# --- the book's forward passes equal attention.py's functions -------------------------------


def _attention_py(layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """``layer``'s output from its own parameters and attention.py's functions alone."""
    from attnlib.attention import attention_weights, context_vectors

    if isinstance(layer, SelfAttentionV1):
        queries, keys, values = (x @ w for w in (layer.W_query, layer.W_key, layer.W_value))
    else:
        queries, keys, values = (w(x) for w in (layer.W_query, layer.W_key, layer.W_value))
    causal = hasattr(layer, "mask")
    if isinstance(layer, MultiHeadAttention):
        heads = [modules.split_heads(t, layer.num_heads) for t in (queries, keys, values)]
        weights = attention_weights(heads[0], heads[1], causal=True)
        merged = context_vectors(weights, heads[2]).transpose(1, 2).flatten(2)
        return layer.out_proj(merged)
    return context_vectors(attention_weights(queries, keys, causal=causal), values)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SelfAttentionV1(3, 2),
        lambda: SelfAttentionV2(3, 4, qkv_bias=True),
        lambda: CausalAttention(3, 2, 8, 0.0),
        lambda: MultiHeadAttention(3, 4, 8, 0.0, num_heads=2),
    ],
    ids=["V1", "V2", "causal", "multi-head"],
)
@pytest.mark.parametrize("num_tokens", [1, 5])
def test_each_forward_pass_equals_attention_py(make, num_tokens):
    torch.manual_seed(5)
    layer = make().eval()
    x = (
        torch.randn(num_tokens, 3)
        if isinstance(layer, SelfAttentionV1 | SelfAttentionV2)
        else (torch.randn(2, num_tokens, 3))
    )
    with torch.no_grad():
        assert torch.allclose(layer(x), _attention_py(layer, x), atol=ATOL)


def test_the_wrapper_equals_its_heads_through_attention_py():
    torch.manual_seed(6)
    wrapper = MultiHeadAttentionWrapper(3, 2, 8, 0.0, num_heads=3).eval()
    x = torch.randn(2, 5, 3)
    with torch.no_grad():
        expected = torch.cat([_attention_py(head, x) for head in wrapper.heads], dim=-1)
        assert torch.allclose(wrapper(x), expected, atol=ATOL)


def test_notebook_07s_counted_work_is_what_torch_measures():
    """07 counts multiply-adds from the products' shapes (FlopCounterMode would lift its kernel
    by 76 MB); PyTorch's own count of the same layers, halved, must give its printed lines."""
    from torch.utils.flop_counter import FlopCounterMode

    def multiply_adds(module: nn.Module, x: torch.Tensor) -> int:
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            module(x)
        return counter.get_total_flops() // 2  # one multiply and one add per term

    batch = torch.stack((example_inputs(), example_inputs()))
    wrapper = MultiHeadAttentionWrapper(3, 4, context_length=6, dropout=0.0, num_heads=3)
    mha = MultiHeadAttention(3, 12, context_length=6, dropout=0.0, num_heads=3)
    out_proj = multiply_adds(mha.out_proj, torch.zeros(2, 6, 12))
    measured = [multiply_adds(wrapper, batch), multiply_adds(mha, batch), out_proj]
    measured.append(measured[1] - out_proj)
    notebook = nbformat.read(ROOT / "notebooks" / "07_multi_head_attention.ipynb", as_version=4)
    (cell,) = [c for c in notebook.cells if c.get("id") == "nb07-same-work"]
    lines = "".join(out.get("text", "") for out in cell.outputs).splitlines()
    printed = [int(line.rsplit(maxsplit=1)[1]) for line in lines]
    assert printed == measured
