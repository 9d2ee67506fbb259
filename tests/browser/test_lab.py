"""JupyterLab in headless Chromium: run each notebook with a live explorer, move it, check it.

Adding a notebook is one entry in ``CASES``: an :class:`ExplorerCase` with the
explorer's root selector and its expected views (see ``tests/browser/__init__.py``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import torch

from . import (
    ABOVE,
    BOOK_QUERIES,
    BOOK_SCORE_0_1,
    CAUSAL_EXPLORER_06,
    CAUSAL_ROW_1,
    CAUSAL_WEIGHTS,
    INPUTS,
    LOOP_STEPPER_01,
    QUERY_EXPLORER_04,
    SCORES,
    SENTENCE_EXPLORER_08,
    SOFTMAX_AXIS_03,
    TOLERANCE,
    Expect,
    ExplorerCase,
    Gate,
    ServerProcess,
    Step,
    WatchedPage,
    browser_gate,
    check_explorer,
    mismatches,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

CASES = [
    pytest.param(LOOP_STEPPER_01, id="01-loop-stepper"),
    pytest.param(SOFTMAX_AXIS_03, id="03-softmax-axis"),
    pytest.param(QUERY_EXPLORER_04, id="04-query-explorer"),
    pytest.param(CAUSAL_EXPLORER_06, id="06-causal-explorer"),
    pytest.param(SENTENCE_EXPLORER_08, id="08-sentence-explorer"),
    # A later notebook is one more entry: its explorer's root and the views it must show,
    # e.g. pytest.param(ExplorerCase("07_....ipynb", ".attnlib-explorer.attnlib-...",
    #     (Step("head 0", (Expect(".attnlib-formula", (...), part=True),)),
    #      Step("head 1", (...), slider("head"), ("ArrowRight",)))), id="07-..."),
]

RUN_ALL_TIMEOUT_MS = 120_000
KERNEL_READY_TIMEOUT_MS = 90_000
IDLE = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'

# The current notebook panel's kernel, as JupyterLab sees it.
_KERNEL_IDLE = """(path) => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    if (!panel || !panel.context || panel.context.path !== path) return false;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return !!kernel && kernel.status === 'idle' && !!document.querySelector(IDLE);
}""".replace("IDLE", json.dumps(IDLE))

# Prompts of the code cells, as shown: "[ ]:" before a run, "[*]:" while running.
_PROMPTS = """() => Array.from(
    document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')
).map((el) => el.textContent.trim())"""

# Run All is over when every code cell is numbered 1..n in order by the fresh kernel and
# the kernel is idle; or, to fail fast instead of waiting out the timeout, when an error
# or stderr output is shown (Run All stops at an error, the later cells stay "[ ]:").
_RAN_ALL = """([n, path]) => {
    const prompts = (PROMPTS)();
    const done = prompts.length === n && prompts.every((p, i) => p === `[${i + 1}]:`);
    return (done || !!document.querySelector(STDERR)) && (KERNEL_IDLE)(path);
}"""
_RAN_ALL = (
    _RAN_ALL.replace("PROMPTS", _PROMPTS)
    .replace("KERNEL_IDLE", _KERNEL_IDLE)
    .replace("STDERR", json.dumps(STDERR))
)


def _code_cells(path: Path) -> int:
    cells = json.loads(path.read_text())["cells"]
    return sum(cell["cell_type"] == "code" for cell in cells)


def _command(page: Page, command: str) -> None:
    # Not awaited: Run All resolves only when every cell is done, and that wait belongs
    # to wait_for_function, which has a timeout.
    page.evaluate("(id) => { void window.jupyterapp.commands.execute(id); }", command)


def open_and_run_all(page: Page, lab: ServerProcess, notebook: str, code_cells: int) -> None:
    """Open ``notebook`` in Lab, wait for its kernel, clear it, Run All, wait until done.

    Then assert that no cell shows an error or stderr output and every cell ran.
    """
    # reset: start from an empty workspace, not with the tabs of earlier tests reopened.
    page.goto(f"{lab.url}lab/tree/{notebook}?reset&token={lab.token}")
    # A Run All issued before the kernel is idle is silently dropped.
    page.wait_for_function(_KERNEL_IDLE, arg=notebook, timeout=KERNEL_READY_TIMEOUT_MS)
    # The committed notebook has its outputs and counts: clear them so that what is
    # checked afterwards can only come from this run.
    _command(page, "notebook:clear-all-cell-outputs")
    page.wait_for_function(
        f"() => ({_PROMPTS})().every((p) => p === '[ ]:')", timeout=KERNEL_READY_TIMEOUT_MS
    )
    _command(page, "notebook:run-all-cells")
    try:
        page.wait_for_function(_RAN_ALL, arg=[code_cells, notebook], timeout=RUN_ALL_TIMEOUT_MS)
    except Exception as exc:
        prompts = page.evaluate(_PROMPTS)
        raise AssertionError(
            f"{notebook}: Run All did not finish within {RUN_ALL_TIMEOUT_MS / 1000:.0f} s; "
            f"prompts: {prompts} (expected [1]: .. [{code_cells}]:)"
        ) from exc
    errors = page.locator(STDERR).all_inner_texts()
    assert not errors, f"{notebook}: error or stderr output after Run All: {errors}"
    prompts = page.evaluate(_PROMPTS)
    expected = [f"[{k}]:" for k in range(1, code_cells + 1)]
    assert prompts == expected, f"{notebook}: not every cell ran once, in order: {prompts}"


def shut_down_sessions(lab: ServerProcess) -> None:
    """Delete every session, ending its kernel, so kernels do not pile up across tests."""
    status, body = lab.request("GET", "/api/sessions")
    if status == 200:
        for session in json.loads(body):
            lab.request("DELETE", f"/api/sessions/{session['id']}")


@pytest.mark.browser
@pytest.mark.parametrize("case", CASES)
def test_explorer_in_lab(
    case: ExplorerCase, lab_server: ServerProcess, notebooks_copy: Path, watched_page: WatchedPage
) -> None:
    """Run All in JupyterLab, no error anywhere, then the explorer follows the keyboard."""
    page = watched_page.page
    try:
        open_and_run_all(
            page, lab_server, case.notebook, _code_cells(notebooks_copy / case.notebook)
        )
        broken = page.get_by_text("Error displaying widget").all_inner_texts()
        assert not broken, f"{case.notebook}: a widget did not render: {broken}"
        check_explorer(page, case)
        watched_page.screenshot(f"lab-{case.stem}")
        assert not watched_page.errors, f"browser console errors: {watched_page.errors}"
    finally:
        shut_down_sessions(lab_server)


# ----------------------------------------------------------------------------- no browser needed


def test_expected_values_agree_with_the_book() -> None:
    """The expectations computed with torch give the book's printed numbers."""
    assert abs(SCORES[0, 1].item() - BOOK_SCORE_0_1) < TOLERANCE
    weights = torch.softmax(SCORES, dim=-1)
    for query, (book_weights, book_context) in BOOK_QUERIES.items():
        assert torch.allclose(weights[query], torch.tensor(book_weights), atol=TOLERANCE)
        context = weights[query] @ INPUTS
        assert torch.allclose(context, torch.tensor(book_context), atol=TOLERANCE)
    assert torch.allclose(torch.softmax(SCORES, dim=0).sum(dim=0), torch.ones(6))


def test_causal_weights_are_masked_and_renormalised() -> None:
    """The causal expectations: zero above the diagonal, rows sum to 1, "journey" as stated."""
    assert (CAUSAL_WEIGHTS[ABOVE] == 0).all()
    assert torch.allclose(CAUSAL_WEIGHTS.sum(dim=-1), torch.ones(6))
    assert torch.allclose(CAUSAL_WEIGHTS[1], torch.tensor(CAUSAL_ROW_1), atol=TOLERANCE)
    # Each row is the softmax of the scores it may see: row 1 of scores 0 and 1 only.
    assert torch.allclose(CAUSAL_WEIGHTS[1, :2], torch.softmax(SCORES[1, :2], dim=-1))
    assert torch.equal(CAUSAL_WEIGHTS[-1], torch.softmax(SCORES[-1], dim=-1))


@pytest.mark.parametrize("case", CASES)
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
    gate_module = sys.modules[browser_gate.__module__]
    monkeypatch.setattr(gate_module, "DEBIAN_CHROMIUM", "/nonexistent/chromium")
    gate = browser_gate({"PATH": "/nowhere", "CI": "yes"}, playwright_installed=True)
    assert gate.chromium is None and gate.must_fail and "not on PATH" in gate.reason


def test_gate_needs_playwright() -> None:
    gate = browser_gate({"ATTNLIB_CHROMIUM": STAND_IN, "CI": "true"}, playwright_installed=False)
    assert gate.chromium is None and gate.must_fail and "playwright" in gate.reason
