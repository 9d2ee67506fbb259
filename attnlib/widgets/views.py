"""Pure views: what the QueryExplorer, SoftmaxAxisExplorer and LoopStepper show.

Each view function takes the data and the controls' values and returns a frozen
dataclass of tensors and text; it keeps no state, so a test can compare an
explorer's ``view`` with a fresh call. The explorers send the browser every setting's
numbers and words, made by these functions (:func:`query_shown`, :func:`softmax_shown`,
:func:`loop_shown`); the browser looks them up and draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _validate as validate
from attnlib.attention import attention_scores, context_vector, softmax
from attnlib.widgets import _text

# Tolerance for "this row sums to 1" in float32.
SUM_TOL = 1e-4


@dataclass(frozen=True, eq=False)
class QueryView:
    """What :class:`~attnlib.widgets.QueryExplorer` shows for one query.

    ``attn_weights``: ``(num_tokens, num_tokens)``; ``weights``: row ``query`` of it,
    ``(num_tokens,)``; ``context``: ``(d_in,)``, the weighted sum of the inputs;
    ``text``: that sum written out.
    """

    query: int
    token: str
    attn_weights: torch.Tensor
    weights: torch.Tensor
    context: torch.Tensor
    text: str


def query_view(inputs: torch.Tensor, tokens: Sequence[str], query: int) -> QueryView:
    """The simplified self-attention of one ``query`` index.

    ``inputs``: ``(num_tokens, d_in)``. Scores ``inputs @ inputs.T``, weights by
    softmax over the tokens (``dim=-1``), context vector ``sum_i weights[i] * x_i``.
    Raises ``ValueError`` if the scores overflow (the weights would be NaN).
    """
    inputs = validate.explorer_inputs(inputs)
    tokens = validate.explorer_tokens(tokens, inputs.shape[0])
    query = validate.index(query, "query", inputs.shape[0])
    attn_weights = softmax(attention_scores(inputs), dim=-1)
    weights = attn_weights[query]
    context = context_vector(inputs, weights)
    terms = _text.terms(weights.tolist(), tokens, "x")
    fields = {"query": query, "terms": terms, "context": context.tolist()}
    text = _text.compose(_text.TEXTS["query"]["formula"], fields, {})
    return QueryView(query, tokens[query], attn_weights, weights, context, text)


@dataclass(frozen=True, eq=False)
class SoftmaxView:
    """What :class:`~attnlib.widgets.SoftmaxAxisExplorer` shows for one axis ``dim`` (-1 or 0).

    ``attn_weights``: ``(num_tokens, num_tokens)``; ``row_sums`` and ``col_sums``:
    ``(num_tokens,)``; ``rows_sum_to_one`` / ``cols_sum_to_one``: whether every
    row (column) sums to 1; ``text``: which direction sums to 1, and why only
    ``dim=-1`` gives each query one distribution.
    """

    dim: int
    attn_weights: torch.Tensor
    row_sums: torch.Tensor
    col_sums: torch.Tensor
    rows_sum_to_one: bool
    cols_sum_to_one: bool
    text: str


def _all_one(sums: torch.Tensor) -> bool:
    return bool(((sums - 1.0).abs() <= SUM_TOL).all())


def softmax_view(attn_scores: torch.Tensor, tokens: Sequence[str], dim: int) -> SoftmaxView:
    """Softmax of ``attn_scores`` ``(num_tokens, num_tokens)`` along ``dim`` (-1 or 0).

    ``-inf`` scores (masked) get weight 0.
    """
    attn_scores = validate.explorer_scores(attn_scores)
    validate.explorer_tokens(tokens, attn_scores.shape[0])
    dim = -1 if validate.softmax_axis(dim, 2) == -1 else 0
    attn_weights = softmax(attn_scores, dim=dim)
    row_sums, col_sums = attn_weights.sum(dim=1), attn_weights.sum(dim=0)
    rows_ok, cols_ok = _all_one(row_sums), _all_one(col_sums)
    fields = {"row_sums": row_sums.tolist(), "col_sums": col_sums.tolist()}
    flags = {"rows": dim == -1, "rows_one": rows_ok, "cols_one": cols_ok}
    text = _text.compose(_text.TEXTS["softmax"]["explanation"], fields, flags)
    return SoftmaxView(dim, attn_weights, row_sums, col_sums, rows_ok, cols_ok, text)


@dataclass(frozen=True, eq=False)
class LoopView:
    """What :class:`~attnlib.widgets.LoopStepper` shows after iteration ``iteration``.

    Iterations count from 1, as the stepper's slider and its line do: iteration 8 of 36
    is the 8th dot product. ``i, j``: the current cell (Python's indices),
    ``divmod(iteration - 1, num_tokens)``; ``filled``:
    ``(num_tokens, num_tokens)`` bool, the cells done (row by row, up to and
    including ``(i, j)``); ``scores``: ``(num_tokens, num_tokens)``, NaN where not
    filled; ``terms``: the ``(x_i[k], x_j[k])`` pairs of the current dot
    product; ``score``: its value; ``text``: the dot product written out.
    """

    iteration: int
    i: int
    j: int
    filled: torch.Tensor
    scores: torch.Tensor
    terms: tuple[tuple[float, float], ...]
    score: float
    text: str


def loop_view(inputs: torch.Tensor, tokens: Sequence[str], iteration: int) -> LoopView:
    """The score grid of the nested loops after ``iteration`` iterations.

    ``inputs``: ``(num_tokens, d_in)``; ``iteration`` in ``[1, num_tokens**2]``;
    the outer loop runs over rows ``i``, the inner over columns ``j``.
    """
    inputs = validate.explorer_inputs(inputs)
    num_tokens = inputs.shape[0]
    tokens = validate.explorer_tokens(tokens, num_tokens)
    last = num_tokens * num_tokens
    if validate.integer(iteration, "iteration", 1) > last:
        raise validate.invalid("iteration", f"an iteration in [1, {last}]", int(iteration))
    iteration = int(iteration)
    all_scores = attention_scores(inputs)
    i, j = divmod(iteration - 1, num_tokens)
    filled = (torch.arange(num_tokens * num_tokens) < iteration).reshape(num_tokens, num_tokens)
    terms = tuple(zip(inputs[i].tolist(), inputs[j].tolist(), strict=True))
    score = all_scores[i, j].item()
    fields = {"i": i, "j": j, "products": _text.products(terms)}
    text = _text.compose(_text.TEXTS["loop"]["formula"], {**fields, "score": score}, {})
    scores = all_scores.masked_fill(~filled, torch.nan)
    return LoopView(iteration, i, j, filled, scores, terms, score, text)


# ------------------------------------------------- every setting, as the browser shows it
# These three explorers have few settings (a query, an axis, an iteration), so the browser
# gets every setting's numbers and words from the views above and only looks them up: the
# words are filled here, once, and the browser fills no template for them.


def _grid(t: torch.Tensor) -> list[list[float | None]]:
    """``t`` as nested lists for JSON: -inf (masked) becomes None."""
    return [[None if v == float("-inf") else v for v in row] for row in t.tolist()]


def query_shown(inputs: torch.Tensor, tokens: Sequence[str]) -> dict[str, Any]:
    """What the QueryExplorer shows, per query: ``weights`` ``(n, n)`` (the same for every
    query) and ``views``, per query its context vector and its texts."""
    texts = _text.TEXTS["query"]
    views = []
    for query in range(len(tokens)):
        view = query_view(inputs, tokens, query)
        total = view.weights.sum().item()
        said = {"query": query, "token_repr": _text.quoted(view.token)}
        row = view.weights.tolist()
        announce = _text.compose(texts["announce"], {**said, "row": row, "total": total}, {})
        views.append(
            {
                "context": view.context.tolist(),
                "formula": view.text,
                "announce": announce,
                "panels": _text.panels(query, view.token, total, "x"),
            }
        )
    return {"weights": _grid(view.attn_weights), "views": views}


def softmax_shown(attn_scores: torch.Tensor, tokens: Sequence[str]) -> dict[str, Any]:
    """What the SoftmaxAxisExplorer shows, per axis (-1, then 0): weights, sums and texts."""
    texts = _text.TEXTS["softmax"]
    views = []
    for dim in (-1, 0):
        view = softmax_view(attn_scores, tokens, dim)
        flags = {"rows": dim == -1}
        views.append(
            {
                "weights": _grid(view.attn_weights),
                "sums": [view.row_sums.tolist(), view.col_sums.tolist()],
                "caption": _text.fill(texts["caption"], {"dim": dim}),
                "explanation": view.text,
                "announce": _text.compose(texts["announce"], {}, flags),
            }
        )
    return {"views": views}


def loop_shown(inputs: torch.Tensor, tokens: Sequence[str]) -> dict[str, Any]:
    """What the LoopStepper shows, per iteration (``views[k]`` is iteration ``k + 1``): the
    line saying where the loops are, the line of code, the dot product, the spoken line."""
    texts = _text.TEXTS["loop"]
    last = len(tokens) ** 2
    views = []
    for iteration in range(1, last + 1):
        view = loop_view(inputs, tokens, iteration)
        fields = {
            "i": view.i,
            "j": view.j,
            "token_i": tokens[view.i],
            "token_j": tokens[view.j],
            "iteration": iteration,
            "iterations": last,
            "score": view.score,
        }
        views.append(
            {
                "position": _text.fill(texts["position"], fields),
                "code": _text.fill(texts["code"], fields),
                "formula": view.text,
                "announce": _text.compose(texts["announce"], fields, {}),
            }
        )
    # Each cell's description, after its dot product ("done") and before it ("empty").
    panels = _text.TEXTS["panels"]
    rows = inputs.tolist()
    scores = attention_scores(inputs).tolist()
    done, empty = [], []
    for i, row in enumerate(rows):
        cells = [
            {"i": i, "j": j, "token_i": tokens[i], "token_j": tokens[j]} for j in range(len(rows))
        ]
        empty.append([_text.fill(panels["cell_empty"], cell) for cell in cells])
        products = [_text.products(list(zip(row, other, strict=True))) for other in rows]
        done.append(
            [
                _text.fill(panels["cell_score"], {**cell, "value": value, "products": terms})
                for cell, value, terms in zip(cells, scores[i], products, strict=True)
            ]
        )
    return {"views": views, "cells": {"done": done, "empty": empty}}
