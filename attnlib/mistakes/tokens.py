"""Mistakes in picking a token's row: the book counts from 1, Python from 0; rows, not columns.

Arguments: ``inputs`` (num_tokens, d_in), ``attn_weights`` (num_tokens, num_tokens),
``number`` the book's 1-based number of the token, ``index`` its Python index.
"""

from __future__ import annotations

from attnlib.mistakes._row import Mistake, table

TABLE: dict[str, Mistake] = table(
    """
book_number_as_index | the book's 1-based number used as a Python index
    the book counts tokens from 1, so x^(2) and attn_scores_2 belong to the second token, 'journey'.
    Python counts from 0: that token is inputs[1] (inputs[2] is 'starts').
column_not_token | a column of inputs taken for a token
    inputs[:, 1] is embedding dimension 1 of all six tokens. A token is a row: inputs[1].
wrong_query_index | the wrong query index (off by one?)
    this is the context vector of {got}, not of {query}. Python counts from 0, the book from 1: use
    attn_weights[{index}] (and inputs[{index}] as the query).
column_not_row | the query's column of weights instead of its row (or softmax along dim=0)
    attn_weights[:, {index}] is what every token takes from token {index}, and row {index} of
    torch.softmax(attn_scores, dim=0) holds the same numbers (the scores are symmetric): both
    normalise down a column. Token {index}'s own weights are its row of the dim=-1 softmax,
    attn_weights[{index}], the one that sums to 1.
""",
    book_number_as_index=lambda inputs, number: inputs[number],
    column_not_token=lambda inputs, index: inputs[:, index],
    column_not_row=lambda attn_weights, index: attn_weights[:, index],
)
