"""`make lab`, the README's first command, serves JupyterLab with the course on localhost."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from lifetime import guarded, popen_options  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read()


def test_make_lab_serves_the_notebooks_on_localhost():
    port, token = _free_port(), "attnlib-test-token"
    # The root conftest already points Jupyter's dirs into .cache; BROWSER=true opens nothing.
    env = dict(os.environ, JUPYTER_TOKEN=token, BROWSER="true")
    # Guarded: if this test run dies, make and the JupyterLab it starts are ended with it,
    # by SIGKILL after 10 s if JupyterLab's own shutdown hangs.
    server = subprocess.Popen(
        guarded(["make", "--no-print-directory", "lab", f"PORT={port}"], grace=10.0),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        **popen_options(),
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                status, _ = _get(f"{base}/api/status?token={token}")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()[-3000:]
                assert time.monotonic() < deadline, "JupyterLab did not answer in 90 s"
                time.sleep(0.5)
        assert status == 200
        status, body = _get(f"{base}/api/contents?token={token}")
        names = {item["name"] for item in json.loads(body)["content"]}
        assert "01_scores_loops.ipynb" in names  # the server's root is notebooks/
        status, page = _get(f"{base}/lab?token={token}")
        assert status == 200 and b"JupyterLab" in page
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
