"""The gate of the browser layer: is there a Chromium to drive, and may its absence skip.

One decision, :func:`browser_gate`, made from the environment: the layer runs when
a Chromium executable and Playwright for Python are both there; otherwise it skips,
or fails when ``CI`` is set, so that CI never passes with the browser layer unrun.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

# Set to a Chromium executable to use it instead of the one found on the system; set
# to a path that does not exist (e.g. /nonexistent) to see the layer skip (or fail in CI).
CHROMIUM_ENV = "ATTNLIB_CHROMIUM"
# Debian's package installs it here; PATH is searched first so a local build wins.
DEBIAN_CHROMIUM = "/usr/bin/chromium"


def _executable(path: str) -> bool:
    """Whether ``path`` is a file this process may execute."""
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_chromium(env: Mapping[str, str]) -> tuple[str | None, str]:
    """The Chromium executable to drive, or None and why none was found.

    ``ATTNLIB_CHROMIUM`` in ``env``, when set and non-empty, is the only candidate;
    else ``chromium`` on ``env``'s PATH, else Debian's ``/usr/bin/chromium``.
    """
    override = env.get(CHROMIUM_ENV, "")
    if override:
        if _executable(override):
            return override, ""
        return None, f"{CHROMIUM_ENV}={override} is not an executable file"
    on_path = shutil.which("chromium", path=env.get("PATH", os.defpath))
    if on_path:
        return on_path, ""
    if _executable(DEBIAN_CHROMIUM):
        return DEBIAN_CHROMIUM, ""
    return None, f"no Chromium: {DEBIAN_CHROMIUM} is missing and `chromium` is not on PATH"


@dataclass(frozen=True)
class Gate:
    """Whether the browser layer runs.

    ``chromium``: the executable to launch, None when the layer cannot run;
    ``reason``: why it cannot ("" when it can); ``must_fail``: CI is set, so a
    missing browser fails the run instead of skipping it.
    """

    chromium: str | None
    reason: str
    must_fail: bool


def browser_gate(env: Mapping[str, str], playwright_installed: bool | None = None) -> Gate:
    """Decide from ``env`` (and whether Playwright is importable) if the layer can run.

    ``playwright_installed``: None looks it up; tests pass a bool.
    """
    if playwright_installed is None:
        playwright_installed = importlib.util.find_spec("playwright") is not None
    # CI must never pass green with the browser layer silently skipped.
    must_fail = bool(env.get("CI", ""))
    chromium, reason = find_chromium(env)
    if chromium is not None and not playwright_installed:
        chromium, reason = None, "playwright for Python is not installed (pip install playwright)"
    if chromium is None:
        hint = " (CI is set, so the browser layer is required)" if must_fail else ""
        return Gate(None, f"browser layer cannot run: {reason}{hint}", must_fail)
    return Gate(chromium, "", must_fail)
