"""Mistakes in blending inputs into context vectors (notebook 04), and in the stage passed.

Each row takes the answer's arguments: ``attn_weights`` (num_tokens, num_tokens) and
``inputs`` (num_tokens, d_in); ``weights`` one query's row (num_tokens,) and ``inputs``;
``inputs`` and ``query``, the index of one query.
"""

from __future__ import annotations

import torch

from attnlib.attention import attention_scores, context_vectors, softmax
from attnlib.data import example_inputs
from attnlib.mistakes._row import Mistake, table


def _book_row() -> torch.Tensor:
    """Row 5 ("step") of the book's context vectors, (3,), whatever a function was given."""
    book = example_inputs()  # the mistake is the input, not the math: attention.py's steps
    return context_vectors(softmax(attention_scores(book)), book)[5]


TABLE: dict[str, Mistake] = table(
    """
weights_transposed | the transposed weights attn_weights.T @ inputs
    row i of attn_weights holds query i's weights: blend with attn_weights @ inputs.
product_order | the factors of the product in the wrong order
    inputs @ attn_weights puts a ({t}, {d}) before a ({t}, {t}): the inner sizes do not match. The
    weights come first, attn_weights @ inputs: ({t}, {t}) @ ({t}, {d}) -> ({t}, {d}), row q blending
    the inputs for query q.
no_softmax | the inputs blended with raw scores instead of weights
    scores do not sum to 1, so the blend is no average of the inputs: turn the scores into weights
    with torch.softmax(scores, dim=-1) first.
assigned_not_added | `=` where the running total needs `+=`
    context_vec = weight * x_i replaces the total at every pass, so only the last token's term is
    left. Add to it: context_vec += weight * x_i (or context_vec = context_vec + ...).
wrong_pairing | a weight paired with the wrong input
    each weight must multiply the input at its own position: loop with `for i, x_i in
    enumerate(inputs)` and add weights[i] * x_i.
no_zero_start | a running sum that did not start from zeros
    the result is off by {offset}. Start the running total from torch.zeros_like(inputs[0]), not
    torch.empty(...), an input, or ones. (A row of inputs as the start, updated with +=, changes
    inputs itself: run the cell that made inputs again.)
wrong_stage | a correct tensor from another stage
    this tensor is {stage}; pass the {wanted} instead.
not_from_scratch | the notebook's context vector of "step" returned, whatever the inputs
    the result is row 5 of the book's all_context_vecs for every sentence and query: compute from
    the arguments alone, attn_scores_q = inputs @ inputs[query], their softmax, then the blend.
""",
    weights_transposed=lambda attn_weights, inputs: attn_weights.T @ inputs,
    product_order=lambda attn_weights, inputs: inputs @ attn_weights,
    no_softmax=lambda inputs, query: (inputs @ inputs[query]) @ inputs,
    assigned_not_added=lambda weights, inputs: weights[-1] * inputs[-1],
    not_from_scratch=lambda inputs, query: _book_row(),
)
