"""Numbers drawn as after ``torch.manual_seed(seed)``, the reader's random stream kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Inside the block, torch's CPU stream is the one ``torch.manual_seed(seed)`` starts; after
    it, the stream is where the reader left it. Only the CPU generator is seeded: the course
    computes on the CPU, and ``torch.manual_seed`` would also queue a seeding of every GPU kind
    torch knows, each with a formatted traceback of its caller (2.5 ms a call under pytest, and
    a list that grows in the reader's kernel) that the reader's first GPU use would apply."""
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)
        yield
