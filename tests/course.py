"""The course as the tests see it: whatever notebooks/ holds, and the rules each notebook keeps.

Tests import these names (pytest puts tests/ on sys.path) instead of listing notebooks or
repeating a rule, so that a new notebook needs no edit here.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# Every notebook gives the reader at least this many turns ("exercise" cells).
MIN_EXERCISES_PER_NOTEBOOK = 3
