"""The views the explorers must show, computed here with plain torch from the book's inputs.

The book's embeddings and printed figures come from ``tests/book.py`` (typed in
once for every test module), so the expectations never come from the code under
test. Each ``*_step`` function builds the :class:`~.views.Step` of one explorer in
one state; ``cases.py`` strings them into the notebooks' cases.
"""

from __future__ import annotations

import book  # tests/book.py: pytest puts tests/ on sys.path
import torch

from .dom import (
    BARS,
    COLUMN_SUMS,
    COLUMN_TOKENS,
    ERROR,
    FORMULA,
    GRID,
    MASKED,
    ROW_SUMS,
    TOKEN,
    control,
    highlighted_cell,
    highlighted_row,
    masked_cells,
    row_cells,
)
from .views import Expect, Step, Typed

BOOK_SENTENCE = " ".join(book.TOKENS)
TOKENS = tuple(book.TOKENS)
INPUTS = torch.tensor(book.BOOK_INPUTS)
SCORES = INPUTS @ INPUTS.T
# True above the diagonal: the keys after each query, hidden by the causal mask.
ABOVE = torch.triu(torch.ones(len(TOKENS), len(TOKENS), dtype=torch.bool), diagonal=1)
WEIGHTS = torch.softmax(SCORES, dim=-1)
CAUSAL_WEIGHTS = torch.softmax(SCORES.masked_fill(ABOVE, float("-inf")), dim=-1)

# The book's printed values (chapter 3) for three queries of the QueryExplorer: their
# weights (those of queries 0 and 2 are printed in the book's attention matrix) and
# context vectors.
BOOK_QUERIES: dict[int, tuple[tuple[float, ...], tuple[float, ...]]] = {
    0: ((0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452), tuple(book.ALL_CONTEXT_VECS[0])),
    1: (tuple(book.JOURNEY_WEIGHTS), tuple(book.JOURNEY_CONTEXT)),
    2: ((0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565), tuple(book.ALL_CONTEXT_VECS[2])),
}
BOOK_SCORE_0_1 = book.SCORE_0_1
# Causal weights of "journey": it sees "Your" and itself only.
CAUSAL_ROW_1 = (0.3680, 0.6320, 0.0, 0.0, 0.0, 0.0)

Keys = tuple[str | Typed, ...]


def _floats(t: torch.Tensor) -> tuple[float, ...]:
    """The values of ``t``, flattened row by row, as Python floats."""
    return tuple(float(v) for v in t.flatten())


def book_name(index: int) -> str:
    """The book's name of Python's ``inputs[index]``: 2 -> ``x⁽³⁾`` (the book counts from 1)."""
    return "x⁽" + str(index + 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")) + "⁾"


def _token_text(query: int, tokens: tuple[str, ...] = TOKENS) -> tuple[str, str]:
    """The check that the explorer names query ``query``: ``query “starts”: x⁽³⁾, inputs[2]``."""
    return (TOKEN, f"query \u201c{tokens[query]}\u201d: {book_name(query)}, inputs[{query}]")


def loop_step(step: int, focus: str | None = None, keys: Keys = ()) -> Step:
    """LoopStepper at iteration ``step`` (counted from 1, as its slider): the first ``step``
    cells filled row by row, the rest blank."""
    n = len(TOKENS)
    i, j = divmod(step - 1, n)
    grid = _floats(SCORES)
    cells = grid[:step] + (None,) * (n * n - step)
    # The formula interleaves x_i and x_j's coordinates, then gives their dot product.
    factors = _floats(torch.stack([INPUTS[i], INPUTS[j]], dim=1))
    return Step(
        f"iteration {step}",
        (
            Expect(GRID, cells),
            Expect(highlighted_cell(i, j), (grid[step - 1],)),
            Expect(FORMULA, factors + (grid[step - 1],)),
        ),
        focus,
        keys,
        ((".attnlib-code", f"attn_scores[{i}, {j}]"),),
    )


def softmax_step(dim: int, focus: str | None = None, keys: Keys = ()) -> Step:
    """SoftmaxAxisExplorer with ``dim``: the weights grid, its row sums and column sums."""
    weights = torch.softmax(SCORES, dim=dim)
    along = "every row sums to 1" if dim == -1 else "every column sums to 1"
    return Step(
        f"dim={dim}",
        (
            Expect(GRID, _floats(weights)),
            Expect(ROW_SUMS, _floats(weights.sum(dim=1))),
            Expect(COLUMN_SUMS, _floats(weights.sum(dim=0))),
        ),
        focus,
        keys,
        ((".attnlib-explanation", along),),
    )


def query_step(query: int, focus: str | None = None, keys: Keys = ()) -> Step:
    """QueryExplorer on ``query``: the highlighted row, the bars and the context vector."""
    weights, context = BOOK_QUERIES[query]
    return Step(
        f"query {query} ({TOKENS[query]!r})",
        (
            Expect(highlighted_row(query), weights),
            Expect(BARS, weights),
            # The formula lists the weights, then the context vector they give.
            Expect(FORMULA, weights + context),
        ),
        focus,
        keys,
        (_token_text(query),),
    )


def _mask_checks(causal: bool) -> tuple[list[Expect], list[str]]:
    """Numbers and absences for the causal mask: all cells above the diagonal, or none."""
    if not causal:
        return [], [MASKED]
    hidden = (0.0,) * int(ABOVE.sum())
    upper = masked_cells([(i, j) for i, j in ABOVE.nonzero().tolist()])
    return [Expect(MASKED, hidden), Expect(upper, hidden)], []


def attention_step(
    query: int, causal: bool, focus: str | None = None, keys: Keys = (), label: str = ""
) -> Step:
    """AttentionExplorer on the book's sentence (no heads, dim=-1, temperature 1).

    The whole weights grid, every row summing to 1, the query's highlighted row,
    bars and context vector; with ``causal``, exactly the cells above the diagonal
    masked, each showing a weight of 0; without, no masked cell.
    """
    weights = CAUSAL_WEIGHTS if causal else WEIGHTS
    row, context = weights[query], weights[query] @ INPUTS
    masked, unmasked = _mask_checks(causal)
    expect = [
        Expect(GRID, _floats(weights)),
        Expect(ROW_SUMS, (1.0,) * len(TOKENS)),
        Expect(highlighted_row(query), _floats(row) + (1.0,)),
        Expect(BARS, _floats(row)),
        # "z(token) = w0·x(Your) + ... = [context]": the weights, then the context vector.
        Expect(FORMULA, _floats(row) + _floats(context), part=True),
        *masked,
    ]
    return Step(
        label or f"query {query} ({TOKENS[query]!r}), causal {'on' if causal else 'off'}",
        tuple(expect),
        focus,
        keys,
        texts=(_token_text(query),),
        lists=((COLUMN_TOKENS, TOKENS),),
        absent=(ERROR, *unmasked),
    )


def sentence_step(
    label: str,
    tokens: tuple[str, ...],
    query: int,
    twins: tuple[int, int] | None,
    focus: str | None = None,
    keys: Keys = (),
    error: str = "",
) -> Step:
    """AttentionExplorer on a sentence of random embeddings, causal mask off.

    Its values come from ``attnlib.embed``, so they are not computed here: the
    columns are ``tokens``, there is one row per token and each sums to 1, and the
    rows of ``twins``, two tokens of one word, are identical (same vector, same
    scores); ``None`` for a sentence without a repeated word. ``error``: a substring of
    the error shown (none when "").
    """
    return Step(
        label,
        (Expect(ROW_SUMS, (1.0,) * len(tokens)),),
        focus,
        keys,
        texts=(_token_text(query, tokens),) + (((ERROR, error),) if error else ()),
        lists=((COLUMN_TOKENS, tokens), (control("query", ".widget-readout"), (str(query),))),
        same=((row_cells(twins[0]), row_cells(twins[1])),) if twins else (),
        absent=(MASKED,) + (() if error else (ERROR,)),
    )
