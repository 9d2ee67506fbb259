"""The example sentence of the course, and embeddings for a reader's own sentence."""

from __future__ import annotations

import re
import zlib
from typing import Any

import torch

from attnlib import _validate as validate

#: The six tokens of the running example, in order (index 1 is "journey").
TOKENS: tuple[str, ...] = ("Your", "journey", "starts", "with", "one", "step")
EXAMPLE_SENTENCE = " ".join(TOKENS)  #: sentence_inputs gives it, in any case, the book's inputs
MAX_TOKENS = (
    validate.MAX_TOKENS
)  #: the longest sentence ``embed`` accepts, so heatmaps stay readable

# The 3-d embeddings printed in chapter 3 of Raschka's book (credited in the README).
_EXAMPLE = (
    (0.43, 0.15, 0.89),  # Your
    (0.55, 0.87, 0.66),  # journey
    (0.57, 0.85, 0.64),  # starts
    (0.22, 0.58, 0.33),  # with
    (0.77, 0.25, 0.10),  # one
    (0.05, 0.80, 0.55),  # step
)


def example_inputs() -> torch.Tensor:
    """The book's ``inputs``, ``(num_tokens, d_in) == (6, 3)``, new on each call (safe to edit)."""
    return torch.tensor(_EXAMPLE, dtype=torch.float32)


def tokenize(sentence: str) -> list[str]:
    """Words (letters, digits, ``_``) and single marks: ``"Hi, you!"`` -> ``Hi , you !``."""
    validate.text(sentence, "sentence", limit=MAX_TOKENS * validate.MAX_TEXT)
    return re.findall(r"\w+|[^\w\s]", sentence)


def _vector(word: str, d: int, seed: int) -> torch.Tensor:
    """``(d,)`` entries in [0, 1) drawn from a generator seeded by ``seed`` and ``word``."""
    # crc32 is stable across runs and platforms, unlike hash(); % 2**64 fits the generator.
    gen = torch.Generator().manual_seed((seed * 1_000_003 + zlib.crc32(word.encode())) % 2**64)
    return torch.rand(d, generator=gen)


def embed(sentence: str, d: int = 3, seed: int = 123) -> tuple[list[str], torch.Tensor]:
    """The :func:`tokenize` tokens of ``sentence`` and their ``inputs`` ``(num_tokens, d)``; a
    token's vector depends only on ``seed`` and the lower-cased token: one word, one vector."""
    d = validate.integer(d, "d", 1, validate.MAX_DIM)
    seed = validate.integer(seed, "seed", 0, 2**63 - 1)
    tokens = tokenize(sentence)
    if not tokens:
        shown = repr(sentence[:40]) + ("..." if len(sentence) > 40 else "")
        raise validate.invalid("sentence", "at least one word", shown)
    if len(tokens) > MAX_TOKENS:
        why = "shorten it so the heatmap stays readable"
        raise validate.invalid("sentence", f"at most {MAX_TOKENS} tokens", f"{len(tokens)}; {why}")
    if len(longest := max(tokens, key=len)) > validate.MAX_TOKEN_CHARS:
        raise validate.long_token("sentence", longest)  # an explorer could not draw it whole
    return tokens, torch.stack([_vector(token.lower(), d, seed) for token in tokens])


def sentence_inputs(sentence: str, seed: int = 123) -> tuple[tuple[str, ...], torch.Tensor]:
    """The tokens and ``inputs`` ``(num_tokens, 3)`` of ``sentence``; the book's for its own."""
    tokens, inputs = embed(sentence, d=3, seed=seed)
    if " ".join(tokens).lower() == EXAMPLE_SENTENCE.lower():
        inputs = example_inputs()
    return tuple(tokens), inputs


def usable_sentence(sentence: Any, fallback: str = EXAMPLE_SENTENCE) -> tuple[str, list[str]]:
    """``sentence`` and its :func:`tokenize` tokens if :func:`embed` takes it; if not, says why in
    one line and gives ``fallback``'s instead, so that the cells after it still run."""
    try:
        fallback_tokens = embed(fallback)[0]
    except ValueError as err:  # a bad fallback is the caller's error: refused
        raise validate.invalid("fallback", "a sentence that embed takes", err) from None
    try:
        return sentence, embed(sentence)[0]
    except ValueError as err:
        print(f"This sentence cannot be used ({err}); using {fallback!r} instead.")
        return fallback, fallback_tokens
