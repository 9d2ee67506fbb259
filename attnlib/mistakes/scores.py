"""Mistakes in computing attention scores (notebooks 01-02): dot products, loops, products.

Each row takes the answer's arguments: ``a, b`` two vectors; ``inputs`` (num_tokens, d_in);
``asking, inputs``, the rows of the tokens that ask and every token, which an answer of
``inputs`` alone reaches through :func:`asking`.
"""

from __future__ import annotations

import torch

from attnlib.mistakes._row import Mistake, table


def _products_in_one_cell(inputs: torch.Tensor) -> None:
    """``attn_scores[i, j] = x_i * x_j``: a vector does not fit in one cell, torch raises."""
    attn_scores = torch.zeros(len(inputs), len(inputs))
    attn_scores[0, 0] = inputs[0] * inputs[0]


def asking(count: int | None = None):
    """Adapt a row of ``(asking, inputs)`` to an answer of ``inputs`` alone whose asking tokens
    are its first ``count`` (``None``: every token, the whole grid)."""
    return lambda make: lambda inputs: make(inputs[:count], inputs)


TABLE: dict[str, Mistake] = table(
    """
products_not_summed | the products not added up
    a dot product is one number: multiply position by position, then add the products, (a * b).sum()
    or torch.dot(a, b).
products_in_one_cell | the products not added up (a vector put in one cell)
    x_i * x_j is a vector of products; one cell holds one number: add them up with torch.dot(x_i,
    x_j) or (x_i * x_j).sum().
sums_multiplied | the sums multiplied instead of the products summed
    a.sum() * b.sum() also multiplies entries at different positions (a[0] * b[2], ...). Multiply
    first, position by position, then add: (a * b).sum().
same_token | a token compared with itself
    each cell pairs two tokens: attn_scores[i, j] = torch.dot(x_i, x_j), not x_i with x_i.
row_written_whole | a whole row written at once (attn_scores[i] without j)
    attn_scores[i] = ... fills every cell of row i, so each row keeps only its last score (with the
    last token). Write one cell: attn_scores[i, j] = torch.dot(x_i, x_j).
transposed_product | the transposed product inputs.T @ inputs
    inputs.T @ inputs compares embedding dimensions and gives a ({d}, {d}) grid; inputs @ inputs.T
    compares tokens and gives the ({t}, {t}) grid of scores.
no_transpose | a product without the transpose
    in A @ B the columns of A must match the rows of B, and both operands here hold tokens as rows:
    {asking_shape} @ {inputs_shape} does not fit. Transpose the right one: ... @ inputs.T.
elementwise_product | the element-wise product * instead of the matrix product @
    `*` multiplies entries position by position and keeps the {inputs_shape} shape; `@` also adds
    the products along the shared axis: inputs @ inputs.T.
operands_swapped | the operands swapped: the asking tokens on the right
    the left operand gives the rows of the result. Put the tokens that ask on the left, inputs[:3] @
    inputs.T, so each row is one of them and the columns are the tokens compared.
""",
    products_not_summed=lambda a, b: a * b,
    products_in_one_cell=_products_in_one_cell,
    sums_multiplied=lambda a, b: a.sum() * b.sum(),
    same_token=lambda inputs: (inputs * inputs).sum(-1, keepdim=True).expand(-1, inputs.shape[0]),
    row_written_whole=lambda inputs: (inputs @ inputs[-1]).unsqueeze(1).expand(-1, inputs.shape[0]),
    transposed_product=lambda inputs: inputs.T @ inputs,
    no_transpose=lambda asking, inputs: asking @ inputs,
    elementwise_product=lambda inputs: inputs * inputs,
    operands_swapped=lambda asking, inputs: inputs @ asking.T,
)
