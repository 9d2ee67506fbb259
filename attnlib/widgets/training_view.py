"""The pure view of the TrainingExplorer: one head's weights at one snapshot of training.

The snapshots are the weights a model's heads gave one sentence as training went on; the
view picks a snapshot, a head and a query, and says how much weight that query puts on the
word before it, and how much the head puts on the previous word over the whole sentence.
The front end (``static/src/views.js``, ``trainingView``) draws the same in the browser, from
the shares the explorer sends (:func:`shares`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _validate as validate
from attnlib.data import MAX_TOKENS
from attnlib.training import share_at_offset
from attnlib.widgets import _text


@dataclass(frozen=True, eq=False)
class TrainingView:
    """What :class:`~attnlib.widgets.TrainingExplorer` shows.

    ``attn_weights``: ``(num_tokens, num_tokens)``, head ``head`` of block ``block`` at
    snapshot ``snapshot`` (training step ``step``); ``weights``: row ``query`` of it,
    ``(num_tokens,)``; ``before``: the query's weight on the word before it (``None`` for
    the first word); ``share``: the mean weight on the previous word over the sentence;
    ``even``: that mean for weights spread evenly over what each word may see;
    ``headline``: the line beside the controls (snapshot k of N, counted from 1, and ``share``).
    """

    snapshot: int
    step: int
    block: int
    head: int
    query: int
    attn_weights: torch.Tensor
    weights: torch.Tensor
    before: float | None
    share: float
    even: float
    caption: str
    bars: str
    text: str
    headline: str


#: The decimals the weights are kept to (and shown with).
DECIMALS = 4


def snapshots_of(snapshots: Any, tokens: Sequence[str], steps: Sequence[int]) -> torch.Tensor:
    """A detached float64 copy of ``snapshots`` ``(num_snapshots, num_blocks, num_heads,
    num_tokens, num_tokens)``, one snapshot per step, finite, for the sentence ``tokens``,
    rounded to :data:`DECIMALS` decimals."""
    shape = "(num_snapshots, num_blocks, num_heads, num_tokens, num_tokens)"
    snapshots = validate.tensor(snapshots, "snapshots", shape, (5,))
    snapshots = validate.readable(snapshots, "snapshots")
    num_tokens = len(tokens)
    if num_tokens > MAX_TOKENS:
        raise validate.invalid("tokens", f"at most {MAX_TOKENS} tokens", num_tokens)
    if tuple(snapshots.shape[-2:]) != (num_tokens, num_tokens):
        expected = f"a last two sizes of ({num_tokens}, {num_tokens}), one per token"
        raise validate.invalid("snapshots", expected, tuple(snapshots.shape))
    if len(steps) != snapshots.shape[0] or snapshots.shape[0] == 0:
        raise validate.invalid("steps", f"{snapshots.shape[0]} training steps", len(steps))
    validate.finite(snapshots, "snapshots", "expected finite weights")
    if snapshots.min() < 0 or snapshots.max() > 1:
        span = f"from {snapshots.min().item():.4f} to {snapshots.max().item():.4f}"
        raise validate.invalid("snapshots", "attention weights, between 0 and 1", span)
    # To the 4 decimals shown: the browser gets short numbers, and computes from the same.
    return snapshots.detach().double().round(decimals=DECIMALS)


def even_share(num_tokens: int) -> float:
    """The mean weight on the previous word when each word spreads its weight evenly over
    itself and the words before it: the mean of ``1 / (i + 1)`` for ``i = 1 .. n - 1``."""
    if num_tokens < 2:
        return 0.0
    return sum(1 / (i + 1) for i in range(1, num_tokens)) / (num_tokens - 1)


def shares(snapshots: torch.Tensor) -> list[list[float]]:
    """Every head's mean weight on the previous word, per snapshot, as the browser gets them:
    ``(num_snapshots, num_blocks, num_heads, n, n)`` -> ``num_snapshots`` lists of
    ``num_blocks * num_heads`` (0 for a one-word sentence, which has no previous word)."""
    num_snapshots, _, _, num_tokens, _ = snapshots.shape
    if num_tokens < 2:
        return [[0.0] * snapshots[0, ..., 0, 0].numel() for _ in range(num_snapshots)]
    return share_at_offset(snapshots).reshape(num_snapshots, -1).tolist()


def training_view(
    snapshots: torch.Tensor,
    tokens: Sequence[str],
    steps: Sequence[int],
    snapshot: int,
    head: int,
    query: int,
) -> TrainingView:
    """Head ``head`` (counted over all blocks: block ``head // num_heads``) at snapshot
    ``snapshot`` of ``snapshots`` ``(num_snapshots, num_blocks, num_heads, n, n)``, and the
    row of ``query``."""
    tokens = validate.explorer_tokens(tokens, len(tokens) if isinstance(tokens, Sequence) else 0)
    snapshots = snapshots_of(snapshots, tokens, steps)
    num_snapshots, num_blocks, num_heads, num_tokens, _ = snapshots.shape
    snapshot = validate.index(snapshot, "snapshot", num_snapshots)
    head = validate.index(head, "head", num_blocks * num_heads)
    query = validate.index(query, "query", num_tokens)
    block, in_block = divmod(head, num_heads)
    attn_weights = snapshots[snapshot, block, in_block]
    weights = attn_weights[query]
    top = int(weights.argmax())
    before = weights[query - 1].item() if query > 0 else None
    share = share_at_offset(attn_weights).item() if num_tokens > 1 else 0.0
    even = even_share(num_tokens)
    fields = {
        "step": int(steps[snapshot]),
        "snapshot": snapshot,
        # Counted from 1, as the slider's spoken value and the notebook count them.
        "number": snapshot + 1,
        "count": num_snapshots,
        "block": block,
        "head": in_block,
        "query": query,
        "token_repr": _text.quoted(tokens[query]),
        "top": weights[top].item(),
        "top_repr": _text.quoted(tokens[top]),
        "before": before,
        "before_repr": _text.quoted(tokens[query - 1]) if query > 0 else "",
        "share": share,
        "even": even,
    }
    texts = _text.TEXTS["training"]
    caption = _text.fill(texts["caption"], fields)
    bars = _text.fill(
        _text.TEXTS["panels"]["bars"], {"query": query, "total": weights.sum().item()}
    )
    text = _text.compose(texts["formula"], fields, {"first": query == 0})
    headline = _text.fill(texts["headline"], fields)
    return TrainingView(
        snapshot,
        int(steps[snapshot]),
        block,
        in_block,
        query,
        attn_weights,
        weights,
        before,
        share,
        even,
        caption,
        bars,
        text,
        headline,
    )
