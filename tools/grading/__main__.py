"""`make grade SUBMISSIONS=dir [OUT=grading] [SHARD=i/n]`: python -m tools.grading SUBMISSIONS
--out OUT [--shard i/n]; `make grade-merge`: the same with --merge, after every shard."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tools.grading.classroom import MissingResults, grade_all, merge
from tools.grading.report import printable
from tools.grading.sandbox import FLAG, Limits, Unavailable, require


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected i/n (e.g. 2/3), got {text!r}") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"expected i/n with 1 <= i <= n, got {text!r}")
    return i, n


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tools.grading", description=__doc__)
    parser.add_argument("submissions", type=Path, help="<dir>/<student>/<assignment>/*.ipynb")
    parser.add_argument("--out", type=Path, default=Path("grading"))
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--cell-seconds", type=float, default=Limits.cell_seconds)
    parser.add_argument("--notebook-seconds", type=float, default=Limits.notebook_seconds)
    parser.add_argument("--memory-gb", type=float, default=Limits.memory_bytes / 2**30)
    parser.add_argument("--shard", type=_shard, help="grade slice i of n (1 <= i <= n) only")
    parser.add_argument("--merge", action="store_true", help="the gradebook of all shards")
    parser.add_argument(
        FLAG,
        dest="unsandboxed",
        action="store_true",
        help="with no sandbox here, run every submission as you, unconfined",
    )
    return parser


def _merge(args: argparse.Namespace) -> int:
    try:
        results = merge(args.submissions, args.out)
    except MissingResults as err:
        print(printable(f"grading: {err}"), file=sys.stderr)
        return 2
    print(printable(f"{len(results)} submissions in {args.out / 'gradebook.csv'}"), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        parser.error(f"expected a folder of submissions, got {args.submissions}")
    if args.merge:
        return _merge(args)
    limits = Limits(args.cell_seconds, args.notebook_seconds, int(args.memory_gb * 2**30))
    try:
        confined = require(args.unsandboxed)
    except Unavailable as err:
        print(f"grading refused: {err}", file=sys.stderr)
        return 3
    print(f"sandbox: {confined.kind}; limits per run: {confined.limits}", file=sys.stderr)
    if not confined.sandboxed:
        print(f"sandbox: NONE ({confined.why}); {FLAG} given", file=sys.stderr)
    try:
        results = grade_all(
            args.submissions, args.out, limits, max(1, args.jobs), args.shard, args.unsandboxed
        )
    except KeyboardInterrupt:
        print("interrupted: the finished results are saved; run again to go on", file=sys.stderr)
        return 130
    except PermissionError as err:
        print(printable(f"grading: {err}"), file=sys.stderr)
        return 2
    where = args.out / "gradebook.csv"
    if args.shard:
        where = args.out / "shards" / f"shard-{args.shard[0]}-of-{args.shard[1]}.csv"
    print(printable(f"{len(results)} submissions in {where}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
