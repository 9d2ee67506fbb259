"""The AttentionExplorer's dropout is the dropout of attnlib's modules under the same seed.

Expected values come from the modules themselves run in training mode after
``torch.manual_seed``, with the output of their ``nn.Dropout`` captured by a hook, and
from plain torch; never from the explorer's own code.
"""

from __future__ import annotations

import pytest
import torch

from attnlib.data import MAX_TOKENS, example_inputs
from attnlib.modules import CausalAttention, MultiHeadAttention
from attnlib.widgets import AttentionExplorer

RATES = (0.1, 0.2, 0.3, 0.4, 0.5)


def _dropped_by(module: torch.nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """What ``module``'s dropout gives its attention weights in training after ``seed``."""
    out: list[torch.Tensor] = []
    hook = module.dropout.register_forward_hook(lambda m, i, o: out.append(o.detach()))
    try:
        torch.manual_seed(seed)
        module.train()(x[None])
    finally:
        hook.remove()
    return out[0][0]


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("draw", [0, 3])
def test_the_mask_is_causal_attentions_under_the_same_seed(rate, draw):
    seed = 123
    explorer = AttentionExplorer(seed=seed, dropout=rate)
    for _ in range(draw):
        explorer.resample()
    view = explorer.view
    torch.manual_seed(0)
    module = CausalAttention(d_in=3, d_out=2, context_length=6, dropout=rate)
    after = _dropped_by(module, example_inputs(), seed + draw)  # (6, 6)
    before = module.last_attn_weights[0]
    # Where the module's weight was dropped (its weights are all > 0 below the diagonal; above
    # it they are 0 either way), the explorer's is dropped too, and nowhere else.
    below = torch.ones(6, 6, dtype=torch.bool).tril()
    assert torch.equal(view.dropped[below], (after == 0)[below])
    assert torch.allclose(after, before / (1 - rate) * (after != 0), atol=1e-6)
    # The explorer's kept weights: the softmax's times 1 / (1 - rate), as plain torch gives.
    inputs = example_inputs()
    softmax = torch.softmax(inputs @ inputs.T, dim=-1)
    expected = (softmax / (1 - rate)).masked_fill(view.dropped, 0.0)
    assert torch.allclose(view.attn_weights, expected, atol=1e-6)
    assert torch.allclose(view.context, expected[1] @ inputs, atol=1e-6)


@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_each_heads_weights_are_multi_head_attentions_in_training(rate):
    seed = 7
    explorer = AttentionExplorer(num_heads=2, d_out=4, seed=seed, causal=True, dropout=rate)
    explorer.resample()  # draw 1: seed + 1
    module = MultiHeadAttention(
        d_in=3, d_out=4, context_length=MAX_TOKENS, dropout=rate, num_heads=2
    )
    module.load_state_dict(explorer.module.state_dict())
    after = _dropped_by(module, example_inputs(), seed + 1)  # (num_heads, 6, 6)
    for head in range(2):
        explorer.head.value = head
        assert torch.allclose(explorer.view.attn_weights, after[head], atol=1e-6)


def test_no_dropout_changes_nothing_and_draws_nothing():
    explorer = AttentionExplorer()
    plain = explorer.view
    assert explorer.dropout.value == 0 and not plain.dropped.any()
    assert torch.equal(plain.attn_weights, plain.softmax_weights)
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    AttentionExplorer(dropout=0.3).view  # noqa: B018  (the reader's random stream is kept)
    assert torch.equal(torch.rand(3), expected)


def test_the_dropout_line_names_the_draw_and_the_scaling():
    explorer = AttentionExplorer(dropout=0.2)
    last = explorer.view.text.splitlines()[-1]
    dropped = int(explorer.view.dropped.sum())
    assert last.startswith(f"dropout 0.2, draw 1 of 5 (torch.manual_seed(123)): {dropped} of ")
    assert "1/(1 − 0.2) = 1.2500" in last
    explorer.resample()
    assert "draw 2 of 5 (torch.manual_seed(124))" in explorer.view.text


@pytest.mark.parametrize("rate", [0.25, 0.7, -0.1, "0.2"])
def test_a_rate_not_offered_is_refused_naming_dropout(rate):
    with pytest.raises(ValueError, match="dropout: expected"):
        AttentionExplorer(dropout=rate)
