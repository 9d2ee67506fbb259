"""An explorer accepts a token only if it can show it whole: the longest it accepts
(``MAX_TOKEN_CHARS`` of the widest letter), 32 of them, leaves every label of its picture
whole and apart, with no layout warning; one character more is refused in words."""

from __future__ import annotations

import warnings

import pytest
import torch
from pictures import crossing, outside, text_boxes

from attnlib import usable_sentence
from attnlib._validate import MAX_TOKEN_CHARS, MAX_TOKENS
from attnlib.data import EXAMPLE_SENTENCE, TOKENS
from attnlib.widgets import (
    AttentionExplorer,
    LoopStepper,
    QueryExplorer,
    SoftmaxAxisExplorer,
    TrainingExplorer,
)


def _tokens(length: int, count: int = MAX_TOKENS) -> list[str]:
    """``count`` distinct words of ``length`` characters, mostly "W", the widest letter."""
    return ["W" * (length - 2) + f"{k:02d}" for k in range(count)]


def _inputs(count: int) -> torch.Tensor:
    return torch.rand(count, 3, generator=torch.Generator().manual_seed(0))


def _snapshots(count: int) -> torch.Tensor:
    """(2 snapshots, 1 block, 2 heads, count, count) causal weights, each row spread evenly."""
    even = torch.tril(torch.ones(count, count))
    return (even / even.sum(-1, keepdim=True)).expand(2, 1, 2, count, count).clone()


EXPLORERS = {
    "QueryExplorer": lambda tokens: QueryExplorer(_inputs(len(tokens)), tokens),
    "SoftmaxAxisExplorer": lambda tokens: SoftmaxAxisExplorer(
        _inputs(len(tokens)) @ _inputs(len(tokens)).T, tokens
    ),
    "LoopStepper": lambda tokens: LoopStepper(_inputs(len(tokens)), tokens),
    "AttentionExplorer": lambda tokens: AttentionExplorer(" ".join(tokens), query=len(tokens) - 1),
    "AttentionExplorer two heads": lambda tokens: AttentionExplorer(
        " ".join(tokens), num_heads=2, d_out=4, causal=True, query=1
    ),
    "TrainingExplorer": lambda tokens: TrainingExplorer(
        _snapshots(len(tokens)), tokens, [0, 10], query=len(tokens) - 1
    ),
}


# A heatmap alone (LoopStepper) and a heatmap beside or above bars (QueryExplorer) in the fast
# tier; the other kinds, drawn by the same two layouts, at 5 s each in check-all. 6 tokens:
# the course's count, heatmap and bars side by side; 32: the most, one above the other.
FAST = {"LoopStepper", "QueryExplorer"}
CASES = [
    pytest.param(name, count, marks=() if name in FAST else pytest.mark.check_all)
    for name in EXPLORERS
    for count in (6, MAX_TOKENS)
]


@pytest.mark.parametrize(("name", "count"), CASES)
def test_the_longest_tokens_accepted_are_drawn_whole_and_apart(name, count):
    tokens = _tokens(MAX_TOKEN_CHARS, count)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied" among them
        explorer = EXPLORERS[name](tokens)
        fig = explorer.figure()
        boxes = text_boxes(fig)
    drawn = [text for text, _, _ in boxes]
    assert all(token in drawn for token in tokens), "each token is a label of its own"
    cut = outside([(text, box) for text, box, _ in boxes], fig.bbox)
    assert not cut, f"clipped by the picture's edge: {cut}"
    # A slanted label's upright box meets its neighbour's: only upright texts are compared.
    met = crossing([(text, box) for text, box, slanted in boxes if not slanted])
    assert not met, f"texts drawn over each other: {met[:5]}"
    sizes = {
        t.get_fontsize() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()
    }
    assert min(sizes) >= 7, sizes


def _message(name: str, token: str) -> str:
    expected = f"a token of at most {MAX_TOKEN_CHARS} characters (an explorer draws it whole)"
    return f"{name}: expected {expected}, got {token!r}, {MAX_TOKEN_CHARS + 1} characters"


@pytest.mark.parametrize("name", EXPLORERS)
def test_one_character_more_is_refused_naming_the_token_its_length_and_the_limit(name):
    tokens = _tokens(MAX_TOKEN_CHARS)
    tokens[3] = "W" * (MAX_TOKEN_CHARS + 1)
    where = "sentence" if name.startswith("AttentionExplorer") else "tokens[3]"
    with pytest.raises(ValueError) as info:
        EXPLORERS[name](tokens)
    assert str(info.value) == _message(where, tokens[3])


def test_usable_sentence_says_why_in_one_line_and_falls_back(capsys):
    word = "a" * (MAX_TOKEN_CHARS + 1)
    sentence, tokens = usable_sentence(f"a {word} here")
    assert (sentence, tokens) == (EXAMPLE_SENTENCE, list(TOKENS))
    why = _message("sentence", word)
    said = f"This sentence cannot be used ({why}); using {EXAMPLE_SENTENCE!r} instead."
    assert capsys.readouterr().out.splitlines() == [said]
