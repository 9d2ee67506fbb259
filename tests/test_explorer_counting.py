"""Every explorer counts as the book does: tokens x⁽¹⁾ ... x⁽⁶⁾, journey's context vector z⁽²⁾.

The book (and the notebooks' prose) name the second token "journey" x⁽²⁾ and its context
vector z⁽²⁾ = [0.4419, 0.6515, 0.5683]; Python calls it ``inputs[1]``. Each explorer's
formula, labels and spoken lines for that query are read here, from the Python views and
from the front end's own modules in node, and compared with the book's names, typed in
below (not produced by the code under test). The LoopStepper's slider, its line and its
spoken value count iterations the same way: at 8, "iteration 8 of 36".
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, _text

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
  const math = mathView(kind, data, view, state, cell).map(mathText);
  const values = spoken(data, state);
  const controls = data.texts.controls;
  const name = kind === "loop" ? "step" : "query";
  const { filled, how, ...rest } = view;
  return { ...rest, math, aria: fill(controls[`${name}_value`], values) };
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
