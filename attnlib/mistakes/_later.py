"""Mistakes of notebooks 08-09, in their old positional form, until phase 2 sorts them into
the kind tables beside scores.py, weights.py, context.py, tokens.py and questions.py."""

from __future__ import annotations

from attnlib.mistakes._row import Mistake

TABLE: dict[str, Mistake] = {
    # --- the explorer, notebook 08: predictions (answers, not code) -------------------------
    "first_token_hidden": Mistake(
        "the first token taken to be hidden from itself",
        "the causal mask hides only later tokens. The first token's row keeps one score, its "
        "own, and softmax of a single score is exp(s) / exp(s) = 1.",
    ),
    "hot_weights_vanish": Mistake(
        "the weights taken to vanish at high temperature",
        "dividing by a large temperature brings every score near 0, and exp(0) = 1 for each: the "
        "weights become equal, and since a row still sums to 1, each is 1 / num_tokens.",
    ),
    "hot_weights_to_one": Mistake(
        "every weight taken to approach 1",
        "a row of weights always sums to 1, so they cannot all approach 1. A high temperature "
        "makes them equal: 1 / num_tokens each. (All the weight on one token is the other "
        "end: a temperature near 0.)",
    ),
    "context_size_d_in": Mistake(
        "a head's context vector taken to have the embedding's size d_in",
        "with projections, a context vector blends value vectors, and each head's values have "
        "head_dim = d_out // num_heads features, not the d_in of the inputs.",
    ),
    "repeat_rows_differ": Mistake(
        "attention taken to know where each word stands",
        "these embeddings carry no position: equal vectors give equal scores against every "
        "token, so without the mask the two rows are equal.",
    ),
    "causal_rows_same": Mistake(
        "the causal mask taken to treat equal words alike",
        "the mask cuts each row at its own position: the first copy sees the tokens up to it, "
        "the second copy sees more, so their rows differ.",
    ),
    # --- notebook 09 ---: how fast is attention. The blockwise rows' make is the wrong update,
    # make(running_sum, context, rescale, exps, block_values) -> (running_sum, context).
    "slope_linear": Mistake(
        "the time taken to grow like num_tokens (slope 1)",
        "every query is scored against every key: num_tokens rows of num_tokens scores. Twice the "
        "tokens is twice the rows, each twice as long: 4 times the work, and 4 = 2^2, slope 2.",
    ),
    "slope_cubic": Mistake(
        "the cost of a product of two square matrices assumed (slope 3)",
        "(num_tokens, d) @ (d, num_tokens) costs num_tokens * num_tokens * d multiply-adds, and "
        "d = 64 does not grow with the sentence: two growing factors, slope 2. Only a product "
        "of two (n, n) matrices costs n^3.",
    ),
    "slope_is_ratio": Mistake(
        "the growth per doubling given for the slope",
        "twice the tokens does take 4 times as long, but on a log-log plot the slope is the "
        "exponent p of time ~ num_tokens^p: 4 = 2^p gives p = 2.",
    ),
    "grid_entries_not_bytes": Mistake(
        "the number of entries counted, not the bytes",
        "num_tokens * num_tokens is how many scores the grid holds; each float32 takes 4 bytes "
        "(torch.ones(1).element_size()), so multiply by 4.",
        lambda num_tokens: num_tokens * num_tokens,
    ),
    "grid_one_row": Mistake(
        "one row of the grid counted, not the whole grid",
        "4 * num_tokens bytes is the row of one query. Every one of the num_tokens queries has "
        "such a row: 4 * num_tokens * num_tokens.",
        lambda num_tokens: 4 * num_tokens,
    ),
    "grid_float64": Mistake(
        "8 bytes per score (float64) instead of 4",
        "PyTorch's tensors are float32 unless asked otherwise: 32 bits, 4 bytes per number. "
        "float64 would take 8.",
        lambda num_tokens: 8 * num_tokens * num_tokens,
    ),
    "growth_linear": Mistake(
        "the grid taken to grow like num_tokens",
        "1,048,576 tokens are 128 times 8,192, and the grid grows along both of its sides: "
        "128 times the rows, each 128 times as long, 128 * 128 = 16,384 times the bytes.",
    ),
    "no_rescale": Mistake(
        "the running sums not rescaled when the maximum grows",
        "what running_sum and context hold was added up as exp(score - old max). When a block "
        "raises the max, multiply both by rescale = exp(old max - new max) before adding the "
        "block: running_sum = running_sum * rescale + exps.sum(dim=-1, keepdim=True).",
        lambda running_sum, context, rescale, exps, block_values: (
            running_sum + exps.sum(dim=-1, keepdim=True),
            context + exps @ block_values,
        ),
    ),
    "context_not_rescaled": Mistake(
        "the running sum rescaled but not the context",
        "context was added up with the same exp(score - old max) as running_sum, so it needs the "
        "same correction: context = context * rescale + exps @ block_values.",
        lambda running_sum, context, rescale, exps, block_values: (
            running_sum * rescale + exps.sum(dim=-1, keepdim=True),
            context + exps @ block_values,
        ),
    ),
    "new_block_rescaled": Mistake(
        "the new block rescaled as well",
        "this block's exps are already taken against new_max; only what was added before needs "
        "rescale: running_sum * rescale + exps.sum(...), not (running_sum + exps.sum(...)) * "
        "rescale.",
        lambda running_sum, context, rescale, exps, block_values: (
            (running_sum + exps.sum(dim=-1, keepdim=True)) * rescale,
            (context + exps @ block_values) * rescale,
        ),
    ),
    "block_grows_like_grid": Mistake(
        "the block taken to grow like the whole grid",
        "a block holds block_size scores for every query: (num_tokens, block_size). Twice the "
        "tokens doubles its rows; its width, block_size, stays. 2 times, not 4.",
    ),
    "block_fixed_size": Mistake(
        "the block taken to keep its size",
        "block_size fixes the number of keys in a block, its width. Each query still gets its row "
        "in every block: (num_tokens, block_size), twice the rows for twice the tokens.",
    ),
}
