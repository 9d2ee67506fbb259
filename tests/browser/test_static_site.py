"""The course as static pages (`make site`): explorers alive from files, no server, no kernel.

The pages are written from the committed notebooks, whose widget state `make
notebooks` keeps; the scripts they run are copied beside them from pinned npm
packages (`make npm`), so nothing is fetched from a CDN: every request off this
machine is refused, and only MathJax (the notebooks' formulas) may ask for one.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path

import nbformat
import pytest

from attnlib.widgets.base import NEEDS_KERNEL
from attnlib.widgets.frontend import ExplorerView

from .gate import browser_gate
from .pages import ROOT, WatchedPage
from .plans import explorers
from .settings import check_every_control

sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
LIVE = ("04_context_vectors.ipynb", "08_explorer.ipynb")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MATHJAX = re.compile(r"^https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/")


def _explorer_outputs(path: Path) -> list[dict]:
    nb = json.loads(path.read_text())
    return [
        output["data"]
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        for output in cell["outputs"]
        if WIDGET_VIEW in output.get("data", {})
    ]


@pytest.mark.parametrize("notebook", LIVE)
def test_committed_explorers_keep_their_state_and_a_picture(notebook: str) -> None:
    """What an exported page needs: each explorer's widget state; GitHub: its PNG."""
    path = NOTEBOOKS / notebook
    shown = _explorer_outputs(path)
    assert shown, f"{notebook} shows no explorer"
    state = nbformat.read(path, as_version=4).metadata["widgets"][WIDGET_STATE]["state"]
    for data in shown:
        assert data[WIDGET_VIEW]["model_id"] in state
        assert data["image/png"] and "a live explorer" in "".join(data["text/plain"])
    kinds = {s["model_name"] for s in state.values()}
    assert {"AnyModel", "DirectionalLinkModel", "VBoxModel"} <= kinds


def test_links_between_notebooks_point_at_their_pages(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "# 02 · Next\n[on](03_softmax_weights.ipynb#top) [x](a.ipynb)"
        )
    ]
    nbformat.write(nb, tmp_path / "02_next.ipynb")
    body, title = build_site.page(tmp_path / "02_next.ipynb", build_site.exporter())
    assert title == "02 · Next"
    assert 'href="03_softmax_weights.html#top"' in body and 'href="a.ipynb"' in body


def test_the_pages_anywidget_speaks_the_python_packages_protocol() -> None:
    wanted = ExplorerView().get_state()["_model_module_version"]  # e.g. "~0.11.*"
    major_minor = ".".join(build_site.NPM_PACKAGES["anywidget"].split(".")[:2])
    assert wanted.lstrip("~^").startswith(major_minor), (wanted, major_minor)


def test_a_page_fixes_the_sentence_and_says_why_but_leaves_other_controls_alone() -> None:
    body, _ = build_site.page(NOTEBOOKS / "08_explorer.ipynb", build_site.exporter())
    found = re.search(rf'<script type="{re.escape(WIDGET_STATE)}">(.*?)</script>', body, re.S)
    models = [m["state"] for m in json.loads(found.group(1))["state"].values()]
    controls = [m for m in models if "disabled" in m]
    sentences = [c for c in controls if NEEDS_KERNEL in c.get("_dom_classes", ())]
    assert len(sentences) == 3 and all(box["disabled"] for box in sentences)
    others = [c for c in controls if c not in sentences]
    assert others and not any(c["disabled"] for c in others)
    notes = [m for m in models if build_site.KERNEL_NOTE in str(m.get("value"))]
    assert len(notes) == 3 and all("attnlib-status" in m["_dom_classes"] for m in notes)


@pytest.fixture(scope="module")
def site(chromium_executable: str, run_dir: Path) -> Path:
    """The site written from the committed notebooks (needs the npm packages of `make npm`)."""
    missing = [n for n in build_site.NPM_PACKAGES if not build_site.package_dir(n).is_dir()]
    if missing:
        reason = f"the exported pages' scripts are missing {missing}: run `make npm`"
        if browser_gate(os.environ).must_fail:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    out = run_dir / "site"
    build_site.build(out)
    return out


@pytest.mark.browser
@pytest.mark.parametrize("notebook", LIVE)
def test_exported_page_is_alive_from_a_file(site: Path, watched_page: WatchedPage, notebook: str):
    """Opened from a file: every explorer drawn; every control moves it, as its view."""
    page, where = watched_page.page, f"site/{Path(notebook).stem}.html"
    asked: list[str] = []

    def refuse(route) -> None:
        asked.append(route.request.url)
        route.abort()

    page.route(lambda url: not url.startswith("file:"), refuse)
    page.goto((site / f"{Path(notebook).stem}.html").as_uri())
    rng = random.Random(notebook)
    roots = explorers(page)
    assert len(roots) == len(_explorer_outputs(NOTEBOOKS / notebook))
    for k, root in enumerate(roots):
        check_every_control(page, root, rng, f"{where} #{k}")
        # A sentence needs the kernel: its box cannot be typed in, and the explorer says so.
        for box in root.locator(".attnlib-control-sentence input").all():
            assert box.is_disabled(), f"{where} #{k}: the sentence box takes input it ignores"
            note = root.locator(".attnlib-status .attnlib-note")
            assert note.inner_text() == build_site.KERNEL_NOTE, f"{where} #{k}"
    watched_page.screenshot(f"site-{Path(notebook).stem}")
    assert all(MATHJAX.match(url) for url in asked), f"{where} asked the network for {asked}"
    # The only console error allowed: MathJax, refused above.
    errors = [e for e in watched_page.errors if "cdnjs.cloudflare.com/ajax/libs/mathjax/" not in e]
    assert not errors, f"{where}: browser console errors: {errors}"
