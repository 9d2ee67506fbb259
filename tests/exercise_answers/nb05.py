"""Mistaken answers to notebook 05's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "05.projections": {
        "projection_mixed_up": """
def project(inputs, W_query, W_key, W_value):
    queries = inputs @ W_query
    keys = inputs @ W_query
    values = inputs @ W_value
    return queries, keys, values
""",
        "projection_order": """
def project(inputs, W_query, W_key, W_value):
    queries = W_query @ inputs
    keys = W_key @ inputs
    values = W_value @ inputs
    return queries, keys, values
""",
    },
    "05.scale": {
        "no_scale": """
def scaled_weights(attn_scores, keys):
    return torch.softmax(attn_scores, dim=-1)
""",
        "scale_by_d_k": """
def scaled_weights(attn_scores, keys):
    return torch.softmax(attn_scores / keys.shape[-1], dim=-1)
""",
        "scale_by_d_in": """
def scaled_weights(attn_scores, keys):
    return torch.softmax(attn_scores / d_in**0.5, dim=-1)
""",
        "scale_by_num_tokens": """
def scaled_weights(attn_scores, keys):
    return torch.softmax(attn_scores / keys.shape[0] ** 0.5, dim=-1)
""",
        "scale_hardcoded": """
def scaled_weights(attn_scores, keys):
    return torch.softmax(attn_scores / math.sqrt(2), dim=-1)
""",
    },
    "05.query_scaled": {
        "query_scale_cancels": "def rescaled_weights(attn_weights, c):\n    return attn_weights\n",
        "query_scale_times_c": (
            "def rescaled_weights(attn_weights, c):\n    return c * attn_weights\n"
        ),
        "query_scale_squared": """
def rescaled_weights(attn_weights, c):
    powered = attn_weights ** (c * c)
    return powered / powered.sum(dim=-1, keepdim=True)
""",
        "query_scale_not_renormalised": (
            "def rescaled_weights(attn_weights, c):\n    return attn_weights**c\n"
        ),
        "query_scale_weights_as_scores": """
def rescaled_weights(attn_weights, c):
    return torch.softmax(c * attn_weights, dim=-1)
""",
    },
    "05.weights_shape": {
        "weights_sized_by_d_out": "weights_shape = (6, 4)",
    },
    "05.expected_score": {
        "expected_score_zero": "def expected_score(d_k):\n    return 0\n",
        "expected_score_one_mean": "def expected_score(d_k):\n    return d_k * 0.5\n",
        "expected_score_square": "def expected_score(d_k):\n    return d_k / 3\n",
        "expected_score_spread": "def expected_score(d_k):\n    return math.sqrt(d_k) / 4\n",
    },
}
