"""attnlib: the reference pipeline behind *attention, step by step*.

``import attnlib`` loads torch only; ``attnlib.plots`` and ``attnlib.widgets``
(matplotlib, ipywidgets) load on first use.
"""

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
from attnlib.data import TOKENS, embed, example_inputs, tokenize

__version__ = "0.1.0"

_LAZY_MODULES = ("plots", "widgets", "modules")

__all__ = [
    "TOKENS",
    "CheckpointError",
    "Diagnosis",
    "attention_scores",
    "attention_scores_loop",
    "attention_weights",
    "blockwise_attention",
    "causal_mask",
    "check_context",
    "check_scores",
    "check_weights",
    "context_vector",
    "context_vectors",
    "diagnose",
    "embed",
    "example_inputs",
    "scaled_dot_product_attention",
    "softmax",
    "softmax_naive",
    "tokenize",
]


def __getattr__(name: str) -> Any:
    # Heavy submodules load on first attribute access, keeping `import attnlib` light.
    if name in _LAZY_MODULES:
        return importlib.import_module(f"attnlib.{name}")
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")
