"""The explorers drawn in the browser: notebook 07 in JupyterLab, notebook 08 in Voila.

Notebooks 01, 03, 04, 06 and 08 are driven in ``test_lab.py`` (their keyboard
cases, then random settings from ``plans.py``, and 04 and 08 with their kernel
shut down); this module adds the one explorer without a keyboard case (07) and
the second notebook served by Voila (08).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import servers
from .pages import WatchedPage, assert_healthy, assert_nothing_broken, code_sources
from .plans import EXPLORER, SETTINGS, explorers
from .process import ServerProcess
from .settings import check_random_settings
from .steps import open_and_run_all, shut_down_sessions

MULTI_HEAD = "07_multi_head_attention.ipynb"
SENTENCES = "08_explorer.ipynb"
# Voila executes the whole notebook on the server before the page is complete.
RENDER_TIMEOUT_MS = 120_000
VOILA_SETTINGS = 3


def test_at_least_50_random_settings_are_checked() -> None:
    """The issue's floor: 50 random settings drawn and compared, counting one explorer each."""
    assert sum(SETTINGS.values()) >= 50


@pytest.mark.browser
def test_multi_head_explorer_in_lab(
    lab_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """Run All of 07, then random settings of its two-head explorer, each drawn as its view."""
    page, where = watched_page.page, MULTI_HEAD
    try:
        open_and_run_all(
            page, lab_server, MULTI_HEAD, len(code_sources(notebooks_copy / MULTI_HEAD))
        )
        assert_nothing_broken(page, where)
        rng = random.Random(MULTI_HEAD)
        for k, root in enumerate(explorers(page)):
            check_random_settings(page, root, SETTINGS[MULTI_HEAD], rng, f"{where} #{k}")
        watched_page.screenshot("lab-07-multi-head")
        assert_healthy(watched_page, where)
    finally:
        shut_down_sessions(lab_server)


@pytest.fixture(scope="module")
def voila_08(
    chromium_executable: str, notebooks_copy: Path, run_dir: Path
) -> Iterator[ServerProcess]:
    """Voila serving the copy of notebook 08 (its own folder for kernel connection files)."""
    folder = run_dir / "voila-08"
    folder.mkdir()
    with servers.voila(notebooks_copy / SENTENCES, folder) as server:
        yield server


@pytest.mark.browser
def test_sentence_explorer_in_voila(voila_08: ServerProcess, watched_page: WatchedPage) -> None:
    """Voila serves 08: every explorer drawn, and each follows its controls as its view."""
    page, where = watched_page.page, f"Voila {SENTENCES}"
    page.goto(
        f"{voila_08.url}?token={voila_08.token}", wait_until="load", timeout=RENDER_TIMEOUT_MS
    )
    page.locator(f"{EXPLORER} .attnlib-heatmap").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    assert_nothing_broken(page, where)
    rng = random.Random(where)
    for k, root in enumerate(explorers(page)):
        check_random_settings(page, root, VOILA_SETTINGS, rng, f"{where} #{k}")
    watched_page.screenshot("voila-08")
    assert_healthy(watched_page, where)
