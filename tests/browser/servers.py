"""JupyterLab and Voila for the browser tests: their command lines, settings and lifetimes.

Each server listens on 127.0.0.1 on a free port with a random token, runs with
this interpreter, and writes its log and state under the session's run folder in
``.cache/``. :func:`jupyterlab` and :func:`voila` start one and stop it (with its
kernels) when the ``with`` block ends.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .process import ServerProcess

START_TIMEOUT_S = 60.0

# A Jupyter data folder holding the Voila template `lab-offline` (voila/templates/):
# Voila's `lab` template without the Font Awesome stylesheets it links from a CDN.
# Voila bundles Font Awesome in its own static/voila-style.js, so no icon is lost.
JUPYTER_DATA = Path(__file__).resolve().parent / "jupyter"
VOILA_TEMPLATE = "lab-offline"


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server is told not to fall back to another)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_lab_settings(settings_dir: Path) -> None:
    """User settings that make the DOM checkable and keep Lab off the network."""
    settings = {
        # Render every cell: with windowing, cells out of view have no prompt or output
        # in the DOM, so "every cell ran without error" could not be seen.
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        # No news or update checks: no network, and no toast over the notebook.
        "@jupyterlab/apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
    }
    for plugin, values in settings.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values, indent=2))


def lab_command(port: int, token: str, root: Path, settings: Path, workspaces: Path) -> list[str]:
    """JupyterLab's command line: serve ``root`` with ``settings`` and ``workspaces``."""
    return [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.allow_root=True",  # containers and CI often run as root
        "--ServerApp.terminals_enabled=False",
        # window.jupyterapp: run commands as the menus do, and read the kernel's status.
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={workspaces}",
    ]


def voila_command(root: Path, port: int, token: str, connections: Path) -> list[str]:
    """Voila's command line: every notebook of ``root`` as an app (code cells hidden), each at
    ``voila/render/<name>``."""
    return [
        sys.executable,
        "-m",
        "voila",
        str(root),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        f"--template={VOILA_TEMPLATE}",
        # Kernel connection files in .cache, not in the system's temp folder.
        f"--Voila.connection_dir_root={connections}",
    ]


def _with_templates() -> dict[str, str]:
    """The environment that lets Voila find ``lab-offline``: JUPYTER_DATA first on JUPYTER_PATH."""
    paths = [str(JUPYTER_DATA), os.environ.get("JUPYTER_PATH", "")]
    return {"JUPYTER_PATH": os.pathsep.join(p for p in paths if p)}


@contextmanager
def jupyterlab(root: Path, run_dir: Path) -> Iterator[ServerProcess]:
    """JupyterLab serving ``root``, its settings and workspaces in ``run_dir``, once ready."""
    settings, workspaces = run_dir / "lab-settings", run_dir / "lab-workspaces"
    write_lab_settings(settings)
    workspaces.mkdir()
    port, token = free_port(), secrets.token_hex(24)
    args = lab_command(port, token, root, settings, workspaces)
    server = ServerProcess.start("jupyterlab", args, port, token, root, run_dir / "lab.log")
    # /api/shutdown shuts the kernels down before the server exits.
    with server.running(
        "/api/status", lambda status: status == 200, START_TIMEOUT_S, shutdown="/api/shutdown"
    ):
        yield server


@contextmanager
def voila(root: Path, run_dir: Path) -> Iterator[ServerProcess]:
    """Voila serving the notebooks of ``root`` as apps, its kernel connection files in
    ``run_dir``; a notebook's page is :func:`voila_page`."""
    connections = run_dir / "voila-connections"
    connections.mkdir()
    port, token = free_port(), secrets.token_hex(24)
    args = voila_command(root, port, token, connections)
    log = run_dir / "voila.log"
    server = ServerProcess.start("voila", args, port, token, root, log, env=_with_templates())
    # Voila runs the notebook per page request, so readiness is just "answers HTTP" (its
    # API redirects to the login page without a token cookie). It has no shutdown
    # endpoint: it shuts its kernels down on SIGTERM.
    with server.running("/api/status", lambda status: status < 500, START_TIMEOUT_S):
        yield server


def voila_page(server: ServerProcess, notebook: str) -> str:
    """The URL of ``notebook``'s app on ``server`` (see :func:`voila`), token included."""
    return f"{server.url}voila/render/{notebook}?token={server.token}"
