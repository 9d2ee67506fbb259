"""The whole-pass mistakes of attnlib.mistakes._layer: the right steps give the book's layer,
and each named mistake changes the pass (on the layers it is about)."""

from __future__ import annotations

import pytest
import torch

from attnlib.mistakes import MISTAKES
from attnlib.mistakes import _layer as passes
from attnlib.modules import CausalAttention, MultiHeadAttention, SelfAttentionV1, SelfAttentionV2

SEED = 7


def _layers():
    torch.manual_seed(0)
    return [
        (SelfAttentionV1(3, 4), torch.randn(5, 3)),
        (SelfAttentionV2(3, 4), torch.randn(5, 3)),
        (CausalAttention(3, 4, 6, 0.3), torch.randn(2, 5, 3)),
        (MultiHeadAttention(3, 4, 6, 0.3, num_heads=2), torch.randn(2, 5, 3)),
    ]


@pytest.mark.parametrize("index", range(4))
def test_the_right_steps_are_the_layers_own_pass_with_its_dropout(index):
    layer, x = _layers()[index]
    layer.train()
    torch.manual_seed(SEED)
    with torch.no_grad():
        expected = layer(x)
    assert torch.allclose(passes.right_pass(layer, x, SEED), expected, atol=1e-6)


def _whole_pass_forms():
    """Every (mistake name, form) taking a whole pass from ``layer, x, seed``."""
    return [
        (name, form)
        for name, mistake in sorted(MISTAKES.items())
        for form in mistake.forms()
        if getattr(form, "__module__", "") == passes.__name__
    ]


def test_every_whole_pass_mistake_is_a_named_pass():
    forms = _whole_pass_forms()
    assert len(forms) >= 20
    assert all(form.__name__ != "<lambda>" for _, form in forms)


@pytest.mark.parametrize(
    ("name", "form"), _whole_pass_forms(), ids=lambda v: getattr(v, "__name__", v)
)
def test_each_mistaken_pass_differs_from_the_right_one(name, form):
    """On the last layer it applies to (a mask needs a causal layer, heads a multi-head one)."""
    differs = []
    for layer, x in _layers():
        right = passes.right_pass(layer, x, SEED)
        try:
            got = form(layer, x, SEED)
        except RuntimeError:  # e.g. keys.T on a batch: the reader's line raises as well
            differs.append(True)
            continue
        same = got.shape == right.shape and torch.allclose(got, right, atol=1e-6, equal_nan=True)
        differs.append(not same)
    assert any(differs), f"{name}: {form.__name__} gives the right pass on every layer"
