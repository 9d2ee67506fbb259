"""attnlib.training: repeatable runs, every head's weights over a sentence, the share of weight
at an offset, and the training loop's snapshots. Expected values are written out by hand or
computed with plain torch, never by attnlib.training itself."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attnlib import training
from attnlib.modules import MultiHeadAttention

VOCAB, D, T, HEADS = 13, 8, 6, 2


class Little(nn.Module):
    """Two MultiHeadAttention layers over word embeddings: the shape of notebook 10's model."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.first = MultiHeadAttention(D, D, T, 0.0, HEADS)
        self.second = MultiHeadAttention(D, D, T, 0.0, HEADS)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        x = self.emb(token_ids)
        x = x + self.first(x)
        return self.out(x + self.second(x))


def little() -> Little:
    torch.manual_seed(0)
    return Little()


def step(model, optimizer, inputs, targets) -> float:
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
    loss.backward()
    optimizer.step()
    return loss.item()


def batches(num_steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(VOCAB, (num_steps, 4, T + 1), generator=generator)
    return [(row[:, :-1], row[:, 1:]) for row in ids]


PROBE = torch.tensor([1, 2, 3, 4, 5, 6])


def test_share_at_offset_reads_one_diagonal():
    weights = torch.zeros(4, 4)
    weights[1, 0], weights[2, 1], weights[3, 2] = 0.2, 0.4, 0.9  # below the diagonal
    weights[0, 0], weights[1, 1] = 1.0, 0.8
    weights[0, 1] = 0.3
    assert training.share_at_offset(weights, -1).item() == pytest.approx((0.2 + 0.4 + 0.9) / 3)
    assert training.share_at_offset(weights, 0).item() == pytest.approx((1.0 + 0.8) / 4)
    assert training.share_at_offset(weights, 1).item() == pytest.approx(0.3 / 3)
    assert training.share_at_offset(weights, -3).item() == 0.0


def test_share_at_offset_keeps_leading_axes():
    weights = torch.zeros(2, 3, 5, 5)
    weights[1, 2] = torch.eye(5).roll(1, dims=0)  # row i puts all on key i - 1 (row 0 wraps)
    shares = training.share_at_offset(weights)
    assert shares.shape == (2, 3)
    assert shares[1, 2].item() == 1.0 and shares.sum().item() == 1.0


def test_evenly_spread_causal_weights_give_the_mean_of_one_over_i_plus_one():
    even = torch.tril(torch.ones(16, 16))
    even = even / even.sum(dim=-1, keepdim=True)
    expected = sum(1 / (i + 1) for i in range(1, 16)) / 15
    assert training.share_at_offset(even).item() == pytest.approx(expected)


def test_attention_maps_are_each_layers_weights_over_the_sentence():
    model = little()
    maps = training.attention_maps(model, PROBE)
    assert maps.shape == (2, HEADS, T, T)
    # The first layer's weights by hand: embeddings, projections, split heads, causal softmax.
    x = model.emb(PROBE)[None]
    layer = model.first
    q = layer.W_query(x).view(1, T, HEADS, D // HEADS).transpose(1, 2)
    k = layer.W_key(x).view(1, T, HEADS, D // HEADS).transpose(1, 2)
    scores = (q @ k.transpose(-2, -1)) / (D // HEADS) ** 0.5
    hidden = torch.ones(T, T, dtype=torch.bool).triu(1)
    expected = torch.softmax(scores.masked_fill(hidden, -torch.inf), dim=-1)[0]
    torch.testing.assert_close(maps[0], expected.detach())
    assert model.training  # the mode it came in


def test_train_records_losses_and_snapshots_and_learns():
    model = little()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    run = training.train(model, optimizer, step, batches(25), PROBE, snapshot_every=10)
    assert len(run.losses) == 25
    assert run.snapshot_steps == [0, 10, 20, 25]
    assert run.snapshots.shape == (4, 2, HEADS, T, T)
    torch.testing.assert_close(run.snapshots[-1], training.attention_maps(model, PROBE))
    assert run.snapshots[0].ne(run.snapshots[-1]).any()  # training moved the weights
    assert sum(run.losses[-5:]) < sum(run.losses[:5])


def test_adamw_gives_torch_optim_adamw_numbers_to_the_last_bit():
    ours, theirs = little(), little()
    optimizers = (training.AdamW(ours.parameters(), lr=0.01, weight_decay=0.1),
                  torch.optim.AdamW(theirs.parameters(), lr=0.01, weight_decay=0.1))  # fmt: skip
    for inputs, targets in batches(30):
        for model, optimizer in zip((ours, theirs), optimizers, strict=True):
            step(model, optimizer, inputs, targets)
    for a, b in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert torch.equal(a, b)
    assert not torch.equal(next(ours.parameters()), next(little().parameters()))


def _one_run() -> list[float]:
    model = little()
    with training.repeatable(seed=5):
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        return training.train(model, optimizer, step, batches(5), PROBE).losses


def test_repeatable_gives_the_same_numbers_and_restores_the_settings():
    threads = torch.get_num_threads()
    before = torch.are_deterministic_algorithms_enabled()
    with training.repeatable(seed=3):
        assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()
        first = torch.rand(3)
    with training.repeatable(seed=3):
        second = torch.rand(3)
    assert torch.equal(first, second)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == before
    assert _one_run() == _one_run()


def test_a_step_returning_a_tensor_is_read_as_a_number():
    def tensor_step(model, optimizer, inputs, targets):
        return torch.tensor(step(model, optimizer, inputs, targets), requires_grad=True)

    model = little()
    run = training.train(model, torch.optim.SGD(model.parameters(), lr=0.1), tensor_step,
                         batches(2), PROBE)  # fmt: skip
    assert all(isinstance(loss, float) for loss in run.losses)


REFUSALS = [
    (lambda: training.share_at_offset(torch.ones(3, 4)),
     "attn_weights: expected as many keys as queries = 3, got 4 (shape (3, 4))"),
    (lambda: training.share_at_offset(torch.ones(3)),
     "attn_weights: expected shape (..., num_tokens, num_tokens) (at least 2-d), got 1-d"),
    (lambda: training.share_at_offset(torch.ones(3, 3), 3),
     "offset: expected an int in [-2, 2], got int 3"),
    (lambda: training.share_at_offset(torch.ones(3, 3), 0.5),
     "offset: expected an int in [-2, 2], got float 0.5"),
    (lambda: training.attention_maps(nn.Linear(2, 2), PROBE),
     "model: expected an nn.Module holding attnlib.modules.MultiHeadAttention layers"),
    (lambda: training.attention_maps(little(), PROBE.float()),
     "token_ids: expected a non-empty torch.long tensor of shape (num_tokens,)"),
    (lambda: training.attention_maps(little(), PROBE[None]),
     "token_ids: expected a non-empty torch.long tensor of shape (num_tokens,)"),
    (lambda: training.train(little(), "adam", step, batches(1), PROBE),
     "optimizer, training_step: expected an optimizer (with zero_grad() and step())"),
    (lambda: training.AdamW([]), "params: expected model.parameters(): one or more nn.Parameter"),
    (lambda: training.AdamW(little().parameters(), lr=0), "lr: expected a float > 0"),
    (lambda: training.AdamW(little().parameters(), betas=(1.0, 0.9)),
     "betas[0]: expected a float in [0, 1)"),
    (lambda: training.train(little(), torch.optim.SGD(little().parameters(), lr=1), step, [],
                            PROBE),
     "batches: expected a non-empty list of (inputs, targets), got list []"),
    (lambda: training.train(little(), torch.optim.SGD(little().parameters(), lr=1), step,
                            batches(1), PROBE, snapshot_every=0),
     "snapshot_every: expected an int >= 1, got 0"),
    (lambda: training.repeatable(-1).__enter__(), "seed: expected an int >= 0, got -1"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", REFUSALS)
def test_bad_arguments_are_refused_in_words(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message)


def test_train_tells_its_progress_from_zero_to_the_last_step():
    told = []
    training.train(
        little(),
        training.AdamW(little().parameters()),
        step,
        batches(5),
        PROBE,
        progress=told.append,
    )
    assert told == [0, 1, 2, 3, 4, 5]


def test_train_refuses_a_progress_that_is_not_a_function():
    with pytest.raises(ValueError, match="progress: expected None or a function"):
        training.train(
            little(), training.AdamW(little().parameters()), step, batches(2), PROBE, progress=3
        )


def test_a_progress_bar_outside_a_kernel_keeps_one_fixed_line():
    from attnlib.progress_bar import ProgressBar

    bar = ProgressBar(600, "training with the mask", "about 10 s on a laptop")
    for done in range(601):
        bar(done)
    assert bar.done == 600
    assert bar._repr_mimebundle_() == {
        "text/plain": "training with the mask: 600 steps (about 10 s on a laptop)"
    }
    with pytest.raises(ValueError, match="done"):
        bar(601)
    with pytest.raises(ValueError, match="total"):
        ProgressBar(0, "nothing")


def test_repeatable_hands_freed_memory_back_even_when_its_block_fails(monkeypatch):
    calls = []
    monkeypatch.setattr(training, "_release_freed_memory", lambda: calls.append("trim"))
    with pytest.raises(RuntimeError), training.repeatable(seed=1):
        raise RuntimeError("a failing step")
    with training.repeatable(seed=1):
        pass
    assert calls == ["trim", "trim"]


def test_releasing_freed_memory_runs_on_this_platform():
    training._release_freed_memory()  # glibc's malloc_trim on Linux, nothing elsewhere


def test_in_a_kernel_freed_memory_is_handed_back_after_every_cell_hooked_once(monkeypatch):
    import types

    registered = {}

    class Events:
        def register(self, name, hook):
            registered.setdefault(name, []).append(hook)

    shell = types.SimpleNamespace(events=Events())
    fake = types.SimpleNamespace(get_ipython=lambda: shell)
    monkeypatch.setitem(__import__("sys").modules, "IPython", fake)
    training._release_after_each_cell()
    training._release_after_each_cell()  # a second import of the module: not twice
    assert {name: len(hooks) for name, hooks in registered.items()} == {
        "pre_run_cell": 1,
        "post_run_cell": 1,
    }
    done = []
    monkeypatch.setattr(training, "_release_freed_memory", lambda: done.append("release"))
    monkeypatch.setattr(training.gc, "collect", lambda: done.append("cycles"))
    sizes = iter([300.0, 302.0, 300.0, 310.0])  # MB before and after two cells
    monkeypatch.setattr(training, "_resident_mb", lambda: next(sizes))
    for _ in range(2):
        registered["pre_run_cell"][0](None)
        registered["post_run_cell"][0](None)
    # A cell that grew by 2 MB: released only; one that grew by 10 MB: collected, released.
    assert done == ["release", "cycles", "release"]


def test_the_resident_memory_is_read_on_linux():
    import sys

    if sys.platform.startswith("linux"):
        assert 10 < training._resident_mb() < 100_000
    else:
        assert training._resident_mb() == 0.0
