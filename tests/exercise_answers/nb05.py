"""Mistaken answers to notebook 05's exercises: each replaces the stub and must be named."""

_V1_INIT = """
class MySelfAttentionV1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
"""


def _v1(weights_line: str, blend: str = "attn_weights @ values") -> str:
    return (
        _V1_INIT
        + f"""
    def forward(self, x):
        queries = x @ self.W_query
        keys = x @ self.W_key
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = {weights_line}
        return {blend}
"""
    )


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
    "05.forward": {
        "no_scale": _v1("torch.softmax(attn_scores, dim=-1)"),
        "softmax_dim0": _v1("torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=0)"),
        "blend_inputs": _v1(
            "torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)", "attn_weights @ x"
        ),
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
