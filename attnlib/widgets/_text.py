"""Numbers and vectors written out as the explorers show them (the front end writes the same)."""

from __future__ import annotations

from collections.abc import Sequence


def number(x: float, decimals: int = 4) -> str:
    """``x`` with up to ``decimals`` decimals, at least two: 0.55 -> '0.55', 0.1385 -> '0.1385'."""
    text = f"{x:.{decimals}f}"
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.rstrip('0').ljust(2, '0')}"


def factor(x: float) -> str:
    """:func:`number`, parenthesised when negative so ``0.5×(-0.2)`` is not read as a minus."""
    return f"({number(x)})" if x < 0 else number(x)


def vector(values: Sequence[float]) -> str:
    """``[0.4419, 0.6515, 0.5683]``: every value with four decimals."""
    return "[" + ", ".join(f"{v:.4f}" for v in values) + "]"


def span(values: Sequence[float]) -> str:
    """``from 0.7287 to 1.6323``: the smallest and largest of ``values``."""
    return f"from {min(values):.4f} to {max(values):.4f}"


def weighted_sum(weights: Sequence[float], tokens: Sequence[str], vec: str) -> str:
    """``0.1385·x(Your) + 0.2379·x(journey) + ...``: the blend that makes a context vector."""
    return " + ".join(f"{w:.4f}·{vec}({t})" for w, t in zip(weights, tokens, strict=True))


def score(x: float) -> str:
    """A score with four decimals, or ``-inf`` for a masked one."""
    return "-inf" if x == float("-inf") else f"{x:.4f}"
