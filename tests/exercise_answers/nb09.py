"""Mistaken answers to notebook 09's exercises: each replaces the stub and must be named."""


def _update(running_sum_line: str, context_line: str) -> str:
    """The exercise's function with the reader's two lines in place of the stub's."""
    return f"""
def rescale_and_add(running_sum, context, rescale, exps, block_values):
    running_sum = {running_sum_line}
    context = {context_line}
    return running_sum, context
"""


MISTAKES = {
    "09.slope": {
        "slope_linear": "slope = 1",
        "slope_cubic": "slope = 3",
        "slope_is_ratio": "slope = 4",
        "slope_measured": "slope = 1.9",
    },
    "09.grid_bytes": {
        "grid_entries_not_bytes": """
def grid_bytes(num_tokens):
    return num_tokens * num_tokens
""",
        "grid_one_row": """
def grid_bytes(num_tokens):
    return 4 * num_tokens
""",
        "grid_float64": """
def grid_bytes(num_tokens):
    return 8 * num_tokens ** 2
""",
        "grid_in_mib": """
def grid_bytes(num_tokens):
    return 4 * num_tokens * num_tokens / 2**20
""",
    },
    "09.grid_growth": {
        "growth_linear": "grid_times = 1_048_576 / 8192",
        "growth_decimal": "grid_times = (1_000_000 / 8_000) ** 2",
        "growth_rounded": "grid_times = 16_000",
    },
    "09.rescale": {
        "no_rescale": _update(
            "running_sum + exps.sum(dim=-1, keepdim=True)",
            "context + exps @ block_values",
        ),
        "context_not_rescaled": _update(
            "running_sum * rescale + exps.sum(dim=-1, keepdim=True)",
            "context + exps @ block_values",
        ),
        "new_block_rescaled": _update(
            "(running_sum + exps.sum(dim=-1, keepdim=True)) * rescale",
            "(context + exps @ block_values) * rescale",
        ),
        "rescale_divides": _update(
            "running_sum / rescale + exps.sum(dim=-1, keepdim=True)",
            "context / rescale + exps @ block_values",
        ),
        "running_sum_no_keepdim": _update(
            "running_sum * rescale + exps.sum(dim=-1)",
            "context * rescale + exps @ block_values",
        ),
    },
    "09.block_growth": {
        "block_grows_like_grid": "block_times = 4",
        "block_fixed_size": "block_times = 1",
    },
}
