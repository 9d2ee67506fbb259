"""Each mistake is tried on every case of its exercise, so a mistake that shows only on a
random case (the book's case has dropout 0) is named there as the book's case would name it."""

from __future__ import annotations

import copy
import inspect

import pytest
from test_exercises_layers import _BOOK_CAUSAL, _BOOK_MHA, NAMESPACE

from attnlib.exercises import EXERCISES, check
from attnlib.exercises._compare import outcome, same
from attnlib.exercises._function import FunctionExercise

FUNCTIONS = sorted(n for n, e in EXERCISES.items() if isinstance(e, FunctionExercise))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_mistake_that_fits_one_case_fits_every_case(name):
    """A form of a mistake is tried on a case whose inputs it names: one that named the inputs
    of some cases only would go untried on the others (a random case among them)."""
    exercise = EXERCISES[name]
    cases = exercise.cases()
    partial = [
        (mistake, str(inspect.signature(form.make)))
        for mistake, row in exercise.mistakes.items()
        for form in row.variants()
        if 0 < sum(form.fits(c.args) for c in cases) < len(cases)
    ]
    assert not partial, partial


#: The book's line, and the same step moved before softmax (the mistake made by hand).
_ON_WEIGHTS = "        attn_weights = self.dropout(attn_weights)\n"
_ON_SCORES = {
    "07.forward": (
        "        attn_scores = queries @ keys.transpose(2, 3)\n",
        "        attn_scores = self.dropout(queries @ keys.transpose(2, 3))\n",
    ),
    "06.forward": (
        "        attn_scores = queries @ keys.transpose(1, 2)\n",
        "        attn_scores = self.dropout(queries @ keys.transpose(1, 2))\n",
    ),
}


def _variant(name: str) -> type:
    code = {"07.forward": _BOOK_MHA, "06.forward": _BOOK_CAUSAL}[name]
    line, moved = _ON_SCORES[name]
    assert code.count(_ON_WEIGHTS) == 1 and code.count(line) == 1
    namespace: dict = {}
    exec(NAMESPACE + code.replace(_ON_WEIGHTS, "").replace(line, moved), namespace)
    return namespace[EXERCISES[name].answer_names[0]]


@pytest.mark.parametrize("name", ["07.forward", "06.forward"])
def test_dropout_before_softmax_is_named_on_the_random_cases(name):
    exercise, answer = EXERCISES[name], _variant(name)
    cases = exercise.cases()
    right = [
        same(
            outcome(lambda c=c: exercise.call(answer, copy.deepcopy(c.args))),
            exercise.reference(c.args),
        )
        for c in cases
    ]
    # The variant is right on the book's case (dropout 0) and wrong only where dropout acts.
    assert right[0] and not all(right), right
    verdict = check(name, answer)
    assert verdict.mistake == "dropout_before_softmax", verdict.message
