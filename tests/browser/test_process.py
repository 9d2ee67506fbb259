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
# process group), prints the server's pid, and waits to be killed.
RUNNER = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from tests.browser.process import ServerProcess
server = ServerProcess.start(
    "sleeper", [sys.executable, "-c", "import time; time.sleep(120)"], 0, "", Path.cwd(),
    Path({log!r}),
)
print(server.proc.pid, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead: only its parent (gone) could reap it; init does so shortly.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_a_killed_runner_leaves_no_server_running(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    code = RUNNER.format(root=root, log=str(tmp_path / "server.log"))
    runner = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    server = int(runner.stdout.readline())
    assert _alive(server), "the server did not start"
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 10
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(server)
    if left:
        os.killpg(server, signal.SIGKILL)  # do not leave it for the next test run either
    assert not left, f"server {server} outlived its killed runner"
