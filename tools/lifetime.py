"""Child processes that end with the process that started them: servers and kernels of tests,
benchmarks and `make notebooks`.

A child started with :func:`popen_options` runs in a new session, its own process group, so
that it and what it starts are signalled together (``os.killpg``), and on Linux it gets
SIGTERM when its parent dies, even by SIGKILL (``PR_SET_PDEATHSIG``). An interrupted,
killed or timed-out run thus leaves nothing running (a server shuts its kernels down on
SIGTERM). A Jupyter kernel started by nbclient takes :func:`kernel_options`: jupyter_client
already gives it its own session, and this adds the signal. A child that starts children of
its own and does not pass SIGTERM on (make) runs under :func:`guard`, which does. A command
that make runs (`make test`'s pytest) is started through :func:`with_parent`, so that it ends
when make is killed; pytest-xdist's workers take the same signal in conftest.py.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the parent dies, even by SIGKILL.

    Linux sends it when the thread that started the child ends; the processes here are
    started from their program's main thread, which ends only with the program.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def kernel_options() -> dict[str, Any]:
    """What ``NotebookClient.execute(**...)`` passes on to the kernel's ``Popen``."""
    return {"preexec_fn": die_with_parent} if sys.platform == "linux" else {}


def popen_options() -> dict[str, Any]:
    """``subprocess.Popen``'s arguments for a child in its own group that ends with its parent."""
    return {"start_new_session": True, **kernel_options()}


GRACE_S = 20.0  # how long a guarded command has to end after SIGTERM, before SIGKILL


def guard(command: list[str], grace: float = GRACE_S) -> int:
    """Run ``command`` in this process's group and end the whole group when this process gets
    SIGTERM, as ``die_with_parent`` sends: for a child that starts children of its own and
    does not pass the signal on (``make lab``: make, then JupyterLab), or one whose own
    shutdown may hang (a server). The group gets SIGTERM, then SIGKILL after ``grace``
    seconds; the exit code is the command's."""
    child = subprocess.Popen(command)

    def end_group(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group's signal is not for us
        os.killpg(os.getpgrp(), signal.SIGTERM)
        try:
            child.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, end_group)
    return child.wait()


def guarded(command: list[str], grace: float = GRACE_S) -> list[str]:
    """``command`` run under :func:`guard`, to be started with :func:`popen_options`."""
    return [sys.executable, str(Path(__file__).resolve()), "--grace", str(grace), *command]


def with_parent(command: list[str]) -> None:
    """Become ``command``, ending when this process's parent dies (the signal survives exec)."""
    die_with_parent()
    os.execvp(command[0], command)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--with-parent"]:
        with_parent(sys.argv[2:])
    if sys.argv[1:2] == ["--grace"]:
        sys.exit(guard(sys.argv[3:], float(sys.argv[2])))
    sys.exit(guard(sys.argv[1:]))
