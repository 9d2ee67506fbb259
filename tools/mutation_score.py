"""Print the score of the last `mutmut run` (make mutants): the survivors, then one line.

The last line reads ``killed=<n> survived=<n> total=<n> score=<pct>``. ``killed`` counts
the mutants a test failed on; ``total`` counts every mutant, so one that timed out (a hung
worker looks the same), was left unchecked or reached by no test lowers the score too: each
such mutant is listed above the line. The exit status is 1 when the score is below
``--fail-under``.

Usage: python tools/mutation_score.py [--fail-under 95] [--mutants mutants]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

# mutmut's own reading of a mutant's exit code (killed, survived, timeout, no tests, ...).
from mutmut.stats import status_by_exit_code

CAUGHT = {"killed", "caught by type check"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fail-under", type=float, default=0.0, help="lowest passing score, %%")
    parser.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder")
    args = parser.parse_args(argv)

    statuses: dict[str, str] = {}
    for meta in sorted(args.mutants.rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            statuses[name] = status_by_exit_code[code]
    if not statuses:
        print(f"no mutmut results under {args.mutants}/: run `make mutants` first")
        return 1

    counts = Counter(statuses.values())
    others = sorted(s for s in counts if s not in CAUGHT | {"survived"})
    for status in ["survived", *others]:
        names = sorted(n for n, s in statuses.items() if s == status)
        if names:
            print(f"{status} ({len(names)}); see one with `.venv/bin/mutmut show <name>`:")
            print("\n".join(f"    {n}" for n in names))
    print("by status: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items())))

    killed = sum(counts[s] for s in CAUGHT)
    total = len(statuses)
    score = 100 * killed / total
    print(f"killed={killed} survived={counts['survived']} total={total} score={score:.1f}%")
    return 0 if score >= args.fail_under else 1


if __name__ == "__main__":
    sys.exit(main())
