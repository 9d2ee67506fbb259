"""Mistaken answers to notebook 02's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "02.transposed_shape": {
        "inner_sizes_kept": "shape = (6, 6)",
    },
    "02.matmul": {
        "transposed_product": """
def attention_scores(inputs):
    return inputs.T @ inputs
""",
        "no_transpose": """
def attention_scores(inputs):
    return inputs @ inputs
""",
        "elementwise_product": """
def attention_scores(inputs):
    return inputs * inputs
""",
    },
    "02.first_rows": {
        "operands_swapped": """
def first_three_rows(inputs):
    return inputs @ inputs[:3].T
""",
        "no_transpose": """
def first_three_rows(inputs):
    return inputs[:3] @ inputs
""",
    },
    "02.calls_growth": {
        "cost_linear": "times = 2",
    },
}
