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
    "04.step_top": {
        "weighs_itself_most": 'step_weighs_most = "step"',
    },
    "04.from_scratch": {
        "no_softmax": """
attn_scores_6 = inputs @ inputs[5]
attn_weights_6 = attn_scores_6
context_vec_6 = attn_weights_6 @ inputs
""",
        "no_exp": """
attn_scores_6 = inputs @ inputs[5]
attn_weights_6 = attn_scores_6 / attn_scores_6.sum()
context_vec_6 = attn_weights_6 @ inputs
""",
    },
}
