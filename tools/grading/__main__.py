"""`make grade SUBMISSIONS=dir [OUT=grading]`: python -m tools.grading SUBMISSIONS --out OUT."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tools.grading.classroom import grade_all
from tools.grading.report import printable
from tools.grading.sandbox import Limits, isolation


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.grading", description=__doc__)
    parser.add_argument("submissions", type=Path, help="<dir>/<student>/<assignment>/*.ipynb")
    parser.add_argument("--out", type=Path, default=Path("grading"))
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--cell-seconds", type=float, default=Limits.cell_seconds)
    parser.add_argument("--notebook-seconds", type=float, default=Limits.notebook_seconds)
    parser.add_argument("--memory-gb", type=float, default=Limits.memory_bytes / 2**30)
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"expected a folder of submissions, got {args.submissions}")
    limits = Limits(args.cell_seconds, args.notebook_seconds, int(args.memory_gb * 2**30))
    confined = isolation()
    if confined.kind != "root":
        print(
            f"sandbox: {confined.kind} (see tools/grading/sandbox.py for what that leaves open)",
            file=sys.stderr,
        )
    try:
        results = grade_all(args.submissions, args.out, limits, max(1, args.jobs))
    except KeyboardInterrupt:
        print("interrupted: the finished results are saved; run again to go on", file=sys.stderr)
        return 130
    except PermissionError as err:
        print(printable(f"grading: {err}"), file=sys.stderr)
        return 2
    print(printable(f"{len(results)} submissions in {args.out / 'gradebook.csv'}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
