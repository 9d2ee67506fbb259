"""JupyterLab in headless Chromium: run each notebook with a live explorer, move it, check it.

Adding a notebook is one entry in ``CASES``: an :class:`ExplorerCase` with the
explorer's root selector and its expected views (see ``cases.py`` and ``expected.py``).
The tests without a browser check the pieces the browser tests rely on: the gate,
the comparison of views, and the expected numbers.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

import pytest
import torch

from . import gate as gate_module
from .cases import (
    CAUSAL_EXPLORER_06,
    LOOP_STEPPER_01,
    QUERY_EXPLORER_04,
    SENTENCE_EXPLORER_08,
    SOFTMAX_AXIS_03,
)
from .expected import (
    ABOVE,
    BOOK_QUERIES,
    BOOK_SCORE_0_1,
    CAUSAL_ROW_1,
    CAUSAL_WEIGHTS,
    INPUTS,
    SCORES,
    TOKENS,
)
from .gate import Gate, browser_gate
from .pages import (
    ROOT,
    WatchedPage,
    assert_healthy,
    assert_nothing_broken,
    code_sources,
    is_outside,
)
from .plans import FEW, SETTINGS, SWEPT_BY_LAB_CASES, WITHOUT_KERNEL, explorers
from .process import ServerProcess
from .settings import check_every_control, check_random_settings
from .steps import (
    NO_KERNEL_CONSOLE,
    check_explorer,
    open_and_run_all,
    open_as_saved,
    shut_down_kernel,
    shut_down_sessions,
)
from .views import TOLERANCE, Expect, ExplorerCase, Step, mismatches

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# `make test` runs 08 in JupyterLab; 01, 03, 04 and 06 run there in `make check-all`. In
# `make test` their explorers are still moved on the static site (04's every control, with no
# kernel) and checked in node; 04's keyboard case runs in Voila (test_voila.py), and every
# kind of explorer is drawn in JupyterLab by the gallery of test_explorers_a11y.py.
CASES = [
    pytest.param(LOOP_STEPPER_01, id="01-loop-stepper", marks=pytest.mark.check_all),
    pytest.param(SOFTMAX_AXIS_03, id="03-softmax-axis", marks=pytest.mark.check_all),
    pytest.param(QUERY_EXPLORER_04, id="04-query-explorer", marks=pytest.mark.check_all),
    pytest.param(CAUSAL_EXPLORER_06, id="06-causal-explorer", marks=pytest.mark.check_all),
    pytest.param(SENTENCE_EXPLORER_08, id="08-sentence-explorer"),
    # A later notebook is one more entry: its explorer's root and the views it must show,
    # e.g. pytest.param(ExplorerCase("07_....ipynb", ".attnlib-explorer.attnlib-...",
    #     (Step("head 0", (Expect(".attnlib-formula", (...), part=True),)),
    #      Step("head 1", (...), slider("head"), ("ArrowRight",)))), id="07-..."),
]


@pytest.mark.browser
@pytest.mark.parametrize("case", CASES)
def test_explorer_in_lab(
    case: ExplorerCase, lab_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """Run All in JupyterLab, no error anywhere, then the explorer follows the keyboard."""
    page, where = watched_page.page, case.notebook
    try:
        cells = len(code_sources(notebooks_copy / case.notebook))
        open_and_run_all(page, lab_server, case.notebook, cells)
        assert_nothing_broken(page, where)
        check_explorer(page, case)
        # Then random settings of every control, each drawing compared with attnlib's view:
        # a few, or, for the notebooks of check-all's cases, their share of the sweep
        # (plans.SETTINGS; the other notebooks' shares are in test_frontend).
        settings = SETTINGS[case.notebook] if case.notebook in SWEPT_BY_LAB_CASES else FEW
        rng = random.Random(case.stem)
        # Run All is over and the keyboard case has run in the page: every explorer is drawn,
        # so the count need hold for a short while only.
        for k, root in enumerate(explorers(page, settle_s=0.5)):
            check_random_settings(page, root, settings, rng, f"{where} #{k}")
        watched_page.screenshot(f"lab-{case.stem}")
        assert_healthy(watched_page, where)
        if case.notebook in WITHOUT_KERNEL:
            check_without_kernel(watched_page, lab_server, case.notebook, rng)
    finally:
        shut_down_sessions(lab_server)


@pytest.mark.browser
def test_a_committed_notebook_opens_with_its_explorers_pictures(
    lab_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """Opened as committed (not run, so not trusted), each explorer shows its saved picture,
    with no error in the page or its console: the notebook holds no widget state, so Lab
    has none to restore (tools/run_notebooks.py saves it beside the notebook)."""
    # A copy of its own: the Run All tests may have saved theirs, with live outputs.
    notebook = "saved-08_explorer.ipynb"
    shutil.copy(ROOT / "notebooks" / "08_explorer.ipynb", notebooks_copy / notebook)
    cells = json.loads((notebooks_copy / notebook).read_text())["cells"]
    shown = sum(WIDGET_VIEW in o.get("data", {}) for c in cells for o in c.get("outputs", []))
    page = watched_page.page
    try:
        open_as_saved(page, lab_server, notebook)
        pictures = '.jp-OutputArea-output[data-mime-type="image/png"] img'
        page.wait_for_function(
            "([sel, n]) => Array.from(document.querySelectorAll(sel))"
            ".filter((img) => img.complete && img.naturalWidth > 0).length >= n",
            arg=[pictures, shown],
            timeout=30_000,
        )
        page.wait_for_timeout(1_000)  # anything Lab would log after drawing
        views = page.locator(f'.jp-OutputArea-output[data-mime-type="{WIDGET_VIEW}"]')
        assert views.count() == 0, f"{notebook}: {views.count()} widget views shown"
        watched_page.screenshot("lab-08-as-committed")
        assert_healthy(watched_page, notebook)
    finally:
        shut_down_sessions(lab_server)


def check_without_kernel(
    watched: WatchedPage, lab: ServerProcess, notebook: str, rng: random.Random
) -> None:
    """Shut the kernel down; every control still moves the drawing, which is still the view."""
    where = f"{notebook} without a kernel"
    shut_down_kernel(watched.page, lab, notebook)
    for k, root in enumerate(explorers(watched.page, settle_s=0.5)):  # drawn before, in this page
        check_every_control(watched.page, root, rng, f"{where} #{k}")
    watched.screenshot(f"lab-{Path(notebook).stem}-no-kernel")
    # Lab says, once per move, that it cannot tell the (gone) kernel: expected, and the only
    # console errors allowed.
    errors = [e for e in watched.errors if not any(m in e for m in NO_KERNEL_CONSOLE)]
    assert not errors, f"{where}: browser console errors: {errors}"


# ----------------------------------------------------------------------------- no browser needed


def test_expected_values_agree_with_the_book() -> None:
    """The expectations computed with torch give the book's printed numbers."""
    assert abs(SCORES[0, 1].item() - BOOK_SCORE_0_1) < TOLERANCE
    weights = torch.softmax(SCORES, dim=-1)
    for query, (book_weights, book_context) in BOOK_QUERIES.items():
        assert torch.allclose(weights[query], torch.tensor(book_weights), atol=TOLERANCE)
        context = weights[query] @ INPUTS
        assert torch.allclose(context, torch.tensor(book_context), atol=TOLERANCE)


def test_softmax_along_dim_0_normalises_columns_not_rows() -> None:
    """attnlib's dim=0 view holds the weights the browser must see; columns, not rows, sum to 1.

    The expected row sums differ from 1, so the browser's row-sum check tells dim=0 from -1.
    """
    from attnlib.widgets import softmax_view

    expected = torch.softmax(SCORES, dim=0)
    view = softmax_view(SCORES, TOKENS, 0)
    assert torch.allclose(view.attn_weights, expected, atol=1e-6)
    assert torch.allclose(view.row_sums, expected.sum(dim=1), atol=1e-6)
    assert view.cols_sum_to_one and not view.rows_sum_to_one
    assert not torch.allclose(expected.sum(dim=1), torch.ones(len(TOKENS)), atol=TOLERANCE)


def test_causal_weights_are_masked_and_renormalised() -> None:
    """attnlib's causal view masks exactly the keys after each query and renormalises the rest.

    Its weights are the ones the browser must see, computed here with torch: "journey"
    as stated, each row the softmax of the scores it may see.
    """
    from attnlib.widgets import attention_view

    assert torch.allclose(CAUSAL_WEIGHTS[1], torch.tensor(CAUSAL_ROW_1), atol=TOLERANCE)
    # Each row is the softmax of the scores it may see: row 1 of scores 0 and 1 only.
    assert torch.allclose(CAUSAL_WEIGHTS[1, :2], torch.softmax(SCORES[1, :2], dim=-1))
    assert torch.equal(CAUSAL_WEIGHTS[-1], torch.softmax(SCORES[-1], dim=-1))
    for query in range(len(TOKENS)):
        view = attention_view(INPUTS, TOKENS, query=query, causal=True)
        assert torch.equal(view.masked, ABOVE), query
        assert torch.allclose(view.attn_weights, CAUSAL_WEIGHTS, atol=1e-6), query
        assert torch.allclose(view.context, CAUSAL_WEIGHTS[query] @ INPUTS, atol=1e-6), query


def test_the_sweep_driven_here_is_in_check_all_and_make_test_keeps_a_few() -> None:
    """The notebooks whose sweep share test_explorer_in_lab drives are cases of check-all only;
    every notebook of the sweep is swept here or in test_frontend, not in both."""
    marked = {c.values[0].notebook: any(m.name == "check_all" for m in c.marks) for c in CASES}
    assert all(marked.get(notebook) is True for notebook in SWEPT_BY_LAB_CASES), marked
    assert set(SWEPT_BY_LAB_CASES) <= set(SETTINGS)


# Without a browser, so every case in `make test`, its marks for the browser run left off.
@pytest.mark.parametrize("case", [pytest.param(*c.values, id=c.id) for c in CASES])
def test_every_move_changes_the_view(case: ExplorerCase) -> None:
    """Each keyboard move expects a different view than the one before it.

    Otherwise a move that did nothing would pass, the old view still matching.
    """
    views = [step.view() for step in case.steps]
    assert all(step.focus and step.keys for step in case.steps[1:])
    assert all(before != after for before, after in zip(views, views[1:], strict=False))
    assert 0 <= case.nth < case.count


def test_mismatches_compares_every_kind_of_check() -> None:
    """A view is accepted only when every check of the step holds."""
    step = Step(
        "all kinds",
        (Expect("td", (0.5, None)), Expect("pre", (0.25, 0.75), part=True)),
        texts=((".token", "x(1)"),),
        lists=(("th", ("a", "b")),),
        same=(("tr.a", "tr.b"),),
        absent=(".error",),
    )
    good = {
        "numbers": [[0.50004, None], [1.0, 0.25, 0.75, 2.0]],
        "texts": [["x(1) = 'journey'"]],
        "lists": [["a", "b"]],
        "same": [[[0.1, 0.9], [0.1, 0.9]]],
        "absent": [0],
    }
    assert mismatches(step, good) == []
    bad = {
        "numbers": [[0.5, 0.0], [0.25, 1.0, 0.75]],  # a blank filled in; the run broken
        "texts": [[]],
        "lists": [["a"]],
        "same": [[[0.1, 0.9], [0.1, 0.8]]],
        "absent": [1],
    }
    found = mismatches(step, bad)
    assert len(found) == 6, found
    assert mismatches(step, None) == ["the explorer is not in the page"]
    # Two empty selections are not "the same numbers": the rows must be there.
    assert mismatches(step, {**good, "same": [[[], []]]})


def test_requests_to_other_hosts_are_told_from_this_machines() -> None:
    """A page may fetch from its server and inline data; anything else is another host."""
    for url in ("https://cdn.jsdelivr.net/npm/x.css", "http://example.org/", "wss://a.b/ws"):
        assert is_outside(url), url
    for url in ("http://127.0.0.1:8888/lab", "http://localhost/x", "http://[::1]:1/", "data:,x"):
        assert not is_outside(url), url


# Any executable file will do as a stand-in for Chromium: the gate only checks that it is one.
STAND_IN = sys.executable


def test_gate_runs_with_an_executable_override() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": STAND_IN, "PATH": ""}, playwright_installed=True)
    assert gate == Gate(STAND_IN, "", False)


def test_gate_skips_without_chromium() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": "/nonexistent"}, playwright_installed=True)
    assert gate.chromium is None and not gate.must_fail
    assert "/nonexistent" in gate.reason


def test_gate_fails_without_chromium_in_ci() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": "/nonexistent", "CI": "1"}, playwright_installed=True)
    assert gate.chromium is None and gate.must_fail
    assert "CI" in gate.reason


def test_gate_empty_ci_is_not_ci() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": "/nonexistent", "CI": ""}, playwright_installed=True)
    assert gate.chromium is None and not gate.must_fail


def test_gate_finds_chromium_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str | None] = []

    def which(name: str, path: str | None = None) -> str | None:
        seen.append(path)
        return "/opt/bin/chromium" if name == "chromium" else None

    monkeypatch.setattr(shutil, "which", which)
    gate = browser_gate({"PATH": "/opt/bin"}, playwright_installed=True)
    assert gate.chromium == "/opt/bin/chromium" and seen == ["/opt/bin"]


def test_gate_without_any_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    monkeypatch.setattr(gate_module, "DEBIAN_CHROMIUM", "/nonexistent/chromium")
    gate = browser_gate({"PATH": "/nowhere", "CI": "yes"}, playwright_installed=True)
    assert gate.chromium is None and gate.must_fail and "not on PATH" in gate.reason


def test_gate_needs_playwright() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": STAND_IN, "CI": "true"}, playwright_installed=False)
    assert gate.chromium is None and gate.must_fail and "playwright" in gate.reason
