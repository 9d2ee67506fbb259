"""Argument checks, called once at each public boundary: each returns the value it approved
(numpy numbers as Python numbers) or raises ``ValueError("name: expected X, got Y")``."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

#: The longest sequence anything here builds a (num_tokens, num_tokens) grid for.
MAX_NUM_TOKENS = 16_384
MAX_DIM = 65_536  #: the widest embedding or projection anything here creates
MAX_TEXT = 100  #: the longest text drawn or sent as one label (a token, a title, a format)
MAX_BYTES = 2 * 1024**3  #: the most memory one call or constructor may build at once: 2 GiB
#: The most steps of work one call may take, a few seconds on one busy core: a step is one
#: multiply-add; an entry computed elementwise (a score, a weight) counts ``ENTRY`` steps and a
#: row of softmax ``ROW`` (torch's cost per row, measured), so a huge batch of tiny grids counts.
MAX_WORK, ENTRY, ROW = 2**33, 128, 1024
MAX_LOOP_TOKENS = 256  #: the loops' limit: num_tokens**2 Python steps, about 2 s at 256
MAX_ELEMENTWISE_AXES = 64  #: torch's elementwise operations (exp, amax) take at most 64 axes


def describe(x: Any) -> str:
    """A short description of ``x`` for error messages."""
    if isinstance(x, torch.Tensor):
        return f"a tensor of shape {tuple(x.shape)} and dtype {x.dtype}"
    try:
        return f"{type(x).__name__} {x!r}"[:120]
    except Exception:  # a repr that raises must not hide the message it was asked for
        return f"a {type(x).__name__} whose repr fails"


def invalid(name: str, expected: str, got: Any) -> ValueError:
    """The error for argument ``name``: ``"{name}: expected {expected}, got {got}"``."""
    return ValueError(f"{name}: expected {expected}, got {got}")


def is_int(value: Any) -> bool:
    """An int (numpy's too), never a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: Any) -> bool:
    """An int or a float (numpy's too) that ``float()`` can hold, never a bool: a number to use."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    return real and (not isinstance(value, numbers.Integral) or abs(int(value)) < 2**1023)


def tensor(
    x: Any, name: str, shape: str, ranks: Sequence[int] = (), *, min_rank: int = 1
) -> torch.Tensor:
    """``x`` if a non-empty float tensor of rank in ``ranks`` (or >= ``min_rank``); ``shape``
    names the expected shape in the course's words for messages, e.g. ``"(num_tokens, d_in)"``."""
    if not isinstance(x, torch.Tensor):
        raise invalid(name, "a torch.Tensor of floats", describe(x))
    if not dense(x, name).is_floating_point():
        fix = f"; convert with {name}.float()"
        raise invalid(name, "a floating-point dtype (e.g. torch.float32)", f"{x.dtype}{fix}")
    if (x.dim() not in ranks) if ranks else x.dim() < min_rank:
        rank = " or ".join(map(str, ranks)) if ranks else f"at least {min_rank}"
        raise invalid(name, f"shape {shape} ({rank}-d)", f"{x.dim()}-d shape {tuple(x.shape)}")
    if x.numel() == 0:
        tokens_empty = x.dim() >= 2 and x.shape[-2] == 0
        what = "at least one of the tokens" if tokens_empty else f"no empty axis in {shape}"
        raise invalid(name, what, f"shape {tuple(x.shape)}")
    return x


def dense(x: torch.Tensor, name: str) -> torch.Tensor:
    """``x`` if a plain strided tensor: a sparse or nested one has no ``shape`` or numpy copy."""
    if x.layout != torch.strided or x.is_nested:
        got = "a nested tensor" if x.is_nested else f"layout {x.layout}; use {name}.to_dense()"
        raise invalid(name, "a dense tensor (layout torch.strided)", got)
    return x


def readable(x: torch.Tensor, name: str) -> torch.Tensor:
    """``x`` if it holds numbers to read: a tensor on the meta device has only a shape."""
    if x.device.type == "meta":
        raise invalid(name, "a tensor with values", "one on the meta device")
    return x


def like(x: torch.Tensor, name: str, ref: torch.Tensor, ref_name: str) -> torch.Tensor:
    """``x`` if it has ``ref``'s dtype and device (torch refuses to mix them)."""
    if x.dtype != ref.dtype or x.device != ref.device:
        fix = f"convert with {name}.to({ref.dtype}) (or .to({str(ref.device)!r}))"
        expected = f"dtype {ref.dtype} on {ref.device} (as {ref_name})"
        raise invalid(name, expected, f"dtype {x.dtype} on {x.device}; {fix}")
    return x


def size(x: torch.Tensor, name: str, axis: int, expected: int, what: str) -> torch.Tensor:
    """``x`` if ``x.shape[axis] == expected``; ``what`` names it, e.g. 'one row per key'."""
    if x.shape[axis] != expected:
        raise invalid(name, f"{what} = {expected}", f"{x.shape[axis]} (shape {tuple(x.shape)})")
    return x


def broadcast(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """The shape ``shapes`` broadcast to, or ``None``: torch's rule (its own loads sympy, 30 MB)."""
    result = [1] * max(map(len, shapes), default=0)
    for shape in shapes:
        for axis, size in enumerate(shape, start=len(result) - len(shape)):
            if size != 1 and result[axis] not in (1, size):
                return None
            result[axis] = result[axis] if size == 1 else size
    return tuple(result)


def batch_shape(**named: torch.Tensor) -> tuple[int, ...]:
    """The broadcast batch axes of ``(..., n, d)`` tensors, or a ``ValueError`` naming them."""
    batch = broadcast(*(t.shape[:-2] for t in named.values()))
    if batch is None:
        found = ", ".join(f"{name} {tuple(t.shape[:-2])}" for name, t in named.items())
        raise ValueError(f"expected batch axes that broadcast together, got {found}")
    return batch


def finite(x: torch.Tensor, name: str, fix: str) -> torch.Tensor:
    """``x`` if every entry is finite, else a ``ValueError`` saying what to do (``fix``)."""
    # A meta tensor has no values; a finite sum proves all finite (an inf sum may be overflow).
    if x.device.type == "meta" or math.isfinite(x.sum().item()):
        return x
    if torch.isfinite(x.reshape(-1)).all():  # flat: isfinite takes 64 axes, a matmul gives more
        return x
    raise ValueError(f"{name}: got inf or NaN; {fix}")


def device(value: Any, name: str = "device") -> torch.device | None:
    """``None``, or ``value`` as a device this machine has (``"cpu"``, ``torch.device("meta")``)."""
    try:
        if value is not None and not isinstance(value, (str, torch.device)):
            raise TypeError
        return None if value is None else torch.empty(0, device=value).device
    except (TypeError, RuntimeError, AssertionError, NotImplementedError):  # how torch says "no"
        expected = "None or a device this machine has, e.g. 'cpu'"
        raise invalid(name, expected, describe(value)) from None


def integer(value: Any, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` as an int in ``[minimum, maximum]``; numpy integers pass, bools do not."""
    if not is_int(value) or value < minimum:
        got = int(value) if is_int(value) else describe(value)
        raise invalid(name, f"an int >= {minimum}", got)
    if maximum is not None and value > maximum:
        raise invalid(name, f"an int <= {maximum} (the limit)", int(value))
    return int(value)


def index(value: Any, name: str, size: int) -> int:
    """``value`` as an index into ``size`` items (``0 .. size - 1``)."""
    if integer(value, name) >= size:
        raise invalid(name, f"an index in [0, {size - 1}]", int(value))
    return int(value)


def optional_index(value: Any, name: str, size: int) -> int | None:
    """``None``, or ``value`` as an index into ``size`` items."""
    if value is not None and not (is_int(value) and 0 <= value < size):
        got = int(value) if is_int(value) else describe(value)
        raise invalid(name, f"None or an int in [0, {size - 1}]", got)
    return None if value is None else int(value)


def flag(value: Any, name: str) -> bool:
    """``value`` if it is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise invalid(name, "True or False", describe(value))
    return value


def real(value: Any, name: str, low: float, high: float, *, closed_low: bool = True) -> float:
    """``value`` as a float in ``[low, high)`` (``(low, high)`` with ``closed_low=False``)."""
    bounds = f"in {'[' if closed_low else '('}{low:g}, {high:g})"
    bounds = "> 0, a positive finite number" if (low, high) == (0, math.inf) else bounds
    if not is_real(value):
        raise invalid(name, f"a float {bounds}", describe(value))
    number = float(value)
    if not ((low <= number if closed_low else low < number) and number < high):  # NaN fails too
        raise invalid(name, f"a float {bounds}", repr(number))
    return number


positive = functools.partial(real, low=0.0, high=math.inf, closed_low=False)  #: a scale: > 0
probability = functools.partial(real, low=0.0, high=1.0)  #: dropout: 1 would drop all, / by 0


def softmax_axis(value: Any, ndim: int, name: str = "dim") -> int:
    """``value`` as ``-1`` or ``-2``, the axis softmax normalises in a grid of scores with ``ndim``
    dimensions. The course's convention: a grid's row is one query's weights, so ``dim=-1``
    normalises each query over the keys; ``dim=-2`` (``dim=0`` of a 2-d grid) each key's column."""
    if not (is_int(value) and value in (-1, -2, ndim - 1, ndim - 2) and -ndim <= value < ndim):
        allowed = "-1 (rows)" if ndim == 1 else f"-1 (rows) or -2 (columns; {ndim - 2} here)"
        raise invalid(name, allowed, describe(value))
    return int(value) - ndim if value >= 0 else int(value)


def text(value: Any, name: str, limit: int = MAX_TEXT) -> str:
    """``value`` if it is a str of at most ``limit`` characters that can be written as UTF-8."""
    if not isinstance(value, str):
        raise invalid(name, "a str", describe(value))
    if len(value) > limit:
        raise invalid(name, f"at most {limit} characters", len(value))
    if any("\ud800" <= c <= "\udfff" for c in value):  # not writable as UTF-8
        raise invalid(name, "text", f"a lone surrogate in {value!r}")
    return value


def tokens(value: Any, num_tokens: int, name: str = "tokens") -> tuple[str, ...]:
    """``value`` as a tuple of ``num_tokens`` token strings, one per input row."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise invalid(name, f"a list of {num_tokens} strings", describe(value))
    if len(value) != num_tokens:
        raise invalid(name, f"one string per input row ({num_tokens})", len(value))
    return tuple(text(t, f"{name}[{i}]") for i, t in enumerate(value))


def labels(value: Any, name: str, expected: int, what: str) -> list[str]:
    """``value`` as ``expected`` labels (any items, drawn as their ``str``); ``what`` says why."""
    count = f"{expected} label" + ("" if expected == 1 else "s")
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise invalid(name, f"a list of {count} ({what})", describe(value))
    if len(value) != expected:
        raise invalid(name, f"{count} ({what})", len(value))
    return [text(str(v), f"{name}[{i}]") for i, v in enumerate(value)]


def array(x: Any, name: str, ndim: int, shape: str) -> np.ndarray:
    """``x`` (tensor, array or nested list of numbers) as a non-empty float64 numpy array."""
    if isinstance(x, torch.Tensor):
        # numpy has no bfloat16; float64 holds every torch float exactly.
        x = readable(dense(x, name), name).detach().cpu()
        x = x.double().numpy() if x.is_floating_point() else x
    try:
        values = np.asarray(x)
    except (ValueError, TypeError):  # ragged lists
        values = np.asarray([["?"]])
    if values.dtype.kind not in "biuf":
        raise invalid(name, "a tensor or array of numbers", describe(x))
    if values.ndim != ndim:
        raise invalid(name, f"shape {shape} ({ndim}-d)", f"{values.ndim}-d shape {values.shape}")
    if values.size == 0:
        raise invalid(name, "at least one entry", f"shape {values.shape}")
    return values.astype(np.float64)


def finite_array(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` if every entry is finite, else a ``ValueError`` naming the first bad one."""
    bad = ~np.isfinite(values)
    if bad.any():
        first = tuple(int(k) for k in np.argwhere(bad)[0])
        where = first[0] if len(first) == 1 else first
        count = f"({int(bad.sum())} of {values.size} not finite)"
        raise invalid(name, "finite numbers", f"{values[first]} at index {where} {count}")
    return values


# --- attention.py's arguments: one call per public function -----------------------------------

#: What to do when a result holds inf or NaN, by cause.
OVERFLOW = "the numbers overflowed; use smaller inputs (or scale)"
BAD_VALUES = "the values hold inf or NaN, or their blend overflowed; use finite, smaller values"
EXP_OVERFLOW = "exp overflowed (scores above ~88 in float32); use softmax, which subtracts the max"
NO_FINITE_ENTRY = "no +inf or NaN: softmax needs finite scores, or -inf where masked"
ALL_HIDDEN = f"either {OVERFLOW}, or a mask hides every key of a query (an inverted mask?)"
UNREADABLE_INPUTS = "a checkpoint needs finite inputs that float32 holds (|x| < 3.4e38)"


def memory(what: str, parts: Sequence[tuple[str, Sequence[int], int]], work: int = 0) -> None:
    """Refuse ``what`` before anything is allocated if ``parts``, the tensors it builds at once as
    ``(label, shape, itemsize)`` (torch's copy of an expanded input at its logical size, not its
    storage), need over ``MAX_BYTES`` in all, or if its ``work`` is over ``MAX_WORK`` steps."""
    num_bytes = sum(math.prod(shape) * itemsize for _, shape, itemsize in parts)
    listed = " + ".join(f"{label} {tuple(shape)}" for label, shape, _ in parts)
    if num_bytes > MAX_BYTES:
        need = "needs" if len(parts) == 1 else "need"
        limit = f"the limit of {MAX_BYTES:,} bytes (2 GiB)"
        raise ValueError(f"{what}: {listed} {need} {num_bytes:,} bytes, over {limit}")
    if work > MAX_WORK:
        steps = f"a multiply-add is 1 step, an entry {ENTRY}, a row of softmax {ROW}"
        limit = f"the limit of {MAX_WORK:,} (a few seconds; {steps})"
        raise ValueError(f"{what}: {listed} take about {work:,} steps of work, over {limit}")


# --- the explorers' arguments: an explorer draws every token and every coordinate ------------

MAX_TOKENS = 32  #: the longest sentence ``embed`` accepts and an explorer shows
MAX_D = 64  #: the widest vector an explorer writes out coordinate by coordinate
MAX_HEADS = 16  #: the most heads the AttentionExplorer offers (one slider position each)
#: The longest token an explorer accepts: at 32 tokens of this many of the widest letters its
#: picture still shows every label whole (longer ones collapse its axes), its table too.
MAX_TOKEN_CHARS = 20


def explorer_tokens(value: Any, num_tokens: int, name: str = "tokens") -> tuple[str, ...]:
    """:func:`tokens` an explorer can draw: each of at most ``MAX_TOKEN_CHARS`` characters."""
    checked = tokens(value, num_tokens, name)
    for i, token in enumerate(checked):
        if len(token) > MAX_TOKEN_CHARS:
            raise long_token(f"{name}[{i}]", token)
    return checked


def long_token(name: str, token: str) -> ValueError:
    """The error for a ``token`` longer than ``MAX_TOKEN_CHARS``, naming it and its length."""
    shown = repr(token) if len(token) <= 40 else repr(token[:40]) + "..."
    expected = f"a token of at most {MAX_TOKEN_CHARS} characters (an explorer draws it whole)"
    return invalid(name, expected, f"{shown}, {len(token)} characters")


def _at_most(count: int, name: str, limit: int, what: str) -> None:
    if count > limit:
        raise invalid(name, f"at most {limit} {what}", count)


def explorer_inputs(x: Any, name: str = "inputs") -> torch.Tensor:
    """A detached copy of ``x`` ``(num_tokens, d_in)`` (tensor or numpy array): finite floats,
    at most ``MAX_TOKENS`` rows and ``MAX_D`` columns."""
    x = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    readable(tensor(x, name, "(num_tokens, d_in)", (2,)), name)
    _at_most(x.shape[0], name, MAX_TOKENS, "tokens (rows)")
    _at_most(x.shape[1], name, MAX_D, "dimensions (columns)")
    finite(x, name, "expected finite numbers")
    # A copy, so a reader editing their tensor in place cannot change what is shown.
    return x.detach().clone()


def explorer_scores(x: Any, name: str = "attn_scores") -> torch.Tensor:
    """A detached copy of square ``x`` ``(num_tokens, num_tokens)``; -inf (masked) allowed."""
    x = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    readable(tensor(x, name, "(num_tokens, num_tokens)", (2,)), name)
    if x.shape[0] != x.shape[1]:
        raise invalid(name, "a square shape (num_tokens, num_tokens)", tuple(x.shape))
    _at_most(x.shape[0], name, MAX_TOKENS, "tokens (rows)")
    if torch.isnan(x).any() or (x == torch.inf).any():
        raise invalid(name, "finite numbers or -inf (masked)", "NaN or +inf")
    finite_entries = torch.isfinite(x)
    if not finite_entries.any(dim=1).all() or not finite_entries.any(dim=0).all():
        expected = "a finite score in every row and every column"
        raise ValueError(f"{name}: expected {expected} (a row or column of -inf has no softmax)")
    return x.detach().clone()
