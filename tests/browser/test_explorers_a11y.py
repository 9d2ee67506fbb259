"""Every kind of explorer on one Voila page, for readers: named controls, announced changes,
axe-core, and any width (1280 and 390 px) in the light and the dark theme.

The page (a notebook written into the session's copy of notebooks/) shows each kind at a
hard size: the loop, the softmax axis, the query explorer, four heads with a causal mask,
a sentence of 32 tokens, and the TrainingExplorer. One Voila render serves the tests of
one width and theme.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import book  # tests/book.py: pytest puts tests/ on sys.path
import pytest

from .dom import HANDLES_OVER_NAMES, SHOWN_TEXT
from .pages import CACHE, ROOT, STDERR, WatchedPage, assert_healthy
from .process import ServerProcess
from .servers import voila_page
from .steps import open_and_run_all, shut_down_sessions

GALLERY = "explorers_gallery.ipynb"
RENDER_TIMEOUT_MS = 120_000
EXPLORER = ".attnlib-explorer"
# 32 words: the longest sentence an explorer accepts.
LONG_SENTENCE = " ".join(f"w{k}" for k in range(32))
# Each cell shows its explorer's widget: what JupyterLab and Voila draw of an explorer's
# display, without the still picture the display also carries for pages without widget code
# (never drawn here; tested in test_saved_pictures.py and test_explorer_token_limit.py). The
# pictures took most of the kernel's time, the 32-token one alone 8-20 s, at every render.
CELLS = [
    "from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, "
    "SoftmaxAxisExplorer",
    "LoopStepper().widget",
    "SoftmaxAxisExplorer().widget",
    "QueryExplorer().widget",
    "AttentionExplorer(num_heads=4, d_out=16, causal=True).widget",
    f"AttentionExplorer({LONG_SENTENCE!r}, num_heads=16, d_out=64).widget",
    # Notebook 10's explorer (its head a drop-down) on made-up snapshots of 2 heads, at
    # notebook 10's 16 words, with a loss curve.
    "import torch\n"
    "from attnlib.attention import causal_mask\n"
    "from attnlib.widgets import TrainingExplorer\n"
    "torch.manual_seed(0)\n"
    "scores = 3 * torch.randn(3, 1, 2, 16, 16)\n"
    "snapshots = torch.softmax(scores.masked_fill(causal_mask(16), -torch.inf), dim=-1)\n"
    "words = 'I HAD always thought Jack Gisburn rather a cheap genius -- though a good fellow "
    "enough'.split()\n"
    "TrainingExplorer(snapshots, words, [0, 10, 20], losses=[7 / (1 + k / 5) for k in range(21)])"
    ".widget",
]
# The smallest track a slider may have, and the phone's width.
MIN_TRACK_PX = 120
PHONE = 390
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "tests" / "artifacts"


def _notebook() -> dict[str, Any]:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    return {
        "cells": [{**cell, "source": source} for source in CELLS],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture(scope="session")
def gallery(notebooks_copy: Path) -> str:
    """The gallery notebook, written into the session's notebooks' copy: its name."""
    (notebooks_copy / GALLERY).write_text(json.dumps(_notebook()))
    return GALLERY


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script (npm, pinned in package-lock.json), installed with `npm ci` if missing."""
    if not AXE.exists():
        npm = shutil.which("npm")
        if npm is None:
            if os.environ.get("CI"):
                pytest.fail("npm is not installed (CI is set): axe-core is needed")
            pytest.skip("npm is not installed: axe-core cannot be installed")
        env = {**os.environ, "npm_config_cache": str(CACHE / "npm-cache")}
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, env=env, check=True)
    return AXE.read_text(encoding="utf-8")


def _open(
    browser: Any, server: ServerProcess, notebook: str, width: int, dark: bool
) -> Iterator[WatchedPage]:
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme="dark" if dark else "light"
    )
    watched = WatchedPage.watch(context.new_page())
    url = voila_page(server, notebook) + ("&theme=dark" if dark else "")
    try:
        watched.page.goto(url, wait_until="load", timeout=RENDER_TIMEOUT_MS)
        count = len(CELLS) - 1
        watched.page.locator(f"{EXPLORER}, {STDERR}").nth(count - 1).wait_for(
            state="visible", timeout=RENDER_TIMEOUT_MS
        )
        # controls.js names the controls once ipywidgets has drawn them.
        watched.page.wait_for_function(
            "n => document.querySelectorAll('.attnlib-control-query .noUi-handle[aria-label]')"
            ".length >= n",
            arg=3,
            timeout=30_000,
        )
        yield watched
    finally:
        context.close()


@pytest.fixture(
    scope="module",
    params=[
        # `make test` renders the gallery once, at the phone's width in the dark theme; the
        # light theme is checked there by JupyterLab's run of the same gallery (axe-core at
        # 1400 px, then the fit at 390 px), and the other three renders are in check-all.
        pytest.param((1280, False), id="1280-light", marks=pytest.mark.check_all),
        pytest.param((PHONE, True), id="390-dark"),
        pytest.param((PHONE, False), id="390-light", marks=pytest.mark.check_all),
        pytest.param((1280, True), id="1280-dark", marks=pytest.mark.check_all),
    ],
)
def shown(
    request: pytest.FixtureRequest, browser: Any, voila_server: ServerProcess, gallery: str
) -> Iterator[tuple[WatchedPage, int, bool]]:
    """The gallery in Voila at one (width, dark) setting."""
    width, dark = request.param
    yield from ((page, width, dark) for page in _open(browser, voila_server, gallery, width, dark))


def _shot(watched: WatchedPage, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    watched.page.screenshot(path=path, full_page=True)
    return path


@pytest.mark.browser
def test_the_theme_is_the_one_asked(shown: tuple[WatchedPage, int, bool]) -> None:
    watched, width, dark = shown
    light = watched.page.evaluate("document.body.dataset.jpThemeLight")
    assert light == ("false" if dark else "true"), f"theme: jpThemeLight={light!r}"
    assert_healthy(watched, "gallery")


@pytest.mark.browser
def test_every_control_is_named_with_its_state(shown: tuple[WatchedPage, int, bool]) -> None:
    page = shown[0].page
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('.attnlib-explorer [role=slider]')]
            .filter((h) => !h.getAttribute('aria-label') || !h.getAttribute('aria-valuetext'))
            .map((h) => h.outerHTML.slice(0, 120))"""
    )
    assert not unnamed, f"sliders without a name or a value text: {unnamed}"
    temperatures = page.locator(".attnlib-control-temperature .noUi-handle")
    assert temperatures.first.get_attribute("aria-valuetext") == "1.00"
    pressed = page.evaluate(
        """() => [...document.querySelectorAll('.attnlib-control-dim button')]
            .map((b) => b.getAttribute('aria-pressed'))"""
    )
    # Three explorers with the axis toggle (03, and two AttentionExplorers), dim=-1 pressed.
    assert pressed == ["true", "false"] * 3, pressed
    play = page.evaluate(
        """() => [...document.querySelectorAll('.attnlib-control-play button')]
            .map((b) => b.getAttribute('aria-label'))"""
    )
    assert len(play) >= 3 and all(play), f"Play's buttons: {play}"


@pytest.mark.browser
def test_a_move_is_announced_and_the_query_row_is_current(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    page = shown[0].page
    root = page.locator(".attnlib-query-explorer")
    handle = root.locator(".attnlib-control-query .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    live = root.locator(".attnlib-live")
    page.wait_for_function(
        "el => el.textContent.startsWith('query \u201cstarts')",
        arg=live.element_handle(),
        timeout=5_000,
    )
    text = live.text_content()
    spoken = "query \u201cstarts\u201d, x⁽³⁾, inputs[2]: weights 0.14 0.24 0.23"
    assert text.startswith(spoken), text
    assert handle.get_attribute("aria-valuetext") == "starts: x⁽³⁾, inputs[2]"
    # What the eye reads beside the slider counts as the book does, Python's index after it.
    readout = root.locator(".attnlib-control-query")
    assert readout.locator(".attnlib-readout").text_content() == "starts: x⁽³⁾, inputs[2]"
    assert not readout.locator(".widget-readout").is_visible()  # ipywidgets' bare index
    current = root.locator("table.attnlib-heatmap tr[aria-current=true]")
    assert current.count() == 1 and current.get_attribute("data-row") == "2"
    masked = page.locator(".attnlib-attention-explorer td.attnlib-masked").first
    # Its number is drawn beneath it and named by it: read as masked, not as a weight of 0.
    assert masked.evaluate(SHOWN_TEXT) == "0.0000 masked"
    corner = page.locator(".attnlib-query-explorer th.attnlib-corner")
    assert corner.text_content().strip(), "the heatmap's corner header has no text"


@pytest.mark.browser
def test_the_query_is_marked_alike_in_the_heatmap_the_bars_and_the_blend(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    page = shown[0].page
    root = page.locator(".attnlib-attention-explorer").first
    handle = root.locator(".attnlib-control-query .noUi-handle")
    for query in (2, 3):
        handle.focus()
        handle.press("ArrowRight")
        # One mark per panel, on the query's own token, read as current; none elsewhere.
        marks = [
            ("tr.attnlib-highlight-row", "row"),
            (".attnlib-bars .attnlib-query-mark", "col"),
            (".attnlib-blend tr.attnlib-query-mark", "col"),
        ]
        for selector, key in marks:
            page.wait_for_function(
                "([el, sel, key, q]) => [...el.querySelectorAll(sel)]"
                ".map((n) => n.dataset[key]).join() === String(q)",
                arg=[root.element_handle(), selector, key, query],
                timeout=5_000,
            )
            node = root.locator(selector)
            assert node.get_attribute("aria-current") == "true", selector
            # A visible mark: a frame (outline, border or shadow) in the text colour; a
            # table's row is framed by a box over its cells (underlay.js frameCells).
            framed = node.evaluate(
                """(n) => {
                    const drawn = (c) => {
                        const s = getComputedStyle(c);
                        return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) ||
                            s.boxShadow !== 'none' || parseFloat(s.borderTopWidth) >= 2;
                    };
                    if ([n, ...n.children].some(drawn)) return true;
                    const frame = n.closest('table')?.querySelector('[data-frame="row"]');
                    if (!frame || frame.hidden || !drawn(frame)) return false;
                    const a = frame.getBoundingClientRect();
                    const b = n.querySelector('td').getBoundingClientRect();
                    return Math.abs(a.top - b.top) <= 2 && Math.abs(a.bottom - b.bottom) <= 2;
                }"""
            )
            assert framed, f"{selector}: the query's mark is not drawn"
        assert root.locator("[aria-current=true]").count() == 3


@pytest.mark.browser
def test_a_cell_taken_by_the_keyboard_says_how_it_was_computed(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """The heatmap is one tab stop (a roving tabindex); arrows move between cells, and the
    cell taken shows its details and its formula, as MathML with the book's numbers."""
    page = shown[0].page
    root = page.locator(".attnlib-query-explorer")
    grid = root.locator("table.attnlib-heatmap")
    assert grid.get_attribute("role") == "grid"
    stops = grid.locator('td[tabindex="0"]')
    assert stops.count() == 1, "the grid must be one tab stop"
    stops.first.focus()
    row = page.evaluate("() => document.activeElement.dataset.row")
    # From the query's row: to column 0, then right twice and (from row r) down to row 1.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    for _ in range(abs(int(row) - 1)):
        page.keyboard.press("ArrowDown" if int(row) < 1 else "ArrowUp")
    at = page.evaluate("() => ['row', 'col'].map((k) => document.activeElement.dataset[k])")
    assert at == ["1", "2"], at
    assert grid.locator('td[tabindex="0"]').count() == 1
    details = root.locator(".attnlib-cell-details")
    focused = grid.locator('td[data-row="1"][data-col="2"]')
    assert focused.get_attribute("aria-describedby") == details.get_attribute("id")
    # The book's numbers and names: α₂,₃ = attn_weights[1, 2] = 0.2333, from the score 1.4754.
    text = details.text_content()
    assert text.startswith("α₂,₃ = attn_weights[1, 2] = 0.2333: query x⁽²⁾ (journey)"), text
    # The formula stays in the query's row (the book's row q + 1), in the column taken.
    q = int(root.locator("tr.attnlib-highlight-row").get_attribute("data-row"))
    math = root.locator(".attnlib-math math").first
    formula = "".join(math.text_content().split())
    assert formula.startswith(f"α{q + 1},3="), formula
    score, weight = book.ATTN_SCORES[q][2], book.ATTN_WEIGHTS[q][2]
    assert f"{score:.4f}" in formula and f"{weight:.4f}" in formula, formula
    # Tab leaves the grid: the next stop is outside it.
    page.keyboard.press("Tab")
    assert not page.evaluate("() => !!document.activeElement.closest('table.attnlib-heatmap')")


# The pixels beneath heatmap cell `td` (the underlay): its fill, taken in the cell's corner,
# and the colours along its middle line, where its number is drawn.
_PIXELS = """async (td) => {
    td.scrollIntoView({ block: "nearest", inline: "center" });
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    const layer = td.attnlibLayer;
    const g = layer.geometry;
    const k = td.attnlibIndex;
    const [x, w] = g.cols[k % layer.cols];
    const [y, h] = g.rows[Math.floor(k / layer.cols)];
    // Read from a copy: the explorer's own canvas is never read back.
    const copy = document.createElement("canvas");
    copy.width = layer.canvas.width;
    copy.height = layer.canvas.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(layer.canvas, 0, 0);
    const at = (X, Y) => Array.from(ctx.getImageData(
        Math.round((X - layer.window[0]) * g.dpr), Math.round(Y * g.dpr), 1, 1).data.slice(0, 3));
    const line = [];
    for (let X = x + 3; X < x + w - 3; X += 1) line.push(at(X, y + h / 2));
    return { fill: at(x + 3, y + 3), line };
}"""


def _off(rgb: list[int], value: float, low: float, high: float) -> int:
    """How far ``rgb`` is from matplotlib's viridis at ``value`` on low..high (units of 255)."""
    import matplotlib

    expected = matplotlib.colormaps["viridis"]((value - low) / (high - low))[:3]
    return max(abs(a - round(255 * b)) for a, b in zip(rgb, expected, strict=True))


# 129 levels over a 17-stop map: a few units of 255 from matplotlib's 256 stops.
COLOUR_SLACK = 8


@pytest.mark.browser
def test_the_heatmap_shows_each_weight_in_its_colour_and_its_number(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """Each weight gets viridis at its place on the weights' scale, 0 to 1 (as matplotlib
    computes it), and its number: written into the cells of the course's 6-token grid; drawn
    on the canvas beneath the 32-token grid (its fill, and pixels of another colour along its
    middle)."""
    from attnlib.widgets import AttentionExplorer, QueryExplorer

    page = shown[0].page
    weights = QueryExplorer().view.attn_weights
    # Weights on one fixed scale, 0 to 1: a colour is one weight in every explorer and state.
    low, high = 0.0, 1.0
    grid = page.locator(".attnlib-query-explorer table.attnlib-heatmap")
    for i, j in [(0, 0), (1, 2), (4, 5), (5, 1)]:
        fill, text = grid.locator(f'td[data-row="{i}"][data-col="{j}"]').evaluate(
            "(td) => [getComputedStyle(td).backgroundColor, td.textContent]"
        )
        rgb = [int(c) for c in fill[fill.index("(") + 1 : fill.index(")")].split(",")[:3]]
        off = _off(rgb, float(weights[i, j]), low, high)
        assert off <= COLOUR_SLACK, f"6 tokens, cell ({i}, {j}): fill {fill}"
        assert text == f"{float(weights[i, j]):.4f}", f"6 tokens, cell ({i}, {j}): {text!r}"
    weights = AttentionExplorer(LONG_SENTENCE, num_heads=16, d_out=64).view.attn_weights
    low, high = 0.0, 1.0
    grid = page.locator(".attnlib-attention-explorer").nth(1).locator("table.attnlib-heatmap")
    for i, j in [(0, 0), (3, 20), (17, 5), (31, 31)]:
        pixels = grid.locator(f'td[data-row="{i}"][data-col="{j}"]').evaluate(_PIXELS)
        off = _off(pixels["fill"], float(weights[i, j]), low, high)
        assert off <= COLOUR_SLACK, f"32 tokens, cell ({i}, {j}): fill {pixels['fill']}"
        fill = pixels["fill"]
        ink = [p for p in pixels["line"] if sum(map(abs, map(int.__sub__, p, fill))) > 150]
        assert len(ink) >= 6, f"32 tokens, cell ({i}, {j}): no number drawn on {fill}"


# Where every cell of the heatmap is, relative to its table; each underlay's canvas width
# against the width of its scroller's box.
_PLACES = """(table) => {
    const origin = table.getBoundingClientRect();
    const cells = Array.from(table.querySelectorAll("td")).map((td) => {
        const box = td.getBoundingClientRect();
        return [box.left - origin.left, box.top - origin.top, box.width, box.height];
    });
    const canvases = Array.from(table.querySelectorAll("canvas")).map((canvas) => {
        const layer = canvas.parentElement.attnlibLayer;
        return [canvas.getBoundingClientRect().width, layer.scroller.clientWidth];
    });
    return { cells, canvases, masked: table.querySelectorAll("td.attnlib-masked").length };
}"""


@pytest.mark.browser
def test_a_move_that_changes_every_number_moves_no_cell(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """The 32-token explorer's causal mask changes every weight and sum: no cell of its grid
    moves or changes size (the numbers are pixels beneath them), and its canvases span the
    box in sight, not the whole grid."""
    page = shown[0].page
    root = page.locator(".attnlib-attention-explorer").nth(1)
    table = root.locator("table.attnlib-heatmap")
    table.scroll_into_view_if_needed()
    before = table.evaluate(_PLACES)
    assert before["masked"] == 0, "the 32-token explorer starts without the mask"
    root.locator(".attnlib-control-causal input").first.focus()
    page.keyboard.press("Space")
    page.wait_for_function(
        "(t) => t.querySelectorAll('td.attnlib-masked').length === 496",
        arg=table.element_handle(),
        timeout=5_000,
    )
    after = table.evaluate(_PLACES)
    assert after["cells"] == before["cells"], "a cell moved when the numbers changed"
    for width, sight in after["canvases"]:
        assert width <= sight + 1, f"a canvas {width} px wide in a box of {sight} px"
    page.keyboard.press("Space")


# Each row label's text as shown (innerText leaves out what is not visible), the blend's
# context label's, and the query's row.
_LABELS = """(root) => ({
    rows: Array.from(root.querySelectorAll("table.attnlib-heatmap th[scope=row]"))
        .filter((th) => th.closest("tr").dataset.row !== "sum").map((th) => th.innerText),
    context: root.querySelector(".attnlib-blend tr.attnlib-context th").innerText,
    query: root.querySelector("table.attnlib-heatmap tr[aria-current=true]").dataset.row,
})"""


@pytest.mark.browser
def test_moving_the_query_moves_no_cell_and_shows_one_label_each(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """On the 32-token explorer, a new query marks another row and names another context
    vector: no cell of the heatmap or the blend moves or changes size, and each label shows
    one text, the marked one on the query's row only."""
    page = shown[0].page
    root = page.locator(".attnlib-attention-explorer").nth(1)
    tables = [root.locator("table.attnlib-heatmap"), root.locator("table.attnlib-blend")]
    tables[0].scroll_into_view_if_needed()
    before = [table.evaluate(_PLACES)["cells"] for table in tables]
    handle = root.locator(".attnlib-control-query .noUi-handle")
    start = int(root.evaluate(_LABELS)["query"])
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        "([el, q]) => el.querySelector('table.attnlib-heatmap tr[aria-current=true]')"
        ".dataset.row === String(q)",
        arg=[root.element_handle(), start + 1],
        timeout=5_000,
    )
    after = [table.evaluate(_PLACES)["cells"] for table in tables]
    assert after[0] == before[0], "a heatmap cell moved when the query moved"
    assert after[1] == before[1], "a blend cell moved when the query moved"
    labels = root.evaluate(_LABELS)
    tokens = LONG_SENTENCE.split()
    query = start + 1
    want = [f"\u25b6 {t}" if i == query else t for i, t in enumerate(tokens)]
    assert labels["rows"] == want
    sup = str(query + 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert labels["context"] == f"z⁽{sup}⁾"  # the book's name: z⁽ⁱ⁺¹⁾ for inputs[i]
    handle.press("ArrowLeft")


# Every id the explorers give, and each reference to one that does not lead to an element of
# the same explorer (by id, the page's first element with it).
_IDS = """() => {
    const ids = Array.from(document.querySelectorAll(".attnlib-explorer [id]"), (e) => e.id);
    const astray = [];
    for (const el of document.querySelectorAll(
        ".attnlib-explorer [aria-labelledby], .attnlib-explorer [aria-describedby]")) {
        for (const name of ["aria-labelledby", "aria-describedby"]) {
            for (const id of (el.getAttribute(name) || "").split(/\\s+/).filter(Boolean)) {
                const target = document.getElementById(id);
                const root = el.closest(".attnlib-explorer");
                if (!target || target.closest(".attnlib-explorer") !== root) {
                    astray.push(`${el.tagName}.${el.className} ${name}=${id}`);
                }
            }
        }
    }
    return { ids, astray, tables: document.querySelectorAll(
        ".attnlib-explorer table[aria-labelledby]").length };
}"""


@pytest.mark.browser
def test_each_grid_and_blend_is_named_by_its_own_caption(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """Ids are unique in the page, though anywidget loads the front end afresh for every
    explorer: each heatmap and blend is named by its own explorer's caption, each cell
    described by its own explorer's details line."""
    page = shown[0].page
    found = page.evaluate(_IDS)
    assert len(found["ids"]) == len(set(found["ids"])), sorted(found["ids"])
    assert found["astray"] == []
    assert found["tables"] >= 2


@pytest.mark.browser
def test_axe_finds_nothing_critical_or_serious_and_nothing_overflows(
    shown: tuple[WatchedPage, int, bool], axe_source: str
) -> None:
    """Every explorer photographed in this look (the page, then each explorer), then checked:
    axe-core finds nothing critical or serious, and the page does not scroll sideways."""
    watched, width, dark = shown
    name = f"explorers-{width}-{'dark' if dark else 'light'}"
    _shot(watched, name)
    for k, box in enumerate(watched.page.locator(EXPLORER).all()):
        box.screenshot(path=ARTIFACTS / f"{name}-{k}.png")
    _assert_axe_clean(watched.page, axe_source)
    _assert_no_sideways_scroll(watched.page, width)


def _assert_no_sideways_scroll(page: Any, width: int) -> None:
    """The page is no wider than the window: a reader never scrolls it sideways (a wide grid
    scrolls inside its own box)."""
    wide = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide[0] <= wide[1] + 1, f"at {width} px the page is {wide[0]} px wide"


def _assert_axe_clean(page: Any, axe_source: str) -> None:
    """axe-core over the explorers only (not the page around them): nothing critical or serious."""
    page.add_script_tag(content=axe_source)
    result = page.evaluate(
        """async () => {
            const r = await axe.run({ include: [['.attnlib-explorer']] },
                                    { resultTypes: ['violations'] });
            return r.violations.map((v) => ({ id: v.id, impact: v.impact,
                nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
        }"""
    )
    bad = [v for v in result if v["impact"] in ("critical", "serious")]
    assert not bad, json.dumps(bad, indent=1)


@pytest.mark.browser
def test_nothing_is_clipped_and_every_track_is_usable(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    _assert_fits(shown[0].page, shown[1])


def _assert_fits(page: Any, width: int) -> None:
    """Every slider track at least MIN_TRACK_PX, no control cut off by the page or a box."""
    report = page.evaluate(
        """(minTrack) => {
            const view = document.documentElement.clientWidth;
            const out = { narrow: [], clipped: [] };
            document.querySelectorAll('.attnlib-explorer').forEach((box, b) => {
                box.querySelectorAll('.noUi-target').forEach((t) => {
                    const w = t.getBoundingClientRect().width;
                    if (w < minTrack) out.narrow.push(`explorer ${b}: track ${w.toFixed(0)} px`);
                });
                const controls = box.querySelectorAll(
                    '.widget-hslider, .widget-text input, .widget-toggle-button, ' +
                    '.widget-checkbox, .widget-play button, .widget-readout');
                controls.forEach((c) => {
                    const r = c.getBoundingClientRect();
                    if (r.width === 0) return;
                    // Cut off by the page, or by a box that hides its overflow.
                    let cut = r.left < 0 || r.right > view + 0.5;
                    let by = 'the page';
                    for (let p = c.parentElement; p && !cut; p = p.parentElement) {
                        by = p.className;
                        const s = getComputedStyle(p);
                        if (s.overflowX === 'visible') continue;
                        if (p.scrollWidth > p.clientWidth + 1 && s.overflowX !== 'visible') {
                            const q = p.getBoundingClientRect();
                            cut = r.right > q.right + 0.5 || r.left < q.left - 0.5;
                        }
                    }
                    if (cut) out.clipped.push(`explorer ${b}: ${c.className} ` +
                        `${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${view}, cut by ${by}`);
                });
            });
            return out;
        }""",
        MIN_TRACK_PX,
    )
    assert not report["narrow"], f"at {width} px: {report['narrow']}"
    assert not report["clipped"], f"at {width} px: {report['clipped']}"


@pytest.mark.browser
def test_a_wide_heatmap_says_it_scrolls_and_keeps_its_sums_in_sight(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    page, width = shown[0].page, shown[1]
    long = page.locator(".attnlib-attention-explorer").nth(1)
    wrap = long.locator(".attnlib-heatmap-wrap")
    # In sight: an explorer out of sight is not rendered (content-visibility), so its grid
    # has no width to compare yet; it is measured, and says so, once scrolled to.
    wrap.scroll_into_view_if_needed()
    if width == PHONE:
        wrap.evaluate(
            """(w) => new Promise((done, fail) => {
                const t0 = performance.now();
                const look = () => w.classList.contains('attnlib-scrolls') ? done()
                    : performance.now() - t0 > 5000 ? fail(new Error('no attnlib-scrolls'))
                    : requestAnimationFrame(look);
                look();
            })"""
        )
    scrolls = wrap.evaluate("w => w.classList.contains('attnlib-scrolls')")
    if width == PHONE:
        assert scrolls, "a 32-token heatmap at 390 px should scroll and say so"
    if scrolls:
        assert long.locator(".attnlib-scroll-cue").is_visible()
        inside = wrap.evaluate(
            """(w) => {
                const box = w.querySelector('.attnlib-heatmap-scroll').getBoundingClientRect();
                const sum = w.querySelector('td[data-col=sum]').getBoundingClientRect();
                return sum.right <= box.right + 0.5 && sum.left >= box.left - 0.5;
            }"""
        )
        assert inside, "the row sums are out of sight while the heatmap scrolls"


# A row sum's exact value (its title) and its shown text (aria-label on a canvas, else text).
_SUM = """(td) => [td.title, td.getAttribute("aria-label") || td.textContent]"""


@pytest.mark.browser
def test_a_sum_under_the_pointer_gives_its_exact_value_and_keeps_it_after_a_move(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """A row sum under the pointer has its exact value as its title, equal to the shown one
    at four decimals; flipping the softmax's axis while the pointer stays writes the new one."""
    page = shown[0].page
    root = page.locator(".attnlib-attention-explorer").first
    td = root.locator('td[data-row="2"][data-col="sum"]')
    td.scroll_into_view_if_needed()
    td.hover()
    exact, text = td.evaluate(_SUM)
    assert exact and abs(float(exact) - float(text)) <= 5e-5, (exact, text)
    button = root.locator(".attnlib-control-dim .widget-toggle-button")
    button.nth(1).focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([td, was]) => (td.getAttribute('aria-label') || td.textContent) !== was",
        arg=[td.element_handle(), text],
        timeout=5_000,
    )
    after, now = td.evaluate(_SUM)
    assert after != exact and abs(float(after) - float(now)) <= 5e-5, (after, now)
    button.nth(0).focus()
    page.keyboard.press("Enter")


@pytest.mark.browser
def test_a_cell_under_the_pointer_says_how_it_was_computed(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    page = shown[0].page
    # The book's numbers and names: α₂,₃ = attn_weights[1, 2] = 0.2333 from the score 1.4754;
    # ω₁,₁ = attn_scores[0, 0] = 0.9995.
    cell = page.locator('.attnlib-query-explorer td[data-row="1"][data-col="2"]')
    cell.scroll_into_view_if_needed()
    cell.hover()
    title = cell.get_attribute("title")
    named = "α₂,₃ = attn_weights[1, 2] = 0.2333: query x⁽²⁾ (journey) on x⁽³⁾ (starts)"
    assert title.startswith(named), title
    assert "score 1.4754" in title, title
    first = page.locator('.attnlib-loop-stepper td[data-row="0"][data-col="0"]')
    first.scroll_into_view_if_needed()
    first.hover()
    title = first.get_attribute("title")
    named = "ω₁,₁ = attn_scores[0, 0] = x⁽¹⁾·x⁽¹⁾ (Your·Your) = 0.43×0.43"
    assert title.startswith(named) and "0.9995" in title, title
    masked = page.locator(".attnlib-attention-explorer td.attnlib-masked").first
    masked.scroll_into_view_if_needed()
    masked.hover()
    assert "masked" in masked.get_attribute("title")


@pytest.mark.browser
# JupyterLab's dark theme in `make check-all`; `make test` checks dark on Voila at 390 px.
@pytest.mark.parametrize(
    "dark",
    [False, pytest.param(True, marks=pytest.mark.check_all)],
    ids=["lab-light", "lab-dark"],
)
def test_the_explorers_in_jupyterlab_pass_axe_and_fit_a_phone(
    dark: bool,
    lab_server: ServerProcess,
    gallery: str,
    watched_page: WatchedPage,
    axe_source: str,
) -> None:
    """Run All in JupyterLab (light or dark theme): at 1280 px, a screenshot of Lab and of each
    explorer, axe-core over the explorers, no control clipped; then the same at 390 px, where no
    control is clipped or narrower than 120 px (JupyterLab's own interface is not checked)."""
    page = watched_page.page
    try:
        open_and_run_all(page, lab_server, gallery, len(CELLS))
        if dark:
            page.evaluate(
                "() => window.jupyterapp.commands.execute("
                "'apputils:change-theme', { theme: 'JupyterLab Dark' })"
            )
            page.wait_for_function(
                "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
            )
        page.wait_for_function(
            "n => document.querySelectorAll('.attnlib-control-query .noUi-handle[aria-label]')"
            ".length >= n",
            arg=3,
            timeout=30_000,
        )
        theme = "dark" if dark else "light"
        page.set_viewport_size({"width": 1280, "height": 900})
        _lab_shots(page, f"lab-1280-{theme}")
        _assert_axe_clean(page, axe_source)
        _assert_fits(page, 1280)
        page.set_viewport_size({"width": PHONE, "height": 900})
        # Lab's side panels take room a phone does not have: close them.
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        page.wait_for_timeout(500)
        _lab_shots(page, f"lab-{PHONE}-{theme}")
        _assert_fits(page, PHONE)
        _assert_row_sums_cover_their_column(page)
        _assert_handles_clear_their_names(page)
        assert_healthy(watched_page, "gallery in JupyterLab")
    finally:
        shut_down_sessions(lab_server)


def _assert_handles_clear_their_names(page: Any) -> None:
    """A slider's handle at the start of its track leaves the slider's name whole."""
    overlaps = page.evaluate(HANDLES_OVER_NAMES)
    assert not overlaps, f"a handle at its start covers its name by px: {overlaps}"


def _assert_row_sums_cover_their_column(page: Any) -> None:
    """On a phone the row sums stick at the right over a scrolled grid: under them, in the
    column sums' row, the page shows their own empty corner, not a grid column's sum, and
    above them their own heading, not a token's."""
    seen = page.evaluate(
        """() => [...document.querySelectorAll('td.attnlib-sums-corner')].map((corner) => {
            const table = corner.closest('table');
            const shows = (node) => {
                node.scrollIntoView({ block: 'center', inline: 'nearest' });
                const sum = table.querySelector('td[data-col="sum"]');
                const x = sum.getBoundingClientRect().left + 4;
                const r = node.getBoundingClientRect();
                return node.contains(document.elementFromPoint(x, r.top + r.height / 2));
            };
            return [shows(corner), shows(table.querySelector('th.attnlib-sums-head'))];
        }).flat()"""
    )
    assert seen and all(seen), f"a column's sum shows under the row sums: {seen}"


def _lab_shots(page: Any, name: str) -> None:
    """JupyterLab as seen (it scrolls inside its notebook panel), then each explorer in it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")
    for k, box in enumerate(page.locator(EXPLORER).all()):
        box.screenshot(path=ARTIFACTS / f"{name}-{k}.png")


# The boxes of an explorer's parts, [x, y, width, height] each from the explorer's corner,
# rounded to the pixel (the heatmap's scrolling box: a phone scrolls the grid inside it).
_BOXES = """(root) => {
    const at = root.getBoundingClientRect();
    return Array.from(root.querySelectorAll(
        ".attnlib-head, .attnlib-heatmap-scroll, .attnlib-cell-details, .attnlib-bars, "
        + ".attnlib-blend-panel, .attnlib-math, .attnlib-formula-text"))
        .map((n) => { const r = n.getBoundingClientRect();
                      return [r.x - at.x, r.y - at.y, r.width, r.height].map(Math.round); });
}"""


@pytest.mark.browser
def test_hovering_or_focusing_a_cell_moves_nothing(shown: tuple[WatchedPage, int, bool]) -> None:
    """The details of the cell under the pointer have a place of their own: hovering cells
    with long and short descriptions (a masked one among them) moves no part of the explorer."""
    page = shown[0].page
    for kind in (".attnlib-query-explorer", ".attnlib-attention-explorer"):
        root = page.locator(kind).first
        root.scroll_into_view_if_needed()
        before = root.evaluate(_BOXES)
        details = root.locator(".attnlib-cell-details")
        for i, j in ((5, 0), (0, 5), (1, 1)):
            cell = root.locator(f'table.attnlib-heatmap td[data-row="{i}"][data-col="{j}"]')
            cell.hover()
            page.wait_for_function(
                "([d, t]) => d.textContent === t.title && t.title.length > 0",
                arg=[details.element_handle(), cell.element_handle()],
                timeout=5_000,
            )
            assert root.evaluate(_BOXES) == before, f"{kind}: hovering ({i}, {j}) moved a part"
            cell.focus()
            assert root.evaluate(_BOXES) == before, f"{kind}: focusing ({i}, {j}) moved a part"


@pytest.mark.browser
def test_every_control_is_a_target_a_finger_can_take(shown: tuple[WatchedPage, int, bool]) -> None:
    """Slider handles, buttons, menus and the folded formula's summary: at least 24 x 24 px
    (WCAG 2.5.8), on a phone as on a desktop."""
    page = shown[0].page
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll(
            ".attnlib-explorer .noUi-handle, .attnlib-explorer button, "
            + ".attnlib-explorer select, .attnlib-explorer summary"))
            .map((n) => { const r = n.getBoundingClientRect();
                          return [n.className || n.tagName, r.width, r.height]; })
            .filter(([, w, h]) => w > 0 && (w < 24 || h < 24))"""
    )
    assert not small, f"targets under 24 px: {small[:5]}"


@pytest.mark.browser
def test_dropout_drops_the_modules_weights_and_resample_draws_again(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """Rate 0.5 on the four-head explorer: the cells shown dropped are those of attnlib's
    view (itself checked against MultiHeadAttention's nn.Dropout), draw 1, then draw 2 after
    "resample"; the kept ones are scaled by 2. Back to 0, nothing is dropped."""
    from attnlib.widgets import AttentionExplorer

    page = shown[0].page
    root = page.locator(".attnlib-attention-explorer").first
    root.scroll_into_view_if_needed()
    expected = AttentionExplorer(num_heads=4, d_out=16, causal=True, dropout=0.5)
    table = root.locator("table.attnlib-heatmap")
    dropped = """(t) => Array.from(t.querySelectorAll("td.attnlib-dropped"))
        .map((td) => [Number(td.dataset.row), Number(td.dataset.col)])"""
    root.locator(".attnlib-control-dropout select").select_option(label="0.5")
    for draw in range(2):
        want = sorted(tuple(ij) for ij in expected.view.dropped.nonzero().tolist())
        # Masked cells are 0 before dropout: shown masked, not dropped.
        want = [(i, j) for i, j in want if j <= i]
        page.wait_for_function(
            f"(t) => t.querySelectorAll('td.attnlib-dropped').length === {len(want)}",
            arg=table.element_handle(),
            timeout=5_000,
        )
        assert sorted(map(tuple, table.evaluate(dropped))) == want, f"draw {draw + 1}"
        line = root.locator(".attnlib-dropout-line").text_content()
        assert f"draw {draw + 1} of 5" in line and "= 2.0000" in line, line
        root.locator("button.attnlib-resample").click()
        expected.resample()
    root.locator(".attnlib-control-dropout select").select_option(label="0 (off)")
    page.wait_for_function(
        "(t) => t.querySelectorAll('td.attnlib-dropped').length === 0",
        arg=table.element_handle(),
        timeout=5_000,
    )
    assert root.locator("button.attnlib-resample").is_disabled()


@pytest.mark.browser
def test_the_training_explorer_fits_plays_and_counts_from_one(
    shown: tuple[WatchedPage, int, bool],
) -> None:
    """Notebook 10's explorer at 16 words: the whole grid in view (no scrolling), colour-only
    cells whose number is in the details line on hover (nothing moves), snapshot k of N
    alike in the slider, its spoken value and the line beside it, Play named, and the loss
    curve's marker following the snapshot."""
    page, width = shown[0].page, shown[1]
    root = page.locator(".attnlib-training-explorer")
    root.scroll_into_view_if_needed()
    grid = root.locator("table.attnlib-colour-grid")
    box, view = grid.bounding_box(), root.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= min(width, view["x"] + view["width"]) + 1, (
        f"at {width} px the grid spans {box['x']:.0f}..{box['x'] + box['width']:.0f}"
    )
    assert grid.locator("td").count() == 256
    # Colour only: no number is visible in a cell; each is named by its number.
    visible = grid.evaluate(
        """(t) => [...t.querySelectorAll('td *')].filter((n) => {
            const r = n.getBoundingClientRect();
            return n.textContent.trim() && r.width > 1 && r.height > 1;
        }).length"""
    )
    assert visible == 0, f"{visible} cells show their number"
    cell = grid.locator('td[data-row="3"][data-col="2"]')
    named = cell.get_attribute("aria-label")
    assert named and named.startswith("0."), named
    curve = root.locator("svg.attnlib-loss-curve")

    def placed() -> list[float]:
        # Relative to the explorer: hovering may scroll the page, but must move nothing in it.
        a, b = curve.bounding_box(), root.bounding_box()
        return [a["x"] - b["x"], a["y"] - b["y"], a["width"], a["height"], b["height"]]

    before = placed()
    cell.hover()
    details = root.locator(".attnlib-training-details")
    assert details.text_content() == (
        f"query 4 \u201cthought\u201d, key 3 \u201calways\u201d: weight {named}"
    )
    assert placed() == before, "hovering a cell moved the loss curve or resized the explorer"
    handle = root.locator(".attnlib-control-snapshot .noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    marker = root.locator("line.attnlib-loss-marker")
    page.wait_for_function(
        "el => el.textContent.startsWith('snapshot 1 of 3 (step 0)')",
        arg=root.locator(".attnlib-training-share").element_handle(),
        timeout=5_000,
    )
    at_start = marker.get_attribute("x1")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "el => el.textContent.startsWith('snapshot 2 of 3 (step 10)')",
        arg=root.locator(".attnlib-training-share").element_handle(),
        timeout=5_000,
    )
    assert handle.get_attribute("aria-valuetext") == "snapshot 2 of 3"
    readout = root.locator(".attnlib-control-snapshot .widget-readout").text_content()
    assert readout.strip() == "2 of 3", readout
    assert marker.get_attribute("x1") != at_start, "the loss curve's marker did not move"
    play = root.locator(".attnlib-control-play button").first
    assert play.get_attribute("aria-label") == "play"
