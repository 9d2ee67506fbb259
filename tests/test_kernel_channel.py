"""The kernel answers every request, also when many arrive at once.

ipykernel 7.0 to 7.3 send each reply raw on the shell socket from their shell-channel
thread. A request that arrives at that moment can be left unread, and from then on the
kernel answers nothing on that channel while it still says "idle": in JupyterLab an
explorer stops following its sentence box, and no cell runs again. 7.4 sends replies
through the socket's stream instead, but it needs Python 3.11, so pyproject.toml keeps
3.10 on ipykernel 6. These tests failed on Python 3.10 with ipykernel 7.3.0.
"""

from __future__ import annotations

import queue
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from lifetime import kernel_options  # noqa: E402

# The releases whose shell channel can wedge: 7.0.0, 7.2.0 and 7.3.0 did under the probe
# below; 7.1.0 has the same raw send.
WEDGING = ("7.0.0", "7.0.1", "7.1.0", "7.2.0", "7.3.0")
# Many requests sent at once, round after round: on Python 3.10, ipykernel 7.3.0 stopped
# answering after 4 to 36 rounds in each of 5 runs of this test; 6.31 and 7.4 answer them all.
ROUNDS, AT_ONCE, ANSWER_S = 60, 100, 10


def _ipykernel_requirement() -> Requirement:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (line,) = (r for r in dev["dev"] if Requirement(r).name == "ipykernel")
    return Requirement(line)


def test_pyproject_refuses_the_ipykernels_that_wedge_and_this_one_is_allowed() -> None:
    allowed = _ipykernel_requirement().specifier
    assert not [v for v in WEDGING if allowed.contains(v)], allowed
    # 6.31 for Python 3.10, 7.4 (the lock's) from 3.11 on.
    assert allowed.contains("6.31.0") and allowed.contains("7.4.0"), allowed
    installed = version("ipykernel")
    assert allowed.contains(installed), (
        f"ipykernel {installed} is installed, pyproject.toml asks for {allowed}: run make again"
    )


@pytest.mark.check_all
def test_the_kernel_answers_every_request_sent_at_once() -> None:
    manager, client = start_new_kernel(kernel_name="python3", **kernel_options())
    try:
        for done in range(ROUNDS):
            waiting = {client.kernel_info() for _ in range(AT_ONCE)}
            deadline = time.monotonic() + ANSWER_S
            while waiting and time.monotonic() < deadline:
                try:
                    reply = client.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
                except queue.Empty:
                    break
                waiting.discard(reply["parent_header"].get("msg_id"))
            if waiting:
                pytest.fail(
                    f"ipykernel {version('ipykernel')}: after {done} rounds answered, "
                    f"{len(waiting)} of {AT_ONCE} requests sent at once got no reply in "
                    f"{ANSWER_S} s: the kernel's shell channel is wedged"
                )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
