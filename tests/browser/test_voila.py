"""Notebook 04 served as an app by Voila: no code shown, and the QueryExplorer is live."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cases import QUERY_EXPLORER_04
from .pages import STDERR, WatchedPage, assert_healthy, assert_nothing_broken, code_sources
from .process import ServerProcess
from .servers import voila_page
from .steps import check_explorer

# Voila executes the whole notebook on the server before the page is complete (~20 s).
RENDER_TIMEOUT_MS = 120_000
# Anything that would show code: code cells' input areas, prompts, editors. (Markdown
# cells have a .jp-InputArea too: their rendered text, which must stay.)
CODE = ".jp-CodeCell .jp-InputArea, .jp-InputPrompt, .jp-CodeMirrorEditor, .cm-editor, .CodeMirror"


def _nonempty_sources(path: Path) -> list[str]:
    """The non-empty code cells' sources, each as one whitespace-normalised string."""
    return [" ".join(src.split()) for src in code_sources(path) if src.strip()]


@pytest.mark.browser
def test_query_explorer_in_voila(
    voila_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """The app hides the code, shows no error, and the slider moves the query."""
    page, case = watched_page.page, QUERY_EXPLORER_04
    page.goto(voila_page(voila_server, case.notebook), wait_until="load", timeout=RENDER_TIMEOUT_MS)
    # The explorer, or an error output (then fail at once, with it, not after a timeout).
    first = page.locator(f"{case.root}, {STDERR}").first
    first.wait_for(state="visible", timeout=RENDER_TIMEOUT_MS)
    assert_nothing_broken(page, "Voila page")

    shown = page.locator(CODE).evaluate_all(
        "(els) => els.filter((el) => el.getClientRects().length > 0).length"
    )
    assert shown == 0, f"Voila shows {shown} code input element(s): sources should be hidden"
    body = " ".join(page.locator("body").inner_text().split())
    leaked = [src for src in _nonempty_sources(notebooks_copy / case.notebook) if src in body]
    assert not leaked, f"code cells visible as text in the Voila page: {leaked}"

    check_explorer(page, case)
    watched_page.screenshot(f"voila-{case.stem}")
    assert_healthy(watched_page, "Voila page")
