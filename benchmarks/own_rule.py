"""What the "course's own answer" rule (an exercise's ``forbids``, attnlib/exercises/_calls.py)
costs a check.

For each exercise the rule guards, on its notebook solution (a right answer, the only kind
that reaches the rule): the rule alone (it re-runs the book's case under its recorder) and
the check without the rule, in this process, the least of ``--rounds`` times of each (a busy
machine stretches single runs). Prints one line per exercise and the ratio (check with the rule)
/ (check without it) of the totals. Last line key=value.

Usage: python benchmarks/own_rule.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the notebooks' solutions, as the tests read them

from test_exercise_variants import _answer  # noqa: E402
from test_own_answers import OWN, solution  # noqa: E402

from attnlib.exercises import EXERCISES  # noqa: E402
from attnlib.exercises._calls import Forbid, run_on  # noqa: E402


def least(function, args: tuple, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    rounds = parser.parse_args().rounds
    rule_total = bare_total = 0.0
    for name in OWN:
        exercise = EXERCISES[name]
        bare = dataclasses.replace(exercise, forbids=Forbid(because="measured without"))
        answer = _answer(exercise, solution(name))
        assert exercise.judge(answer).correct, name
        book = exercise.cases()[0]

        def own_rule(answer=answer, book=book, exercise=exercise):
            return exercise.forbids.broken(answer, lambda: run_on(exercise.call, answer, book.args))

        # the rule alone (what a right answer's check adds), then the check without it
        rule = least(own_rule, (), rounds)
        judged = least(bare.judge, (answer,), rounds)
        rule_total, bare_total = rule_total + rule, bare_total + judged
        print(
            f"{name:20} own rule {rule * 1e3:7.2f} ms   check without it {judged * 1e3:8.2f} ms"
            f"   ratio {(judged + rule) / judged:5.2f}"
        )
    ratio = (bare_total + rule_total) / bare_total
    total = f"own rule {rule_total * 1e3:.1f} ms, checks without it {bare_total * 1e3:.1f} ms"
    print(f"all {len(OWN)} right answers: {total}")
    print(f"own_rule_ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
