"""The cards a reader is shown about their work, in JupyterLab's light and dark themes at 1280
and 390 px: verdicts (Correct, a named mistake with its fix folded, a plain "not quite", not
attempted, a prediction's first-wrong nudge), checkpoints passed and failed, and the progress
table of a notebook with some verdicts recorded.

One notebook (written into the session's copy of notebooks/) makes every card with the real
``check()``, ``checkpoint()`` and ``attnlib.progress()`` in one kernel, its progress record in
a folder of its own; it is run once, then each of the four looks is set in the same page
(theme by Lab's own command, width by the viewport). In each: axe-core finds nothing serious
or critical in the cards, no card is wider than its box or reaches past the notebook, no word
is drawn on two lines, and a screenshot of each card lands in tests/artifacts/.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .pages import ROOT, WatchedPage, assert_healthy
from .process import ServerProcess
from .steps import open_and_run_all, shut_down_sessions

GALLERY = "cards_gallery.ipynb"
CARD = ".jp-OutputArea-output .attnlib-card"
ARTIFACTS = ROOT / "tests" / "artifacts"
# axe-core as `make npm` fetches it (pinned in tools/build_site.py), which `make test` runs first.
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402

AXE = build_site.package_dir("axe-core") / "axe.min.js"
PHONE = 390
THEME_TIMEOUT_MS = 30_000

# The kernel's own progress record (not the session's), and the names the checks look up.
SETUP = """import os
os.environ["ATTNLIB_PROGRESS_DIR"] = {folder!r}
import attnlib
from attnlib.attention import attention_scores, softmax
from attnlib.data import example_inputs
from attnlib.exercises import check, checkpoint

inputs = example_inputs()
attn_weights = softmax(attention_scores(inputs))


def dot(a, b):
    return a * b  # a first try that forgets the sum: "met on the way" in the table


_ = check("01.dot")"""

# (name, cell, the card's status class, its title): one card per cell, in this order.
CARDS = [
    ("correct", 'def dot(a, b):\n    return (a * b).sum()\n\ncheck("01.dot")', "correct",
     "Correct"),
    # The named mistake whose folded fix names attn_weights[1]: once broken mid-word.
    ("mistake-folded", 'context_vec_2 = attn_weights[2] @ inputs\ncheck("04.running_sum")',
     "wrong", "Not quite"),
    ("mistake-seen-on", 'def attention_scores(inputs):\n    return inputs.T @ inputs\n\n'
     'check("02.matmul")', "wrong", "Not quite"),
    ("wrong", 'repeats = 99\ncheck("01.repeats")', "wrong", "Not quite"),
    ("not-attempted", 'query = ...\ncheck("01.query")', "pending", "Not attempted yet"),
    # A prediction's first wrong answer whose explanation would give the answer: a nudge.
    ("prediction-nudge", 'answer = "one"\ncheck("01.highest")', "wrong", "Not quite"),
    ("checkpoint-passed", 'checkpoint("01.dot", dot, "the notebook\'s dot")', "correct",
     "Checkpoint passed"),
    ("checkpoint-failed", 'checkpoint("04.running_sum", attn_weights[2] @ inputs, '
     '"the notebook\'s context vector of journey")', "wrong", "Checkpoint failed"),
    ("progress-table", 'attnlib.progress("01")', "info",
     "Your progress: 1 of 5 exercises of notebook 01 done"),
]  # fmt: skip

LOOKS = [
    pytest.param((1280, False), id="1280-light"),
    pytest.param((PHONE, False), id="390-light"),
    pytest.param((1280, True), id="1280-dark"),
    pytest.param((PHONE, True), id="390-dark"),
]


def _notebook(folder: Path) -> dict[str, Any]:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    sources = [SETUP.format(folder=str(folder)), *(source for _, source, _, _ in CARDS)]
    return {
        "cells": [{**cell, "source": source} for source in sources],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture(scope="module")
def axe_script() -> str:
    """axe-core's script (an npm package pinned in tools/build_site.py; `make npm` fetches it)."""
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"axe-core is not installed ({AXE}): run `make npm`")
        pytest.skip(f"axe-core is not installed ({AXE}): run `make npm`")
    return AXE.read_text(encoding="utf-8")


# Lab's theme, as painted: whether the page's background (--jp-layout-color0) is dark.
_PAINTED_DARK = """() => {
    const probe = document.createElement("div");
    probe.style.background = "var(--jp-layout-color0)";
    document.body.appendChild(probe);
    const [r, g, b] = getComputedStyle(probe).backgroundColor.match(/\\d+/g).map(Number);
    probe.remove();
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}"""


def _set_theme(page: Any, dark: bool) -> None:
    """Lab's own theme command (as its Settings menu does), then wait until it is painted."""
    theme = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })",
        theme,
    )
    page.wait_for_function(
        "(light) => document.body.dataset.jpThemeLight === light",
        arg="false" if dark else "true",
        timeout=THEME_TIMEOUT_MS,
    )
    page.wait_for_function(f"() => ({_PAINTED_DARK})() === {json.dumps(dark)}")


@pytest.fixture(scope="module")
def lab_cards(
    browser: Any, lab_server: ServerProcess, notebooks_copy: Path, run_dir: Path
) -> Iterator[WatchedPage]:
    """The cards' notebook run once in JupyterLab (its own progress record), in one page."""
    folder = run_dir / "cards-progress"
    folder.mkdir()
    (notebooks_copy / GALLERY).write_text(json.dumps(_notebook(folder)))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    watched = WatchedPage.watch(context.new_page())
    try:
        open_and_run_all(watched.page, lab_server, GALLERY, len(CARDS) + 1)
        watched.page.locator(CARD).nth(len(CARDS) - 1).wait_for(state="visible")
        yield watched
        # Lab keeps the theme in its settings: the session's later tests get light again.
        _set_theme(watched.page, False)
    finally:
        shut_down_sessions(lab_server)
        context.close()


@pytest.fixture(scope="module", params=LOOKS)
def shown(request: pytest.FixtureRequest, lab_cards: WatchedPage) -> tuple[WatchedPage, str]:
    """The cards' page at one (width, dark) look; its name, as "390-dark"."""
    width, dark = request.param
    page = lab_cards.page
    _set_theme(page, dark)
    page.set_viewport_size({"width": width, "height": 900})
    # A phone has no room for Lab's side panels: the notebook takes the width.
    shell = "window.jupyterapp.shell"
    page.evaluate(f"() => {{ {shell}.collapseLeft(); {shell}.collapseRight(); }}" if width ==
                  PHONE else f"() => {{ {shell}.expandLeft(); }}")  # fmt: skip
    page.wait_for_timeout(300)  # Lab lays the panels out on the next frames
    return lab_cards, f"{width}-{'dark' if dark else 'light'}"


def _cards(page: Any) -> list[Any]:
    cards = page.locator(CARD).all()
    assert len(cards) == len(CARDS), f"{len(cards)} cards shown, {len(CARDS)} made"
    return cards


def _unfold(page: Any) -> None:
    """Open every folded part: what is folded is measured and checked too."""
    page.evaluate(
        f"() => document.querySelectorAll('{CARD} details').forEach((d) => {{ d.open = true; }})"
    )


def _fold(page: Any) -> None:
    page.evaluate(
        f"() => document.querySelectorAll('{CARD} details').forEach((d) => {{ d.open = false; }})"
    )


@pytest.mark.browser
def test_each_card_is_the_one_its_cell_made_and_is_photographed(
    shown: tuple[WatchedPage, str],
) -> None:
    """Each cell's card has the status and title of its verdict (so the looks below are of
    the cards meant); a screenshot of each, folded and (where it folds) unfolded."""
    watched, look = shown
    page = watched.page
    _fold(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for (name, _, status, title), card in zip(CARDS, _cards(page), strict=True):
        classes = card.get_attribute("class").split()
        assert f"attnlib-card-{status}" in classes, f"{name}: {classes}"
        shown_title = card.locator(".attnlib-card-title").inner_text()
        assert shown_title.lstrip("✓✗○!i ").strip() == title, f"{name}: {shown_title!r}"
        card.scroll_into_view_if_needed()
        card.screenshot(path=ARTIFACTS / f"card-{look}-{name}.png")
        if card.locator("details").count():
            card.locator("details summary").first.click()
            assert card.locator("details").first.evaluate("(d) => d.open")
            card.screenshot(path=ARTIFACTS / f"card-{look}-{name}-open.png")
    page.screenshot(path=ARTIFACTS / f"cards-{look}.png")
    assert_healthy(watched, f"cards, {look}")


@pytest.mark.browser
def test_the_named_mistake_folds_its_fix_and_the_nudge_keeps_the_answer(
    shown: tuple[WatchedPage, str],
) -> None:
    """What the reader sees: the fix behind "Hint: how to fix it", closed until asked for;
    the prediction's first wrong try names its mistake with the nudge in sight, unfolded,
    and no "Seen on" or answer to open."""
    page = shown[0].page
    _fold(page)
    cards = dict(zip((name for name, *_ in CARDS), _cards(page), strict=True))
    folded = cards["mistake-folded"]
    summary = folded.locator("details summary")
    assert summary.inner_text() == "Hint: how to fix it"
    hint = folded.locator("details p")
    assert not hint.is_visible(), "the fix is shown before it is asked for"
    summary.click()
    assert hint.is_visible() and "use attn_weights[1]" in hint.inner_text()
    nudge = cards["prediction-nudge"]
    assert nudge.locator("details").count() == 0
    text = nudge.inner_text()
    assert "Likely mistake: the token itself taken as its highest score" in text, text
    assert "Hint: think the question through again" in text, text
    seen = cards["mistake-seen-on"].inner_text()
    assert "Seen on: the book's 6 tokens" in seen, seen
    # A failed checkpoint's reason on lines of their own, its fix in sight (not folded).
    lines = cards["checkpoint-failed"].locator("p").all_inner_texts()
    assert lines[2:4] == [
        "Likely mistake: the wrong query index (off by one?)",
        "Hint: this is the context vector of index 2 ('starts', x⁽³⁾), not of index 1 "
        "('journey', x⁽²⁾). Python counts from 0, the book from 1: use attn_weights[1] (and "
        "inputs[1] as the query).",
    ], lines


@pytest.mark.browser
def test_the_progress_table_shows_what_was_recorded(shown: tuple[WatchedPage, str]) -> None:
    """The kernel's own record: 01.dot done after a named mistake, 01.highest and 01.repeats
    not yet, 01.query and 01.loop_body not attempted (a stub and an unchecked cell)."""
    table = shown[0].page.locator(CARD).nth(len(CARDS) - 1)
    rows = table.locator("tbody tr").evaluate_all(
        "(rows) => rows.map((r) => Array.from(r.cells, (c) => c.innerText.split('\\n')[0]))"
    )
    assert rows == [
        ["01_scores_loops.ipynb: 1 of 5 done"],
        ["01.dot", "✓ done (met on the way: the products not added up)"],
        ["01.query", "not attempted"],
        ["01.loop_body", "not attempted"],
        ["01.highest", "not yet: the token itself taken as its highest score"],
        ["01.repeats", "not yet: not quite (no named mistake)"],
    ], rows
    # Read from the left, as the cards' text: not right-aligned as Lab's number tables.
    aligned = table.locator("th, td").evaluate_all(
        "(cells) => [...new Set(cells.map((c) => getComputedStyle(c).textAlign))]"
    )
    assert aligned in (["left"], ["start"]), aligned
    # Lab resolves the link beside the notebook (and opens it in Lab when clicked).
    href = table.locator("a").first.get_attribute("href")
    assert href.split("?")[0].endswith("/files/01_scores_loops.ipynb"), href


@pytest.mark.browser
def test_axe_finds_nothing_serious_in_the_cards(
    shown: tuple[WatchedPage, str], axe_script: str
) -> None:
    """axe-core over the cards only (JupyterLab's own interface is not the course's), folded
    parts open: nothing critical or serious, contrast of every text included."""
    watched, look = shown
    page = watched.page
    _unfold(page)
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(content=axe_script)
    found = page.evaluate(
        """async (sel) => (await axe.run({ include: [[sel]] }, { resultTypes: ["violations"] }))
            .violations.filter((v) => ["critical", "serious"].includes(v.impact))
            .map((v) => ({ id: v.id, impact: v.impact,
                           nodes: v.nodes.slice(0, 3).map((n) => [n.target.join(" "),
                                                                 n.failureSummary]) }))""",
        ".attnlib-card",
    )
    assert not found, f"{look}: " + json.dumps(found, indent=1)


# Every card (folded parts open) wider than its box, or a part of it past the notebook's right
# edge or the window's.
_OVERFLOW = """(sel) => {
    const out = [];
    const view = document.documentElement.clientWidth;
    document.querySelectorAll(sel).forEach((card, k) => {
        if (card.scrollWidth > card.clientWidth)
            out.push(`card ${k}: ${card.scrollWidth} px of content in ${card.clientWidth} px`);
        const edge = Math.min(view, card.closest(".jp-Notebook").getBoundingClientRect().right);
        for (const el of [card, ...card.querySelectorAll("*")]) {
            const r = el.getBoundingClientRect();
            if (r.width > 0 && r.right > edge + 0.5)
                out.push(`card ${k}: <${el.tagName.toLowerCase()}> "${
                    el.textContent.slice(0, 40)}" ends at ${r.right.toFixed(1)} px, ` +
                    `past the notebook's edge at ${edge.toFixed(1)} px`);
        }
    });
    return out;
}"""


@pytest.mark.browser
def test_no_card_runs_past_its_box_or_the_notebook(shown: tuple[WatchedPage, str]) -> None:
    watched, look = shown
    _unfold(watched.page)
    found = watched.page.evaluate(_OVERFLOW, CARD)
    assert not found, f"{look}: {found[:6]}"


# Words drawn on more than one line: each run of non-space characters of each text node of
# the cards (folded parts open), its boxes' tops; a word broken after a hyphen or a dash (a
# break a reader expects) is not counted. Also any element that lets a word break anywhere.
_BROKEN = """(sel) => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const lineOf = (node, i) => {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        return r ? Math.round(r.top) : null;
    };
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.parentElement.closest(sel)) continue;
        for (const m of node.data.matchAll(/\\S+/g)) {
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
            if (tops.size < 2) continue;
            for (let i = 1; i < m[0].length; i += 1) {
                const a = lineOf(node, m.index + i - 1), b = lineOf(node, m.index + i);
                const after = "-\u2010\u2013\u2014/".includes(m[0][i - 1]);
                if (a !== null && b !== null && b > a && !after)
                    out.push(`"${m[0].slice(0, i)}|${m[0].slice(i)}"`);
            }
        }
    }
    document.querySelectorAll(sel).forEach((card) => {
        for (const el of [card, ...card.querySelectorAll("*")]) {
            const s = getComputedStyle(el);
            if (s.wordBreak !== "normal" || s.overflowWrap === "anywhere")
                out.push(`<${el.tagName.toLowerCase()}> word-break: ${s.wordBreak}, ` +
                         `overflow-wrap: ${s.overflowWrap}`);
        }
    });
    return out;
}"""


@pytest.mark.browser
def test_no_word_is_broken_mid_word(shown: tuple[WatchedPage, str]) -> None:
    """At 390 px the long lines wrap, and only between words: attn_weights[1], inputs.T and
    01_scores_loops.ipynb each on one line."""
    watched, look = shown
    _unfold(watched.page)
    found = watched.page.evaluate(_BROKEN, CARD)
    assert not found, f"{look}: {found[:8]}"
