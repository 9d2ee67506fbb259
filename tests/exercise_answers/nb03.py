"""Mistaken answers to notebook 03's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "03.softmax_naive": {
        "no_exp": """
def softmax_naive(x):
    return x / x.sum(dim=-1, keepdim=True)
""",
        "softmax_dim0": """
def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0, keepdim=True)
""",
        "no_keepdim": """
def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=-1)
""",
        "softmax_whole_grid": """
def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum()
""",
    },
    "03.dim0_sums": {
        "dim0_rows": 'which_sum_to_1 = "rows"',
    },
    "03.shift": {
        "shift_changes_weights": "same_weights = False",
    },
    "03.softmax_stable": {
        "no_max_shift": """
def softmax_stable(x):
    return torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)
""",
        "max_no_keepdim": """
def softmax_stable(x):
    shifted = x - x.max(dim=-1).values
    return torch.exp(shifted) / torch.exp(shifted).sum(dim=-1, keepdim=True)
""",
        "max_of_grid": """
def softmax_stable(x):
    shifted = x - x.max()
    return torch.exp(shifted) / torch.exp(shifted).sum(dim=-1, keepdim=True)
""",
        "max_without_values": """
def softmax_stable(x):
    shifted = x - x.max(dim=-1, keepdim=True)
    return torch.exp(shifted) / torch.exp(shifted).sum(dim=-1, keepdim=True)
""",
    },
    "03.times_ten": {
        "scale_like_shift": 'after_times_10 = "unchanged"',
        "scale_flattens": 'after_times_10 = "flatter"',
    },
}
