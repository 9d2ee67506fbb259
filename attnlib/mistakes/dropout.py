"""Mistakes in dropout on the attention weights (notebook 06, and the layers after it).

The answer's arguments: ``attn_weights``, a ``keep`` mask of the same shape (True: kept) and the
rate ``p``.
"""

from __future__ import annotations

import torch

from attnlib.mistakes._row import Mistake, table

TABLE: dict[str, Mistake] = table(
    """
dropout_by_p | kept weights scaled by 1/p instead of 1/(1 - p)
    dropout keeps a fraction 1 - p of the weights, so it scales them by 1 / (1 - p).
dropout_unscaled | dropout without rescaling the kept weights
    after dropping a fraction p, scale what is kept by 1 / (1 - p) so the expected sum stays the
    same.
dropout_inverted | the keep-mask inverted: the dropped weights kept, the kept ones dropped
    keep is True where a weight stays. ~keep (or keep == 0) picks the weights to drop; keep them
    where keep is True and scale them by 1 / (1 - p).
""",
    dropout_by_p=lambda attn_weights, keep, p: attn_weights * keep / p,
    dropout_unscaled=lambda attn_weights, keep, p: attn_weights * keep,
    dropout_inverted=(
        lambda attn_weights, keep, p: torch.where(
            keep, torch.zeros_like(attn_weights), attn_weights / (1 - p)
        ),
        lambda attn_weights, keep, p: attn_weights * ~keep,
        lambda attn_weights, keep, p: attn_weights * ~keep / p,
    ),
)
