"""Comparing a reader's result with the right one, and saying concretely how they differ."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

#: Below the 4 printed decimals, above float32 round-off between loops and one product.
TOLERANCE = 1e-4


class Raised:
    """An exception as a result, so a mistake that raises can match the reader's."""

    def __init__(self, err: BaseException) -> None:
        self.kind = type(err).__name__
        self.text = f"{self.kind}: {str(err).splitlines()[0] if str(err) else ''}"[:200]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raised) and other.text == self.text


def outcome(make) -> Any:
    """``make()``, or what it raised (anything but an interrupt or an exit) as a :class:`Raised`."""
    try:
        return make()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # the reader's code may raise anything, even BaseException
        return Raised(err)


def shown(x: Any, limit: int = 80) -> str:
    """``x`` in one short line, whatever its repr does (a repr may raise or be huge)."""
    if isinstance(x, torch.Tensor):
        return f"a {x.dtype} tensor of shape {tuple(x.shape)}"
    if isinstance(x, np.ndarray):
        return f"a numpy array of shape {x.shape}"
    try:
        text = " ".join(repr(x).split())
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:
        text = f"an object of type {type(x).__name__} whose repr fails"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same(result: Any, expected: Any, exact: bool = False) -> bool:
    """Equal results: tensors of the same shape within :data:`TOLERANCE` (NaN where NaN)."""
    if isinstance(expected, Raised) or isinstance(result, Raised):
        return isinstance(result, Raised) and isinstance(expected, Raised) and result == expected
    if isinstance(expected, torch.Tensor):
        if not isinstance(result, torch.Tensor) or result.shape != expected.shape:
            return False
        if result.device.type == "meta" or result.is_complex() or result.dtype == torch.bool:
            return False
        a, b = result.detach().cpu().double(), expected.detach().cpu().double()
        if exact:
            return bool(torch.equal(a, b))
        return bool((a.isnan() == b.isnan()).all()) and bool(
            torch.allclose(a.nan_to_num(), b.nan_to_num(), atol=TOLERANCE, rtol=TOLERANCE)
        )
    if _real(result) and _real(expected):
        return result == expected
    if type(result) is not type(expected) or isinstance(result, np.ndarray):
        return False
    try:
        return bool(result == expected)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # a reader's type whose == misbehaves is not a match
        return False


def _real(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _entries(diff: torch.Tensor) -> str:
    """Which rows (or entries) of an elementwise difference are off."""
    off = (diff > TOLERANCE) | diff.isnan()
    if diff.dim() == 0:
        return ""
    rows = off.reshape(off.shape[0], -1).any(dim=1).nonzero().flatten().tolist()
    where = "entries" if diff.dim() == 1 else "rows"
    listed = ", ".join(map(str, rows[:8])) + (", ..." if len(rows) > 8 else "")
    return f"{where} {listed} of {off.shape[0]} differ; "


def describe(result: Any, expected: Any) -> str:
    """What differs between ``result`` and ``expected``, concretely, in one line."""
    if result is None:
        return "returned None: a missing `return`?"
    if isinstance(result, Raised):
        return f"your code raised {result.text}{_meaning(result.text)}"
    if not isinstance(expected, torch.Tensor):
        return f"expected {shown(expected)}, got {shown(result)}"
    if isinstance(result, np.ndarray):
        return f"got a numpy array, expected a torch tensor of shape {tuple(expected.shape)}"
    if not isinstance(result, torch.Tensor):
        return f"expected a torch tensor of shape {tuple(expected.shape)}, got {shown(result)}"
    if result.shape != expected.shape:
        transposed = result.dim() == 2 and result.shape[::-1] == expected.shape
        turned = " (the transpose?)" if transposed else ""
        return f"expected shape {tuple(expected.shape)}, got {tuple(result.shape)}{turned}"
    if result.device.type == "meta" or result.is_complex() or result.dtype == torch.bool:
        return f"expected real numbers ({expected.dtype}), got {shown(result)}"
    got, want = result.detach().cpu().double(), expected.detach().cpu().double()
    if got.isnan().any() and not want.isnan().any():
        return f"{_entries(got.isnan().double())}they hold nan: did exp overflow, or 0 / 0?"
    diff = (got - want).abs()
    flat = int(diff.nan_to_num(nan=float("inf")).argmax())
    index = tuple(int(i) for i in np.unravel_index(flat, tuple(got.shape))) if got.dim() else ()
    at = f" at {list(index)}" if index else ""
    detail = f"the largest gap is{at}: expected {want[index]:.4f}, got {got[index]:.4f}"
    if want.dim() == 2 and want.shape[0] == want.shape[1] and torch.allclose(got, want.T):
        detail += " (the transpose of the answer)"
    ratio = got / want
    if want.abs().min() > 1e-6 and torch.allclose(ratio, ratio.flatten()[0].expand_as(ratio)):
        detail += f"; every entry is {float(ratio.flatten()[0]):.4f} times the answer"
    if result.dtype != expected.dtype:
        detail += f"; dtype {result.dtype}, expected {expected.dtype}"
    return _entries(diff) + detail + _sums(got, want)


def _sums(got: torch.Tensor, want: torch.Tensor) -> str:
    """Where the right rows are distributions: which axis of the result sums to 1."""
    if want.dim() != 2 or not torch.allclose(want.sum(-1), torch.ones_like(want[:, 0]), atol=1e-4):
        return ""
    if torch.allclose(got.sum(0), torch.ones(got.shape[1], dtype=got.dtype), atol=1e-4):
        return "; the columns sum to 1, not the rows: dim=0 where dim=-1 was meant?"
    if not torch.allclose(got.sum(-1), torch.ones(len(got), dtype=got.dtype), atol=1e-4):
        sums = ", ".join(f"{v:.4f}" for v in got.sum(-1)[:4].tolist())
        return f"; the rows should sum to 1 but sum to {sums}{', ...' if len(got) > 4 else ''}"
    return ""


#: What an error of the reader's code likely means, in the course's words, by what torch says.
_MEANINGS = (
    (("must match the size", "cannot be multiplied", "is invalid for input of size",
      "size mismatch", "Expected size for first"),
     "two sizes that do not fit: check the inner sizes of each product and the axes of each "
     "transpose or view"),
    (("view size is not compatible",), "a view of a transposed tensor: .contiguous() first, "
     "or .reshape"),
    (("NameError",), "a name the function does not define: use its arguments"),
    (("masked_fill", "boolean"), "masked_fill wants a bool mask"),
)  # fmt: skip


def _meaning(text: str) -> str:
    for signs, meaning in _MEANINGS:
        if any(sign in text for sign in signs):
            return f" ({meaning})"
    return ""
