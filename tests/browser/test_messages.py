"""Every message an explorer's control can cause is shown right beside that control, in real
JupyterLab at 1280 and 390 px: a refused value under its slider, a sentence's error under its
box, the dropout line under the dropout menu; and a screen reader on the control reads it
(aria-describedby). The notebook (written into the session's copy of notebooks/) causes each
message from code, as only code can push a slider past its end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .dom import assert_beside
from .pages import ROOT, WatchedPage, assert_healthy
from .process import ServerProcess
from .steps import open_and_run_all, shut_down_sessions

NOTEBOOK = "explorer_messages.ipynb"
ARTIFACTS = ROOT / "tests" / "artifacts"
PHONE = 390
CELLS = [
    "import torch\n"
    "from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, "
    "TrainingExplorer",
    # Each explorer is shown after code set one of its controls past the view's end: refused.
    # Shown as its widget: what Lab draws of its display, without the still picture the
    # display also carries for pages without widget code (never drawn here, seconds to make).
    "query = QueryExplorer()\nquery.query.max = 9\nquery.query.value = 9\nquery.widget",
    # (Play, linked to the slider in the browser, goes as far: else it moves the slider back.)
    "loop = LoopStepper()\nloop.step.max = loop.play.max = 40\nloop.step.value = 40\nloop.widget",
    # A sentence the explorer cannot use, a temperature of 0 and a dropout rate at once.
    "heads = AttentionExplorer(num_heads=2)\nheads.sentence.value = 'x' * 21\n"
    "heads.dropout.value = 0.3\nheads.temperature.min = 0.0\nheads.temperature.value = 0.0\n"
    "heads.widget",
    "one = AttentionExplorer()\none.query.max = 30\none.query.value = 30\none.widget",
    "even = torch.tril(torch.ones(4, 4))\n"
    "snapshots = (even / even.sum(-1, keepdim=True)).expand(2, 1, 2, 4, 4).clone()\n"
    "training = TrainingExplorer(snapshots, ['a', 'b', 'c', 'd'], [0, 10])\n"
    "training.query.max = 7\ntraining.query.value = 7\ntraining.widget",
]
# (the explorer's root, its nth, the control, the message shown beside it), typed here.
MESSAGES = [
    (".attnlib-query-explorer", 0, "query", ".attnlib-status-query .attnlib-error"),
    (".attnlib-loop-stepper", 0, "step", ".attnlib-status-step .attnlib-error"),
    (".attnlib-attention-explorer", 0, "sentence", ".attnlib-status-sentence .attnlib-error"),
    (".attnlib-attention-explorer", 0, "temperature", ".attnlib-status-temperature .attnlib-error"),
    (".attnlib-attention-explorer", 0, "dropout", ".attnlib-dropout-line"),
    (".attnlib-attention-explorer", 1, "query", ".attnlib-status-query .attnlib-error"),
    (".attnlib-training-explorer", 0, "query", ".attnlib-status-query .attnlib-error"),
]
# The words each says (its control's name, and the dropout's rate), typed here.
SAYS = {
    "query": "query:",
    "step": "iteration:",
    "sentence": "sentence:",
    "temperature": "temperature:",
    "dropout": "1/(1 − 0.3)",
}


@pytest.fixture(scope="module")
def messages_notebook(notebooks_copy: Path) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    notebook = {
        "cells": [{**cell, "source": source} for source in CELLS],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (notebooks_copy / NOTEBOOK).write_text(json.dumps(notebook))
    return NOTEBOOK


def _check_every_message(page: Any, width: int) -> None:
    for root_selector, nth, name, said in MESSAGES:
        where = f"{width} px, {root_selector} #{nth}, {name}"
        root = page.locator(root_selector).nth(nth)
        message = root.locator(said).first
        message.wait_for(state="visible", timeout=30_000)
        assert SAYS[name] in message.inner_text(), f"{where}: {message.inner_text()!r}"
        control = root.locator(f".attnlib-control-{name}").first
        control.scroll_into_view_if_needed()
        assert_beside(control, message, where)
        if said.startswith(".attnlib-status-"):
            # The control's focusable part is described by its message line.
            line = root.locator(said.split()[0]).first
            target = control.locator("input, select, .noUi-handle").first
            page.wait_for_function(
                "([t, l]) => l.id && t.getAttribute('aria-describedby') === l.id",
                arg=[target.element_handle(), line.element_handle()],
                timeout=10_000,
            )
            assert root.locator(said).count() == 1, f"{where}: said twice"
    # Nothing said under the drawings: every message is beside its control.
    assert page.locator(".attnlib-status .attnlib-error").count() == 0


@pytest.mark.browser
def test_each_message_is_beside_the_control_that_caused_it(
    lab_server: ServerProcess, messages_notebook: str, watched_page: WatchedPage
) -> None:
    page = watched_page.page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        page.set_viewport_size({"width": 1280, "height": 900})
        open_and_run_all(page, lab_server, messages_notebook, len(CELLS))
        _check_every_message(page, 1280)
        page.screenshot(path=ARTIFACTS / "lab-messages-1280-light.png", full_page=True)
        page.set_viewport_size({"width": PHONE, "height": 900})
        # Lab's side panels take room a phone does not have: close them.
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        page.wait_for_timeout(500)
        _check_every_message(page, PHONE)
        page.screenshot(path=ARTIFACTS / f"lab-messages-{PHONE}-light.png", full_page=True)
        assert_healthy(watched_page, "explorer messages in JupyterLab")
    finally:
        shut_down_sessions(lab_server)
