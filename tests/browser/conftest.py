"""Fixtures of the browser layer: servers on a copy of notebooks/, headless Chromium, pages.

Everything written goes under ``.cache/`` (ignored by git): the notebooks' copy,
server logs, Lab settings and screenshots. The Jupyter config, data and runtime
dirs come from the root ``conftest.py``, inherited by the servers and their kernels.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import CACHE, ROOT, ServerProcess, WatchedPage, browser_gate

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SERVER_START_TIMEOUT = 60.0

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # we run as root in a container, where the sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

_DIAGNOSTICS = pytest.StashKey[Callable[[], str]]()


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server is told not to fall back to another)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ----------------------------------------------------------------------------- gate, browser


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """The Chromium to drive; skips the layer without one, or fails it when CI is set."""
    gate = browser_gate(os.environ)
    if gate.chromium is None:
        if gate.must_fail:
            pytest.fail(gate.reason, pytrace=False)
        pytest.skip(gate.reason)
    return gate.chromium


@pytest.fixture(scope="session")
def browser(chromium_executable: str, run_dir: Path) -> Iterator[Browser]:
    """One headless Chromium for the whole session (a fresh context per test)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        home = run_dir / "chromium-home"
        home.mkdir()
        browser = playwright.chromium.launch(
            executable_path=chromium_executable,
            args=CHROMIUM_ARGS,
            # Chromium writes ~/.pki and ~/.config even with a temporary profile: not $HOME.
            env={
                **os.environ,
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_CACHE_HOME": str(home / ".cache"),
            },
            timeout=60_000,
        )
        try:
            yield browser
        finally:
            browser.close()


# ----------------------------------------------------------------------------- files


@pytest.fixture(scope="session")
def run_dir() -> Iterator[Path]:
    """A fresh folder under .cache/browser for this session, removed at the end."""
    parent = CACHE / "browser"
    parent.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="run-", dir=parent))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def notebooks_copy(run_dir: Path) -> Path:
    """A copy of notebooks/: running its notebooks never touches the committed ones."""
    return Path(
        shutil.copytree(
            ROOT / "notebooks",
            run_dir / "notebooks",
            ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
        )
    )


def _write_lab_settings(settings_dir: Path) -> None:
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


# ----------------------------------------------------------------------------- servers


# Module scope: the server and its kernels go as soon as their tests are done.
@pytest.fixture(scope="module")
def lab_server(
    chromium_executable: str, notebooks_copy: Path, run_dir: Path
) -> Iterator[ServerProcess]:
    """JupyterLab on 127.0.0.1, a free port, a random token, rooted at the notebooks' copy.

    Depends on the gate (``chromium_executable``): no server is started for a skipped layer.
    """
    settings, workspaces = run_dir / "lab-settings", run_dir / "lab-workspaces"
    _write_lab_settings(settings)
    workspaces.mkdir()
    port, token = free_port(), secrets.token_hex(24)
    args = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={notebooks_copy}",
        "--ServerApp.allow_root=True",  # containers and CI often run as root
        "--ServerApp.terminals_enabled=False",
        # window.jupyterapp: run commands as the menus do, and read the kernel's status.
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={workspaces}",
    ]
    server = ServerProcess.start(
        "jupyterlab", args, port, token, notebooks_copy, run_dir / "lab.log"
    )
    try:
        server.wait_ready("/api/status", lambda status: status == 200, SERVER_START_TIMEOUT)
        yield server
    finally:
        # /api/shutdown shuts the kernels down before the server exits.
        server.stop(shutdown_path="/api/shutdown")


# Module scope: the server and its kernels go as soon as their tests are done.
@pytest.fixture(scope="module")
def voila_server(
    chromium_executable: str, notebooks_copy: Path, run_dir: Path
) -> Iterator[ServerProcess]:
    """Voila serving the copy of notebook 04 as an app (code cells hidden, its default)."""
    port, token = free_port(), secrets.token_hex(24)
    connections = run_dir / "voila-connections"
    connections.mkdir()
    args = [
        sys.executable,
        "-m",
        "voila",
        str(notebooks_copy / "04_context_vectors.ipynb"),
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        # Kernel connection files in .cache, not in the system's temp folder.
        f"--Voila.connection_dir_root={connections}",
    ]
    server = ServerProcess.start("voila", args, port, token, notebooks_copy, run_dir / "voila.log")
    try:
        # Voila runs the notebook per page request, so readiness is just "answers HTTP"
        # (its API redirects to the login page without a token cookie).
        server.wait_ready("/api/status", lambda status: status < 500, SERVER_START_TIMEOUT)
        yield server
    finally:
        # Voila shuts its kernels down on SIGTERM; it has no shutdown endpoint.
        server.stop()


# ----------------------------------------------------------------------------- pages


@pytest.fixture
def watched_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[WatchedPage]:
    """A page in a fresh browser context; on failure a screenshot and the logs are reported."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    watched = WatchedPage(page)
    page.on("console", watched.on_console)
    page.on("pageerror", watched.on_page_error)

    def diagnostics() -> str:
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        try:
            shot = f"screenshot: {watched.screenshot(f'FAILED-{name}')}"
        except Exception as exc:  # the page may have crashed: report that instead
            shot = f"screenshot failed: {exc}"
        parts = [shot, f"url: {page.url}", "console (last 40):", *watched.console[-40:]]
        for value in request.node.funcargs.values():
            if isinstance(value, ServerProcess):
                parts += [f"{value.name} log {value.log} (tail):", value.log_tail()]
        return "\n".join(parts)

    request.node.stash[_DIAGNOSTICS] = diagnostics
    try:
        yield watched
    finally:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Add the browser's diagnostics to a failed browser test's report."""
    report = yield
    diagnostics = item.stash.get(_DIAGNOSTICS, None)
    if diagnostics is not None and report.when == "call" and report.failed:
        report.sections.append(("browser diagnostics", diagnostics()))
    return report
