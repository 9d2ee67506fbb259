"""The TrainingExplorer of notebook 10: its view, its controls, and what it refuses."""

from __future__ import annotations

import base64

import numpy as np
import pytest
import torch

from attnlib.widgets import TrainingExplorer, training_view
from attnlib.widgets.training_view import even_share

TOKENS = ["I", "had", "always", "thought"]
STEPS = [0, 30, 60]


def _previous_token_head() -> torch.Tensor:
    """Each word's whole weight on the word before it (the first word on itself)."""
    grid = torch.zeros(4, 4)
    grid[0, 0] = 1.0
    grid[1, 0] = grid[2, 1] = grid[3, 2] = 1.0
    return grid


def _snapshots() -> torch.Tensor:
    """(3 snapshots, 1 block, 2 heads, 4, 4): head 0 spread evenly, head 1 becoming a
    previous-token head at the last snapshot."""
    even = torch.tril(torch.ones(4, 4))
    even = even / even.sum(-1, keepdim=True)
    snapshots = even.expand(3, 1, 2, 4, 4).clone()
    snapshots[2, 0, 1] = _previous_token_head()
    return snapshots


def test_the_view_reads_the_snapshot_head_and_query_chosen():
    explorer = TrainingExplorer(_snapshots(), TOKENS, STEPS)
    explorer.snapshot.value, explorer.head.value, explorer.query.value = 2, 1, 3
    view = explorer.view
    assert (view.step, view.block, view.head, view.query) == (60, 0, 1, 3)
    assert view.weights.tolist() == [0.0, 0.0, 1.0, 0.0]
    assert view.before == 1.0 and view.share == 1.0
    assert "on the word before, \u201calways\u201d: 1.0000" in view.text
    assert "after 60 training steps" in view.caption


def test_an_even_head_puts_the_even_share_on_the_previous_word():
    view = training_view(_snapshots(), TOKENS, STEPS, snapshot=0, head=0, query=0)
    # Rows 1..3 give the word before 1/2, 1/3, 1/4: the mean is 13/36.
    # Weights are kept to 4 decimals (1/3 is 0.3333), the even share is exact.
    assert view.share == pytest.approx(13 / 36, abs=1e-4) and view.even == pytest.approx(13 / 36)
    assert view.before is None and "has no word before it" in view.text
    assert even_share(16) == pytest.approx(0.158715, abs=1e-6)  # (H_16 - 1) / 15: 16 words


def test_heads_are_counted_over_every_block():
    snapshots = torch.rand(2, 2, 3, 4, 4)
    view = training_view(snapshots, TOKENS, [0, 1], snapshot=1, head=4, query=2)
    assert (view.block, view.head) == (1, 1)
    assert torch.equal(view.attn_weights, snapshots[1, 1, 1].double().round(decimals=4))


@pytest.mark.parametrize(
    ("snapshots", "tokens", "steps", "named"),
    [
        (torch.rand(3, 2, 4, 4), TOKENS, STEPS, "snapshots"),  # no block axis
        (torch.rand(3, 1, 2, 4, 5), TOKENS, STEPS, "snapshots"),  # not square
        (torch.rand(3, 1, 2, 5, 5), TOKENS, STEPS, "snapshots"),  # not one row per token
        (torch.rand(3, 1, 2, 4, 4), TOKENS, [0, 30], "steps"),  # a step per snapshot
        (torch.full((3, 1, 2, 4, 4), torch.nan), TOKENS, STEPS, "snapshots"),
        ([[0.5]], TOKENS, STEPS, "snapshots"),
        (torch.full((3, 1, 2, 4, 4), 1.5), TOKENS, STEPS, "between 0 and 1"),
    ],
)
def test_bad_snapshots_are_refused_naming_the_argument(snapshots, tokens, steps, named):
    with pytest.raises(ValueError, match=named):
        TrainingExplorer(snapshots, tokens, steps)


def test_the_view_refuses_an_index_out_of_range_naming_it():
    explorer = TrainingExplorer(_snapshots(), TOKENS, STEPS)
    explorer.frontend.step = 0
    # The sliders' own bounds keep their values in range; the view refuses the rest.
    with pytest.raises(ValueError, match="snapshot"):
        training_view(_snapshots(), TOKENS, STEPS, snapshot=3, head=0, query=0)
    with pytest.raises(ValueError, match="head"):
        training_view(_snapshots(), TOKENS, STEPS, snapshot=0, head=2, query=0)
    explorer.snapshot.value = 2
    assert explorer.frontend.step == 0  # jsdlink: the browser, not the kernel, follows


def test_the_data_is_sent_once_with_every_snapshot():
    explorer = TrainingExplorer(_snapshots(), TOKENS, STEPS)
    data = explorer.frontend.data
    assert explorer.frontend.kind == "training"
    assert data["shape"] == [3, 2, 4, 4]  # (snapshot, block * head, query, key)
    counts = np.frombuffer(base64.b64decode(data["snapshots"]), dtype="<u2").reshape(3, 2, 4, 4)
    assert counts[2, 1].tolist() == (10_000 * _previous_token_head()).int().tolist()
    assert counts[0, 0, 1].tolist() == [5000, 5000, 0, 0]
    assert "\n" not in data["snapshots"]  # one line in a saved notebook
    assert data["heads"] == ["block 1, head 1", "block 1, head 2"]  # counted from 1
    assert data["steps"] == STEPS and "training" in data["texts"]


def test_the_explorer_shows_a_picture_where_no_widget_runs():
    bundle = TrainingExplorer(_snapshots(), TOKENS, STEPS)._repr_mimebundle_()
    assert bundle["image/png"] and "TrainingExplorer" in bundle["text/plain"]


def test_snapshots_are_counted_from_one_as_the_slider_speaks_them():
    view = training_view(_snapshots(), TOKENS, STEPS, snapshot=0, head=0, query=1)
    assert view.text.startswith("step 0 (snapshot 1 of 3),")
    last = training_view(_snapshots(), TOKENS, STEPS, snapshot=2, head=0, query=1)
    assert last.text.startswith("step 60 (snapshot 3 of 3),")


def test_the_picture_is_colour_only_at_sixteen_words():
    tokens = [f"w{k}" for k in range(16)]
    snapshots = torch.full((2, 1, 1, 16, 16), 1 / 16)
    fig = TrainingExplorer(snapshots, tokens, [0, 30]).figure()
    grid = fig.axes[0]
    # No number drawn in a cell: 256 four-decimal numbers are not read at this size.
    assert not [t for t in grid.texts if t.get_text().startswith("0.")]
    width, height = fig.get_size_inches()
    assert width * height < 70  # small: the kernel renders it within the course's memory


def test_the_slider_reads_snapshots_from_one_and_play_runs_it():
    explorer = TrainingExplorer(_snapshots(), TOKENS, STEPS, snapshot=1)
    labels = [label for label, _ in explorer.snapshot.options]
    assert labels == ["1 of 3", "2 of 3", "3 of 3"]
    assert explorer.snapshot.value == 1 and explorer.snapshot.index == 1
    assert (explorer.play.min, explorer.play.max) == (0, 2)
    assert explorer.view.headline.startswith("snapshot 2 of 3 (step 30): block 1, head 1 puts ")


def test_the_loss_curve_is_sent_averaged_to_at_most_150_points():
    losses = [float(k % 2) for k in range(600)]  # 0, 1, 0, 1, ...: each pair averages 0.5
    explorer = TrainingExplorer(_snapshots(), TOKENS, STEPS, losses=losses)
    curve = explorer.frontend.data["losses"]
    assert len(curve) == 150
    assert curve[0] == [1.5, 0.5] and curve[-1] == [597.5, 0.5]  # steps 0-3 and 596-599
    assert TrainingExplorer(_snapshots(), TOKENS, STEPS).frontend.data["losses"] == []
    for bad in ([], [1.0, float("nan")], "0.5", [-1.0]):
        with pytest.raises(ValueError, match="losses"):
            TrainingExplorer(_snapshots(), TOKENS, STEPS, losses=bad)
