"""Fixtures of the browser layer: servers on a copy of notebooks/, headless Chromium, pages.

Everything written goes under ``.cache/`` (ignored by git): the notebooks' copy,
server logs, Lab settings and screenshots. The Jupyter config, data and runtime
dirs come from the root ``conftest.py``, inherited by the servers and their kernels.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import servers
from .gate import browser_gate
from .pages import CACHE, CHROMIUM_ARGS, ROOT, WatchedPage, chromium_env
from .process import ServerProcess

if TYPE_CHECKING:
    from playwright.sync_api import Browser

_DIAGNOSTICS = pytest.StashKey[Callable[[], str]]()


def pytest_configure(config: pytest.Config) -> None:
    # Registered here too, so that running this folder alone knows the marker.
    config.addinivalue_line("markers", "check_all: only in make check-all (too slow for make test)")


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
            env=chromium_env(os.environ, home),
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


# ----------------------------------------------------------------------------- servers

# Both depend on the gate (``chromium_executable``): no server is started for a skipped
# layer. One JupyterLab and one Voila serve the whole session (each Lab test shuts its
# kernels down; Voila ends a page's kernel when the page goes).


@pytest.fixture(scope="session")
def lab_server(
    chromium_executable: str, notebooks_copy: Path, run_dir: Path
) -> Iterator[ServerProcess]:
    """JupyterLab on 127.0.0.1, a free port, a random token, rooted at the notebooks' copy."""
    with servers.jupyterlab(notebooks_copy, run_dir) as server:
        yield server


@pytest.fixture(scope="session")
def voila_server(
    chromium_executable: str, notebooks_copy: Path, run_dir: Path
) -> Iterator[ServerProcess]:
    """Voila serving the notebooks' copy as apps (code cells hidden, its default)."""
    with servers.voila(notebooks_copy, run_dir) as server:
        yield server


# ----------------------------------------------------------------------------- pages


def _diagnostics(watched: WatchedPage, request: pytest.FixtureRequest) -> str:
    """A screenshot, the page's URL and console, and the logs of the test's servers."""
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    try:
        shot = f"screenshot: {watched.screenshot(f'FAILED-{name}')}"
    except Exception as exc:  # the page may have crashed: report that instead
        shot = f"screenshot failed: {exc}"
    parts = [shot, f"url: {watched.page.url}", "console (last 40):", *watched.console[-40:]]
    if watched.outside:
        parts += ["requests to other hosts:", *watched.outside]
    for value in request.node.funcargs.values():
        if isinstance(value, ServerProcess):
            parts += [f"{value.name} log {value.log} (tail):", value.log_tail()]
    return "\n".join(parts)


@pytest.fixture
def watched_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[WatchedPage]:
    """A page in a fresh browser context; on failure a screenshot and the logs are reported."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    watched = WatchedPage.watch(context.new_page())
    request.node.stash[_DIAGNOSTICS] = lambda: _diagnostics(watched, request)
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
