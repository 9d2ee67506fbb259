"""Mistaken answers to notebook 06's exercises: each replaces the stub and must be named."""


def _last_row(
    query: str = "x[-1]", scale: str = " / keys.shape[-1] ** 0.5", blend: str = "values"
) -> str:
    return f"""
def last_row(ca, x):
    query = ca.W_query({query})
    keys, values = ca.W_key(x), ca.W_value(x)
    weights = torch.softmax(keys @ query{scale}, dim=-1)
    return weights @ {blend}
"""


def _mask(mask_line: str, fill: str = "attn_scores.masked_fill(mask, -torch.inf)") -> str:
    return f"""
def causal_weights(attn_scores, d_k):
    num_tokens = attn_scores.shape[-1]
    mask = {mask_line}
    return torch.softmax({fill} / d_k**0.5, dim=-1)
"""


MISTAKES = {
    "06.mask": {
        "mask_diagonal": _mask("torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool))"),
        "mask_zero": _mask(
            "torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)",
            "attn_scores.masked_fill(mask, 0)",
        ),
        "mask_after_softmax": """
def causal_weights(attn_scores, d_k):
    num_tokens = attn_scores.shape[-1]
    mask = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
    return torch.softmax(attn_scores / d_k**0.5, dim=-1).masked_fill(mask, 0.0)
""",
        "mask_inverted": _mask("torch.tril(torch.ones(num_tokens, num_tokens)).bool()"),
        "mask_not_bool": _mask("torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1)"),
    },
    "06.dropout": {
        "dropout_by_p": """
def dropout_with(attn_weights, keep, p):
    return attn_weights * keep / p
""",
        "dropout_unscaled": """
def dropout_with(attn_weights, keep, p):
    return torch.where(keep, attn_weights, 0.0)
""",
    },
    "06.last_row": {
        "last_row_own_value": "def last_row(ca, x):\n    return ca.W_value(x[-1])\n",
        "last_row_first_query": _last_row(query="x[0]"),
        "last_row_unscaled": _last_row(scale=""),
        "last_row_inputs_blended": _last_row(blend="x"),
    },
    "06.unchanged_row": {
        "causal_first_row": 'unchanged_row = "Your"',
    },
    "06.first_row": {
        "query_not_value": "def first_row(ca, inputs):\n    return ca.W_query(inputs[0])\n",
    },
}
