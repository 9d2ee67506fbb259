"""Wrong answers to the questions of notebooks 01-04 (counts, shapes, words, tokens).

A question's exercise gives the wrong answer each row stands for; the row says why it is wrong.
"""

from __future__ import annotations

from attnlib.mistakes._row import Mistake

TABLE: dict[str, Mistake] = {
    "dim0_rows": Mistake(
        "the rows taken for what dim=0 normalises",
        "dim names the axis the normalisation runs along. Axis 0 runs down a column: the row "
        "index changes, the column stays. So with dim=0 the entries of each column share one "
        "total and each column sums to 1; dim=-1 runs across a row and makes each row sum to 1.",
    ),
    "shift_changes_weights": Mistake(
        "a shift of every score taken to change the weights",
        "adding c to every score of a row multiplies every exp by e^c, above and below the "
        "fraction bar alike, so it cancels: softmax only sees the differences between scores.",
    ),
    "scale_like_shift": Mistake(
        "multiplying the scores taken to act like adding to them",
        "a shift cancels in softmax, a factor does not: times 10 makes every gap between two "
        "scores ten times wider, and exp turns wider gaps into more uneven weights.",
    ),
    "scale_flattens": Mistake(
        "larger scores taken to spread the weights out",
        "times 10 widens the gaps between the scores, and exp turns wider gaps into a sharper "
        "distribution, with more weight on the top scores. Dividing the scores flattens it "
        "(notebook 05 divides them by a square root for this reason).",
    ),
    "weighs_itself_most": Mistake(
        "the token itself taken as its largest weight",
        "within a row softmax keeps the order of the scores, and a dot product grows with the "
        "vectors' lengths as well as their directions: {why}",
    ),
    "itself_highest": Mistake(
        "the token itself taken as its highest score",
        "a dot product grows with the vectors' lengths as well as their directions. {token!r} is "
        "short: its own score is {own}, but the longer {other!r} scores {best} with it. "
        "Read along row {row} of the grid.",
    ),
    "repeats_both_halves": Mistake(
        "every cell off the diagonal counted as a repeat",
        "the cells off the diagonal come in mirrored pairs: the first of a pair ([0, 1]) is new, "
        "only the second ([1, 0]) repeats it. 30 cells make 15 pairs.",
    ),
    "repeats_distinct": Mistake(
        "the number of different scores counted, not the repeats",
        "21 scores are new (6 on the diagonal, 15 above it); the repeats are the other 36 - 21.",
    ),
    "repeats_diagonal": Mistake(
        "the diagonal counted as the repeats",
        "a diagonal cell [i, i] pairs a token with itself: it has no mirror image and is computed "
        "once. The repeats are the cells below the diagonal.",
    ),
    "inner_sizes_kept": Mistake(
        "the inner sizes taken for the result's shape",
        "in A @ B the inner sizes (the columns of A, the rows of B) must match and are summed "
        "away; the result has A's rows and B's columns: (3, 6) @ (6, 3) gives (3, 3).",
    ),
    "cost_linear": Mistake(
        "twice the calls for twice the tokens",
        "the loops make one call per cell of the grid, num_tokens × num_tokens: doubling the "
        "tokens doubles the rows and the columns, 2 × 2 = 4 times the calls.",
    ),
}
