"""The example sentence of the course, and embeddings for a reader's own sentence."""

from __future__ import annotations

import re
import zlib

import torch

from attnlib import _validate as check

#: The six tokens of the running example, in order (index 1 is "journey").
TOKENS: tuple[str, ...] = ("Your", "journey", "starts", "with", "one", "step")

# The 3-d embeddings printed in chapter 3 of Raschka's book (credited in the README).
_EXAMPLE = (
    (0.43, 0.15, 0.89),  # Your
    (0.55, 0.87, 0.66),  # journey
    (0.57, 0.85, 0.64),  # starts
    (0.22, 0.58, 0.33),  # with
    (0.77, 0.25, 0.10),  # one
    (0.05, 0.80, 0.55),  # step
)

#: The longest sentence ``embed`` accepts, so heatmaps stay readable.
MAX_TOKENS = 32

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def example_inputs() -> torch.Tensor:
    """The embeddings of "Your journey starts with one step".

    Returns a new float32 tensor of shape ``(num_tokens, d_in) == (6, 3)`` on each
    call, so a reader who edits it in place cannot change later cells' input.
    """
    return torch.tensor(_EXAMPLE, dtype=torch.float32)


def tokenize(sentence: str) -> list[str]:
    """Split ``sentence`` into words and single punctuation marks.

    >>> tokenize("Hello, world!")
    ['Hello', ',', 'world', '!']
    """
    check.text(sentence, "sentence", limit=MAX_TOKENS * check.MAX_TEXT)
    return _TOKEN_RE.findall(sentence)


def embed(sentence: str, d: int = 3, seed: int = 123) -> tuple[list[str], torch.Tensor]:
    """Give every token of ``sentence`` a reproducible random embedding.

    The sentence is split by :func:`tokenize` (runs of letters/digits/underscore are
    words; every other non-space character is a token of its own). Each distinct
    lower-cased token gets one vector with entries in [0, 1), drawn from a generator
    seeded by ``seed`` and the token's text, so a repeated word gets the same
    vector and the same word gets the same vector in any sentence.

    Returns ``(tokens, inputs)`` with ``inputs`` of shape ``(num_tokens, d)``.
    Raises ``ValueError`` for an empty sentence, more than ``MAX_TOKENS`` tokens,
    a token longer than 100 characters, or ``d`` outside ``[1, 65536]``.
    """
    d = check.integer(d, "d", 1, check.MAX_DIM)
    seed = check.integer(seed, "seed", 0, 2**63 - 1)
    tokens = tokenize(sentence)
    if not tokens:
        raise ValueError(f"sentence: expected at least one word, got {sentence!r}")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(
            f"sentence: expected at most {MAX_TOKENS} tokens, got {len(tokens)}; "
            "shorten it so the heatmap stays readable"
        )
    check.tokens(tokens, len(tokens))
    vectors: dict[str, torch.Tensor] = {}
    for token in tokens:
        key = token.lower()
        if key not in vectors:
            # crc32 is stable across runs and platforms, unlike hash(); the modulo keeps any
            # seed within the generator's 64 bits.
            gen = torch.Generator().manual_seed(
                (seed * 1_000_003 + zlib.crc32(key.encode())) % 2**64
            )
            vectors[key] = torch.rand(d, generator=gen)
    return tokens, torch.stack([vectors[t.lower()] for t in tokens])


#: The book's sentence; any case and spacing of it gets the book's embeddings.
EXAMPLE_SENTENCE = " ".join(TOKENS)


def sentence_inputs(sentence: str, seed: int = 123) -> tuple[tuple[str, ...], torch.Tensor]:
    """The tokens of ``sentence`` and their ``inputs`` ``(num_tokens, 3)``.

    The book's sentence (in any case, with any spacing) gets the book's
    embeddings, :func:`example_inputs`, so an explorer shows the book's numbers;
    any other sentence gets :func:`embed` with ``d=3`` and ``seed``.
    """
    if " ".join(tokenize(sentence)).lower() == EXAMPLE_SENTENCE.lower():
        check.integer(seed, "seed", 0, 2**63 - 1)
        return tuple(tokenize(sentence)), example_inputs()
    tokens, inputs = embed(sentence, d=3, seed=seed)
    return tuple(tokens), inputs
