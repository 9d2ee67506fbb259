"""Argument checks shared by every public function.

Each check raises ``ValueError`` naming what was expected and what was received,
so a reader never meets a raw torch shape error.
"""

from __future__ import annotations

import numbers
from typing import Any

import torch


def describe(x: Any) -> str:
    """A short description of ``x`` for error messages."""
    if isinstance(x, torch.Tensor):
        return f"a tensor of shape {tuple(x.shape)} and dtype {x.dtype}"
    return f"{type(x).__name__} {x!r}"[:120]


def as_float_tensor(x: Any, name: str) -> torch.Tensor:
    """Return ``x`` if it is a floating-point tensor, else raise ``ValueError``."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name}: expected a torch.Tensor of floats, got {describe(x)}")
    if not x.is_floating_point():
        raise ValueError(
            f"{name}: expected a floating-point dtype (e.g. torch.float32), got {x.dtype}; "
            f"convert with {name}.float()"
        )
    return x


def check_rank(x: torch.Tensor, name: str, ranks: tuple[int, ...], shape_doc: str) -> None:
    """Raise unless ``x.dim()`` is one of ``ranks``; ``shape_doc`` names the expected shape."""
    if x.dim() not in ranks:
        raise ValueError(
            f"{name}: expected shape {shape_doc} ({' or '.join(map(str, ranks))}-d), "
            f"got {x.dim()}-d shape {tuple(x.shape)}"
        )


def check_min_rank(x: torch.Tensor, name: str, rank: int, shape_doc: str) -> None:
    """Raise unless ``x`` has at least ``rank`` dimensions."""
    if x.dim() < rank:
        raise ValueError(
            f"{name}: expected shape {shape_doc} (at least {rank}-d), "
            f"got {x.dim()}-d shape {tuple(x.shape)}"
        )


def check_nonempty(x: torch.Tensor, name: str, axis: int = -2, what: str = "tokens") -> None:
    """Raise when ``x`` has no entries along ``axis`` (e.g. zero tokens) or any empty axis."""
    if x.shape[axis] == 0 or x.numel() == 0:
        raise ValueError(f"{name}: expected at least one of the {what}, got shape {tuple(x.shape)}")


def check_int(value: Any, name: str, minimum: int = 0) -> int:
    """Return ``value`` if it is an int >= ``minimum`` (bools refused), else raise."""
    # numbers.Integral admits numpy's integers too (e.g. from argmax); bool is refused.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected an int >= {minimum}, got {describe(value)}")
    if value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value}")
    return int(value)


def check_dim(dim: Any, ndim: int, name: str = "dim") -> int:
    """Return ``dim`` if it indexes a tensor with ``ndim`` dimensions, else raise."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not -ndim <= dim < ndim:
        raise ValueError(f"{name}: expected an int in [{-ndim}, {ndim - 1}], got {describe(dim)}")
    return int(dim)
