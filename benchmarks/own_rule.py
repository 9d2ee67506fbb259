"""What the "course's own answer" rule (attnlib/exercises/_own.py) costs a check.

Each exercise the rule guards is judged on its notebook solution (a right answer, so the rule
runs: it re-runs the book's case under a profile hook) with the rule and without it, in turns
in this process; the least of ``--rounds`` times of each is kept. A wrong answer never reaches
the rule. Prints one line per exercise and the ratio of the totals. Last line key=value.

Usage: python benchmarks/own_rule.py [--rounds 7]
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
from test_own_answers import solution  # noqa: E402

from attnlib.exercises import EXERCISES  # noqa: E402
from attnlib.exercises._own import OWN  # noqa: E402


def least(judge, answer, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        judge(answer)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with_rule = without = 0.0
    for name in OWN:
        exercise = EXERCISES[name]
        bare = dataclasses.replace(exercise, rules=exercise.rules[1:])  # the own rule is first
        answer = _answer(exercise, solution(name))
        assert exercise.judge(answer).correct, name
        a, b = least(exercise.judge, answer, rounds), least(bare.judge, answer, rounds)
        with_rule, without = with_rule + a, without + b
        print(f"{name:20} with {a * 1e3:8.1f} ms   without {b * 1e3:8.1f} ms   ratio {a / b:5.2f}")
    ratio = with_rule / without
    total = f"with {with_rule * 1e3:.0f} ms, without {without * 1e3:.0f} ms"
    print(f"all {len(OWN)} right answers: {total}")
    print(f"own_rule_ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
