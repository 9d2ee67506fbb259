"""Mistaken answers to notebook 08's exercises: each replaces the stub and must be named."""

MISTAKES = {
    "08.first_self": {
        "first_token_hidden": "first_self = 0\n",
        "first_self_unmasked": "first_self = 0.2098\n",
    },
    "08.hot_limit": {
        "hot_weights_vanish": """
def hot_limit(num_tokens):
    return 0
""",
        "hot_weights_to_one": """
def hot_limit(num_tokens):
    return 1
""",
        "hot_weights_count": """
def hot_limit(num_tokens):
    return num_tokens
""",
    },
    "08.repeated_word": {
        "repeat_rows_differ": """
same_without_mask = False
same_with_mask = False
""",
        "causal_rows_same": """
same_without_mask = True
same_with_mask = True
""",
        "mask_effect_swapped": """
same_without_mask = False
same_with_mask = True
""",
    },
    "08.head_size": {
        "d_out_per_head": "head_size = 4\n",
        "context_size_d_in": "head_size = 3\n",
    },
    "08.swap_rows": {
        "swap_moves_unmasked": """
changed_without_mask = {"journey", "starts"}
changed_with_mask = {"journey", "starts"}
""",
        "swap_mask_every_later": """
changed_without_mask = set()
changed_with_mask = {"journey", "starts", "with", "one", "step"}
""",
        "swap_mask_swapped": """
changed_without_mask = {"journey", "starts"}
changed_with_mask = set()
""",
        "swap_nothing_changes": """
changed_without_mask = set()
changed_with_mask = set()
""",
    },
}
