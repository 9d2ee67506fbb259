"""The live view shows the longest token an explorer accepts whole: 32 of them, of
``MAX_TOKEN_CHARS`` of the widest letter, in the heatmap's headers and beside the bars,
at 1280 and 390 px, the query's marked in bold. The page is the explorers' CSS over the
elements heatmap.js and panels.js build for them (a header cell per token, a row label and a
bar label per token, each holding the token and its marked text, one shown)."""

from __future__ import annotations

from html import escape

import pytest
from playwright.sync_api import Browser

from attnlib._validate import MAX_TOKEN_CHARS, MAX_TOKENS
from attnlib.widgets import frontend

TOKENS = ["W" * (MAX_TOKEN_CHARS - 2) + f"{k:02d}" for k in range(MAX_TOKENS)]


def _stacked(token: str, marked: str) -> str:
    """A label as dom.js `stacked` builds it: the token, and its marked text, one shown."""
    return (
        f"<span class='attnlib-stack'><span class='attnlib-plain'>{escape(token)}</span>"
        f"<span class='attnlib-marked'>{escape(marked)}</span></span>"
    )


def _page() -> str:
    # The first row and the first bar are the query's: their marked, bold, text is shown.
    cols = "".join(f"<th scope='col'>{escape(t)}</th>" for t in TOKENS)
    cells = "<td>0.03</td>" * len(TOKENS)
    rows = "".join(
        f"<tr{' class=attnlib-highlight-row' if k == 0 else ''}><th scope='row'>"
        f"{_stacked(t, chr(0x25B6) + ' ' + t)}</th>{cells}</tr>"
        for k, t in enumerate(TOKENS)
    )
    bars = "".join(
        f"<div class='attnlib-bar-row{' attnlib-query-mark' if k == 0 else ''}'>"
        f"<span class='attnlib-bar-label'>{_stacked(t, t)}</span>"
        "<span class='attnlib-bar' style='transform: scaleX(0.4)'></span>"
        "<span class='attnlib-bar-value'>0.0312</span></div>"
        for k, t in enumerate(TOKENS)
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
                e.innerText,
            ])"""
        )
    finally:
        page.close()
    assert len(shown) == 3 * len(TOKENS)
    assert [text for text, whole, _ in shown if not whole] == []
    # One text shown per label: the marked one on the query's row only.
    rows = ["\u25b6 " + TOKENS[0], *TOKENS[1:]]
    assert [seen for _, _, seen in shown] == [*TOKENS, *rows, *TOKENS]
