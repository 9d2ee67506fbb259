"""Numbers drawn as after ``torch.manual_seed(seed)``, the reader's random stream kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Inside the block, torch's CPU stream is the one ``torch.manual_seed(seed)`` starts; after
    it, the stream is where the reader left it. Only the CPU generator is seeded: the course
    computes on the CPU, and ``torch.manual_seed`` would also queue a seeding of each GPU kind
    torch knows, with a formatted traceback of its caller (0.25-0.5 ms a call, 150 times the
    CPU's seeding, measured here), which the reader's first use of a GPU would then apply."""
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)
        yield
