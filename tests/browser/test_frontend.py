"""The explorers drawn in the browser: 08 in Voila, and the sweep.

Notebooks 01, 03, 04, 06 and 08 are driven in ``test_lab.py`` (their keyboard
cases, then random settings, and 04 and 08 with their kernel shut down); the sweep drives
every explorer of every notebook through the random settings of ``plans.SETTINGS``: the
notebooks of ``test_lab.py``'s check-all cases there, in the page of their Run All
(``plans.SWEPT_BY_LAB_CASES``), the others here (07, the one explorer without a keyboard
case, and 08), for ``make check-all``, with the second notebook served by Voila (08).
`make test` keeps here the sweep's floor; what the others check is said beside each.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from .pages import WatchedPage, assert_healthy, assert_nothing_broken, code_sources
from .plans import EXPLORER, FEW, SETTINGS, SWEPT_BY_LAB_CASES, explorers
from .process import ServerProcess
from .servers import voila_page
from .settings import check_random_settings
from .steps import open_and_run_all, shut_down_sessions

SENTENCES = "08_explorer.ipynb"
# Voila executes the whole notebook on the server before the page is complete.
RENDER_TIMEOUT_MS = 120_000


def test_at_least_50_random_settings_are_checked() -> None:
    """The issue's floor for the sweep: 50 random settings, counting one explorer each."""
    assert sum(SETTINGS.values()) >= 50


def _run_and_check(
    lab: ServerProcess, copy: Path, watched: WatchedPage, notebook: str, settings: int
) -> None:
    """Run All of ``notebook`` in Lab, then ``settings`` random settings of each explorer."""
    page = watched.page
    try:
        open_and_run_all(page, lab, notebook, len(code_sources(copy / notebook)))
        assert_nothing_broken(page, notebook)
        rng = random.Random(notebook)
        for k, root in enumerate(explorers(page)):
            check_random_settings(page, root, settings, rng, f"{notebook} #{k}")
        watched.screenshot(f"lab-{Path(notebook).stem}")
        assert_healthy(watched, notebook)
    finally:
        shut_down_sessions(lab)


# 07's explorer (two heads): its Run All in JupyterLab and its random settings are those of its
# share of the sweep below (once also a test of its own with a few, a second Run All). In
# `make test` 07's explorer moves on its site page (as its view), and a four-head explorer runs
# in JupyterLab (the gallery of test_explorers_a11y).


@pytest.mark.browser
@pytest.mark.check_all
@pytest.mark.parametrize("notebook", sorted(set(SETTINGS) - set(SWEPT_BY_LAB_CASES)))
def test_random_settings_sweep_in_lab(
    lab_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage, notebook: str
) -> None:
    """Every explorer of ``notebook`` through its share of the sweep, each drawing its view."""
    _run_and_check(lab_server, notebooks_copy, watched_page, notebook, SETTINGS[notebook])


@pytest.mark.browser
# In `make check-all`: `make test` serves 04 by Voila (test_voila) and the gallery, a sentence
# explorer among its kinds (test_explorers_a11y), and moves 08's explorers in JupyterLab
# (test_lab) and on its site page.
@pytest.mark.check_all
def test_sentence_explorer_in_voila(voila_server: ServerProcess, watched_page: WatchedPage) -> None:
    """Voila serves 08: every explorer drawn, and each follows its controls as its view."""
    page, where = watched_page.page, f"Voila {SENTENCES}"
    page.goto(voila_page(voila_server, SENTENCES), wait_until="load", timeout=RENDER_TIMEOUT_MS)
    page.locator(f"{EXPLORER} .attnlib-heatmap").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    assert_nothing_broken(page, where)
    rng = random.Random(where)
    for k, root in enumerate(explorers(page)):
        check_random_settings(page, root, FEW, rng, f"{where} #{k}")
    watched_page.screenshot("voila-08")
    assert_healthy(watched_page, where)
