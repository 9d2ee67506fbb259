"""Mistaken answers to notebook 07's exercises: each replaces the stub and must be named."""


def _forward(
    split="x_.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)",
    mask="self.mask[:num_tokens, :num_tokens]",
    scale="self.head_dim ** 0.5",
    merge="context_vec.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)",
    out="self.out_proj(context_vec)",
) -> str:
    """The forward pass of the solution with one line written the mistaken way."""
    return f"""
class MyMultiHeadAttention(modules.MultiHeadAttention):
    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries, keys, values = (
            {split} for x_ in (self.W_query(x), self.W_key(x), self.W_value(x))
        )
        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_({mask}, -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / {scale}, dim=-1))
        context_vec = attn_weights @ values
        context_vec = {merge}
        return {out}
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
    "07.forward": {
        "split_without_transpose": _forward(
            split="x_.view(b, self.num_heads, num_tokens, self.head_dim)"
        ),
        "d_out_per_head": _forward(
            split="x_.view(b, num_tokens, self.num_heads, self.d_out).transpose(1, 2)"
        ),
        "mask_not_cut": _forward(mask="self.mask"),
        "scale_by_d_out": _forward(scale="self.d_out ** 0.5"),
        "merge_without_transpose": _forward(
            merge="context_vec.contiguous().view(b, num_tokens, self.d_out)"
        ),
        "no_out_proj": _forward(out="context_vec"),
        "dropout_before_softmax": _forward()
        .replace(
            "attn_scores = queries @ keys.transpose(2, 3)",
            "attn_scores = self.dropout(queries @ keys.transpose(2, 3))",
        )
        .replace("self.dropout(torch.softmax(", "(torch.softmax("),
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
