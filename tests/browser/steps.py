"""What the tests do in a page: Run All in JupyterLab, and move an explorer's controls.

:func:`open_and_run_all` opens a notebook in Lab and runs it in a fresh kernel;
:func:`check_explorer` checks an explorer's initial view, then presses keys on
its controls and waits for each view to follow (see ``views.py``).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from .dom import SHOWN_TEXT
from .pages import STDERR
from .process import ServerProcess
from .views import NUMBER, ExplorerCase, Step, Typed, mismatches

if TYPE_CHECKING:  # playwright is only imported once the gate says it is there
    from playwright.sync_api import Locator, Page

POLL_S = 0.1
EXPLORER_TIMEOUT_MS = 20_000
RUN_ALL_TIMEOUT_MS = 120_000
KERNEL_READY_TIMEOUT_MS = 90_000
IDLE = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'

# ----------------------------------------------------------------------------- Run All in Lab

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
_RAN_ALL = (
    """([n, path]) => {
    const prompts = (PROMPTS)();
    const done = prompts.length === n && prompts.every((p, i) => p === `[${i + 1}]:`);
    return (done || !!document.querySelector(STDERR)) && (KERNEL_IDLE)(path);
}""".replace("PROMPTS", _PROMPTS)
    .replace("KERNEL_IDLE", _KERNEL_IDLE)
    .replace("STDERR", json.dumps(STDERR))
)


def _command(page: Page, command: str) -> None:
    """Run Lab command ``command`` as its menu entry would, without waiting for it."""
    # Not awaited: Run All resolves only when every cell is done, and that wait belongs
    # to wait_for_function, which has a timeout.
    page.evaluate("(id) => { void window.jupyterapp.commands.execute(id); }", command)


def open_as_saved(page: Page, lab: ServerProcess, notebook: str) -> None:
    """Open ``notebook`` in Lab as a reader would, outputs as saved, and wait for its kernel."""
    # reset: start from an empty workspace, not with the tabs of earlier tests reopened.
    page.goto(f"{lab.url}lab/tree/{notebook}?reset&token={lab.token}")
    page.wait_for_function(_KERNEL_IDLE, arg=notebook, timeout=KERNEL_READY_TIMEOUT_MS)


def _open_cleared(page: Page, lab: ServerProcess, notebook: str) -> None:
    """Open ``notebook`` in Lab, wait for its kernel, and clear every output and count."""
    # A Run All issued before the kernel is idle is silently dropped.
    open_as_saved(page, lab, notebook)
    # The committed notebook has its outputs and counts: clear them so that what is
    # checked afterwards can only come from this run.
    _command(page, "notebook:clear-all-cell-outputs")
    page.wait_for_function(
        f"() => ({_PROMPTS})().every((p) => p === '[ ]:')", timeout=KERNEL_READY_TIMEOUT_MS
    )


def open_and_run_all(page: Page, lab: ServerProcess, notebook: str, code_cells: int) -> None:
    """Open ``notebook`` in Lab, wait for its kernel, clear it, Run All, wait until done.

    Then assert that no cell shows an error or stderr output and every cell ran.
    """
    _open_cleared(page, lab, notebook)
    _command(page, "notebook:run-all-cells")
    try:
        page.wait_for_function(_RAN_ALL, arg=[code_cells, notebook], timeout=RUN_ALL_TIMEOUT_MS)
    except Exception as exc:
        raise AssertionError(
            f"{notebook}: Run All did not finish within {RUN_ALL_TIMEOUT_MS / 1000:.0f} s; "
            f"prompts: {page.evaluate(_PROMPTS)} (expected [1]: .. [{code_cells}]:)"
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


# ----------------------------------------------------------------------------- explorers

# What the nth root shows for each kind of check of a Step (see Step and Expect).
_SHOWN = """([root, nth, q]) => {
    const el = document.querySelectorAll(root)[nth];
    if (!el) return null;
    const all = (sel) => Array.from(el.querySelectorAll(sel));
    const shown = SHOWN_TEXT;
    const text = (node) => shown(node).replace(/\\s+/g, " ").trim();
    const numbers = (sel) => all(sel).flatMap((node) => {
        const found = shown(node).match(/NUMBER/g);
        return found ? found.map(Number) : [null];
    });
    return {
        numbers: q.numbers.map(numbers),
        texts: q.texts.map((sel) => all(sel).slice(0, 1).map(text)),
        lists: q.lists.map((sel) => all(sel).map(text)),
        same: q.same.map((pair) => pair.map(numbers)),
        absent: q.absent.map((sel) => all(sel).length),
    };
}""".replace("NUMBER", NUMBER).replace("SHOWN_TEXT", SHOWN_TEXT)


def read_shown(page: Page, case: ExplorerCase, step: Step) -> dict[str, list] | None:
    """What the explorer shows now for each check of ``step`` (None: no explorer)."""
    query = {
        "numbers": [e.selector for e in step.expect],
        "texts": [sel for sel, _ in step.texts],
        "lists": [sel for sel, _ in step.lists],
        "same": [list(pair) for pair in step.same],
        "absent": list(step.absent),
    }
    return page.evaluate(_SHOWN, [case.root, case.nth, query])


# Whether the open notebook's kernel answers a kernel_info request (its shell channel, where
# widget messages go too) within ``ms``; null without a Lab kernel (Voila, a static page).
_KERNEL_ANSWERS = """async (ms) => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const session = panel && panel.sessionContext && panel.sessionContext.session;
    if (!session || !session.kernel) return null;
    const late = new Promise((resolve) => setTimeout(() => resolve(false), ms));
    return Promise.race([session.kernel.requestKernelInfo().then(() => true), late]);
}"""
KERNEL_ANSWER_MS = 5_000


def kernel_answers(page: Page) -> str:
    """A line saying whether the page's Lab kernel answers; "" without one.

    A view that does not follow a control the kernel reads is thus told apart from a kernel
    that no longer reads its channel (ipykernel 7.0-7.3, tests/test_kernel_channel.py).
    """
    try:
        answers = page.evaluate(_KERNEL_ANSWERS, KERNEL_ANSWER_MS)
    except Exception as exc:  # a crashed page: the failure being reported says more
        return f"(the kernel was not asked: {exc})"
    if answers is None:
        return ""
    if answers:
        return "the kernel answers a kernel_info request"
    return (
        f"the kernel does not answer a kernel_info request within {KERNEL_ANSWER_MS / 1000:.0f}"
        " s (busy, or no longer reading its shell channel)"
    )


def wait_for_step(page: Page, case: ExplorerCase, step: Step, timeout_ms: float) -> None:
    """Wait until the explorer shows ``step``'s view; else say how it differs."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        found = mismatches(step, read_shown(page, case, step))
        if not found:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{case.notebook}, {step.label}: the explorer does not show the expected view "
                f"within {timeout_ms / 1000:.0f} s:\n" + "\n".join([*found, kernel_answers(page)])
            )
        time.sleep(POLL_S)


def _find_root(page: Page, case: ExplorerCase, timeout_ms: float) -> Locator:
    """The explorer driven, scrolled into view, once the page has the expected number of them."""
    roots = page.locator(case.root)
    roots.first.wait_for(state="visible", timeout=timeout_ms)
    count = roots.count()
    assert count == case.count, f"{case.notebook}: expected {case.count} {case.root}, found {count}"
    root = roots.nth(case.nth)
    root.scroll_into_view_if_needed(timeout=timeout_ms)
    return root


def _move(page: Page, control: Locator, step: Step, where: str, timeout_ms: float) -> None:
    """Focus ``control`` and press (or type) ``step``'s keys; ``where`` names it in a failure."""
    control.focus(timeout=timeout_ms)
    focused = control.evaluate("(el) => el === document.activeElement")
    assert focused, f"{where} did not take focus"
    for key in step.keys:
        if isinstance(key, Typed):
            page.keyboard.type(key.text)
        else:
            page.keyboard.press(key)


def check_explorer(page: Page, case: ExplorerCase, timeout_ms: float = EXPLORER_TIMEOUT_MS) -> None:
    """Check the initial view, then move the controls with the keyboard step by step."""
    root = _find_root(page, case, timeout_ms)
    for step in case.steps:
        if step.focus is not None:
            control = root.locator(step.focus).first
            where = f"{case.notebook}, {step.label}: {step.focus}"
            _move(page, control, step, where, timeout_ms)
        wait_for_step(page, case, step, timeout_ms)


# ----------------------------------------------------------------------------- no kernel

# What Lab reports when a widget moves while its kernel is gone (the change stays in the
# page): a logged error, or, from toggle buttons and checkboxes, an uncaught one.
NO_KERNEL_CONSOLE = ("Could not send widget sync message", "[pageerror] Cannot send")


def shut_down_kernel(page: Page, lab: ServerProcess, notebook: str) -> None:
    """Shut the open notebook's kernel down as the Kernel menu does, and wait until it is gone.

    The page keeps its widgets: they are drawn from the state the page already holds.
    """
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.shutdown()"
    )
    deadline = time.monotonic() + KERNEL_READY_TIMEOUT_MS / 1000
    while True:
        status, body = lab.request("GET", "/api/kernels")
        if status == 200 and not json.loads(body):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{notebook}: the kernel is still running after its shutdown")
        time.sleep(POLL_S)
