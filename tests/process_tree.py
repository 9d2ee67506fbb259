"""A runner's process tree, and what is left of it after the runner is killed (Linux /proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc/<pid>/stat (the field after the state)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # it ended while we looked
            parents[int(entry.name)] = int(fields[1])
    return parents


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, by its children, and so on (not ``pid`` itself)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie does not (its parent gone, init reaps it shortly)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def command(pid: int) -> str:
    """``pid``'s command line, for a message."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:160]
    except OSError:
        return "?"


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``condition`` until true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds:.0f} s"
        time.sleep(0.2)


def left_after(runner: subprocess.Popen, sig: int, seconds: float = 30.0) -> list[str]:
    """Send ``sig`` to ``runner`` and wait up to ``seconds`` for its whole tree, as it was just
    before, to end; what is still running then (ended here, so no run is left with it).

    30 s: a server has 10 s to shut down before its guard kills it (tests/browser/process.py),
    and a loaded machine is slow to end a kernel and a browser."""
    tree = descendants(runner.pid)
    runner.send_signal(sig)
    runner.wait(timeout=30)
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in tree) and time.monotonic() < deadline:
        time.sleep(0.2)
    still = [p for p in sorted(tree) if alive(p)]
    left = [f"{p}: {command(p)}" for p in still]
    for pid in still:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left
