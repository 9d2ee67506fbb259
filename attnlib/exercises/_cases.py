"""Seeded random inputs of other sizes than the book's, the same at every run."""

from __future__ import annotations

import torch

from attnlib.data import example_inputs

#: (num_tokens, d_in) of the random cases: fewer and more tokens, other widths.
SIZES = ((4, 5), (7, 2))


def random_tensor(*shape: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    """Uniform in [-scale, scale), float32, from its own seeded generator."""
    generator = torch.Generator().manual_seed(seed)
    return (2 * torch.rand(*shape, generator=generator) - 1) * scale


def token_inputs() -> list[tuple[str, torch.Tensor]]:
    """The book's six 3-d embeddings, then random ``inputs`` of the :data:`SIZES`."""
    cases = [("the book's 6 tokens", example_inputs())]
    for seed, (num_tokens, d_in) in enumerate(SIZES):
        inputs = random_tensor(num_tokens, d_in, seed=seed)
        cases.append((f"{num_tokens} random tokens of {d_in} dimensions", inputs))
    return cases
