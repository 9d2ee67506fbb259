"""Mistaken answers to notebook 06's exercises: each replaces the stub and must be named."""

_CAUSAL_INIT = """
class MyCausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("mask", torch.triu(ones, diagonal=1))  # True: hidden
"""


def _causal(mask_line: str, scale: str = " / keys.shape[-1] ** 0.5", dropout: bool = True) -> str:
    drop = "        attn_weights = self.dropout(attn_weights)\n" if dropout else ""
    return (
        _CAUSAL_INIT
        + f"""
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_({mask_line}, -torch.inf)
        attn_weights = torch.softmax(attn_scores{scale}, dim=-1)
{drop}        return attn_weights @ values
"""
    )


_CUT = "self.mask[:num_tokens, :num_tokens]"


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
    "06.forward": {
        "mask_not_cut": _causal("self.mask"),
        "keys_transposed_whole": _causal(_CUT).replace("keys.transpose(1, 2)", "keys.T"),
        "no_scale": _causal(_CUT, scale=""),
        "no_dropout": _causal(_CUT, dropout=False),
        "dropout_before_softmax": _causal(_CUT, dropout=False).replace(
            "attn_scores = queries @ keys.transpose(1, 2)",
            "attn_scores = self.dropout(queries @ keys.transpose(1, 2))",
        ),
    },
    "06.unchanged_row": {
        "causal_first_row": 'unchanged_row = "Your"',
    },
    "06.first_row": {
        "query_not_value": "def first_row(ca, inputs):\n    return ca.W_query(inputs[0])\n",
    },
}
