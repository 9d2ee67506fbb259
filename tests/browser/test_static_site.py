"""The course site (`make site`): opened from files with the network cut off, every page
has its navigation, its math typeset, its explorers alive, its links (repository, Binder,
its .ipynb), one search box, alt text for every image, figures readable on a phone, and
axe-core finds no critical or serious violation, explorers included, at 1280 and 390 px,
light and dark (one look per page in `make test`, the other three in `make check-all`); a
screenshot of each page in each of the four looks lands in tests/artifacts/.

The site is built once per test run (the first pytest worker that needs it builds it, the
other waits for it) from the committed notebooks and the widget state
`make notebooks` saves beside them (notebooks/.widget-state/); the scripts it runs come
from pinned npm packages (`make npm`).
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from attnlib.widgets.base import NEEDS_KERNEL
from attnlib.widgets.frontend import ExplorerView

from .dom import HANDLES_OVER_NAMES, SHOWN_TEXT, assert_beside, slider
from .gate import browser_gate
from .pages import CACHE, ROOT
from .plans import explorers
from .settings import apply, check_every_control, move, plan_of, random_setting, settle

sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
STEMS = [p.stem for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))]
PAGES = ["index", *STEMS]
# Pages whose every control is driven in `make test`; the others get one move each there,
# and every control in `make check-all`.
LIVE = ("04_context_vectors", "08_explorer")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
ARTIFACTS = ROOT / "tests" / "artifacts"
AXE = build_site.package_dir("axe-core") / "axe.min.js"
REPOSITORY = build_site.repository()
# The four looks of every page: each checked and photographed.
LOOKS = [(1280, "light"), (390, "light"), (1280, "dark"), (390, "dark")]
# axe-core takes most of a page's time (2-7 s a look, colour contrast half of it): `make test`
# runs it at one look per page, 1280 px light and 390 px dark page by page (so each width and
# each scheme over half the site, explorer pages of both kinds), `make check-all` at the other
# three looks of every page (test_axe_at_the_other_looks_of_a_site_page).
AXE_LOOKS = [(1280, "light"), (390, "dark")]


def axe_look(name: str) -> tuple[int, str]:
    """The look at which `make test` runs axe-core on page ``name``."""
    return AXE_LOOKS[PAGES.index(name) % 2]


# The smallest text a figure may show on a phone, and the smallest each kind of figure
# draws at full size: matplotlib's 8 points at 100 dpi in the notebooks' PNGs; 11 points
# (96/72 px each) in the landing page's SVG (tools/figures_site.py).
MIN_TEXT_PX = 9
SMALLEST_TEXT_PX = {"png": 8 * 100 / 72, "svg": 11 * 96 / 72}
# TeX left as text: $...$, $$...$$, \(...\) or \[...\] that MathJax did not typeset.
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[")
# The site's chrome: what must never be clipped or pushed off the screen.
CHROME = (".bd-header", ".bd-sidebar-primary", ".bd-header-article", ".prev-next-area", "h1")


def _explorer_outputs(path: Path) -> list[dict]:
    nb = json.loads(path.read_text())
    return [
        output["data"]
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        for output in cell["outputs"]
        if WIDGET_VIEW in output.get("data", {})
    ]


EXPLORER_PAGES = [s for s in STEMS if _explorer_outputs(NOTEBOOKS / f"{s}.ipynb")]


# ----------------------------------------------------------------------------- no browser


@pytest.mark.parametrize("notebook", [f"{s}.ipynb" for s in LIVE])
def test_committed_explorers_keep_their_state_and_a_picture(notebook: str) -> None:
    """What a site page needs: each explorer's widget state (saved beside the notebook);
    GitHub: its PNG."""
    path = NOTEBOOKS / notebook
    shown = _explorer_outputs(path)
    assert shown, f"{notebook} shows no explorer"
    state = build_site.prepared(path).metadata["widgets"][WIDGET_STATE]["state"]
    for data in shown:
        assert data[WIDGET_VIEW]["model_id"] in state
        assert data["image/png"] and "a live explorer" in "".join(data["text/plain"])
    kinds = {s["model_name"] for s in state.values()}
    assert {"AnyModel", "DirectionalLinkModel", "VBoxModel"} <= kinds


def test_the_readme_link_becomes_the_landing_page_and_notebook_links_stay() -> None:
    text = "[map](../README.md) [top](../README.md#the-course) [on](03_softmax_weights.ipynb#x)"
    assert build_site.site_links(text) == (
        "[map](index.md) [top](index.md) [on](03_softmax_weights.ipynb#x)"
    )


def test_the_course_map_has_every_notebook_of_the_readme_table() -> None:
    rows = build_site.course_map((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [stem for stem, *_ in rows] == STEMS
    by_stem = {stem: rest for stem, *rest in rows}
    assert by_stem["04_context_vectors"][0] == "04 · Context vectors"
    assert by_stem["04_context_vectors"][2].startswith("`QueryExplorer`")
    assert by_stem["02_scores_matmul"][2] == ""  # no explorer in 02


def test_the_pages_anywidget_speaks_the_python_packages_protocol() -> None:
    wanted = ExplorerView().get_state()["_model_module_version"]  # e.g. "~0.11.*"
    major_minor = ".".join(build_site.NPM_PACKAGES["anywidget"].split(".")[:2])
    assert wanted.lstrip("~^").startswith(major_minor), (wanted, major_minor)


def test_a_page_fixes_the_sentence_and_says_why_but_leaves_other_controls_alone() -> None:
    nb = build_site.prepared(NOTEBOOKS / "08_explorer.ipynb")
    models = [m["state"] for m in nb.metadata["widgets"][WIDGET_STATE]["state"].values()]
    controls = [m for m in models if "disabled" in m]
    sentences = [c for c in controls if NEEDS_KERNEL in c.get("_dom_classes", ())]
    assert len(sentences) == 3 and all(box["disabled"] for box in sentences)
    others = [c for c in controls if c not in sentences]
    assert others and not any(c["disabled"] for c in others)
    notes = [m for m in models if build_site.KERNEL_NOTE in str(m.get("value"))]
    # Said right under the sentence box, not under the whole explorer.
    assert len(notes) == 3 and all("attnlib-status-sentence" in m["_dom_classes"] for m in notes)


# ----------------------------------------------------------------------------- the built site


@pytest.fixture(scope="session")
def site(chromium_executable: str, run_dir: Path) -> Path:
    """The site written from the committed notebooks, once per test run: under pytest-xdist
    the page tests are spread over the workers, and the first to ask builds the site into a
    folder of the run's (removed when the run ends) while another waits for it."""
    missing = [n for n in build_site.NPM_PACKAGES if not build_site.package_dir(n).is_dir()]
    if missing:
        reason = f"the site's scripts are missing {missing}: run `make npm`"
        if browser_gate(os.environ).must_fail:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # one process: the session's own folder
        out = run_dir / "site"
        build_site.build(out)
        return out
    from filelock import FileLock

    shared = CACHE / "browser" / f"site-{run}"
    shared.mkdir(parents=True, exist_ok=True)
    out = shared / "site"
    with FileLock(shared / "build.lock"):
        if not (shared / "built").exists():
            build_site.build(out)
            (shared / "built").touch()
    return out


def test_every_link_of_the_site_stays_inside_it(site: Path) -> None:
    """No link leaves the site but the page's own three: the repository, Binder for its
    notebook (the course's folder on the landing page) and its .ipynb, a file of the site."""
    for name in PAGES:
        body = (site / f"{name}.html").read_text(encoding="utf-8")
        stem = None if name == "index" else name
        allowed = {html.escape(REPOSITORY), html.escape(build_site.binder(stem))}
        for href in re.findall(r'href="([^"#]+)', body):
            if "://" in href:
                assert href in allowed, f"{name}: {href}"
                continue
            assert not href.startswith("//") and ".md" not in href, f"{name}: {href}"
            if ".ipynb" in href:
                assert href == f"notebooks/{name}.ipynb", f"{name}: {href}"
            assert (site / href.split("?")[0]).exists(), f"{name}: {href} is missing"
        # Nothing a page loads comes from another host: scripts, styles, fonts.
        assert not re.search(r'src="(https?:)?//', body), name
        assert not re.search(r'<link [^>]*href="(https?:)?//', body), name


def test_every_page_links_to_the_repository_binder_and_its_notebook(site: Path) -> None:
    repo = "https://github.com/attention-step-by-step/attention-step-by-step"
    for name in PAGES:
        body = (site / f"{name}.html").read_text(encoding="utf-8")
        bar = re.search(r'<nav class="course-links".*?</nav>', body, re.S)
        assert bar, f"{name}: no links under its title"
        links = re.findall(r'<a href="([^"]+)"', bar[0])
        if name == "index":
            binder = f"https://mybinder.org/v2/gh/{repo[19:]}/HEAD?urlpath=lab/tree/notebooks"
            assert links == [repo, binder], links
            continue
        binder = (
            f"https://mybinder.org/v2/gh/{repo[19:]}/HEAD?urlpath=lab/tree/notebooks/{name}.ipynb"
        )
        assert links == [repo, binder, f"notebooks/{name}.ipynb"], links
        # The download is the committed notebook, byte for byte.
        assert (site / "notebooks" / f"{name}.ipynb").read_bytes() == (
            NOTEBOOKS / f"{name}.ipynb"
        ).read_bytes()


# A file name as alt text: what Sphinx writes when an image has none (a 64-hex hash).
FILE_NAME_ALT = re.compile(r"[0-9a-f]{16}|\.(png|svg|jpe?g)$|^_images/")


def test_every_image_has_alt_text_in_words(site: Path) -> None:
    """Each image's alt text says what it shows: words, not its file's name or hash. The
    figures of notebook 10 (all five once named by a hash) are named by their titles or their
    cell's own alt text."""
    for name in PAGES:
        body = (site / f"{name}.html").read_text(encoding="utf-8")
        for alt in re.findall(r"<img [^>]*?alt=\"([^\"]*)\"", body):
            assert len(alt.split()) >= 3, f"{name}: alt {alt!r}"
            assert not FILE_NAME_ALT.search(alt), f"{name}: alt {alt!r}"
            assert "…" not in alt, f"{name}: a value only the kernel knew left out of {alt!r}"
        assert body.count("<img ") == len(re.findall(r"<img [^>]*?alt=\"", body)), name
    learns = (site / "10_attention_that_learns.html").read_text(encoding="utf-8")
    for title in (
        "Training the tiny model with the causal mask",
        "Attention over the first sentence after 600 steps",
        "One number per head, over training",
        "at four snapshots of training",  # its cell's alt: its title holds kernel values
        "The strongest head of each model after 600 steps",
    ):
        assert re.search(rf'<img [^>]*alt="[^"]*{title}', learns), title


def test_the_widget_scripts_are_one_shared_file(site: Path) -> None:
    """The widgets' manager is loaded from _static/, not inlined: fetched once per site."""
    manager = (site / "_static" / "embed-amd.js").stat().st_size
    for name in EXPLORER_PAGES:
        body = (site / f"{name}.html").read_text(encoding="utf-8")
        assert re.search(r'<script [^>]*src="_static/embed-amd\.js', body), name
        assert len(body) < manager / 2, f"{name}: {len(body)} bytes, the manager inlined?"


# The book theme the pages are made for; it needs Python 3.11. On 3.10 pip installs 1.1, whose
# pages load their icon font in a way a page opened from files may not, in other colours.
THEME = (1, 4)


def _skip_unless_the_theme_made_for() -> None:
    theme = version("sphinx-book-theme")
    if tuple(int(part) for part in theme.split(".")[:2]) < THEME:
        made_for = ".".join(map(str, THEME))
        pytest.skip(f"pages not opened: made for sphinx-book-theme {made_for}, here {theme}")


@pytest.fixture
def offline(browser, site: Path) -> Iterator[Any]:
    """A function opening a site page in a fresh context with every request off file:// refused:
    ``open(name, width, scheme)`` -> (page, errors, refused)."""
    _skip_unless_the_theme_made_for()
    contexts = []

    def open_page(name: str, width: int = 1280, scheme: str = "light") -> tuple[Any, list, list]:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        contexts.append(context)
        page, errors, refused = context.new_page(), [], []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))

        def refuse(route) -> None:
            refused.append(route.request.url)
            route.abort()

        page.route(lambda url: not url.startswith("file:"), refuse)
        page.goto((site / f"{name}.html").as_uri())
        page.wait_for_load_state("load")
        return page, errors, refused

    yield open_page
    for context in contexts:
        context.close()


def _math_done(page) -> None:
    """Wait until MathJax, where the page loads it, has typeset the page."""
    if page.locator('script[src*="mathjax"]').count():
        page.wait_for_function("() => window.MathJax?.startup?.promise", timeout=30_000)
        page.evaluate("() => MathJax.startup.promise")


def _axe(page) -> list[dict]:
    """axe-core's critical and serious violations in the whole page, explorers included."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => (await axe.run(
            document, { resultTypes: ["violations"], preload: false }
        )).violations.filter((v) => ["critical", "serious"].includes(v.impact))
          .map((v) => ({ id: v.id, impact: v.impact,
                         nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))"""
    )
    return found


_CLIPPED = """(selectors) => {
    const out = [];
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
        out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px`);
    for (const sel of selectors) for (const el of document.querySelectorAll(sel)) {
        const r = el.getBoundingClientRect(), style = getComputedStyle(el);
        if (style.display === "none" || style.visibility === "hidden" || r.width === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "auto"
            && style.overflowX !== "scroll")
            out.push(`${sel} clips its content (${el.scrollWidth} > ${el.clientWidth})`);
        if (r.right > window.innerWidth + 1) out.push(`${sel} ends off screen at ${r.right}px`);
    }
    return out;
}"""


_SHOWN = """(els) => els.map((e) => {
    const r = e.getBoundingClientRect(), style = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && style.visibility !== "hidden" ? 1 : 0;
})"""
# A code word Sphinx wrote as one span (no <wbr> marked in it) drawn on two lines or more.
_BROKEN_WORDS = """() => Array.from(document.querySelectorAll("article span.pre"))
    .filter((s) => !s.querySelector("wbr") && s.getClientRects().length > 1)
    .map((s) => s.textContent)"""


def _figures_readable(page, where: str) -> None:
    """On a phone every figure's smallest text is at least MIN_TEXT_PX high: the figure
    shown at a large enough share of its own width (scrolling sideways if need be)."""
    shown = page.locator("article img").evaluate_all(
        """(imgs) => imgs.map((i) => ({src: i.getAttribute("src"), natural: i.naturalWidth,
                                       width: i.getBoundingClientRect().width}))"""
    )
    for img in shown:
        kind = img["src"].rsplit(".", 1)[-1]
        if kind not in SMALLEST_TEXT_PX or not img["natural"]:
            continue  # the notebooks' hand-drawn diagrams: SVG of their own sizes
        if kind == "svg" and "landing" not in img["src"]:
            continue
        smallest = SMALLEST_TEXT_PX[kind] * img["width"] / img["natural"]
        assert smallest >= MIN_TEXT_PX, f"{where}: {img['src']} text {smallest:.1f} px"


def _check_page(page, errors: list, refused: list, name: str, look: str, axe: bool) -> None:
    """Navigation, math, links, dark mode, nothing clipped, and axe if ``axe``: the page as a
    reader gets it."""
    where = f"site/{name}.html ({look})"
    _math_done(page)
    # Navigation: the sidebar lists every page; previous/next link to the neighbours.
    sidebar = page.locator(".bd-sidebar-primary nav a").evaluate_all(
        "(links) => links.map((a) => a.getAttribute('href'))"
    )
    listed = {h.split("#")[0] or f"{name}.html" for h in sidebar}
    assert {f"{p}.html" for p in PAGES} <= listed, f"{where}: sidebar {sidebar}"
    k = PAGES.index(name)
    if k > 0:
        assert page.locator(f'.prev-next-area a.left-prev[href="{PAGES[k - 1]}.html"]').count() == 1
    if k < len(PAGES) - 1:
        assert (
            page.locator(f'.prev-next-area a.right-next[href="{PAGES[k + 1]}.html"]').count() == 1
        )
    # Math: nothing left as TeX in the text, and every formula typeset.
    text = page.locator("article").inner_text()
    raw = RAW_TEX.findall(text)
    assert not raw, f"{where}: math left as TeX: {raw[:5]}"
    source = (NOTEBOOKS / f"{name}.ipynb") if name != "index" else None
    if source and "$" in source.read_text():
        assert page.locator("mjx-container").count() > 0, f"{where}: no formula typeset"
    dark = page.evaluate("() => document.documentElement.dataset.theme")
    assert dark == ("dark" if "dark" in look else "light"), f"{where}: theme {dark}"
    # The explorers take the page's background: the theme once painted them light in dark.
    painted = page.locator(".cell_output .widget-subarea").evaluate_all(
        "(areas) => areas.map((a) => getComputedStyle(a).backgroundColor)"
    )
    assert all(c == "rgba(0, 0, 0, 0)" for c in painted), f"{where}: widget areas {painted}"
    assert not page.evaluate(_CLIPPED, list(CHROME)), where
    searches = page.locator(".search-button__button").evaluate_all(_SHOWN)
    assert sum(searches) == 1, f"{where}: {sum(searches)} search boxes shown"
    assert page.locator("nav.course-links a").count() == (2 if name == "index" else 3), where
    if page.viewport_size["width"] < 600:
        _figures_readable(page, where)
    broken = page.evaluate(_BROKEN_WORDS)
    assert not broken, f"{where}: code words broken mid-word: {broken[:5]}"
    covered = page.evaluate(HANDLES_OVER_NAMES)
    assert not covered, f"{where}: a slider's handle covers its name (px): {covered}"
    if axe:
        violations = _axe(page)
        assert not violations, f"{where}: axe-core: {violations}"
    assert not refused, f"{where} asked the network for {refused}"
    assert not errors, f"{where}: browser console errors: {errors}"


def _look(page, width: int, height: int, scheme: str) -> None:
    """The page opened at another width and colour scheme, once the site has followed."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.wait_for_function(f"() => document.documentElement.dataset.theme === '{scheme}'")
    # The book theme sets the tab stops of the blocks that now scroll 300 ms after the last
    # resize (debounced), and the colours of the new scheme take a transition: a condition for
    # both timed out now and then, where this wait has not.
    page.wait_for_timeout(300)


@pytest.mark.browser
@pytest.mark.parametrize("name", PAGES)
def test_a_site_page_works_from_files(offline, name: str) -> None:
    """In each of the four looks (1280 and 390 px, light and dark; the same page):
    navigation, math, links, one search box, readable figures, no clipping, and a screenshot;
    axe at its axe_look; then, back at 1280 px light, its explorers are alive (one page load).
    On ICONS_PAGE, first, the theme's icons are drawn from its web font."""
    page, errors, refused = offline(name, 1280, "light")
    if name == ICONS_PAGE:  # once a test of its own, loading the page a second time
        _icons_drawn_from_the_themes_web_font(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, scheme in LOOKS:
        _look(page, width, 900 if width > 600 else 844, scheme)
        look = f"{width} px, {scheme}"
        _check_page(page, errors, refused, name, look, axe=(width, scheme) == axe_look(name))
        page.screenshot(path=ARTIFACTS / f"site-{name}-{width}-{scheme}.png")
    if name in EXPLORER_PAGES:
        # Every explorer drawn; in 04 and 08 every control moves it, as its view; elsewhere
        # one control does (every control in `make check-all`).
        _look(page, 1280, 900, "light")
        _explorers_alive(page, errors, refused, name, every_control=name in LIVE)


@pytest.mark.browser
@pytest.mark.check_all
@pytest.mark.parametrize("name", PAGES)
def test_axe_at_the_other_looks_of_a_site_page(offline, name: str) -> None:
    """axe-core at the three looks `make test` leaves out: the same page load, as above."""
    page, errors, refused = offline(name, 1280, "light")
    for width, scheme in LOOKS:
        if (width, scheme) == axe_look(name):
            continue
        _look(page, width, 900 if width > 600 else 844, scheme)
        _math_done(page)
        where = f"site/{name}.html ({width} px, {scheme})"
        violations = _axe(page)
        assert not violations, f"{where}: axe-core: {violations}"
    assert not refused, f"site/{name}.html asked the network for {refused}"
    assert not errors, f"site/{name}.html: browser console errors: {errors}"


def _one_move(page, root, rng: random.Random, where: str) -> None:
    """Move one control of the explorer at ``root``: the drawing changes, to its view."""
    root.scroll_into_view_if_needed()
    plan = plan_of(root, where)
    explorer = plan.make()
    apply(page, root, plan, explorer, random_setting(plan, rng))
    before = settle(root, explorer, f"{where}, start")
    knob = plan.knobs[0]
    value = rng.choice([v for v in knob.values if v != getattr(explorer, knob.name).value])
    move(page, root, knob, value)
    getattr(explorer, knob.name).value = value
    after = settle(root, explorer, f"{where}, {knob.name} = {value!r}")
    assert after != before, f"{where}: moving {knob.name} changed nothing drawn"


def _training_alive(page, root, where: str) -> None:
    """The TrainingExplorer: its numbers are checked against the Python view in node
    (tests/test_frontend_node.py); here, opened from a file, its snapshot slider moves it."""
    root.scroll_into_view_if_needed()
    cells = root.locator("table.attnlib-heatmap td")
    texts = f"(els) => els.map({SHOWN_TEXT})"
    before = cells.evaluate_all(texts)
    root.locator(slider("snapshot")).first.focus()
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    deadline = time.monotonic() + 5
    while cells.evaluate_all(texts) == before:
        if time.monotonic() > deadline:
            break
        page.wait_for_timeout(50)
    moved = cells.evaluate_all(texts)
    assert moved != before, f"{where}: the snapshot slider changed nothing drawn"


def _explorers_alive(page, errors: list, refused: list, name: str, every_control: bool) -> None:
    where = f"site/{name}.html"
    rng = random.Random(name)
    # The page was loaded seconds ago, from files: every explorer is drawn at load, so the
    # count need hold for a short while only.
    roots = explorers(page, settle_s=0.5)
    assert len(roots) == len(_explorer_outputs(NOTEBOOKS / f"{name}.ipynb")), where
    for k, root in enumerate(roots):
        if root.locator(".attnlib-view-training").count():
            _training_alive(page, root, f"{where} #{k}")
        elif every_control:
            check_every_control(page, root, rng, f"{where} #{k}")
        else:
            _one_move(page, root, rng, f"{where} #{k}")
        # A sentence needs the kernel: its box cannot be typed in, and the explorer says so.
        for box in root.locator(".attnlib-control-sentence input").all():
            assert box.is_disabled(), f"{where} #{k}: the sentence box takes input it ignores"
            note = root.locator(".attnlib-status-sentence .attnlib-note")
            assert note.inner_text() == build_site.KERNEL_NOTE, f"{where} #{k}"
            assert_beside(box, note, f"{where} #{k}: the sentence box's note")
    if name in LIVE:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        roots[0].scroll_into_view_if_needed()
        # Two frames: a view that was out of sight (content-visibility: auto) is drawn in
        # the frame after the one that finds it in sight, as a reader scrolling sees it.
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        page.screenshot(path=ARTIFACTS / f"site-{name}-1280-light-explorer.png")
    assert not refused, f"{where} asked the network for {refused}"
    assert not errors, f"{where}: browser console errors: {errors}"


@pytest.mark.browser
@pytest.mark.check_all
@pytest.mark.parametrize("name", [s for s in EXPLORER_PAGES if s not in LIVE])
def test_every_control_on_a_site_page(offline, name: str) -> None:
    _explorers_alive(*offline(name), name, every_control=True)


# ----------------------------------------------------------------------------- page weight

# An explorer page's first visit, every file counted at its size on disk: 7.6 MB (04) when
# the theme's Font Awesome script (1.56 MB) and MathJax's tex-chtml bundle (1.16 MB) shipped,
# 5.6 MB without them; the widgets' manager (3.6 MB) is most of what is left.
FIRST_VISIT_MAX_BYTES = 6_000_000


@pytest.mark.browser
def test_an_explorer_pages_first_visit_loads_only_what_it_uses(browser, site: Path) -> None:
    """benchmarks/site_weight.py's count for 04: no Font Awesome script, MathJax's components
    only, under the ceiling; the theme's icons drawn from Font Awesome's web font instead."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import site_weight

    _skip_unless_the_theme_made_for()  # the older theme ships its Font Awesome script
    files = site_weight.loaded_files(browser, site / "04_context_vectors.html")
    names = {f.name for f in files}
    assert not {"fontawesome.js", "tex-chtml.js"} & names, sorted(names)
    assert "startup.js" in names and "chtml.js" in names, sorted(names)
    total = sum(f.stat().st_size for f in files)
    assert total < FIRST_VISIT_MAX_BYTES, f"{total:,} bytes: {sorted(names)}"
    assert not list((site / "_static").rglob("fontawesome.js*"))
    assert not list(site.rglob("*.map")), "source maps are for developer tools only"


# The page whose icons are checked, in test_a_site_page_works_from_files' load of it.
ICONS_PAGE = "04_context_vectors"


def _icons_drawn_from_the_themes_web_font(page) -> None:
    """The theme's icons are drawn from its web font (Font Awesome's script is not shipped)."""
    page.wait_for_function("() => document.fonts.ready.then(() => true)", timeout=10_000)
    families = page.evaluate(
        """() => Array.from(document.fonts).filter((f) => f.status === "loaded")
                 .map((f) => f.family)"""
    )
    assert any("Font Awesome" in f for f in families), families
    # The icons shown (the theme hides the others, e.g. the light/dark modes not chosen)
    # are glyphs of that font, each with a width.
    icons = page.locator("i[class*='fa-']")
    widths = icons.evaluate_all("(els) => els.map((e) => e.getBoundingClientRect().width)")
    shown = [w for w in widths if w > 0]
    assert shown and all(w > 4 for w in shown), widths
