"""attnlib.widgets, headless: set a control's value, check the view and the drawn HTML.

No kernel and no browser: ipywidgets run their observers synchronously, so after
``control.value = v`` the explorer's ``view`` and its HTML widgets are up to date.
Expected numbers are the book's (chapter 3), typed in; references for random
inputs are computed here with torch directly, not with attnlib.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import html  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from book import BOOK_INPUTS as _BOOK_INPUTS  # noqa: E402
from book import JOURNEY_CONTEXT, JOURNEY_WEIGHTS, TOKENS  # noqa: E402
from html_view import Table  # noqa: E402
from html_view import text as shown_text  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from attnlib import widgets  # noqa: E402

BOOK_INPUTS = torch.tensor(_BOOK_INPUTS)
JOURNEY_TEXT = (
    "z(journey) = 0.1385·x(Your) + 0.2379·x(journey) + 0.2333·x(starts) + 0.1240·x(with)"
    " + 0.1082·x(one) + 0.1581·x(step) = [0.4419, 0.6515, 0.5683]"
)
ATOL = 1e-4  # the book prints four decimals


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _reference_weights(inputs: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.softmax(inputs @ inputs.T, dim=dim)


# ----------------------------------------------------------------------------- QueryExplorer


def test_query_explorer_starts_at_the_books_query_journey():
    explorer = widgets.QueryExplorer()
    assert explorer.query.value == 1
    view = explorer.view
    assert view.query == 1 and view.token == "journey"
    assert view.weights.tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    assert view.context.tolist() == pytest.approx(JOURNEY_CONTEXT, abs=ATOL)
    assert view.attn_weights.shape == (6, 6)
    assert view.attn_weights[0, 1].item() == pytest.approx(0.2006, abs=ATOL)
    assert view.attn_weights[1, 0].item() == pytest.approx(0.1385, abs=ATOL)
    assert view.text == JOURNEY_TEXT


def test_query_explorer_draws_the_journey_row_and_its_sum():
    explorer = widgets.QueryExplorer()
    table = Table(explorer.heatmap.value)
    assert table.highlight_rows == ["1"]
    assert len(table.cells) == 36
    row = [table.cells[("1", str(j))] for j in range(6)]
    assert row == ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]
    assert table.cells[("0", "1")] == "0.2006"
    assert 'class="attnlib-heatmap"' in explorer.heatmap.value
    assert "rows = queries, columns = keys" in shown_text(explorer.heatmap)
    assert JOURNEY_TEXT in shown_text(explorer.formula)
    assert "'journey'" in shown_text(explorer.token_label)
    bars = shown_text(explorer.bars)
    for value in ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581", "sum 1.0000"]:
        assert value in bars


def test_moving_the_query_changes_the_highlighted_row_weights_and_context():
    explorer = widgets.QueryExplorer()
    before = explorer.heatmap.value
    explorer.query.value = 0
    view = explorer.view
    assert view.query == 0 and view.token == "Your"
    # Row 0 of the book's weights: [0, 1] is 0.2006, not the 0.1385 of [1, 0].
    assert view.weights[1].item() == pytest.approx(0.2006, abs=ATOL)
    assert view.weights.sum().item() == pytest.approx(1.0, abs=1e-6)
    assert torch.allclose(view.context, view.weights @ BOOK_INPUTS, atol=1e-6)
    assert explorer.heatmap.value != before
    assert Table(explorer.heatmap.value).highlight_rows == ["0"]
    assert shown_text(explorer.formula).startswith("z(Your) = ")
    assert "'Your'" in shown_text(explorer.token_label)
    assert "0.2006" in shown_text(explorer.bars)
    assert "0.4419" not in shown_text(explorer.formula)


def test_query_explorer_slider_spans_every_token():
    explorer = widgets.QueryExplorer()
    assert (explorer.query.min, explorer.query.max) == (0, 5)
    expected = _reference_weights(BOOK_INPUTS)
    for query in [5, 4, 3, 2, 1, 0]:
        explorer.query.value = query
        assert explorer.view.query == query
        assert torch.allclose(explorer.view.weights, expected[query], atol=1e-6)
        assert Table(explorer.heatmap.value).highlight_rows == [str(query)]
        assert f"z({TOKENS[query]}) = " in shown_text(explorer.formula)


def test_query_explorer_displays_as_its_widget():
    explorer = widgets.QueryExplorer()
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == (
        explorer.widget.model_id
    )
    assert "attnlib-query-explorer" in explorer.widget._dom_classes
    assert "attnlib-explorer" in explorer.widget._dom_classes


def test_query_explorer_custom_tokens_and_inputs():
    inputs = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    explorer = widgets.QueryExplorer(inputs, ["a", "<b>", "c"])
    explorer.query.value = 2
    # Scores of query "c": [1, 1, 2] -> softmax = [e, e, e^2] / (2e + e^2).
    e = np.e
    expected = [e / (2 * e + e * e), e / (2 * e + e * e), e * e / (2 * e + e * e)]
    assert explorer.view.weights.tolist() == pytest.approx(expected, abs=1e-6)
    assert (
        "&lt;b&gt;" in explorer.heatmap.value
        and "<b>" not in Table(explorer.heatmap.value).cells.values()
    )
    assert "x(<b>)" in shown_text(explorer.formula)


def test_query_explorer_custom_inputs_get_generic_tokens():
    explorer = widgets.QueryExplorer(torch.ones(2, 4, dtype=torch.float64))
    assert explorer.tokens == ("t0", "t1")
    assert explorer.view.weights.tolist() == pytest.approx([0.5, 0.5])


def test_query_explorer_keeps_its_own_copy_of_the_inputs():
    inputs = BOOK_INPUTS.clone()
    explorer = widgets.QueryExplorer(inputs, TOKENS)
    inputs.zero_()
    explorer.query.value = 0
    assert explorer.view.weights[1].item() == pytest.approx(0.2006, abs=ATOL)


def test_query_explorer_figure_is_a_static_snapshot_of_the_view():
    explorer = widgets.QueryExplorer()
    explorer.query.value = 3
    fig = explorer.figure()
    assert isinstance(fig, Figure)
    heat = fig.axes[0]
    (row,) = [p for p in heat.patches if p.get_gid() == "highlight_row"]
    assert row.get_xy() == (-0.5, 2.5)
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "attention weight"][0]
    assert "with" in bars.get_title()


# ----------------------------------------------------------------------------- SoftmaxAxisExplorer


def test_softmax_dim_minus_one_rows_sum_to_one():
    explorer = widgets.SoftmaxAxisExplorer()
    assert explorer.dim.value == -1
    view = explorer.view
    assert view.dim == -1
    assert view.row_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert not torch.allclose(view.col_sums, torch.ones(6), atol=1e-3)
    assert view.rows_sum_to_one and not view.cols_sum_to_one
    assert view.attn_weights[0, 1].item() == pytest.approx(0.2006, abs=ATOL)
    assert view.attn_weights[1, 0].item() == pytest.approx(0.1385, abs=ATOL)
    assert view.attn_weights[1].tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)


def test_softmax_dim_zero_columns_sum_to_one_and_rows_do_not():
    explorer = widgets.SoftmaxAxisExplorer()
    explorer.dim.value = 0
    view = explorer.view
    assert view.dim == 0
    assert view.col_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert not torch.allclose(view.row_sums, torch.ones(6), atol=1e-3)
    assert view.cols_sum_to_one and not view.rows_sum_to_one
    # The scores are symmetric, so dim=0 gives the transpose of the book's weights.
    assert view.attn_weights[0, 1].item() == pytest.approx(0.1385, abs=ATOL)
    assert view.attn_weights[:, 1].tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    explorer.dim.value = -1
    assert explorer.view.dim == -1 and explorer.view.rows_sum_to_one


def test_softmax_html_shows_the_sums_and_which_direction_is_one():
    explorer = widgets.SoftmaxAxisExplorer()
    table = Table(explorer.heatmap.value)
    row_sums = [table.cells[(str(i), "sum")] for i in range(6)]
    assert row_sums == ["1.0000"] * 6
    assert all("attnlib-sum-one" in table.cell_attrs[(str(i), "sum")]["class"] for i in range(6))
    assert [table.cells[("sum", str(j))] for j in range(6)] != ["1.0000"] * 6
    assert table.cells[("0", "1")] == "0.2006"
    text = shown_text(explorer.explanation)
    assert "every row sums to 1" in text and "Why dim=-1" in text

    explorer.dim.value = 0
    table = Table(explorer.heatmap.value)
    assert [table.cells[("sum", str(j))] for j in range(6)] == ["1.0000"] * 6
    assert [table.cells[(str(i), "sum")] for i in range(6)] != ["1.0000"] * 6
    assert table.cells[("0", "1")] == "0.1385"
    text = shown_text(explorer.explanation)
    assert "every column sums to 1" in text and "the rows do not" in text
    assert "dim=0" in shown_text(explorer.heatmap)


def test_softmax_explorer_with_causal_scores():
    scores = (BOOK_INPUTS @ BOOK_INPUTS.T).masked_fill(
        torch.ones(6, 6, dtype=torch.bool).triu(1), float("-inf")
    )
    explorer = widgets.SoftmaxAxisExplorer(scores, TOKENS)
    upper = torch.ones(6, 6, dtype=torch.bool).triu(1)
    for dim in (0, -1):
        explorer.dim.value = dim
        assert (explorer.view.attn_weights[upper] == 0).all()
        assert explorer.status.value == ""
    assert explorer.view.row_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert Table(explorer.heatmap.value).cells[("0", "5")] == "0.0000"


def test_softmax_explorer_css_class_and_figure():
    explorer = widgets.SoftmaxAxisExplorer()
    assert "attnlib-softmax-explorer" in explorer.widget._dom_classes
    explorer.dim.value = 0
    fig = explorer.figure()
    assert "dim=0" in fig.axes[0].get_title()


# ----------------------------------------------------------------------------- LoopStepper


def test_loop_stepper_starts_with_the_first_cell():
    explorer = widgets.LoopStepper()
    assert (explorer.step.min, explorer.step.max, explorer.step.value) == (0, 35, 0)
    view = explorer.view
    assert (view.i, view.j) == (0, 0)
    assert view.filled.sum().item() == 1 and view.filled[0, 0]
    assert view.scores[0, 0].item() == pytest.approx(0.9995, abs=ATOL)
    assert torch.isnan(view.scores).sum().item() == 35


def test_loop_stepper_step_six_is_journey_times_your():
    explorer = widgets.LoopStepper()
    explorer.step.value = 6
    view = explorer.view
    assert (view.step, view.i, view.j) == (6, 1, 0)
    assert view.text == "x(journey)·x(Your) = 0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.9544"
    flat = [factor for pair in view.terms for factor in pair]
    assert flat == pytest.approx([0.55, 0.43, 0.87, 0.15, 0.66, 0.89])
    assert view.score == pytest.approx(0.9544, abs=ATOL)
    assert view.filled.sum().item() == 7
    assert view.filled[0].all() and view.filled[1, 0] and not view.filled[1, 1]
    assert view.scores[0, 1].item() == pytest.approx(0.9544, abs=ATOL)

    table = Table(explorer.heatmap.value)
    assert table.highlight_cells == [("1", "0")]
    assert table.cells[("1", "0")] == "0.9544"
    assert table.cells[("0", "1")] == "0.9544"
    empty = [key for key, attrs in table.cell_attrs.items() if attrs.get("data-empty") == "1"]
    assert len(empty) == 29
    assert all(table.cells[key] == "" for key in empty)
    assert ("1", "1") in empty
    formula = shown_text(explorer.formula)
    assert "x(journey)·x(Your) = 0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.9544" in formula
    assert "attn_scores[1, 0]" in formula
    assert "iteration 7 of 36" in shown_text(explorer.position)


def test_loop_stepper_last_step_fills_the_symmetric_grid():
    explorer = widgets.LoopStepper()
    explorer.step.value = 35
    view = explorer.view
    assert (view.i, view.j) == (5, 5)
    assert view.filled.all() and not torch.isnan(view.scores).any()
    assert torch.allclose(view.scores, view.scores.T)
    assert torch.allclose(view.scores, BOOK_INPUTS @ BOOK_INPUTS.T, atol=1e-6)
    table = Table(explorer.heatmap.value)
    assert all(text != "" for text in table.cells.values())
    explorer.step.value = 2  # going back empties cells again
    assert Table(explorer.heatmap.value).cells[("3", "3")] == ""


def test_loop_stepper_negative_factors_are_parenthesised():
    inputs = torch.tensor([[1.5, -0.25], [-2.0, 0.5]])
    explorer = widgets.LoopStepper(inputs, ["p", "q"])
    explorer.step.value = 1
    assert explorer.view.text == "x(p)·x(q) = 1.50×(-2.00) + (-0.25)×0.50 = -3.1250"


def test_loop_stepper_css_class_and_figure():
    explorer = widgets.LoopStepper()
    assert "attnlib-loop-stepper" in explorer.widget._dom_classes
    explorer.step.value = 6
    ax = explorer.figure().axes[0]
    (cell,) = [p for p in ax.patches if p.get_gid() == "highlight_cell"]
    assert cell.get_xy() == (-0.5, 0.5)
    assert len(ax.texts) == 7  # the filled cells only


# ----------------------------------------------------------------------------- bad arguments

EXPLORERS = [widgets.QueryExplorer, widgets.LoopStepper]


@pytest.mark.parametrize("explorer_class", EXPLORERS)
@pytest.mark.parametrize(
    ("inputs", "tokens", "message"),
    [
        (BOOK_INPUTS, TOKENS[:5], r"tokens: expected 6 tokens \(one per row of inputs, shape "
         r"\(6, 3\)\), got 5"),
        (None, [*TOKENS, "extra"], r"tokens: expected 6 tokens .*got 7"),
        (BOOK_INPUTS, "Your journey", r"tokens: expected a list of 6 str"),
        (BOOK_INPUTS, [1, 2, 3, 4, 5, 6], r"tokens: expected str items, got int 1 at index 0"),
        (BOOK_INPUTS[0], None, r"inputs: expected shape \(num_tokens, d_in\) \(2-d\), got 1-d"),
        (BOOK_INPUTS[None], None, r"inputs: expected shape \(num_tokens, d_in\).*got 3-d"),
        (torch.ones(6, 3, dtype=torch.int64), None, r"inputs: expected a floating-point.*int64"),
        (torch.empty(0, 3), [], r"inputs: expected at least one token, got shape \(0, 3\)"),
        (torch.empty(2, 0), None, r"inputs: expected at least one embedding dimension"),
        (torch.tensor([[float("nan")]]), None, r"inputs: expected finite numbers"),
        ([[0.1, 0.2]], None, r"inputs: expected a torch.Tensor of floats, got list"),
    ],
)  # fmt: skip
def test_bad_inputs_raise_from_the_constructor(explorer_class, inputs, tokens, message):
    with pytest.raises(ValueError, match=message):
        explorer_class(inputs, tokens)


@pytest.mark.parametrize(
    ("scores", "tokens", "message"),
    [
        (torch.ones(3, 3), TOKENS, r"tokens: expected 3 tokens \(one per row of attn_scores"),
        (torch.ones(3, 2), None, r"attn_scores: expected a square shape.*got shape \(3, 2\)"),
        (torch.ones(0, 0), None, r"attn_scores: expected a square shape"),
        (torch.ones(3), None, r"attn_scores: expected shape \(num_tokens, num_tokens\)"),
        (torch.ones(2, 2, dtype=torch.int32), None, r"attn_scores: expected a floating-point"),
        (torch.tensor([[0.0, float("nan")], [0.0, 0.0]]), None, r"got NaN or \+inf"),
        (
            torch.tensor([[float("-inf"), float("-inf")], [0.0, 0.0]]),
            None,
            r"at least one finite score in every row and every column",
        ),
    ],
)
def test_softmax_explorer_bad_scores(scores, tokens, message):
    with pytest.raises(ValueError, match=message):
        widgets.SoftmaxAxisExplorer(scores, tokens)


def test_a_single_token_is_named_in_the_singular():
    with pytest.raises(ValueError, match=r"tokens: expected 1 token \(one per row of inputs"):
        widgets.QueryExplorer(torch.ones(1, 3), ["a", "b"])


@pytest.mark.parametrize("explorer_class", EXPLORERS)
def test_inputs_whose_scores_overflow_are_refused_not_shown_as_nan(explorer_class):
    # Finite inputs, but their dot products (~1e40) are beyond float32: softmax would give NaN.
    with pytest.raises(
        ValueError,
        match=r"attn_scores: expected finite scores, got overflow \(vectors up to 8.9e\+19 give "
        r"dot products beyond the largest torch.float32\); scale the inputs down",
    ):
        explorer_class(BOOK_INPUTS * 1e20)


@pytest.mark.parametrize("view_function", [widgets.query_view, widgets.loop_view])
def test_view_functions_refuse_scores_that_overflow(view_function):
    with pytest.raises(ValueError, match=r"attn_scores: expected finite scores, got overflow"):
        view_function(BOOK_INPUTS * 1e20, TOKENS, 1)
    # float64 holds those scores: the same inputs work there.
    view = view_function(BOOK_INPUTS.double() * 1e20, TOKENS, 1)
    assert view.text


def test_numpy_inputs_are_accepted():
    explorer = widgets.QueryExplorer(BOOK_INPUTS.numpy(), TOKENS)
    assert explorer.view.weights.tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)


@pytest.mark.parametrize(
    ("function", "args", "message"),
    [
        (
            widgets.query_view,
            (BOOK_INPUTS, TOKENS, 6),
            r"query: expected an int in \[0, 5\], got 6",
        ),
        (widgets.query_view, (BOOK_INPUTS, TOKENS, True), r"query: expected an int"),
        (widgets.loop_view, (BOOK_INPUTS, TOKENS, 36), r"step: expected an int in \[0, 35\]"),
        (widgets.softmax_view, (BOOK_INPUTS @ BOOK_INPUTS.T, TOKENS, 1), r"dim: expected -1"),
    ],
)
def test_view_functions_check_control_values(function, args, message):
    with pytest.raises(ValueError, match=message):
        function(*args)


@pytest.mark.parametrize(
    ("dim", "got"),
    [(0.0, "float 0.0"), (-1.0, "float -1.0"), ("0", "str '0'"), (1, "1"), (True, "True")],
)
def test_softmax_and_attention_views_share_one_dim_check(dim, got):
    message = rf"dim: expected -1 \(across each row\) or 0 \(down each column\), got {got}$"
    with pytest.raises(ValueError, match=message):
        widgets.softmax_view(BOOK_INPUTS @ BOOK_INPUTS.T, TOKENS, dim)
    with pytest.raises(ValueError, match=message):
        widgets.attention_view(BOOK_INPUTS, TOKENS, query=1, dim=dim)


def test_softmax_view_accepts_numpy_ints_as_dim():
    view = widgets.softmax_view(BOOK_INPUTS @ BOOK_INPUTS.T, TOKENS, np.int64(0))
    assert view.dim == 0 and type(view.dim) is int
    assert view.cols_sum_to_one and not view.rows_sum_to_one


# ----------------------------------------------------------------------------- errors in updates


@pytest.mark.parametrize(
    ("make", "control", "view_function", "new_value"),
    [
        # Each explorer's per-update function (the public view function minus the
        # checks and the work that no control changes, done once by the explorer).
        (widgets.QueryExplorer, "query", "_query_view", 3),
        (widgets.SoftmaxAxisExplorer, "dim", "_softmax_view", 0),
        (widgets.LoopStepper, "step", "_loop_view", 10),
    ],
)
def test_an_error_in_an_update_is_shown_and_the_last_view_stays(
    monkeypatch, make, control, view_function, new_value
):
    explorer = make()
    good_view, good_html = explorer.view, explorer.heatmap.value
    assert explorer.status.value == ""

    def broken(*args, **kwargs):
        raise RuntimeError("the view function broke")

    monkeypatch.setattr(widgets, view_function, broken)
    getattr(explorer, control).value = new_value
    status = html.unescape(explorer.status.value)
    assert "RuntimeError: the view function broke" in status
    assert "attnlib-error" in explorer.status.value
    assert explorer.view is good_view
    assert explorer.heatmap.value == good_html
    assert isinstance(explorer.last_error, RuntimeError)

    monkeypatch.undo()  # the next change draws again and clears the status
    other_value = getattr(good_view, control)
    getattr(explorer, control).value = other_value
    assert explorer.status.value == ""
    assert explorer.last_error is None
    assert getattr(explorer.view, control) == other_value


# ----------------------------------------------------------------------------- properties

_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _inputs_and_tokens(draw):
    num_tokens = draw(st.integers(1, 8))
    d_in = draw(st.integers(1, 5))
    values = draw(arrays(np.float32, (num_tokens, d_in), elements=st.floats(-3, 3, width=32)))
    tokens = draw(
        st.lists(st.text(min_size=1, max_size=5), min_size=num_tokens, max_size=num_tokens)
    )
    return torch.from_numpy(values), tokens


def _check_query_view(explorer, inputs: torch.Tensor, query: int) -> None:
    view = explorer.view
    assert view.query == query
    expected = _reference_weights(inputs.double()).float()
    assert torch.allclose(view.attn_weights, expected, atol=1e-5)
    assert torch.allclose(view.attn_weights.sum(dim=-1), torch.ones(len(inputs)), atol=1e-5)
    assert torch.allclose(view.weights, expected[query], atol=1e-5)
    assert torch.allclose(view.context, view.weights @ inputs, atol=1e-4)
    assert Table(explorer.heatmap.value).highlight_rows == [str(query)]
    assert explorer.status.value == ""


@_SETTINGS
@given(data=_inputs_and_tokens(), order=st.randoms())
def test_query_explorer_every_query_random_inputs(data, order):
    inputs, tokens = data
    explorer = widgets.QueryExplorer(inputs, tokens)
    queries = list(range(len(tokens)))
    order.shuffle(queries)
    for query in queries:
        explorer.query.value = query
        _check_query_view(explorer, inputs, query)


@_SETTINGS
@given(queries=st.lists(st.integers(0, 5), min_size=1, max_size=12))
def test_query_explorer_any_sequence_of_queries_default_inputs(queries):
    explorer = widgets.QueryExplorer()
    for query in queries:
        explorer.query.value = query
        _check_query_view(explorer, BOOK_INPUTS, query)


@_SETTINGS
@given(data=_inputs_and_tokens(), dims=st.lists(st.sampled_from([-1, 0]), max_size=6))
def test_softmax_explorer_both_axes_random_scores(data, dims):
    inputs, tokens = data
    scores = inputs @ inputs.T
    explorer = widgets.SoftmaxAxisExplorer(scores, tokens)
    for dim in [0, -1, *dims]:
        explorer.dim.value = dim
        view = explorer.view
        assert view.dim == dim
        expected = torch.softmax(scores.double(), dim=dim).float()
        assert torch.allclose(view.attn_weights, expected, atol=1e-5)
        assert torch.allclose(view.row_sums, view.attn_weights.sum(dim=1))
        assert torch.allclose(view.col_sums, view.attn_weights.sum(dim=0))
        normalised = view.col_sums if dim == 0 else view.row_sums
        assert torch.allclose(normalised, torch.ones(len(tokens)), atol=1e-5)
        assert (view.rows_sum_to_one if dim == -1 else view.cols_sum_to_one) is True
        table = Table(explorer.heatmap.value)
        keys = [("sum", str(k)) if dim == 0 else (str(k), "sum") for k in range(len(tokens))]
        sums = [table.cells[key] for key in keys]
        assert sums == ["1.0000"] * len(tokens)
        assert explorer.status.value == ""


@_SETTINGS
@given(data=_inputs_and_tokens())
def test_loop_stepper_every_step_random_inputs(data):
    inputs, tokens = data
    num_tokens = len(tokens)
    explorer = widgets.LoopStepper(inputs, tokens)
    assert explorer.step.max == num_tokens * num_tokens - 1
    reference = (inputs.double() @ inputs.double().T).float()
    for step in [*range(1, num_tokens * num_tokens), 0]:
        explorer.step.value = step
        view = explorer.view
        assert view.step == step
        assert (view.i, view.j) == (step // num_tokens, step % num_tokens)
        assert view.filled.sum().item() == step + 1
        assert view.filled.flatten()[: step + 1].all()
        assert torch.equal(~torch.isnan(view.scores), view.filled)
        assert torch.allclose(view.scores[view.filled], reference[view.filled], atol=1e-4)
        product = sum(a * b for a, b in view.terms)
        assert product == pytest.approx(reference[view.i, view.j].item(), abs=1e-4)
        assert len(view.terms) == inputs.shape[1]
        table = Table(explorer.heatmap.value)
        assert table.highlight_cells == [(str(view.i), str(view.j))]
        empty = sum(attrs.get("data-empty") == "1" for attrs in table.cell_attrs.values())
        assert empty == num_tokens * num_tokens - step - 1
        assert explorer.status.value == ""


def test_default_explorers_through_every_value():
    query, soft = widgets.QueryExplorer(), widgets.SoftmaxAxisExplorer()
    loop = widgets.LoopStepper()
    for value in range(6):
        query.query.value = value
        _check_query_view(query, BOOK_INPUTS, value)
    for value in (0, -1):
        soft.dim.value = value
        assert soft.view.dim == value
    for value in range(36):
        loop.step.value = value
        assert loop.view.filled.sum().item() == value + 1


def _count_calls(monkeypatch, names: list[str]) -> dict[str, int]:
    """Count the calls of ``widgets.<name>`` for each name, from now on."""
    calls = dict.fromkeys(names, 0)
    for name in names:
        original = getattr(widgets, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(widgets, name, counted)
    return calls


@pytest.mark.parametrize(
    ("make", "control", "values", "view_function", "constant_work"),
    [
        (
            widgets.QueryExplorer,
            "query",
            [0, 5, 2, 1],
            lambda e, v: widgets.query_view(e.inputs, e.tokens, v),
            ["softmax", "attention_scores", "_check_inputs", "_check_tokens"],
        ),
        (
            widgets.SoftmaxAxisExplorer,
            "dim",
            [0, -1, 0],
            lambda e, v: widgets.softmax_view(e.scores, e.tokens, v),
            ["_check_scores", "_check_tokens"],
        ),
        (
            widgets.LoopStepper,
            "step",
            [6, 35, 0, 17],
            lambda e, v: widgets.loop_view(e.inputs, e.tokens, v),
            ["attention_scores", "_check_inputs", "_check_tokens"],
        ),
    ],
)
def test_updates_redo_only_the_work_that_depends_on_the_control(
    monkeypatch, make, control, values, view_function, constant_work
):
    explorer = make()
    calls = _count_calls(monkeypatch, constant_work)
    shown = []
    for value in values:
        getattr(explorer, control).value = value
        assert explorer.status.value == ""
        shown.append((value, explorer.view))
    assert calls == dict.fromkeys(constant_work, 0)
    monkeypatch.undo()
    # ... and the views are still exactly what the public view function gives.
    for value, view in shown:
        expected = view_function(explorer, value)
        for field, got in vars(view).items():
            want = getattr(expected, field)
            if isinstance(got, torch.Tensor) and got.is_floating_point():
                # Bit for bit, NaN (a cell not filled yet) included.
                assert torch.equal(got.nan_to_num(nan=-1.5), want.nan_to_num(nan=-1.5)), field
                assert torch.equal(got.isnan(), want.isnan()), field
            elif isinstance(got, torch.Tensor):
                assert torch.equal(got, want), field
            else:
                assert got == want, field


def test_editing_a_view_in_place_does_not_change_the_next_view():
    explorer = widgets.QueryExplorer()
    explorer.view.attn_weights.zero_()
    explorer.query.value = 0
    assert explorer.view.weights[1].item() == pytest.approx(0.2006, abs=ATOL)
    assert "0.2006" in Table(explorer.heatmap.value).cells.values()


def test_finish_draws_the_first_view():
    class Tiny(widgets._Explorer):
        def __init__(self):
            self._view = "first"
            self.control = widgets.widgets.IntSlider()
            self.out = widgets.widgets.HTML()
            self._finish([self.control, self.out], [self.control])

        def _compute(self):
            return f"value {self.control.value}"

        def _render(self, view):
            return [(self.out, f"<b>{view}</b>")]

    tiny = Tiny()
    assert tiny.out.value == "<b>first</b>"
    tiny.control.value = 3
    assert tiny.out.value == "<b>value 3</b>"


# ----------------------------------------------------------------------------- html_heatmap


def test_html_heatmap_colours_match_the_static_heatmap():
    mpl = matplotlib
    source = widgets.html_heatmap([[0.0, 1.0]], ["q"], ["lo", "hi"], vmin=0.0, vmax=1.0)
    table = Table(source)
    low, high = table.cell_attrs[("0", "0")]["style"], table.cell_attrs[("0", "1")]["style"]
    viridis = mpl.colormaps["viridis"]
    assert f"background:{mpl.colors.to_hex(viridis(0.0))}" in low and "color:white" in low
    assert f"background:{mpl.colors.to_hex(viridis(1.0))}" in high and "color:black" in high


def test_html_heatmap_masked_cells():
    matrix = [[1.0, float("-inf")], [float("nan"), 2.0]]
    table = Table(widgets.html_heatmap(matrix, ["a", "b"], ["c", "d"]))
    assert table.cells[("0", "1")] == "-inf"
    assert "attnlib-masked" in table.cell_attrs[("0", "1")]["class"]
    assert table.cells[("1", "0")] == "" and table.cell_attrs[("1", "0")]["data-empty"] == "1"


def test_html_heatmap_bad_labels():
    with pytest.raises(ValueError, match=r"row_labels: expected 2 labels \(one per row"):
        widgets.html_heatmap([[1.0, 2.0], [3.0, 4.0]], ["a"], ["c", "d"])


_GRID = [[0.25, 0.75], [0.5, 0.5]]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"highlight_cell": 5}, r"highlight_cell: expected None or a pair of ints.*got int 5"),
        ({"highlight_cell": (None, 1)}, r"highlight_cell: expected None or a pair of ints"),
        ({"highlight_cell": (0, 2)}, r"highlight_cell\[1\]: expected None or an int in \[0, 1\]"),
        ({"highlight_row": 2}, r"highlight_row: expected None or an int in \[0, 1\], got 2"),
        ({"highlight_row": "0"}, r"highlight_row: expected None or an int"),
        ({"row_totals": [1.0]}, r"row_totals: expected shape \(2,\), one per row.*shape \(1,\)"),
        ({"row_totals": [1.0, 1.0, 1.0]}, r"row_totals: expected shape \(2,\).*got shape \(3,\)"),
        ({"col_totals": [0.75]}, r"col_totals: expected shape \(2,\), one per column.*\(1,\)"),
        ({"col_totals": [0.75, 1.25, 1.0]}, r"col_totals: expected shape \(2,\).*\(3,\)"),
        ({"col_totals": [[0.75, 1.25]]}, r"col_totals: expected shape \(2,\).*got 2-d"),
        ({"col_totals": ["a", "b"]}, r"col_totals: expected a tensor or array of numbers"),
        ({"colors": "viridis"}, r"colors: expected None or HeatmapColors.*got str 'viridis'"),
        ({"colors": {"background": ()}}, r"colors: expected None or HeatmapColors.*got dict"),
        ({"caption": 3}, r"caption: expected a str, got int 3"),
        ({"caption": None}, r"caption: expected a str, got NoneType None"),
        ({"fmt": "{:d}"}, r"fmt: expected a format string such as '\{:.2f\}', got str"),
        ({"fmt": 4}, r"fmt: expected a format string"),
        ({"fmt": "{0.nope}"}, r"fmt: expected a format string"),
        ({"cmap": "no-such-map"}, r"cmap: expected a matplotlib colormap"),
        ({"vmin": "low"}, r"vmin: expected None or a finite number"),
        ({"masked": [[True], [False, True]]}, r"masked: expected a bool array of shape \(2, 2\)"),
        ({"masked": torch.ones(2, 2)}, r"masked: expected a bool array of shape \(2, 2\)"),
    ],
)  # fmt: skip
def test_html_heatmap_bad_arguments_name_expected_and_received(kwargs, message):
    with pytest.raises(ValueError, match=message):
        widgets.html_heatmap(_GRID, ["a", "b"], ["c", "d"], **kwargs)


def test_html_heatmap_totals_and_highlights_that_fit_are_drawn():
    source = widgets.html_heatmap(
        _GRID,
        ["a", "b"],
        ["c", "d"],
        highlight_row=np.int64(1),
        highlight_cell=[0, 1],
        row_totals=torch.tensor([1.0, 1.0]),
        col_totals=np.array([0.75, 1.25]),
        fmt="{:.1f}",
    )
    table = Table(source)
    assert table.highlight_rows == ["1"] and table.highlight_cells == [("0", "1")]
    assert [table.cells[("sum", j)] for j in ("0", "1")] == ["0.7500", "1.2500"]
    assert table.cells[("0", "1")] == "0.8"


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([[0.1, 0.2]],), {"label": 7}, r"label: expected a str, got int 7"),
        (([0.1, 0.2],), {}, r"matrix: expected shape \(rows, cols\) \(2-d\), got 1-d"),
        (([["a", "b"]],), {}, r"matrix: expected a tensor or array of numbers"),
        (([[0.1, 0.2]],), {"cmap": 3}, r"cmap: expected a matplotlib colormap"),
    ],
)
def test_heatmap_colors_bad_arguments(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        widgets.heatmap_colors(*args, **kwargs)


def test_legend_and_cells_are_coloured_by_one_formatter():
    colors = widgets.heatmap_colors(np.linspace(0.0, 1.0, 9)[None, :])
    gradient = colors.legend.split("linear-gradient(to right, ")[1].split(")")[0]
    assert gradient.split(", ") == list(colors.background[0])
    assert not hasattr(widgets, "_css")  # the per-colour formatter the legend used to have


# ----------------------------------------------------------------------------- imports


def test_importing_widgets_does_not_pick_a_pyplot_backend():
    code = "import sys, attnlib.widgets; print('matplotlib.pyplot' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    "make", [widgets.QueryExplorer, widgets.SoftmaxAxisExplorer, widgets.LoopStepper]
)
def test_saved_notebooks_get_a_stable_text_and_a_live_view(make):
    # The text/plain is what a saved notebook shows without a kernel: it must not change
    # between runs (make notebooks is repeatable) and must tell the reader what to do.
    bundle = make()._repr_mimebundle_()
    name = make.__name__
    assert bundle["text/plain"] == (
        f"{name}: a live explorer. Run this cell in JupyterLab to use it."
    )
    assert "application/vnd.jupyter.widget-view+json" in bundle
