"""attnlib.widgets, headless: the pure views, the three simple explorers, what the browser gets.

Expected numbers come from tests/book.py or from plain torch, never from attnlib.
What the browser draws from the data is checked by tests/browser/test_frontend.py.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import book
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from attnlib import widgets
from attnlib.widgets import frontend

ROOT = Path(__file__).resolve().parent.parent
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
INPUTS = torch.tensor(book.BOOK_INPUTS)
SCORES = INPUTS @ INPUTS.T
TOKENS = book.TOKENS


def close(a, b, atol: float = 1e-6) -> bool:
    return torch.allclose(torch.as_tensor(a).double(), torch.as_tensor(b).double(), atol=atol)


# ----------------------------------------------------------------------------- QueryExplorer


def test_query_explorer_starts_at_the_books_query_journey():
    explorer = widgets.QueryExplorer()
    view = explorer.view
    assert explorer.query.value == 1 and view.query == 1 and view.token == "journey"
    assert close(view.weights, book.JOURNEY_WEIGHTS, atol=1e-4)
    assert close(view.context, book.JOURNEY_CONTEXT, atol=1e-4)
    # The book's names: journey is x⁽²⁾ (Python's inputs[1]) and its context vector z⁽²⁾.
    first, code = view.text.splitlines()
    assert first.startswith("z⁽²⁾ = 0.1385·x⁽¹⁾ + 0.2379·x⁽²⁾ + ")
    assert first.endswith("= [0.4419, 0.6515, 0.5683]")
    assert code == "in code: attn_weights[1] @ inputs"


@pytest.mark.parametrize("query", range(6))
def test_moving_the_query_gives_that_row_and_its_context(query):
    explorer = widgets.QueryExplorer()
    explorer.query.value = query
    weights = torch.softmax(SCORES, dim=-1)
    assert close(explorer.view.attn_weights, weights)
    assert close(explorer.view.weights, weights[query])
    assert close(explorer.view.context, weights[query] @ INPUTS)
    assert close(explorer.view.context, book.ALL_CONTEXT_VECS[query], atol=1e-4)
    assert explorer.status.value == ""


def test_query_slider_spans_every_token_and_custom_tokens_label_them():
    inputs = torch.rand(4, 5, generator=torch.Generator().manual_seed(0))
    explorer = widgets.QueryExplorer(inputs, ["a", "b", "c", "d"])
    assert (explorer.query.min, explorer.query.max) == (0, 3)
    explorer.query.value = 3
    assert explorer.view.token == "d"
    assert widgets.QueryExplorer(inputs).tokens == ("t0", "t1", "t2", "t3")
    assert widgets.QueryExplorer(inputs[:1]).query.value == 0  # one token: query 0


def test_query_explorer_keeps_its_own_copy_of_the_inputs():
    inputs = INPUTS.clone()
    explorer = widgets.QueryExplorer(inputs)
    inputs.mul_(10)
    assert close(explorer.view.context, book.JOURNEY_CONTEXT, atol=1e-4)


def test_numpy_inputs_are_accepted():
    explorer = widgets.QueryExplorer(np.array(book.BOOK_INPUTS))
    assert close(explorer.view.weights, book.JOURNEY_WEIGHTS, atol=1e-4)


@given(st.data())
@settings(max_examples=25, deadline=None)
def test_query_view_of_random_inputs_is_plain_softmax(data):
    n = data.draw(st.integers(1, 8))
    d = data.draw(st.integers(1, 5))
    values = data.draw(st.lists(st.floats(-3, 3, width=32), min_size=n * d, max_size=n * d))
    inputs = torch.tensor(values).reshape(n, d)
    query = data.draw(st.integers(0, n - 1))
    view = widgets.query_view(inputs, [f"w{k}" for k in range(n)], query)
    weights = torch.softmax(inputs @ inputs.T, dim=-1)[query]
    assert close(view.weights, weights, 1e-5) and close(view.context, weights @ inputs, 1e-5)


# ----------------------------------------------------------------------------- SoftmaxAxisExplorer


def test_softmax_dim_minus_one_rows_sum_to_one():
    view = widgets.SoftmaxAxisExplorer().view
    assert view.dim == -1 and view.rows_sum_to_one and not view.cols_sum_to_one
    assert close(view.attn_weights, torch.softmax(SCORES, dim=-1))
    assert view.text.startswith("dim=-1 normalises across each row: every row sums to 1")


def test_softmax_dim_zero_columns_sum_to_one_and_rows_do_not():
    explorer = widgets.SoftmaxAxisExplorer()
    explorer.dim.value = 0
    view = explorer.view
    assert view.dim == 0 and view.cols_sum_to_one and not view.rows_sum_to_one
    assert close(view.attn_weights, torch.softmax(SCORES, dim=0))
    assert close(view.row_sums, torch.softmax(SCORES, dim=0).sum(dim=1))
    assert "so no query has a distribution" in view.text
    assert explorer.dim.index == 1  # what the browser gets: the toggle's index


def test_softmax_explorer_with_causal_scores():
    masked = SCORES.masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), float("-inf"))
    explorer = widgets.SoftmaxAxisExplorer(masked, TOKENS)
    expected = torch.softmax(masked, dim=-1)
    assert close(explorer.view.attn_weights, expected)
    assert (explorer.view.attn_weights.triu(1) == 0).all()
    # JSON has no -inf: the browser gets None where a score is masked.
    sent = explorer.frontend.data["scores"]
    assert sent[0][1] is None and sent[1][0] == pytest.approx(masked[1, 0].item())


@pytest.mark.parametrize(("dim", "axis"), [(-1, -1), (1, -1), (0, 0), (-2, 0)])
def test_softmax_view_takes_the_axis_in_either_spelling(dim, axis):
    view = widgets.softmax_view(SCORES, TOKENS, dim)
    assert view.dim == axis
    assert close(view.attn_weights, torch.softmax(SCORES, dim=axis))


# ----------------------------------------------------------------------------- LoopStepper


def test_loop_stepper_starts_with_the_first_cell():
    explorer = widgets.LoopStepper()
    view = explorer.view
    assert (explorer.step.min, explorer.step.value, explorer.step.max) == (1, 1, 36)
    assert (view.iteration, view.i, view.j) == (1, 0, 0)
    assert view.filled.sum() == 1 and torch.isnan(view.scores).sum() == 35
    assert view.score == pytest.approx(book.ATTN_SCORES[0][0], abs=1e-4)


def test_loop_stepper_iteration_seven_is_journey_times_your():
    explorer = widgets.LoopStepper()
    explorer.step.value = 7  # the 7th dot product: row 1 (journey), column 0 (Your)
    view = explorer.view
    assert (view.i, view.j) == (1, 0)
    assert view.terms == tuple(zip(INPUTS[1].tolist(), INPUTS[0].tolist(), strict=True))
    assert view.text == "ω₂,₁ = x⁽²⁾·x⁽¹⁾ = 0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.9544"


def test_loop_stepper_last_step_fills_the_symmetric_grid():
    explorer = widgets.LoopStepper()
    explorer.step.value = 36
    assert explorer.view.filled.all()
    assert close(explorer.view.scores, book.ATTN_SCORES, atol=1e-4)


def test_loop_stepper_negative_factors_are_parenthesised():
    view = widgets.loop_view(torch.tensor([[0.5, -0.25]]), ["a"], 1)
    assert view.text == "ω₁,₁ = x⁽¹⁾·x⁽¹⁾ = 0.50×0.50 + (-0.25)×(-0.25) = 0.3125"


def test_loop_stepper_sends_every_iteration_and_every_cell_written_out():
    data = widgets.LoopStepper().frontend.data
    assert len(data["views"]) == 36
    seventh = data["views"][6]  # iteration 7: row 1 (journey), column 0 (Your)
    assert seventh["code"] == "attn_scores[1, 0] = torch.dot(inputs[1], inputs[0])"
    assert seventh["announce"] == "iteration 7 of 36: ω₂,₁ = attn_scores[1, 0] = 0.9544"
    assert seventh["formula"].endswith("0.66×0.89 = 0.9544")
    assert data["cells"]["empty"][1][0] == "ω₂,₁ = attn_scores[1, 0]: not computed yet"
    assert data["cells"]["done"][1][0] == (
        "ω₂,₁ = attn_scores[1, 0] = x⁽²⁾·x⁽¹⁾ (journey·Your) = "
        "0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.9544"
    )


def test_query_and_softmax_explorers_send_every_setting():
    query = widgets.QueryExplorer().frontend.data
    assert [v["panels"]["context"] for v in query["views"]][:2] == ["z⁽¹⁾", "z⁽²⁾"]
    assert query["views"][1]["context"] == pytest.approx([0.4419, 0.6515, 0.5683], abs=1e-4)
    assert query["views"][1]["announce"].startswith("query “journey”, x⁽²⁾, inputs[1]: ")
    softmax = widgets.SoftmaxAxisExplorer().frontend.data
    rows, columns = softmax["views"]
    assert (
        rows["caption"]
        == "softmax(attn_scores, dim=-1): rows = queries, columns = the tokens compared"
    )
    assert columns["announce"] == "softmax dim=0: every column sums to 1"
    assert columns["sums"][1] == pytest.approx([1.0] * 6, abs=1e-6)


def test_play_runs_the_slider_in_the_browser():
    explorer = widgets.LoopStepper()
    assert (explorer.play.min, explorer.play.max) == (1, 36)
    link = explorer._play_link
    # The slider is the source: on opening a page the link copies source to target, so a
    # slider a cell moved keeps its value instead of taking Play's 1.
    assert link.source == (explorer.step, "value") and link.target == (explorer.play, "value")


# ----------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: widgets.QueryExplorer(torch.ones(3)), r"inputs: .*\(num_tokens, d_in\)"),
        (lambda: widgets.QueryExplorer(torch.ones(33, 3)), "at most 32 tokens"),
        (lambda: widgets.QueryExplorer(torch.ones(3, 65)), "at most 64 dimensions"),
        (lambda: widgets.LoopStepper(torch.full((2, 2), float("nan"))), "inputs: got inf or NaN"),
        (lambda: widgets.QueryExplorer(INPUTS, ["a"]), "tokens: expected one string per"),
        (lambda: widgets.QueryExplorer(INPUTS, ["x" * 21] * 6), r"tokens\[0\]: .*at most 20 char"),
        (lambda: widgets.QueryExplorer(torch.full((2, 2), 1e30)), "overflow"),
        (lambda: widgets.SoftmaxAxisExplorer(torch.ones(2, 3)), "expected a square shape"),
        (
            lambda: widgets.SoftmaxAxisExplorer(torch.full((2, 2), float("-inf"))),
            "a finite score in every row",
        ),
        (lambda: widgets.SoftmaxAxisExplorer(torch.ones(2, 2).long()), "attn_scores: .*int64"),
    ],
)
def test_bad_inputs_raise_from_the_constructor(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: widgets.query_view(INPUTS, TOKENS, 6), r"query: expected .*\[0, 5\], got 6"),
        (lambda: widgets.query_view(INPUTS, TOKENS, True), "query: expected an int"),
        (lambda: widgets.loop_view(INPUTS, TOKENS, 37), r"iteration: expected .*\[1, 36\], got 37"),
        (lambda: widgets.loop_view(INPUTS, TOKENS, 0), r"iteration: expected an int >= 1, got 0"),
        (lambda: widgets.softmax_view(SCORES, TOKENS, 2), "dim: expected -1"),
    ],
)
def test_view_functions_name_the_control_at_fault(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----------------------------------------------------------------------------- the browser's share


def test_the_browser_gets_the_data_once_and_the_controls_through_links():
    explorer = widgets.QueryExplorer()
    data = explorer.frontend.data
    assert data["tokens"] == list(TOKENS)
    assert close(data["scores"], SCORES) and close(data["values"], INPUTS)
    links = {(link.source[0], link.source[1], link.target[1]) for link in explorer._links}
    assert links == {(explorer.query, "value", "query")}
    # Directional: the controls move the view, never the other way round.
    assert all(link._model_name == "DirectionalLinkModel" for link in explorer._links)
    before = json.dumps(data)
    explorer.query.value = 4  # a move changes nothing the kernel sends
    assert json.dumps(explorer.frontend.data) == before


def test_the_axis_toggle_reaches_the_browser_by_its_index():
    explorer = widgets.SoftmaxAxisExplorer()
    (link,) = explorer._links
    assert link.source == (explorer.dim, "index") and link.target == (
        explorer.frontend,
        "dim_index",
    )
    assert [value for _, value in explorer.dim.options] == [-1, 0]  # the front end's DIMS


def test_the_front_end_is_the_bundle_the_package_ships():
    source = frontend.module_source()
    assert frontend.BUNDLE.is_file() and frontend.BUNDLE.parent.name == "static"
    assert "export {\n  explorer_default as default\n};" in source  # only the widget is exported
    assert "\nimport " not in source  # bundled: nothing left to fetch
    assert frontend.ExplorerView._esm == source
    assert ".attnlib-heatmap" in frontend.stylesheet()


def test_the_front_end_module_parses_as_javascript():
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    check = subprocess.run(
        [node, "--input-type=module", "--check"],
        input=frontend.module_source(),
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


def test_the_committed_bundle_is_a_fresh_build_of_its_sources():
    """esbuild (pinned in package-lock.json) rebuilds static/explorer.js byte for byte."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("npm is not installed (CI is set, so the bundle must be checked)")
        pytest.skip("npm is not installed: the bundle cannot be rebuilt here")
    env = {**os.environ, "npm_config_cache": str(ROOT / ".cache" / "npm-cache")}
    if not (ROOT / "node_modules" / ".bin" / "esbuild").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, env=env, check=True)
    built = subprocess.run(
        [npm, "run", "--silent", "build"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    assert built.stdout == frontend.module_source(), "static/explorer.js is stale: make bundle"


def test_the_sources_are_es_modules_with_explicit_imports():
    """Each file of static/src imports what it uses: no global one file leaves for the next."""
    sources = sorted((frontend.STATIC / "src").glob("*.js"))
    assert len(sources) >= 6
    for path in sources:
        text = path.read_text()
        assert "export " in text, f"{path.name} exports nothing"
        for name in re.findall(r'from "\./(\w+)\.js"', text):
            assert (path.parent / f"{name}.js").is_file(), f"{path.name} imports {name}.js"


def test_saved_explorers_keep_no_front_end_code():
    """An edit to the JS changes no saved file: the saved widget states hold no _esm/_css."""
    found, count = [], 0
    for path in sorted((ROOT / "notebooks" / ".widget-state").glob("[0-9][0-9]_*.json")):
        for key, model in json.loads(path.read_text())["state"].items():
            count += model["state"].get("_anywidget_id") == frontend.ANYWIDGET_ID
            code = [k for k in model["state"] if k in frontend.CODE_TRAITS]
            if code:
                found.append(f"{path.name} {key}: {code}")
    assert count >= 8, "the notebooks' explorers are not saved"
    assert not found, f"run make notebooks: {found}"


def test_the_module_is_stripped_on_save_and_put_back_for_pages():
    ours = {"_anywidget_id": frontend.ANYWIDGET_ID, "_esm": "old", "_css": "c", "x": 1}
    state = {
        "a": {"state": ours},
        "b": {"state": {"_esm": "someone else's", "value": 2}},
    }
    saved = frontend.without_module(state)
    assert saved["a"]["state"] == {"_anywidget_id": frontend.ANYWIDGET_ID, "x": 1}
    assert saved["b"] == state["b"]  # another widget's code is its own business
    page = frontend.with_module(saved)
    assert page["a"]["state"]["_esm"] == frontend.BUNDLE.read_text()
    assert page["a"]["state"]["_css"] == frontend.stylesheet()
    assert page["b"] == state["b"]


def test_the_browser_gets_every_text_once_with_the_sentence():
    data = widgets.QueryExplorer().frontend.data
    assert json.loads(json.dumps(data["texts"])) == json.loads(json.dumps(widgets._text.TEXTS))
    assert data["reprs"] == [f"\u201c{t}\u201d" for t in TOKENS]
    # The sentences are written in Python only: the front end has none of their words.
    for path in (frontend.STATIC / "src").glob("*.js"):
        text = path.read_text()
        for words in ("normalises", "sums to 1", "row by row", "attention weight", "torch.dot"):
            assert words not in text, f"{path.name} writes {words!r} itself"


# ----------------------------------------------------------------------------- display


@pytest.mark.parametrize(
    "make", [widgets.QueryExplorer, widgets.SoftmaxAxisExplorer, widgets.LoopStepper]
)
def test_display_is_the_live_view_a_picture_and_a_stable_text(make):
    explorer = make()
    bundle = explorer._repr_mimebundle_()
    assert (
        bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.widget.model_id
    )
    assert bundle["text/plain"] == (
        f"{make.__name__}: a live explorer. Run this cell in JupyterLab to use it."
    )
    picture = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))
    assert picture.format == "PNG" and picture.width > 400
    assert bundle["image/png"] == explorer._repr_mimebundle_()["image/png"]  # same bytes


def test_the_figure_is_a_snapshot_of_the_current_view():
    explorer = widgets.QueryExplorer()
    explorer.query.value = 4
    fig = explorer.figure()
    heatmap_ax = fig.axes[0]
    assert "z⁽⁵⁾" in fig._suptitle.get_text()  # "one" is x⁽⁵⁾, inputs[4]
    shown = [t.get_text() for t in heatmap_ax.texts]
    assert f"{torch.softmax(SCORES, dim=-1)[4, 4]:.2f}" in shown


@pytest.mark.parametrize(
    "make",
    [
        lambda: widgets.LoopStepper(tokens=["a" * 20] * 6),  # 25 raised: a title over 100
        lambda: widgets.QueryExplorer(tokens=["b" * 20] * 6),
        lambda: widgets.QueryExplorer(tokens=["$x$", "a$b", "c", "d", "e", "f"]),
        lambda: widgets.LoopStepper(tokens=["$x$", "a$b", "c", "d", "e", "f"]),
    ],
    ids=["loop-longest", "query-longest", "query-dollar", "loop-dollar"],
)
def test_every_token_an_explorer_accepts_is_drawn_in_its_picture(make):
    explorer = make()
    bundle = explorer._repr_mimebundle_()  # raised for long tokens: a title over 100 characters
    assert bundle["image/png"]
    fig = explorer.figure()
    shown = " ".join(t.get_text() for ax in fig.axes for t in ax.get_xticklabels())
    assert explorer.tokens[1] in shown


def test_root_and_status_carry_the_css_hooks():
    explorer = widgets.LoopStepper()
    assert {"attnlib-explorer", "attnlib-loop-stepper"} <= set(explorer.widget._dom_classes)
    assert "attnlib-status" in explorer.status._dom_classes
    assert explorer.widget.children[-2] is explorer.frontend
    assert explorer.frontend.kind == "loop"


def test_importing_widgets_does_not_pick_a_pyplot_backend():
    code = "import sys, attnlib.widgets; print('matplotlib.pyplot' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- one edit, one diff

# A comment added to every JS file (sources and bundle) changes no notebook and no widget state
# that make notebooks writes: tests/test_notebooks.py runs each notebook of `make check-all` in
# a copy of the repo so edited (test_make_notebooks_reproduces_the_committed_notebook), so that
# one run of each notebook checks both.


def test_a_still_pictures_hint_sits_under_its_axis_labels_not_over_them():
    """The TrainingExplorer's picture has fixed margins: the hint's strip goes under them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from attnlib.widgets import TrainingExplorer, figures

    words = [f"w{i}" for i in range(16)]
    causal = torch.tril(torch.ones(16, 16))
    snapshots = (causal / causal.sum(-1, keepdim=True)).expand(2, 1, 1, 16, 16).clone()
    fig = figures.with_hint(TrainingExplorer(snapshots, words, [0, 10]).figure())
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # the axis labels take their places under the tick labels when drawn
    renderer = canvas.get_renderer()
    hint = next(t for t in fig.texts if t.get_text() == figures.RUN_HINT)
    lowest = min(ax.xaxis.label.get_window_extent(renderer).y0 for ax in fig.axes)
    assert hint.get_window_extent(renderer).y1 < lowest
