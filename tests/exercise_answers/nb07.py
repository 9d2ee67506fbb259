"""Mistaken answers to notebook 07's exercises: each replaces the stub and must be named."""


def _one_head(
    rows: str = "slice(h * mha.head_dim, (h + 1) * mha.head_dim)",
    scale: str = "mha.head_dim",
    mask: bool = True,
) -> str:
    masked = (
        "scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1), -torch.inf)"
        if mask
        else "scores"
    )
    return f"""
def one_head_weights(mha, x, h):
    rows = {rows}
    queries = x @ mha.W_query.weight[rows].T
    keys = x @ mha.W_key.weight[rows].T
    scores = queries @ keys.T / {scale}**0.5
    n = x.shape[0]
    return torch.softmax({masked}, dim=-1)
"""


MISTAKES = {
    "07.wrapper_forward": {
        "heads_cat_wrong_axis": """
class MyWrapper(modules.MultiHeadAttentionWrapper):
    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=1)
""",
        "heads_summed": """
class MyWrapper(modules.MultiHeadAttentionWrapper):
    def forward(self, x):
        return sum(head(x) for head in self.heads)
""",
    },
    "07.two_features": {
        "wrapper_d_out_total": """
def two_feature_wrapper(d_in, context_length, dropout):
    return MultiHeadAttentionWrapper(d_in, 2, context_length, dropout, num_heads=2)
""",
        "wrapper_one_head": """
def two_feature_wrapper(d_in, context_length, dropout):
    return MultiHeadAttentionWrapper(d_in, 2, context_length, dropout, num_heads=1)
""",
    },
    "07.d_out": {
        "d_out_per_head": """
features_per_head = 2
out_features = 4
""",
    },
    "07.split_heads": {
        "split_without_transpose": """
def split_heads(x, num_heads):
    b, num_tokens, d_out = x.shape
    head_dim = d_out // num_heads
    return x.view(b, num_heads, num_tokens, head_dim)
""",
        "split_transpose_last": """
def split_heads(x, num_heads):
    b, num_tokens, d_out = x.shape
    head_dim = d_out // num_heads
    return x.view(b, num_tokens, num_heads, head_dim).transpose(-2, -1)
""",
    },
    "07.merge_heads": {
        "merge_without_transpose": """
def merge_heads(context_vec):
    b, num_heads, num_tokens, head_dim = context_vec.shape
    return context_vec.contiguous().view(b, num_tokens, num_heads * head_dim)
""",
        "view_without_contiguous": """
def merge_heads(context_vec):
    b, num_heads, num_tokens, head_dim = context_vec.shape
    return context_vec.transpose(1, 2).view(b, num_tokens, num_heads * head_dim)
""",
    },
    "07.one_head": {
        "head_strided": _one_head(rows="slice(h, None, mha.num_heads)"),
        "head_scale_d_out": _one_head(scale="mha.d_out"),
        "head_unmasked": _one_head(mask=False),
    },
    "07.head_dim_one": {
        "argmax_per_query": "most_weighted = 6\n",
        "query_sign_ignored": "most_weighted = 1\n",
    },
    "07.copy_heads": {
        "out_proj_left_random": """
def copy_heads(wrapper, mha):
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            weights = [getattr(head, name).weight for head in wrapper.heads]
            getattr(mha, name).weight.copy_(torch.cat(weights, dim=0))
""",
        "out_proj_bias_kept": """
def copy_heads(wrapper, mha):
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            weights = [getattr(head, name).weight for head in wrapper.heads]
            getattr(mha, name).weight.copy_(torch.cat(weights, dim=0))
        mha.out_proj.weight.copy_(torch.eye(mha.d_out))
""",
        "heads_reversed": """
def copy_heads(wrapper, mha):
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            weights = [getattr(head, name).weight for head in reversed(wrapper.heads)]
            getattr(mha, name).weight.copy_(torch.cat(weights, dim=0))
        mha.out_proj.weight.copy_(torch.eye(mha.d_out))
        mha.out_proj.bias.zero_()
""",
    },
}
