"""How fast the gradebook grades a class: 100 generated submissions of notebook 01.

Made from the course itself (tests/submissions.py): right ones (the solution cells), wrong
ones (the typed mistakes of tests/exercise_answers, mixed across the exercises), empty ones
(stubs left), and hostile ones (an endless loop, one that swallows the interrupt, a 20 GB
allocation, file deletion, a socket, a kernel that kills itself). Each is graded in its
sandbox on every core, and every row is compared with how its submission was made.

Prints submissions per minute and the peak memory: of the whole tree (grader, sandboxes,
kernels), sampled every 0.2 s, and of the largest single process; and the sandbox's own
cost per run (``sandbox_overhead_s``: the median time of ``python -c pass`` in a run's
sandbox, cgroup and limits included, less that of the bare command, measured in turn here).
Last line key=value.

Usage: python benchmarks/grading.py [--submissions 100] [--jobs N]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the submissions the tests make

import submissions  # noqa: E402

from tools.grading import classroom, sandbox  # noqa: E402

STEM = "01_scores_loops"
# Out of every 100: right, wrong, empty; the rest hostile, the kinds in turn.
SHARES = {"right": 30, "wrong": 40, "empty": 12}


def make_class(root: Path, count: int) -> dict[str, dict]:
    nb = submissions.exercises_of(json.loads((ROOT / "notebooks" / f"{STEM}.ipynb").read_text()))
    solutions = {name: place["solution"] for name, place in nb.items()}
    typed = submissions.mistakes_of(STEM)
    kinds = list(submissions.HOSTILE)
    expected = {}
    for k in range(count):
        share = k % 100
        hostile = None
        if share < SHARES["right"]:
            answers = solutions
        elif share < SHARES["right"] + SHARES["wrong"]:
            answers = {
                n: list(m.values())[(k + i) % len(m)] for i, (n, m) in enumerate(typed.items())
            }
        elif share < sum(SHARES.values()):
            answers = {}
        else:
            answers, hostile = solutions, kinds[k % len(kinds)]
        student = f"s{k:03d}"
        submissions.write(root, student, STEM, submissions.make(STEM, answers, hostile, str(root)))
        expected[student] = submissions.expected_row(STEM, answers, hostile)
    return expected


class PeakMemory(threading.Thread):
    """The largest resident memory of this process and all its descendants, summed."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.total = self.single = 0
        self.done = threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self.done.wait(0.2):
            sizes = []
            for proc in [me, *me.children(recursive=True)]:
                try:
                    sizes.append(proc.memory_info().rss)
                except psutil.Error:
                    pass
            self.total, self.single = max(self.total, sum(sizes)), max(self.single, *sizes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    limits = sandbox.Limits(cell_seconds=20, notebook_seconds=90, memory_bytes=3 << 30)
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        root, out = Path(tmp, "submitted"), Path(tmp, "grading")
        expected = make_class(root, args.submissions)
        peak = PeakMemory()
        peak.start()
        started = time.monotonic()
        classroom.grade_all(root, out, limits, args.jobs)
        seconds = time.monotonic() - started
        peak.done.set()
        peak.join()
        with (out / "gradebook.csv").open(newline="") as file:
            rows = {row["student"]: row for row in csv.DictReader(file)}
    as_made = sum(
        all(rows.get(s, {}).get(key) == value for key, value in want.items())
        for s, want in expected.items()
    )
    per_minute = len(rows) / seconds * 60
    overhead = sandbox.overhead_seconds()
    total_mb, single_mb = peak.total / 2**20, peak.single / 2**20
    confined = sandbox.isolation()
    print(f"sandbox: {confined.kind}, limits by {confined.limits}; {limits}")
    print(f"{len(rows)} submissions of {STEM} on {args.jobs} cores in {seconds:.0f} s")
    print(f"rows as made: {as_made}/{len(expected)}")
    print(f"peak memory: {total_mb:.0f} MB in all, {single_mb:.0f} MB in one process")
    print(f"the sandbox's own cost: {overhead:.3f} s per run (median of 7)")
    print(
        f"submissions_per_min={per_minute:.1f} cores={args.jobs}"
        f" rows_as_made={as_made}/{len(expected)}"
        f" peak_memory_mb={total_mb:.0f} peak_process_mb={single_mb:.0f}"
        f" sandbox_overhead_s={overhead:.3f}"
    )


if __name__ == "__main__":
    main()
