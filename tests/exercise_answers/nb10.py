"""Mistaken answers to notebook 10's exercises: each replaces the stub and must be named."""


def _targets(line: str) -> str:
    """The exercise's function with the reader's targets line in place of the stub's."""
    return f"""
def inputs_and_targets(token_ids, start, context_length):
    inputs = token_ids[start:start + context_length]
    targets = {line}
    return inputs, targets
"""


def _step(*lines: str) -> str:
    """The exercise's training step with the reader's lines."""
    body = "".join(f"    {line}\n" for line in lines)
    head = "def training_step(model, optimizer, inputs, targets):"
    return f"\n{head}\n{body}    return loss.item()\n"


LOSS = "loss = next_word_loss(model(inputs), targets)"

MISTAKES = {
    "10.targets": {
        "targets_not_shifted": _targets("token_ids[start:start + context_length]"),
        "targets_shifted_back": _targets("token_ids[start - 1:start - 1 + context_length]"),
        "targets_one_short": _targets("token_ids[start + 1:start + context_length]"),
        "targets_one_long": _targets("token_ids[start:start + 1 + context_length]"),
    },
    "10.training_step": {
        "grads_not_zeroed": _step(LOSS, "loss.backward()", "optimizer.step()"),
        "no_update": _step("optimizer.zero_grad()", LOSS, "optimizer.step()", "loss.backward()"),
    },
    "10.uniform_loss": {
        "uniform_log2": "def uniform_loss(vocab_size):\n    return math.log2(vocab_size)\n",
        "uniform_log10": "def uniform_loss(vocab_size):\n    return math.log10(vocab_size)\n",
        "uniform_probability": "def uniform_loss(vocab_size):\n    return 1 / vocab_size\n",
        "uniform_log_sign": "def uniform_loss(vocab_size):\n    return math.log(1 / vocab_size)\n",
    },
    "10.head_pattern": {
        "pattern_next_word": "pattern = 'next'",
        "pattern_itself": "pattern = 'itself'",
        "pattern_first": "pattern = 'first'",
        "pattern_even": "pattern = 'even'",
    },
    "10.no_position": {
        "no_position_head_forms": "forms = 'yes'",
        "no_position_next_word": "forms = 'next'",
    },
    "10.even_weight": {
        "even_over_all_words": "even_weight = 1 / 16",
        "even_without_itself": "even_weight = 1 / 3",
        "even_masked_out": "even_weight = 0",
    },
}
