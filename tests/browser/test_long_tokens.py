"""The live view shows the longest token an explorer accepts whole: 32 of them, of
``MAX_TOKEN_CHARS`` of the widest letter, in the heatmap's headers and beside the bars,
at 1280 and 390 px. The page is the explorers' CSS over the elements heatmap.js and
panels.js build for them (a header cell per token, a bar label per token)."""

from __future__ import annotations

from html import escape

import pytest
from playwright.sync_api import Browser

from attnlib._validate import MAX_TOKEN_CHARS, MAX_TOKENS
from attnlib.widgets import frontend

TOKENS = ["W" * (MAX_TOKEN_CHARS - 2) + f"{k:02d}" for k in range(MAX_TOKENS)]


def _page() -> str:
    cols = "".join(f"<th scope='col'>{escape(t)}</th>" for t in TOKENS)
    cells = "<td>0.03</td>" * len(TOKENS)
    rows = "".join(f"<tr><th scope='row'>{escape(t)}</th>{cells}</tr>" for t in TOKENS)
    bars = "".join(
        f"<div class='attnlib-bar-row'><span class='attnlib-bar-label'>{escape(t)}</span>"
        "<span class='attnlib-bar' style='width: 40px'></span><span>0.0312</span></div>"
        for t in TOKENS
    )
    table = f"<table class='attnlib-heatmap'><tr><th class='attnlib-corner'>q</th>{cols}</tr>"
    return (
        f"<style>{frontend.stylesheet()}</style><div class='attnlib-heatmap-scroll'>{table}{rows}"
        f"</table></div><div class='attnlib-bars'>{bars}</div>"
    )


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_every_token_is_shown_whole_in_headers_and_bar_labels(browser: Browser, width: int):
    page = browser.new_page(viewport={"width": width, "height": 800})
    try:
        page.set_content(_page())
        # Whole: nothing scrolls inside the element (an ellipsis or a clipped line would).
        shown = page.evaluate(
            """() => [...document.querySelectorAll("th[scope], .attnlib-bar-label")].map(e => [
                e.textContent,
                e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1,
            ])"""
        )
    finally:
        page.close()
    assert len(shown) == 3 * len(TOKENS)
    assert [text for text, whole in shown if not whole] == []
