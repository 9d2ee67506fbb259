"""The explorers' own argument checks, on top of :mod:`attnlib._validate`.

An explorer draws every token and every coordinate, so it accepts at most
``MAX_TOKENS`` tokens and ``MAX_D`` coordinates per vector; each check names the
argument (or control) at fault and says what it expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from attnlib import _validate as check
from attnlib.data import MAX_TOKENS, TOKENS, example_inputs

#: The widest vector an explorer writes out coordinate by coordinate.
MAX_D = 64
#: The most heads the AttentionExplorer offers (one slider position each).
MAX_HEADS = 16


def _limit(count: int, name: str, limit: int, what: str) -> None:
    if count > limit:
        raise check.invalid(name, f"at most {limit} {what}", count)


def _as_tensor(x: Any) -> Any:
    return torch.from_numpy(x) if isinstance(x, np.ndarray) else x


def inputs(x: Any, name: str = "inputs") -> torch.Tensor:
    """A detached copy of ``x`` ``(num_tokens, d_in)``: finite floats, within the limits."""
    x = check.readable(check.tensor(_as_tensor(x), name, "(num_tokens, d_in)", (2,)), name)
    _limit(x.shape[0], name, MAX_TOKENS, "tokens (rows)")
    _limit(x.shape[1], name, MAX_D, "dimensions (columns)")
    check.finite(x, name, "expected finite numbers")
    # A copy, so a reader editing their tensor in place cannot change what is shown.
    return x.detach().clone()


def scores(x: Any, name: str = "attn_scores") -> torch.Tensor:
    """A detached copy of square ``x`` ``(num_tokens, num_tokens)``; -inf (masked) allowed."""
    x = check.readable(check.tensor(_as_tensor(x), name, "(num_tokens, num_tokens)", (2,)), name)
    if x.shape[0] != x.shape[1]:
        raise check.invalid(name, "a square shape (num_tokens, num_tokens)", tuple(x.shape))
    _limit(x.shape[0], name, MAX_TOKENS, "tokens (rows)")
    if torch.isnan(x).any() or (x == torch.inf).any():
        raise check.invalid(name, "finite numbers or -inf (masked)", "NaN or +inf")
    finite = torch.isfinite(x)
    if not finite.any(dim=1).all() or not finite.any(dim=0).all():
        expected = "a finite score in every row and every column"
        raise ValueError(f"{name}: expected {expected} (a row or column of -inf has no softmax)")
    return x.detach().clone()


def resolve(
    given: Any, labels: Sequence[str] | None, source: str
) -> tuple[torch.Tensor, tuple[str, ...]]:
    """Checked inputs (or scores) and their tokens, with the book's as defaults.

    Without ``given``: the book's inputs (``source == "inputs"``) or their scores,
    and the book's six tokens. Given without ``labels``: ``t0, t1, ...``.
    """
    if given is None:
        book = example_inputs()
        matrix = book if source == "inputs" else book @ book.T
        default: tuple[str, ...] = TOKENS
    else:
        matrix = inputs(given) if source == "inputs" else scores(given)
        default = tuple(f"t{k}" for k in range(matrix.shape[0]))
    return matrix, check.tokens(default if labels is None else labels, matrix.shape[0])


def axis(dim: Any) -> int:
    """The softmax axis of a ``(num_tokens, num_tokens)`` grid as the book writes it: -1 or 0.

    -1 (or 1) normalises each row, 0 (or -2) each column.
    """
    return -1 if check.dim(dim, 2) == -1 else 0
