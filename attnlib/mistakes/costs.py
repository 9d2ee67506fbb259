"""Mistakes in counting what attention costs (notebook 09): slopes, bytes, growth.

The answer's argument: ``num_tokens``, the length of a sentence. Rows without ``make`` are wrong
answers to a question; the exercise says which value each stands for.
"""

from __future__ import annotations

from attnlib.mistakes._row import Mistake, table

TABLE: dict[str, Mistake] = table(
    """
slope_linear | the time taken to grow like num_tokens (slope 1)
    every query is scored against every key: num_tokens rows of num_tokens scores. Twice the tokens
    is twice the rows, each twice as long: 4 times the work, and 4 = 2^2, slope 2.
slope_cubic | the cost of a product of two square matrices assumed (slope 3)
    (num_tokens, d) @ (d, num_tokens) costs num_tokens * num_tokens * d multiply-adds, and d = 64
    does not grow with the sentence: two growing factors, slope 2. Only a product of two (n, n)
    matrices costs n^3.
slope_is_ratio | the growth per doubling given for the slope
    twice the tokens does take 4 times as long, but on a log-log plot the slope is the exponent p of
    time ~ num_tokens^p: 4 = 2^p gives p = 2.
slope_measured | a measured slope given for the count's slope
    {got} is what a timing on a busy machine shows; the question asks for the slope the count
    predicts, num_tokens × num_tokens × d with d fixed: exactly 2.
grid_entries_not_bytes | the number of entries counted, not the bytes
    num_tokens * num_tokens is how many scores the grid holds; each float32 takes 4 bytes
    (torch.ones(1).element_size()), so multiply by 4.
grid_one_row | one row of the grid counted, not the whole grid
    4 * num_tokens bytes is the row of one query. Every one of the num_tokens queries has such a
    row: 4 * num_tokens * num_tokens.
grid_float64 | 8 bytes per score: float64, or two float32 grids, instead of one float32 grid
    the grid asked for is one float32 grid: 32 bits, 4 bytes per score, 4 * num_tokens * num_tokens.
    8 per score is float64 (PyTorch's tensors are float32 unless asked otherwise), or two grids
    counted, e.g. the scores and the weights.
grid_bits | bits counted, not bytes
    a float32 takes 32 bits, which are 4 bytes (8 bits each): 4 * num_tokens * num_tokens.
grid_in_mib | the size given in MiB, not in bytes
    the function returns bytes: 4 * num_tokens * num_tokens, without dividing by 2**20 (the
    notebook's `readable` turns bytes into MiB for printing).
grid_in_mb | the size given in decimal megabytes, not in bytes
    the function returns bytes: 4 * num_tokens * num_tokens, with no division (and a MiB is 1,024 ×
    1,024 bytes, not 1,000,000).
growth_linear | the grid taken to grow like num_tokens
    1,048,576 tokens are 128 times 8,192, and the grid grows along both of its sides: 128 times the
    rows, each 128 times as long, 128 * 128 = 16,384 times the bytes.
growth_doubled | the two sides' growth added, not multiplied
    128 times the rows and 128 times the columns make 128 * 128 = 16,384 times the cells, not 128 +
    128 or 2 * 128.
growth_decimal | 1M and 8k taken as 1,000,000 and 8,000
    (1,000,000 / 8,000)^2 = 15,625 is the estimate in 1000-based round numbers; here 8k is 8,192 =
    2^13 and 1M is 1,048,576 = 2^20 tokens, so the ratio is exactly (2^20 / 2^13)^2 = 128^2. The
    count is exact: give it exactly.
growth_rounded | a rounded figure given for an exact count
    {got} is near, but the sizes are powers of 2: 8,192 = 2^13 and 1,048,576 = 2^20 tokens, so the
    grid grows exactly (2^7)^2 = 2^14 times. Give the exact count (a MiB is 1,024 × 1,024 bytes, not
    1,000 × 1,000).
growth_inverted | the ratio turned upside down
    the question asks how many times LARGER the 1M grid is: big over small, grid_bytes(1_048_576) /
    grid_bytes(8192), a number above 1.
block_grows_like_grid | the block taken to grow like the whole grid
    a block holds block_size scores for every query: (num_tokens, block_size). Twice the tokens
    doubles its rows; its width, block_size, stays. 2 times, not 4.
block_fixed_size | the block taken to keep its size
    block_size fixes the number of keys in a block, its width. Each query still gets its row in
    every block: (num_tokens, block_size), twice the rows for twice the tokens.
""",
    grid_entries_not_bytes=lambda num_tokens: num_tokens * num_tokens,
    grid_one_row=lambda num_tokens: 4 * num_tokens,
    grid_float64=lambda num_tokens: 8 * num_tokens * num_tokens,
    grid_bits=lambda num_tokens: 32 * num_tokens * num_tokens,
    grid_in_mib=lambda num_tokens: 4 * num_tokens * num_tokens / 2**20,
    grid_in_mb=lambda num_tokens: 4 * num_tokens * num_tokens / 1e6,
)
