"""Exercises of notebook 01: attention scores with two loops."""

from __future__ import annotations

import torch

from attnlib.data import example_inputs
from attnlib.exercises._core import Exercise, register
from attnlib.mistakes import MISTAKES


def _scores() -> torch.Tensor:
    inputs = example_inputs()
    return inputs @ inputs.T


register(
    Exercise(
        name="01.loop_body",
        task="fill in the line inside the two loops that sets attn_scores[i, j]",
        run=lambda scores_loop: scores_loop(example_inputs()),
        expected=_scores,
        mistakes={"same_token": lambda: MISTAKES["same_token"].make(example_inputs())},
        praise="Every cell is the dot product of token i's vector with token j's.",
    )
)
