"""Chromium's pages, watched: console errors, uncaught exceptions and requests off this machine.

Also how Chromium is launched (:data:`CHROMIUM_ARGS`, :func:`chromium_env`), the
checks every page of the layer must pass (:func:`assert_healthy`), and the code
cells of a notebook file (:func:`code_sources`), to compare with a page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:  # playwright is only imported once the gate says it is there
    from playwright.sync_api import ConsoleMessage, Page, Request

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache"
SCREENSHOTS = CACHE / "screenshots"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # we run as root in a container, where the sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# An output area showing an error or stderr: JupyterLab (and Voila, which renders outputs
# with Lab's code) show a traceback with this MIME type too.
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# What ipywidgets shows in place of a widget whose view failed.
WIDGET_ERROR = "Error displaying widget"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def chromium_env(environ: Mapping[str, str], home: Path) -> dict[str, str]:
    """``environ`` with Chromium's home in ``home``: it writes ~/.pki and ~/.config."""
    return {
        **environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def is_outside(url: str) -> bool:
    """Whether ``url`` is fetched over the network from a host other than this machine."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS


@dataclass
class WatchedPage:
    """A page with its console, uncaught exceptions and requests to other hosts recorded.

    ``console``: every console message; ``errors``: console errors and uncaught
    exceptions; ``outside``: URLs the page asked of a host other than this machine.
    """

    page: Page
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    @classmethod
    def watch(cls, page: Page) -> WatchedPage:
        """Start recording what ``page`` logs, throws and requests."""
        watched = cls(page)
        page.on("console", watched.on_console)
        page.on("pageerror", watched.on_page_error)
        page.on("request", watched.on_request)
        return watched

    def on_console(self, message: ConsoleMessage) -> None:
        """Record a console message as "[type] text (url:line)"; errors also in ``errors``."""
        line = f"[{message.type}] {message.text}"
        location = message.location or {}
        if location.get("url"):
            line += f" ({location['url']}:{location.get('lineNumber')})"
        self.console.append(line)
        if message.type == "error":
            self.errors.append(line)

    def on_page_error(self, error: Any) -> None:
        """Record an uncaught exception of the page."""
        line = f"[pageerror] {error}"
        self.console.append(line)
        self.errors.append(line)

    def on_request(self, request: Request) -> None:
        """Record ``request`` if it goes to another host (a CDN, say)."""
        if is_outside(request.url):
            self.outside.append(request.url)

    def screenshot(self, name: str) -> Path:
        """Save the page as ``.cache/screenshots/<name>.png``; the file's path."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=path)
        return path


def assert_nothing_broken(page: Page, where: str) -> None:
    """No output area shows an error or stderr, and every widget was drawn.

    ``where``: names the page in the messages.
    """
    errors = page.locator(STDERR).all_inner_texts()
    assert not errors, f"{where}: error or stderr output: {errors}"
    broken = page.get_by_text(WIDGET_ERROR).all_inner_texts()
    assert not broken, f"{where}: a widget did not render: {broken}"


def assert_healthy(watched: WatchedPage, where: str) -> None:
    """:func:`assert_nothing_broken`, no console error so far, and nothing fetched outside."""
    assert_nothing_broken(watched.page, where)
    assert not watched.errors, f"{where}: browser console errors: {watched.errors}"
    assert not watched.outside, f"{where}: requests to other hosts: {watched.outside}"


def code_sources(notebook: Path) -> list[str]:
    """The sources of ``notebook``'s code cells, empty ones included, in order."""
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
