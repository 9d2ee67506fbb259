"""Each mistake is tried on every case of its exercise, so a mistake that shows only on a
random case is named there as the book's case would name it."""

from __future__ import annotations

import inspect

import pytest

from attnlib.exercises import EXERCISES
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
