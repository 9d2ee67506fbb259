"""How the course writes a token's name and a sum of weights, in every layer that shows them.

The book counts tokens from 1: Python's ``inputs[1]`` is its x⁽²⁾, the weights of that query
α₂,ⱼ. A softmax row of float32 weights can add up to 0.9999 at four decimals; it is shown as
1.0000, the sum it has.
"""

from __future__ import annotations

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

#: How far from 1 a sum may be and still be shown as 1.0000.
ONE_TOL = 1e-4


def book(index: int) -> str:
    """The book's superscript of Python's index ``index``: 1 -> '⁽²⁾' (x⁽²⁾ is ``inputs[1]``)."""
    return f"⁽{str(index + 1).translate(_SUPERSCRIPT)}⁾"


def book_sub(index: int) -> str:
    """The book's subscript of Python's index ``index``: 1 -> '₂' (α₂,₁ is attn_weights[1, 0])."""
    return str(index + 1).translate(_SUBSCRIPT)


def total(x: float) -> str:
    """A sum of weights: '1.0000' when it is 1 to :data:`ONE_TOL`, else four decimals."""
    text = "1.0000" if abs(x - 1.0) <= ONE_TOL else f"{x:.4f}"
    return "0.0000" if text == "-0.0000" else text
