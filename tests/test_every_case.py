"""Each mistake is tried on every case of its exercise, called as the reader's answer is, so a
mistake that shows only on a random case is named there as the book's case would name it."""

from __future__ import annotations

import copy

import pytest
import torch

from attnlib.exercises import EXERCISES
from attnlib.exercises._compare import Raised, outcome
from attnlib.exercises._function import FunctionExercise

FUNCTIONS = sorted(n for n, e in EXERCISES.items() if isinstance(e, FunctionExercise))


def _not_called(got) -> bool:
    """What Python raises when a function is called with arguments it does not take."""
    return isinstance(got, Raised) and got.kind == "TypeError" and "argument" in got.message


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_mistake_takes_the_answers_arguments(name):
    """A way of a mistake written for other arguments than the answer's would raise on every
    case and never be named: a declaration adapts it (``rows(..., via=...)``)."""
    exercise = EXERCISES[name]
    for mistake, row in exercise.mistakes.items():
        for way in row.ways():
            for case in exercise.cases():
                got = outcome(lambda c=case, w=way: exercise.call(w, copy.deepcopy(c.args)))
                assert not _not_called(got), (mistake, case.label, got.text)


def test_a_mistake_that_shows_only_on_a_random_case_is_named_there():
    """sqrt(2) typed for the scale is right on the book's keys (d_k = 2): the mistake is named
    all the same, on the first case where the answer is wrong."""
    exercise = EXERCISES["05.scale"]

    def scaled_weights(attn_scores, keys):
        return torch.softmax(attn_scores / 2**0.5, dim=-1)

    verdict = exercise.judge(scaled_weights)
    assert verdict.mistake == "scale_hardcoded", verdict.message
    assert verdict.case == exercise.cases()[1].label
