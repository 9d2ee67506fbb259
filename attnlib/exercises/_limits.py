"""How long a check lets the reader's code run, and one line when the reader presses Stop.

An endless loop in an answer would otherwise hang its check until Stop, and Stop would
print a long traceback through the checker. The limit counts the process's CPU seconds
(``ITIMER_PROF``), not the wall clock, so a busy machine does not cut a slow but finishing
answer short; a loop that sleeps is left to Stop.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: CPU seconds a check gives the reader's code, all its cases together.
SECONDS = 10.0

ENDLESS = (
    f"Not quite: your code ran for {SECONDS:.0f} s of computing without finishing: an endless "
    "loop? Look at the loop's condition, or at what it changes each time round."
)
STOPPED = "Stopped: the check was interrupted before it finished (your code or the checker)."


class TimeLimit(KeyboardInterrupt):
    """The limit ran out. A ``KeyboardInterrupt``, so that the reader's own ``except
    Exception`` cannot swallow it and run on."""


class Stopped(KeyboardInterrupt):
    """The reader pressed Stop during a check: still an interrupt (Run All stops there), but
    shown as one line rather than a traceback through the checker."""

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [STOPPED]


def _expired(signum: int, frame: object) -> None:
    raise TimeLimit


@contextmanager
def time_limit() -> Iterator[None]:
    """Raise :class:`TimeLimit` in the block after :data:`SECONDS` of CPU time (read at the
    call). Only the main thread receives signals, and a profiler may own ``SIGPROF``:
    elsewhere, no limit."""
    usable = threading.current_thread() is threading.main_thread() and signal.getsignal(
        signal.SIGPROF
    ) in (signal.SIG_DFL, signal.SIG_IGN, None)
    if not usable:
        yield
        return
    previous = signal.signal(signal.SIGPROF, _expired)
    signal.setitimer(signal.ITIMER_PROF, SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
