"""Tests for attnlib.data: a reader's own sentence as reproducible embeddings."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from book import BOOK_INPUTS, TOKENS
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib.data import (
    EXAMPLE_SENTENCE,
    MAX_TOKENS,
    embed,
    sentence_inputs,
    tokenize,
    usable_sentence,
)


@pytest.mark.parametrize(
    "sentence, tokens",
    [
        (
            "Your journey starts, with one step!",
            ["Your", "journey", "starts", ",", "with", "one", "step", "!"],
        ),
        ("Wait... what?!", ["Wait", ".", ".", ".", "what", "?", "!"]),  # each mark a token
        ("  one\ttwo\n three  ", ["one", "two", "three"]),  # any whitespace only separates
        ("snake_case and 42nd", ["snake_case", "and", "42nd"]),  # letters, digits, _ are a word
    ],
    ids=["words-and-punctuation", "every-mark-its-own-token", "whitespace", "word-characters"],
)
def test_splits_words_and_punctuation(sentence, tokens):
    assert tokenize(sentence) == tokens
    got, inputs = embed(sentence)
    assert got == tokens and inputs.shape == (len(tokens), 3)


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
        ({"sentence": "a b", "d": 10**12}, "d: expected an int <= 65536 (the limit)"),
        ({"sentence": "hi", "seed": 2**63}, "seed: expected an int <= 9223372036854775807"),
        ({"sentence": "hi", "seed": 1.0}, "seed: expected an int >= 0, got float 1.0"),
        (
            {"sentence": "a" * 21},
            "sentence: expected a token of at most 20 characters (an explorer draws it whole), "
            "got 'aaaaaaaaaaaaaaaaaaaaa', 21 characters",
        ),
    ],
)
def test_bad_input_errors(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        embed(**kwargs)


def test_the_largest_seed_works():
    tokens, inputs = embed("hi there", seed=2**63 - 1)
    assert tokens == ["hi", "there"] and inputs.shape == (2, 3)


@pytest.mark.parametrize(
    "kwargs, same_as",
    [({"seed": np.int64(5)}, {"seed": 5}), ({"d": np.int32(4)}, {"d": 4})],
    ids=["np.int64-seed", "np.int32-d"],
)
def test_numpy_integers_work_as_ints(kwargs, same_as):
    tokens, inputs = embed("a b a", **kwargs)
    expected_tokens, expected = embed("a b a", **same_as)
    assert tokens == expected_tokens
    assert torch.equal(inputs, expected)


# --- sentence_inputs: the book's sentence gets the book's embeddings -----------------------------


@pytest.mark.parametrize(
    "sentence",
    [" ".join(TOKENS), "your JOURNEY starts with one step", " Your journey\tstarts with one step"],
    ids=["as-printed", "any-case", "any-spacing"],
)
def test_the_books_sentence_in_any_case_and_spacing_gets_the_books_inputs(sentence):
    tokens, inputs = sentence_inputs(sentence, seed=7)
    assert [t.lower() for t in tokens] == [t.lower() for t in TOKENS]
    assert tokens == tuple(sentence.split())  # as the reader typed them
    assert torch.equal(inputs, torch.tensor(BOOK_INPUTS))


def test_any_other_sentence_gets_embed_with_d_3():
    tokens, inputs = sentence_inputs("Your journey ends here.", seed=7)
    expected_tokens, expected = embed("Your journey ends here.", d=3, seed=7)
    assert tokens == tuple(expected_tokens)
    assert torch.equal(inputs, expected)


@pytest.mark.parametrize("sentence", [" ".join(TOKENS), "another sentence"])
def test_sentence_inputs_refuses_a_bad_seed_for_any_sentence(sentence):
    with pytest.raises(ValueError, match=r"seed: expected an int >= 0, got -1"):
        sentence_inputs(sentence, seed=-1)


BAD_SENTENCES = {
    "empty": ("", "sentence: expected at least one word, got ''"),
    "blank": ("  \t ", "sentence: expected at least one word, got '  \\t '"),
    "33-words": (
        " ".join(["word"] * 33),
        "sentence: expected at most 32 tokens, got 33; shorten it so the heatmap stays readable",
    ),
    "101-characters": (
        "a" * 101,
        "sentence: expected a token of at most 20 characters (an explorer draws it whole), got "
        "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'..., 101 characters",
    ),
    "not-a-str": (5, "sentence: expected a str, got int 5"),
}


@pytest.mark.parametrize("name", BAD_SENTENCES)
def test_a_sentence_no_explorer_can_use_is_named_in_one_line_and_the_book_s_used(name, capsys):
    sentence, why = BAD_SENTENCES[name]
    assert usable_sentence(sentence) == (EXAMPLE_SENTENCE, list(TOKENS))
    printed = capsys.readouterr().out
    book = repr(EXAMPLE_SENTENCE)
    assert printed == f"This sentence cannot be used ({why}); using {book} instead.\n"
    assert "tokens[" not in printed


def test_embed_names_the_sentence_for_a_word_that_is_too_long():
    with pytest.raises(ValueError) as info:
        embed("short " + "b" * 101)
    assert str(info.value).startswith("sentence: expected a token of at most 20 characters")


def test_a_usable_sentence_is_kept_silently(capsys):
    assert usable_sentence("Time flies.", fallback="a b") == ("Time flies.", ["Time", "flies", "."])
    assert usable_sentence("", fallback="a b") == ("a b", ["a", "b"])
    assert capsys.readouterr().out.count("\n") == 1


def test_a_fallback_that_cannot_be_used_is_refused():
    with pytest.raises(ValueError) as info:
        usable_sentence("fine", fallback="")
    assert str(info.value) == (
        "fallback: expected a sentence that embed takes, "
        "got sentence: expected at least one word, got ''"
    )
