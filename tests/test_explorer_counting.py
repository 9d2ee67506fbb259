"""Every explorer counts as the book does: tokens x⁽¹⁾ ... x⁽⁶⁾, journey's context vector z⁽²⁾.

The book (and the notebooks' prose) name the second token "journey" x⁽²⁾ and its context
vector z⁽²⁾ = [0.4419, 0.6515, 0.5683]; Python calls it ``inputs[1]``. Each explorer's
formula, labels and spoken lines for that query are read here, from the Python views and
from the front end's own modules in node, and compared with the book's names, typed in
below (not produced by the code under test). The LoopStepper's slider, its line and its
spoken value count iterations the same way: at 8, "iteration 8 of 36". Heads (and blocks) are
counted from 1 in words too, in the menus, captions, formulas and spoken lines: Python's
head 2 of four is "head 3 of 4", with its index where code is shown (``projections.W_query[2]``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, TrainingExplorer, _text

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "attnlib" / "widgets" / "static" / "src"

# The book's names for the query "journey" (its second token), and Python's index.
Z_JOURNEY = "z⁽²⁾"
X_JOURNEY = "x⁽²⁾"
INDEX_JOURNEY = "inputs[1]"
CONTEXT_JOURNEY = "[0.4419, 0.6515, 0.5683]"
# The blend as the book writes it: each weight times the input it belongs to, x⁽¹⁾ first.
TERMS_JOURNEY = "0.1385·x⁽¹⁾ + 0.2379·x⁽²⁾ + 0.2333·x⁽³⁾ + 0.1240·x⁽⁴⁾ + 0.1082·x⁽⁵⁾ + 0.1581·x⁽⁶⁾"
# The same as the formula's math reads (tree texts joined by spaces).
MATH_JOURNEY = "z ( 2 ) = ∑ j α 2 , j x ( j ) = [ 0.4419 , 0.6515 , 0.5683 ]"

SCRIPT = """
import { readFileSync } from "node:fs";
import { VIEWS, spoken } from "SRC/views.js";
import { mathText, mathView } from "SRC/formulas.js";
import { fill } from "SRC/format.js";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ kind, data, state, cell }) => {
  const view = VIEWS[kind](data, state);
  const math = kind === "training" ? [] : mathView(kind, data, view, state, cell).map(mathText);
  const values = spoken(data, state);
  const controls = data.texts.controls;
  const name = kind === "loop" ? "step" : "query";
  const { filled, how, ...rest } = view;
  const head = fill(controls.head_value, values);
  return { ...rest, math, aria: fill(controls[`${name}_value`], values), head };
});
process.stdout.write(JSON.stringify(out, (_, v) => (v === -Infinity ? null : v)));
"""

BASE = {"query": 1, "dim": -1, "causal": False, "temperature": 1.0, "head": 0, "step": 0}


def _node_views(cases: list[dict]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = SCRIPT.replace("SRC", SRC.as_posix())
    out = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ------------------------------------------------------------------------- in Python


def test_the_query_explorers_formula_names_journeys_context_vector_z2():
    first, code = QueryExplorer().view.text.splitlines()
    assert first == f"{Z_JOURNEY} = {TERMS_JOURNEY} = {CONTEXT_JOURNEY}"
    assert code == "in code: attn_weights[1] @ inputs"


def test_the_attention_explorers_formula_names_journeys_context_vector_z2():
    lines = AttentionExplorer().view.text.splitlines()
    assert lines[0].startswith(f"query \u201cjourney\u201d: {X_JOURNEY}, {INDEX_JOURNEY} |")
    assert f"{Z_JOURNEY} = {TERMS_JOURNEY} = {CONTEXT_JOURNEY}" in lines


def test_step_is_x6_and_its_context_vector_z6():
    explorer = QueryExplorer()
    explorer.query.value = 5
    assert explorer.view.text.startswith("z⁽⁶⁾ = 0.1385·x⁽¹⁾")
    attention = AttentionExplorer(query=5)
    assert attention.view.text.startswith("query \u201cstep\u201d: x⁽⁶⁾, inputs[5] |")


def test_the_loop_steppers_slider_counts_iterations_as_its_line_does():
    stepper = LoopStepper()
    assert (stepper.step.min, stepper.step.max) == (1, 36)
    stepper.step.value = 8  # the 8th dot product: row 1 (journey), column 1 (journey)
    view = stepper.view
    assert (view.iteration, view.i, view.j) == (8, 1, 1)
    assert view.text.startswith(f"ω₂,₂ = {X_JOURNEY}·{X_JOURNEY} = ")


# ------------------------------------------------------------------------- in node


def test_the_front_end_names_journey_x2_and_its_context_vector_z2():
    query, attention = QueryExplorer(), AttentionExplorer(num_heads=1)
    cases = [
        {"kind": "query", "data": query.frontend.data, "state": BASE, "cell": [1, 1]},
        {"kind": "attention", "data": attention.frontend.data, "state": BASE, "cell": [1, 1]},
    ]
    for view in _node_views(cases):
        panels = view["panels"]
        assert panels["label"] == f"query \u201cjourney\u201d: {X_JOURNEY}, {INDEX_JOURNEY}"
        assert panels["context"] == Z_JOURNEY
        assert panels["blend"].startswith(f"{Z_JOURNEY} = Σⱼ α₂,ⱼ·x⁽ʲ⁾")
        assert panels["bars"].startswith(f"weights α₂,ⱼ of {X_JOURNEY}")
        assert f"{Z_JOURNEY} = {TERMS_JOURNEY} = {CONTEXT_JOURNEY}" in view["formula"]
        spoken = f"query \u201cjourney\u201d, {X_JOURNEY}, {INDEX_JOURNEY}"
        assert view["announce"].startswith(spoken)
        assert view["math"][-1] == MATH_JOURNEY
        # The weight line of the cell in view names journey's own weight α₂,₂.
        assert view["math"][0].startswith("α 2 , 2 =")
        assert view["aria"] == f"journey: {X_JOURNEY}, {INDEX_JOURNEY}"


def test_the_front_ends_loop_stepper_says_iteration_8_of_36_at_8():
    stepper = LoopStepper()
    case = {"kind": "loop", "data": stepper.frontend.data, "state": {**BASE, "step": 8}}
    (view,) = _node_views([{**case, "cell": [0, 0]}])
    assert view["position"].startswith("iteration 8 of 36: i = 1, j = 1")
    assert view["at"] == [1, 1]
    assert view["announce"].startswith("iteration 8 of 36: ω₂,₂")
    assert view["aria"].startswith("8 of 36: i = 1 (journey), j = 1 (journey)")
    assert view["math"][0].startswith("ω 2 , 2 = x ( 2 ) · x ( 2 ) =")


def test_the_texts_name_tokens_from_one():
    """The number formats themselves: Python's index 0 is the book's 1, 11 its 12."""
    assert _text.fill("x{i:book} α{i:sub}", {"i": 0}) == "x⁽¹⁾ α₁"
    assert _text.fill("x{i:book} α{i:sub}", {"i": 11}) == "x⁽¹²⁾ α₁₂"


# ------------------------------------------------------------------------- heads, from 1

# Four heads: Python's head 2 is the third, "head 3 of 4"; its queries use projections.W_query[2].
HEAD_MENU = ["head 1 of 4", "head 2 of 4", "head 3 of 4", "head 4 of 4"]
HEAD_THIRD = "head 3 of 4 (queries = inputs @ projections.W_query[2]): attn_weights = softmax("
CAPTION_THIRD = "attn_weights = softmax(head 3's attn_scores / sqrt(2) / 1, dim=-1)"
# Two blocks of two heads: the menu's value 2 is block 1, head 0 in Python.
TRAINING_MENU = ["block 1, head 1", "block 1, head 2", "block 2, head 1", "block 2, head 2"]
WORDS = ["a", "b", "c"]


def _four_heads() -> AttentionExplorer:
    explorer = AttentionExplorer(num_heads=4, d_out=8)
    explorer.head.value = 2
    return explorer


def _training() -> TrainingExplorer:
    even = torch.tril(torch.ones(3, 3))
    snapshots = (even / even.sum(-1, keepdim=True)).expand(2, 2, 2, 3, 3).clone()
    return TrainingExplorer(snapshots, WORDS, [0, 10], snapshot=1, head=2, query=2)


def test_the_attention_explorers_head_menu_and_formula_count_heads_from_1():
    explorer = _four_heads()
    assert [label for label, _ in explorer.head.options] == HEAD_MENU
    assert [value for _, value in explorer.head.options] == [0, 1, 2, 3]
    assert explorer.head.label == "head 3 of 4"
    assert HEAD_THIRD in explorer.view.text
    for head in range(4):
        explorer.head.value = head
        assert "head 0" not in explorer.view.text, explorer.view.text


def test_the_training_explorers_head_menu_and_lines_count_blocks_and_heads_from_1():
    explorer = _training()
    assert [label for label, _ in explorer.head.options] == TRAINING_MENU
    view = explorer.view
    assert (view.block, view.head) == (1, 0)  # Python's indices stay in the view's fields
    assert view.caption.startswith("block 2, head 1 after 10 training steps")
    assert view.headline.startswith("snapshot 2 of 2 (step 10): block 2, head 1 puts ")
    first = view.text.splitlines()[0]
    assert first == "step 10 (snapshot 2 of 2), block 2, head 1 (snapshots[1, 1, 0])"
    # Query 2 is the third word, as the grid's columns number it (1, 2, 3).
    assert view.text.splitlines()[1].startswith(f"query 3 \u201c{WORDS[2]}\u201d: ")


def test_the_front_end_counts_heads_from_1_as_python_does():
    attention, training = _four_heads(), _training()
    state = {**BASE, "head": 2}
    cases = [
        {"kind": "attention", "data": attention.frontend.data, "state": state, "cell": [1, 1]},
        {
            "kind": "training",
            "data": training.frontend.data,
            "state": {**BASE, "query": 2, "head": 2, "step": 1},
            "cell": [0, 0],
        },
    ]
    heads, blocks = _node_views(cases)
    assert HEAD_THIRD in heads["formula"] and heads["formula"] == attention.view.text
    assert heads["caption"].startswith(CAPTION_THIRD), heads["caption"]
    assert ", head 3 of 4: weights" in heads["announce"], heads["announce"]
    assert heads["head"] == "3 of 4"  # a head slider's spoken value, as the menu reads
    assert "head 0" not in json.dumps(heads, ensure_ascii=False)
    view = training.view
    assert blocks["caption"] == view.caption and blocks["caption"].startswith("block 2, head 1 ")
    assert blocks["headline"] == view.headline and blocks["formula"] == view.text
    assert training.frontend.data["heads"] == TRAINING_MENU
