"""Mistaken answers to notebook 04's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "04.running_sum": {
        # The book's name, context_vec_2, taken for the Python index.
        "wrong_query_index": """
context_vec_2 = torch.zeros_like(inputs[0])
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights[2, i] * x_i
""",
        "column_not_row": """
context_vec_2 = torch.zeros_like(inputs[0])
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights[i, 1] * x_i
""",
        "wrong_pairing": """
context_vec_2 = torch.zeros_like(inputs[0])
for i, x_i in enumerate(reversed(inputs)):
    context_vec_2 += attn_weights[1, i] * x_i
""",
        "no_zero_start": """
context_vec_2 = torch.ones_like(inputs[0])
for i, x_i in enumerate(inputs):
    context_vec_2 += attn_weights[1, i] * x_i
""",
    },
    "04.all_context": {
        "weights_transposed": """
def all_context_vectors(attn_weights, inputs):
    return attn_weights.T @ inputs
""",
        "product_order": """
def all_context_vectors(attn_weights, inputs):
    return inputs @ attn_weights
""",
    },
    "04.column_total": {
        "column_sums_to_1": 'journey_receives = "equal"',
        "below_even_share": 'journey_receives = "less"',
    },
    "04.from_scratch": {
        "no_softmax": """
def context_from_scratch(inputs, query_index):
    attn_scores_q = inputs @ inputs[query_index]
    attn_weights_q = attn_scores_q
    return attn_weights_q @ inputs
""",
        "no_exp": """
def context_from_scratch(inputs, query_index):
    attn_scores_q = inputs @ inputs[query_index]
    attn_weights_q = attn_scores_q / attn_scores_q.sum()
    return attn_weights_q @ inputs
""",
        "not_from_scratch": """
def context_from_scratch(inputs, query_index):
    return all_context_vecs[5]
""",
    },
}
