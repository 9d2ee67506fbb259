"""Comparing a reader's result with the right one, and saying concretely how they differ."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

from attnlib.exercises._raised import meaning

#: Above float32 round-off between loops and one product, below a rounding to 4 decimals:
#: a result rounded (or typed from the printout) differs from the right values, and is told so.
TOLERANCE = 1e-5
#: What 4 printed decimals agree to: a result this close but not within TOLERANCE is rounded.
PRINTED = 1e-4
#: Where nan likely comes from, unless the exercise knows better (softmax: an exp overflowed).
NAN_HINT = "nan comes from 0 / 0, inf - inf, or an entry never set (torch.empty)"


class Raised:
    """An exception as a result, so a mistake that raises can match the reader's."""

    def __init__(self, err: BaseException) -> None:
        self.kind = type(err).__name__
        self.message = (str(err).splitlines()[0] if str(err) else "")[:160]
        self.text = f"{self.kind}: {self.message}"[:200]

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
        if x.numel() <= 6 and x.device.type != "meta" and not x.is_complex():
            values = x.detach().cpu().tolist()  # a small tensor is echoed as typed: its values
            return f"tensor({values}){'' if x.dtype in _PLAIN else f' of dtype {x.dtype}'}"
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


_PLAIN = (torch.float32, torch.int64)


def same(result: Any, expected: Any, exact: bool = False, tolerance: float = TOLERANCE) -> bool:
    """Equal results: tensors of the same shape within ``tolerance`` (NaN where NaN).

    Where a number is asked (a 0-d tensor), any number is taken: int, float, numpy scalar.
    float64 is taken wherever float32 is: the same values, held more precisely.
    """
    if isinstance(expected, torch.Tensor) and expected.dim() == 0 and _number(result):
        result = torch.tensor(float(result))  # a 0-d numpy array too
    if isinstance(expected, Raised) or isinstance(result, Raised):
        return isinstance(result, Raised) and isinstance(expected, Raised) and result == expected
    if isinstance(expected, torch.Tensor):
        if not isinstance(result, torch.Tensor) or result.shape != expected.shape:
            return False
        if result.device.type == "meta" or result.is_complex():
            return False
        if result.dtype == torch.bool and expected.dtype != torch.bool:  # True is not 1.0
            return False
        a, b = result.detach().cpu().double(), expected.detach().cpu().double()
        if exact:
            return bool(torch.equal(a, b))
        return bool((a.isnan() == b.isnan()).all()) and bool(
            torch.allclose(a.nan_to_num(), b.nan_to_num(), atol=tolerance, rtol=tolerance)
        )
    if _number(result) and _number(expected):
        return bool(result == expected)
    if type(result) is not type(expected) or isinstance(result, np.ndarray):
        return False
    try:
        return bool(result == expected)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # a reader's type whose == misbehaves is not a match
        return False


def _number(x: Any) -> bool:
    """A plain number: a Python or numpy int or float (not a bool)."""
    if isinstance(x, (np.generic, np.ndarray)) and x.shape == ():
        return np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.floating)
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def named_entries(values: torch.Tensor, *parts: tuple[str, str, int]) -> torch.Tensor:
    """``values``, a flat vector of consecutive runs, tagged with what each run holds as
    ``(one, many, count)``, e.g. ``("the loss at step", "the losses at steps", 3)``: a
    difference then names its entries run by run, counted from 1, not by a flat index."""
    values.entry_parts = parts  # a plain attribute: torch keeps it through deepcopy
    return values


def _named(index: int, parts: tuple) -> tuple[str, str, int]:
    """The run of ``parts`` that flat ``index`` falls in: (one, many, position from 1)."""
    for one, many, count in parts:
        if index < count:
            return one, many, index + 1
        index -= count
    raise IndexError(index)


def _entries(diff: torch.Tensor, parts: tuple = ()) -> str:
    """Which rows (or entries) of an elementwise difference are off; with ``parts`` (see
    :func:`named_entries`), which entries of each run."""
    off = (diff > TOLERANCE) | diff.isnan()
    if diff.dim() == 0:
        return ""
    if parts and diff.dim() == 1:
        runs: dict[str, list[int]] = {}
        for i in off.nonzero().flatten().tolist():
            _, many, k = _named(i, parts)
            runs.setdefault(many, []).append(k)
        counts = {many: count for _, many, count in parts}
        said = [f"{many} {_listed(ks)} (of {counts[many]:,})" for many, ks in runs.items()]
        return " and ".join(said) + " differ; "
    rows = off.reshape(off.shape[0], -1).any(dim=1).nonzero().flatten().tolist()
    where = "entries" if diff.dim() == 1 else "rows"
    return f"{where} {_listed(rows)} of {off.shape[0]} differ; "


def _at(index: tuple[int, ...], parts: tuple) -> str:
    """Where the largest gap is: `` at [i, j]``, or by name in a vector of named runs."""
    if parts and len(index) == 1:
        one, _, k = _named(index[0], parts)
        return f" at {one} {k}"
    return f" at {list(index)}" if index else ""


def _listed(items: list[int]) -> str:
    return ", ".join(map(str, items[:8])) + (", ..." if len(items) > 8 else "")


def _not_a_value(result: type | None) -> str:
    """A function that gave back nothing, or a class where an object of it was meant."""
    if result is None:
        return "returned None: a missing `return`?"
    return (
        f"returned the class {result.__name__} itself, not a layer made from it: call it "
        f"with its arguments, {result.__name__}(...)"
    )


def describe(result: Any, expected: Any, nan_hint: str = NAN_HINT) -> str:
    """What differs between ``result`` and ``expected``, concretely, in one line."""
    if result is None or isinstance(result, type):
        return _not_a_value(result)
    if isinstance(result, Raised):
        what = meaning(result.text) or ": read the error's last line to see which step failed"
        return f"your function raised {result.kind} ({result.message}){what}"
    if isinstance(expected, torch.Tensor) and expected.dim() == 0 and _number(result):
        result = torch.tensor(float(result))
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
    parts = getattr(expected, "entry_parts", ())  # what runs a flat vector holds, if named
    if got.isnan().any() and not want.isnan().any():
        return f"{_entries(got.isnan().double(), parts)}they hold nan: {nan_hint}"
    diff = (got - want).abs()
    flat = int(diff.nan_to_num(nan=float("inf")).argmax())
    index = tuple(int(i) for i in np.unravel_index(flat, tuple(got.shape))) if got.dim() else ()
    digits = 4 if diff.nan_to_num(nan=1.0).max() >= PRINTED else 7  # show where they differ
    detail = (
        f"the largest gap is{_at(index, parts)}: expected {want[index]:.{digits}f}, "
        f"got {got[index]:.{digits}f}"
    )
    if want.dim() == 2 and want.shape[0] == want.shape[1] and torch.allclose(got, want.T):
        detail += " (the transpose of the answer)"
    ratio = got / want
    if want.abs().min() > 1e-6 and torch.allclose(ratio, ratio.flatten()[0].expand_as(ratio)):
        detail += f"; every entry is {float(ratio.flatten()[0]):.4f} times the answer"
    if result.dtype != expected.dtype:
        detail += f"; dtype {result.dtype}, expected {expected.dtype}"
    if rounded(got, want):
        detail += (
            "; the values agree to 4 decimals only: rounded, or typed from a printout? "
            "Keep every digit the computation gives; round only when printing"
        )
    return _entries(diff, parts) + detail + _sums(got, want)


def rounded(result: Any, expected: Any) -> bool:
    """Tensors that agree to the 4 printed decimals but not within :data:`TOLERANCE`."""
    if not isinstance(result, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return False
    if result.shape != expected.shape or result.device.type == "meta" or result.is_complex():
        return False
    got, want = result.detach().cpu().double(), expected.detach().cpu().double()
    gap = (got - want).abs()
    return bool((gap <= PRINTED + PRINTED * want.abs()).all()) and not same(result, expected)


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
