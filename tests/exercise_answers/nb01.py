"""Mistaken answers to notebook 01's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "01.dot": {
        "products_not_summed": """
def dot(a, b):
    return a * b
""",
        "sums_multiplied": """
def dot(a, b):
    return a.sum() * b.sum()
""",
    },
    "01.query": {
        "book_number_as_index": "query = inputs[2]",
        "column_not_token": "query = inputs[:, 1]",
    },
    "01.loop_body": {
        "same_token": """
def attention_scores_loop(inputs):
    attn_scores = torch.zeros(len(inputs), len(inputs))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_i)
    return attn_scores
""",
        "row_written_whole": """
def attention_scores_loop(inputs):
    attn_scores = torch.zeros(len(inputs), len(inputs))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i] = torch.dot(x_i, x_j)
    return attn_scores
""",
        "products_in_one_cell": """
def attention_scores_loop(inputs):
    attn_scores = torch.zeros(len(inputs), len(inputs))
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = x_i * x_j
    return attn_scores
""",
    },
    "01.highest": {
        "itself_highest": 'answer = "one"',
    },
    "01.repeats": {
        "repeats_both_halves": "repeats = 30",
        "repeats_distinct": "repeats = 21",
        "repeats_diagonal": "repeats = 6",
    },
}
