"""Notebook 04 served as an app by Voila: no code shown, and the QueryExplorer is live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import QUERY_EXPLORER_04, ServerProcess, WatchedPage, check_explorer

# Voila executes the whole notebook on the server before the page is complete (~20 s).
RENDER_TIMEOUT_MS = 120_000
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# Anything that would show code: code cells' input areas, prompts, editors. (Markdown
# cells have a .jp-InputArea too: their rendered text, which must stay.)
CODE = ".jp-CodeCell .jp-InputArea, .jp-InputPrompt, .jp-CodeMirrorEditor, .cm-editor, .CodeMirror"


def _code_sources(path: Path) -> list[str]:
    """The code cells' sources, each as one whitespace-normalised string."""
    cells = json.loads(path.read_text())["cells"]
    return [
        " ".join("".join(cell["source"]).split())
        for cell in cells
        if cell["cell_type"] == "code" and "".join(cell["source"]).strip()
    ]


@pytest.mark.browser
def test_query_explorer_in_voila(
    voila_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """The app hides the code, shows no error, and the slider moves the query."""
    page, case = watched_page.page, QUERY_EXPLORER_04
    page.goto(
        f"{voila_server.url}?token={voila_server.token}",
        wait_until="load",
        timeout=RENDER_TIMEOUT_MS,
    )
    page.locator(case.root).first.wait_for(state="visible", timeout=RENDER_TIMEOUT_MS)

    shown = page.locator(CODE).evaluate_all(
        "(els) => els.filter((el) => el.getClientRects().length > 0).length"
    )
    assert shown == 0, f"Voila shows {shown} code input element(s): sources should be hidden"
    body = " ".join(page.locator("body").inner_text().split())
    leaked = [src for src in _code_sources(notebooks_copy / case.notebook) if src in body]
    assert not leaked, f"code cells visible as text in the Voila page: {leaked}"
    errors = page.locator(STDERR).all_inner_texts()
    assert not errors, f"error or stderr output in the Voila page: {errors}"
    broken = page.get_by_text("Error displaying widget").all_inner_texts()
    assert not broken, f"a widget did not render: {broken}"

    check_explorer(page, case)
    watched_page.screenshot(f"voila-{case.stem}")
    assert not watched_page.errors, f"browser console errors: {watched_page.errors}"
