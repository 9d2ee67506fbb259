"""Exercises of notebook 06: causal attention, the mask and dropout.

The scores are the notebook's: ``SelfAttentionV2(3, 2)`` built after
``torch.manual_seed(789)``. Dropout is checked with a fixed keep-mask (no random draw), and
the layer's forward pass against attnlib's ``CausalAttention`` under the same seeds, so that
both draw the same dropout mask on whatever machine the check runs.
"""

from __future__ import annotations

import math
import re
from typing import Any

import torch

from attnlib.attention import (
    attention_weights,
    causal_mask,
    scaled_dot_product_attention,
    softmax,
)
from attnlib.data import TOKENS, example_inputs
from attnlib.exercises._core import Exercise, made, register
from attnlib.mistakes import MISTAKES
from attnlib.modules import CausalAttention, SelfAttentionV2

D_IN, D_OUT = 3, 2
#: Which weights survive in the dropout exercise: 29 of 36, about 1 - p for p = 0.2.
KEEP = torch.tensor(
    [
        [1, 1, 1, 0, 1, 1],
        [1, 0, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 0, 1],
        [1, 1, 0, 1, 1, 1],
        [1, 0, 1, 1, 1, 1],
    ],
    dtype=torch.bool,
)
DROPOUT_P = 0.2
#: The forward pass is tried with a mask built for more tokens than the input has.
CONTEXT_LENGTH = 8
#: What a mask of CONTEXT_LENGTH laid over the scores of 6 tokens gives (the error, in words).
MASK_TOO_BIG = "the (8, 8) mask does not fit the (6, 6) scores"


def _projections() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Queries, keys and values of the notebook's SelfAttentionV2 (seed 789)."""
    torch.manual_seed(789)
    layer = SelfAttentionV2(D_IN, D_OUT)
    inputs = example_inputs()
    with torch.no_grad():
        return layer.W_query(inputs), layer.W_key(inputs), layer.W_value(inputs)


def _scores() -> torch.Tensor:
    queries, keys, _ = _projections()
    return queries @ keys.T


def _causal_weights() -> torch.Tensor:
    queries, keys, _ = _projections()
    return attention_weights(queries, keys, causal=True)


def _tensor(result: Any) -> Any:
    return result.detach() if isinstance(result, torch.Tensor) else result


# --- 06.mask: -inf above the diagonal, then softmax ----------------------------------------


def _scaled_scores() -> torch.Tensor:
    return _scores() / math.sqrt(D_OUT)


def _softmax_hiding(mask: torch.Tensor) -> torch.Tensor:
    """Plain torch, as the reader writes it: a row with nothing visible becomes NaN."""
    return torch.softmax(_scaled_scores().masked_fill(mask, -torch.inf), dim=-1)


def _num_tokens() -> int:
    return len(example_inputs())


register(
    Exercise(
        name="06.mask",
        task="build the mask (True above the diagonal), fill those scores with -inf, softmax",
        run=lambda causal_weights: _tensor(causal_weights(_scores(), D_OUT)),
        expected=_causal_weights,
        mistakes={
            "mask_diagonal": lambda: _softmax_hiding(MISTAKES["mask_diagonal"].make(_num_tokens())),
            **made(
                "mask_zero",
                "mask_after_softmax",
                on=lambda: (_scaled_scores(), causal_mask(_num_tokens())),
            ),
            "mask_inverted": lambda: _softmax_hiding(MISTAKES["mask_inverted"].make(_num_tokens())),
            "mask_not_bool": lambda: _softmax_hiding(MISTAKES["mask_not_bool"].make(_num_tokens())),
        },
        praise="Zeros above the diagonal, and every row still sums to 1.",
    )
)


# --- 06.dropout: drop with a given keep-mask, scale what is kept -----------------------------


def _expected_dropout() -> torch.Tensor:
    weights = _causal_weights()
    return torch.where(KEEP, weights / (1 - DROPOUT_P), torch.zeros_like(weights))


register(
    Exercise(
        name="06.dropout",
        task="return attn_weights with the dropped entries set to 0 and the kept ones scaled",
        run=lambda dropout_with: _tensor(dropout_with(_causal_weights(), KEEP.clone(), DROPOUT_P)),
        expected=_expected_dropout,
        mistakes=made(
            "dropout_by_p", "dropout_unscaled", on=lambda: (_causal_weights(), KEEP, DROPOUT_P)
        ),
        praise="Kept weights are divided by 1 - p = 0.8, i.e. multiplied by 1.25.",
    )
)


# --- 06.forward: the forward pass of CausalAttention ---------------------------------------

_SIZE_CLASH = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def _batch() -> torch.Tensor:
    inputs = example_inputs()
    return torch.stack((inputs, inputs))


def _run_forward(cls) -> Any:
    torch.manual_seed(123)
    layer = cls(D_IN, D_OUT, context_length=CONTEXT_LENGTH, dropout=0.5)
    torch.manual_seed(456)  # the dropout mask, drawn the same way by the reference
    try:
        with torch.no_grad():
            return _tensor(layer(_batch()))
    except RuntimeError as err:
        clash = _SIZE_CLASH.search(str(err))
        if clash and {int(n) for n in clash.groups()} == {CONTEXT_LENGTH, _num_tokens()}:
            return MASK_TOO_BIG
        raise


def _reference(train: bool = True, scale: float | None = None) -> torch.Tensor:
    torch.manual_seed(123)
    layer = CausalAttention(D_IN, D_OUT, context_length=CONTEXT_LENGTH, dropout=0.5)
    batch = _batch()
    torch.manual_seed(456)
    with torch.no_grad():
        if scale is None:
            return layer.train(train)(batch)
        queries, keys, values = layer.W_query(batch), layer.W_key(batch), layer.W_value(batch)
        num_tokens = batch.shape[1]
        context_vecs, _ = scaled_dot_product_attention(
            queries,
            keys,
            values,
            scale=scale,
            attn_mask=~layer.mask[:num_tokens, :num_tokens],  # torch's meaning: True = attend
            dropout=layer.dropout,
        )
        return context_vecs


register(
    Exercise(
        name="06.forward",
        task="write forward: projections, scores, the cut mask with -inf, scaled softmax, "
        "dropout, the blend of values",
        run=_run_forward,
        expected=_reference,
        mistakes={
            "mask_not_cut": lambda: MASK_TOO_BIG,
            "no_scale": lambda: _reference(scale=MISTAKES["no_scale"].make(D_OUT, D_IN)),
            "no_dropout": lambda: _reference(train=False),
        },
        praise="Checked on a batch of 2, with a mask built for 8 tokens and dropout 0.5.",
    )
)


# --- 06.unchanged_row: a question before the explorer --------------------------------------


def _token_index(answer: Any) -> Any:
    """A token named by its text (any case) or by its index, as the index."""
    if isinstance(answer, str):
        names = [t.lower() for t in TOKENS]
        text = answer.strip().strip("'\"").lower()
        return names.index(text) if text in names else answer
    if isinstance(answer, int) and not isinstance(answer, bool) and -len(TOKENS) <= answer < 0:
        return answer + len(TOKENS)  # -1 is the last token, as in Python
    return answer


def _unchanged_row() -> int:
    """The query whose weights the mask leaves as they are (simplified attention)."""
    inputs = example_inputs()
    scores = inputs @ inputs.T
    open_rows = softmax(scores)
    causal_rows = softmax(scores.masked_fill(causal_mask(len(inputs)), -torch.inf))
    same = [i for i in range(len(inputs)) if torch.allclose(open_rows[i], causal_rows[i])]
    return same[0]


register(
    Exercise(
        name="06.unchanged_row",
        task="set answer to the token (text or index) whose row the causal mask leaves as it is",
        run=_token_index,
        expected=_unchanged_row,
        mistakes={"causal_first_row": lambda: 0},
        praise="'step' comes last: it already sees every token, so the mask hides nothing there.",
    )
)


# --- 06.first_row: the context vector of "Your" --------------------------------------------


def _first_layer() -> CausalAttention:
    torch.manual_seed(123)
    return CausalAttention(D_IN, D_OUT, context_length=6, dropout=0.0)


register(
    Exercise(
        name="06.first_row",
        task="set answer to the context vector of 'Your', from one call of one of ca's layers",
        run=_tensor,
        expected=lambda: _first_layer().W_value(example_inputs()[0]).detach(),
        mistakes={
            "query_not_value": lambda: _first_layer().W_query(example_inputs()[0]).detach(),
        },
        praise="'Your' puts all its weight on itself, so it gets its own value vector.",
    )
)
