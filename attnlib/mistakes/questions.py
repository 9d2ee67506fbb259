"""Wrong answers to the questions of notebooks 01-08 (counts, shapes, words, tokens, predictions).

A question's exercise gives the wrong answer each row stands for; the row says why it is wrong.
The rows of 05.expected_score make their wrong mean from ``d_k``, as a 0-d tensor.
"""

from __future__ import annotations

import math

import torch

from attnlib.mistakes._row import Mistake, table

TABLE: dict[str, Mistake] = table(
    """
dim0_rows | the rows taken for what dim=0 normalises
    dim names the axis the normalisation runs along. Axis 0 runs down a column: the row index
    changes, the column stays. So with dim=0 the entries of each column share one total and each
    column sums to 1; dim=-1 runs across a row and makes each row sum to 1.
shift_changes_weights | a shift of every score taken to change the weights
    adding c to every score of a row multiplies every exp by e^c, above and below the fraction bar
    alike, so it cancels: softmax only sees the differences between scores.
scale_like_shift | multiplying the scores taken to act like adding to them
    a shift cancels in softmax, a factor does not: times 10 makes every gap between two scores ten
    times wider, and exp turns wider gaps into more uneven weights.
scale_flattens | larger scores taken to spread the weights out
    times 10 widens the gaps between the scores, and exp turns wider gaps into a sharper
    distribution, with more weight on the top scores. Dividing the scores flattens it (notebook 05
    divides them by a square root for this reason).
column_sums_to_1 | the column taken to sum to 1, like the rows
    softmax with dim=-1 gives each row one total of 1; nothing ties a column together. Column 1 adds
    what six different queries give {token!r}, each a share of its own row: compare each share with
    an even share of 1/6.
below_even_share | the token taken to receive less than an even share of each row
    an even share of a row is 1/6 = {even}, and every query gives {token!r} more: its smallest
    weight, from {giver!r}, is {smallest}. What do six shares of at least that size add up to?
itself_highest | the token itself taken as its highest score
    a dot product grows with the vectors' lengths as well as their directions. {token!r} is short:
    its own score is {own}, but the longer {other!r} scores {best} with it. Read along row {row} of
    the grid.
repeats_both_halves | every cell off the diagonal counted as a repeat
    the cells off the diagonal come in mirrored pairs: the first of a pair ([0, 1]) is new, only the
    second ([1, 0]) repeats it. 30 cells make 15 pairs.
repeats_distinct | the number of different scores counted, not the repeats
    21 scores are new (6 on the diagonal, 15 above it); the repeats are the other 36 - 21.
repeats_diagonal | the diagonal counted as the repeats
    a diagonal cell [i, i] pairs a token with itself: it has no mirror image and is computed once.
    The repeats are the cells below the diagonal.
repeats_all | every cell of the grid counted as a repeat
    36 is every dot product the loops make. A repeat is a number already in the grid when its cell
    is reached: [1, 0] repeats [0, 1], but [0, 1] itself is new, and so is each diagonal cell.
lowest_for_highest | the lowest score of the row taken for the highest
    {token!r} scores lowest with that token, not highest: argmin where argmax was meant? Read along
    row {row} of the grid for its largest number.
transpose_shape_taken | the shape of inputs.T taken for the shape of the product
    (3, 6) is inputs.T alone. In A @ B the result keeps A's rows and B's columns: (3, 6) @ (6, 3)
    gives A's 3 rows and B's 3 columns.
operand_shape_taken | the shape of inputs taken for the shape of the product
    (6, 3) is inputs itself. In inputs.T @ inputs the left factor is inputs.T, (3, 6); the result
    keeps its rows and the right factor's columns.
calls_not_ratio | the number of calls for 12 tokens given, not how many times more
    144 = 12 × 12 is how many calls the loops make for 12 tokens. The question asks how many times
    more than for 6 tokens: divide by the 6 × 6 = 36 calls.
inner_sizes_kept | the inner sizes taken for the result's shape
    in A @ B the inner sizes (the columns of A, the rows of B) must match and are summed away; the
    result has A's rows and B's columns: (3, 6) @ (6, 3) gives (3, 3).
cost_linear | twice the calls for twice the tokens
    the loops make one call per cell of the grid, num_tokens × num_tokens: doubling the tokens
    doubles the rows and the columns, 2 × 2 = 4 times the calls.
# --- the explorer's predictions, notebook 08 -------------------------------------------
first_token_hidden | the first token taken to be hidden from itself
    the causal mask hides only later tokens. The first token's row keeps one score, its own, and
    softmax of a single score is exp(s) / exp(s) = 1.
first_self_unmasked | the weight read without the mask
    {got} is what the first token gives itself when it sees every token. Under the causal mask it
    sees only itself: one score, and softmax of one score is 1.
context_size_d_in | a head's context vector taken to have the embedding's size d_in
    with projections, a context vector blends value vectors, and each head's values have head_dim =
    d_out // num_heads features, not the d_in of the inputs.
repeat_rows_differ | attention taken to know where each word stands
    these embeddings carry no position: equal vectors give equal scores against every token, so
    without the mask the two rows are equal.
causal_rows_same | the causal mask taken to treat equal words alike
    the mask cuts each row at its own position: the first copy sees the tokens up to it, the second
    copy sees more, so their rows differ.
mask_effect_swapped | the two cases swapped
    without the mask nothing tells the two copies apart: equal vectors, equal scores, equal rows.
    The mask is what cuts each row at its own position, so with it the rows differ.
# --- 05.expected_score: the mean of q · k for entries drawn like torch.rand --------------
expected_score_zero | the entries taken to be centred on 0
    torch.rand draws from [0, 1): every entry is positive, with mean 1/2, so no product q_i * k_i
    cancels another. The mean of a sum is the sum of the means: d_k * (1/2 * 1/2).
expected_score_one_mean | one mean of 1/2 per term, not the mean of a product
    each term q_i * k_i multiplies two independent entries, and the mean of a product of independent
    numbers is the product of their means: 1/2 * 1/2 = 1/4 per term.
expected_score_square | the mean of a square taken for the mean of a product
    1/3 is the mean of q_i * q_i, one entry times itself. A query and a key are drawn independently,
    so each term's mean is 1/2 * 1/2 = 1/4.
expected_score_spread | the growth of the spread taken for the mean
    sqrt(d_k) is how the spread of a sum of d_k terms grows. The mean grows with every term: d_k
    terms of mean 1/4 each.
# --- 08.swap_rows: two tokens swapped, with and without the mask ------------------------
swap_moves_unmasked | the swapped words taken to change without the mask
    without the mask a token's context vector is a blend over every token, and a blend does not
    depend on the order of its terms: after the swap each word gets the same vector as before, only
    at its new position.
swap_mask_every_later | every token from the first swapped one on taken to change under the mask
    under the mask a token blends the tokens up to its own position. For a token after both swapped
    ones that is still the same set of tokens, only in another order, and the order of a blend's
    terms changes nothing. Only the two swapped words now see another set.
swap_mask_swapped | the two cases swapped
    without the mask every word blends the whole sentence, the same set of tokens before and after
    the swap: nothing changes. The mask is what makes a token's position matter: with it, the two
    swapped words see other tokens than before.
swap_nothing_changes | the mask taken to ignore order too
    the mask cuts each row at the token's position: after the swap the word that moved later sees
    one more token, and the one that moved earlier one fewer.
""",
    expected_score_zero=lambda d_k: torch.tensor(0.0),
    expected_score_one_mean=lambda d_k: torch.tensor(d_k / 2),
    expected_score_square=lambda d_k: torch.tensor(d_k / 3),
    expected_score_spread=lambda d_k: torch.tensor(math.sqrt(d_k) / 4),
)
