"""Tests for attnlib.data.embed: a reader's own sentence as reproducible embeddings."""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib.data import MAX_TOKENS, embed


def test_splits_words_and_punctuation():
    tokens, inputs = embed("Your journey starts, with one step!")
    assert tokens == ["Your", "journey", "starts", ",", "with", "one", "step", "!"]
    assert inputs.shape == (8, 3)


def test_every_punctuation_mark_is_its_own_token():
    tokens, _ = embed("Wait... what?!")
    assert tokens == ["Wait", ".", ".", ".", "what", "?", "!"]


def test_whitespace_of_any_kind_only_separates():
    tokens, _ = embed("  one\ttwo\n three  ")
    assert tokens == ["one", "two", "three"]


@pytest.mark.parametrize("d", [1, 3, 7])
def test_shape_dtype_and_range(d):
    tokens, inputs = embed("the cat sat on the mat", d=d)
    assert len(tokens) == 6
    assert inputs.shape == (6, d)
    assert inputs.dtype == torch.float32
    assert torch.all((inputs >= 0) & (inputs < 1))


def test_repeated_words_get_identical_vectors_regardless_of_case():
    tokens, inputs = embed("The cat saw the dog; THE end")
    assert [t.lower() for t in tokens].count("the") == 3
    first = inputs[0]
    assert torch.equal(inputs[3], first)
    assert torch.equal(inputs[6], first)
    # Different words get different vectors.
    assert not torch.equal(inputs[1], inputs[4])  # cat, dog


def test_a_word_keeps_its_vector_in_any_sentence():
    _, a = embed("journey", d=4, seed=5)
    _, b = embed("a long journey home", d=4, seed=5)
    assert torch.equal(b[2], a[0])


def test_same_seed_same_vectors():
    first = embed("Your journey starts with one step", d=5, seed=42)
    second = embed("Your journey starts with one step", d=5, seed=42)
    assert first[0] == second[0]
    assert torch.equal(first[1], second[1])


def test_independent_of_the_global_rng():
    torch.manual_seed(0)
    _, first = embed("hello world")
    torch.manual_seed(1)
    _, second = embed("hello world")
    assert torch.equal(first, second)


@pytest.mark.parametrize("other_seed", [0, 1, 124, 10**6])
def test_different_seed_different_vectors(other_seed):
    _, a = embed("Your journey starts with one step", seed=123)
    _, b = embed("Your journey starts with one step", seed=other_seed)
    # Every token's vector changes, not just some.
    assert torch.all((a != b).any(dim=1))


def test_accepts_exactly_max_tokens():
    assert MAX_TOKENS == 32
    tokens, inputs = embed(" ".join(["word"] * 32))
    assert len(tokens) == 32 and inputs.shape == (32, 3)


@settings(max_examples=50, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["step", "Step", "STEP", "one", "One", "go"]),
        min_size=1,
        max_size=MAX_TOKENS,
    ),
    d=st.integers(1, 6),
    seed=st.integers(0, 2**31),
)
def test_vectors_depend_only_on_lowercased_word(words, d, seed):
    tokens, inputs = embed(" ".join(words), d=d, seed=seed)
    assert tokens == words
    assert inputs.shape == (len(words), d)
    for i, wi in enumerate(words):
        for j, wj in enumerate(words):
            assert torch.equal(inputs[i], inputs[j]) == (wi.lower() == wj.lower())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sentence": ""}, "sentence: expected at least one word, got ''"),
        ({"sentence": "   \n"}, "sentence: expected at least one word"),
        ({"sentence": "a " * 33}, "sentence: expected at most 32 tokens, got 33"),
        ({"sentence": "word, " * 17}, "expected at most 32 tokens, got 34"),
        ({"sentence": "hi", "d": 0}, "d: expected an int >= 1, got 0"),
        ({"sentence": "hi", "d": 2.0}, "d: expected an int >= 1, got float 2.0"),
        ({"sentence": "hi", "seed": -1}, "seed: expected an int >= 0, got -1"),
        ({"sentence": None}, "sentence: expected a str, got NoneType"),
        ({"sentence": b"hi"}, "sentence: expected a str, got bytes"),
        ({"sentence": ["hi", "there"]}, "sentence: expected a str, got list"),
    ],
)
def test_bad_input_errors(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        embed(**kwargs)


def test_large_seed_works_or_gets_a_clear_error():
    try:
        embed("hi", seed=2**63)
    except ValueError as err:
        assert str(err).startswith("seed:"), str(err)
