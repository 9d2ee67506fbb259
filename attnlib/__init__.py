"""attnlib, the reference behind *attention, step by step*. ``import attnlib`` loads torch
only; ``attnlib.plots``, ``attnlib.widgets`` and ``attnlib.modules`` load on first use."""

from __future__ import annotations

import importlib
from typing import Any

from attnlib.attention import (
    attention_scores,
    attention_scores_loop,
    attention_weights,
    blockwise_attention,
    causal_mask,
    context_vector,
    context_vectors,
    scaled_dot_product_attention,
    softmax,
    softmax_naive,
)
from attnlib.checks import (
    CheckpointError,
    Diagnosis,
    check_context,
    check_scores,
    check_weights,
    diagnose,
)
from attnlib.data import TOKENS, embed, example_inputs, tokenize, usable_sentence

# The function shadows its module's name here: reach the module as sys.modules or with
# `from attnlib.progress import ...`.
from attnlib.progress import progress, progress_off, progress_on

__version__ = "0.1.0"

# Every name imported above, by module, in course order.
__all__ = [
    "TOKENS",
    "example_inputs",
    "embed",
    "tokenize",
    "usable_sentence",
    "attention_scores_loop",
    "attention_scores",
    "softmax_naive",
    "softmax",
    "context_vector",
    "context_vectors",
    "causal_mask",
    "attention_weights",
    "scaled_dot_product_attention",
    "blockwise_attention",
    "CheckpointError",
    "Diagnosis",
    "check_scores",
    "check_weights",
    "check_context",
    "diagnose",
    "progress",
    "progress_off",
    "progress_on",
]


def __getattr__(name: str) -> Any:
    # Heavy submodules load on first attribute access, keeping `import attnlib` light.
    if name in ("plots", "widgets", "modules"):
        return importlib.import_module(f"attnlib.{name}")
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")
