"""The gradebook's sandboxed runs, one test worker at a time: a test that looks for what its
runs left behind would otherwise find another worker's runs still going. The lock is
reentrant, so that a module's fixture that grades and its tests may both hold it."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock

SANDBOX_TURN = FileLock(Path(__file__).resolve().parents[1] / ".cache" / "sandbox.lock")
