"""Servers end with the test run that started them, even when it is killed (SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# A test runner in miniature: it starts a "server" as the browser fixtures do (its own
# process group, under a guard), prints the group's id, and waits to be killed. The grace
# is 1 s here so that a server deaf to SIGTERM is seen killed quickly.
RUNNER = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.browser import process
process.GRACE_S = 1.0
server = process.ServerProcess.start("sleeper", [sys.executable, "-c", {server!r}], 0, "",
                                     Path.cwd(), Path({log!r}))
print(server.proc.pid, flush=True)
time.sleep(120)
"""
SLEEPER = "import time; time.sleep(120)"
# A server whose shutdown hangs: it ignores SIGTERM.
DEAF = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            state, _, group = entry.joinpath("stat").read_text().rsplit(") ", 1)[1].split()[:3]
        except (OSError, IndexError):
            continue  # not a process, or it ended while we looked
        if int(group) == pgid and state != "Z":  # a zombie is dead; init reaps it shortly
            members.append(int(entry.name))
    return members


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("server", [SLEEPER, DEAF], ids=["server", "server-deaf-to-SIGTERM"])
def test_a_killed_runner_leaves_no_server_running(server: str, tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    code = RUNNER.format(root=root, server=server, log=str(tmp_path / "server.log"))
    runner = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    group = int(runner.stdout.readline())
    deadline = time.monotonic() + 10
    while len(_group(group)) < 2:  # the guard and its server
        assert time.monotonic() < deadline, f"the server did not start: {_group(group)}"
        time.sleep(0.1)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 10
    while _group(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _group(group)
    if left:
        os.killpg(group, signal.SIGKILL)  # do not leave it for the next test run either
    assert not left, f"processes {left} of the server's group outlived its killed runner"
