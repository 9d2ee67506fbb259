"""attnlib.widgets.AttentionExplorer, headless: set each control's value, check view and HTML.

No kernel and no browser: ipywidgets run their observers synchronously, so after
``control.value = v`` the explorer's ``view`` and its HTML widgets are up to date.
Expected numbers are the book's (chapter 3), typed in; references for other
settings are computed here with plain torch (``torch.softmax``, ``torch.triu``,
``torch.nn.Linear``), not with attnlib's attention functions.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import html  # noqa: E402
import math  # noqa: E402

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
from matplotlib.figure import Figure  # noqa: E402

from attnlib import widgets  # noqa: E402
from attnlib.data import embed  # noqa: E402

BOOK_INPUTS = torch.tensor(_BOOK_INPUTS)
JOURNEY_CELLS = ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]
ATOL = 1e-4  # the book prints four decimals


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------- helpers


def _upper(num_tokens: int) -> torch.Tensor:
    return torch.ones(num_tokens, num_tokens, dtype=torch.bool).triu(diagonal=1)


def _reference(
    queries: torch.Tensor,
    keys: torch.Tensor,
    *,
    dim: int,
    causal: bool,
    temperature: float,
    scale: float = 1.0,
) -> torch.Tensor:
    """Attention weights with plain torch, in float64."""
    scores = (queries.double() @ keys.double().T) * scale / temperature
    if causal:
        scores = scores.masked_fill(_upper(len(queries)), float("-inf"))
    return torch.softmax(scores, dim=dim)


def _book_linears(seed: int, d_out: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """W_query, W_key, W_value weights ``(d_out, 3)`` as the book creates them after a seed."""
    torch.manual_seed(seed)
    linears = [torch.nn.Linear(3, d_out, bias=False) for _ in range(3)]
    return tuple(linear.weight.detach() for linear in linears)


def _head_qkv(inputs: torch.Tensor, seed: int, d_out: int, num_heads: int, head: int):
    """Queries, keys, values ``(num_tokens, head_dim)`` of one head, with plain torch."""
    head_dim = d_out // num_heads
    cols = slice(head * head_dim, (head + 1) * head_dim)
    return tuple(inputs @ weight.T[:, cols] for weight in _book_linears(seed, d_out))


def _check_consistent(explorer: widgets.AttentionExplorer, seed: int = 123) -> None:
    """The view agrees with plain torch, with itself, with the controls and with the HTML."""
    view = explorer.view
    num_tokens = len(view.tokens)
    assert explorer.tokens == view.tokens
    assert explorer.query.max == num_tokens - 1
    assert view.query == explorer.query.value
    assert view.token == view.tokens[view.query]
    assert (view.dim, view.causal) == (explorer.dim.value, explorer.causal.value)
    assert view.temperature == explorer.temperature.value
    assert view.attn_scores.shape == view.attn_weights.shape == (num_tokens, num_tokens)

    if explorer.head is None:
        assert view.head == 0
        queries = keys = values = view.inputs
        scale = 1.0
    else:
        assert view.head == explorer.head.value
        d_out, num_heads = explorer.module.d_out, explorer.module.num_heads
        queries, keys, values = _head_qkv(view.inputs, seed, d_out, num_heads, view.head)
        scale = 1.0 / math.sqrt(d_out // num_heads)
    expected = _reference(
        queries,
        keys,
        dim=view.dim,
        causal=view.causal,
        temperature=view.temperature,
        scale=scale,
    )
    assert torch.allclose(view.attn_weights.double(), expected, atol=1e-5)
    assert torch.allclose(view.values, values, atol=1e-6)
    if view.causal:
        assert (view.attn_weights[_upper(num_tokens)] == 0).all()
    if view.dim == -1:
        assert torch.allclose(view.attn_weights.sum(dim=1), torch.ones(num_tokens), atol=1e-5)
    else:
        assert torch.allclose(view.attn_weights.sum(dim=0), torch.ones(num_tokens), atol=1e-5)
    assert torch.allclose(view.row_sums, view.attn_weights.sum(dim=1))
    assert torch.allclose(view.col_sums, view.attn_weights.sum(dim=0))
    assert torch.equal(view.weights, view.attn_weights[view.query])
    # The context vector is the query's weights blending the values, by plain torch.
    assert torch.allclose(view.context, view.weights @ values, atol=1e-5)

    table = Table(explorer.heatmap.value)
    assert table.highlight_rows == [str(view.query)]
    shown = table.row(view.query, num_tokens)
    assert shown == [f"{w:.4f}" for w in view.weights.tolist()]
    upper = {(i, j) for i in range(num_tokens) for j in range(i + 1, num_tokens)}
    assert table.masked() == (upper if view.causal else set())
    assert f"z({view.token}) = " in shown_text(explorer.formula)


# ----------------------------------------------------------------------------- the book's view


def test_default_view_is_the_books_query_journey():
    explorer = widgets.AttentionExplorer()
    view = explorer.view
    assert explorer.sentence.value == "Your journey starts with one step"
    assert view.tokens == TOKENS and explorer.tokens == TOKENS
    assert torch.equal(view.inputs, BOOK_INPUTS)
    assert (view.query, view.token) == (1, "journey")
    assert view.weights.tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    assert view.context.tolist() == pytest.approx(JOURNEY_CONTEXT, abs=ATOL)
    assert view.attn_scores[0, 1].item() == pytest.approx(0.9544, abs=ATOL)
    assert view.attn_weights[0, 1].item() == pytest.approx(0.2006, abs=ATOL)
    assert view.attn_weights[1, 0].item() == pytest.approx(0.1385, abs=ATOL)
    assert (view.dim, view.causal, view.temperature, view.head) == (-1, False, 1.0, 0)
    assert view.row_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert explorer.head is None and explorer.module is None
    assert explorer.status.value == ""
    assert (
        "z(journey) = 0.1385·x(Your) + 0.2379·x(journey) + 0.2333·x(starts) + 0.1240·x(with)"
        " + 0.1082·x(one) + 0.1581·x(step) = [0.4419, 0.6515, 0.5683]"
    ) in view.text


def test_default_html_shows_the_books_numbers():
    explorer = widgets.AttentionExplorer()
    table = Table(explorer.heatmap.value)
    assert len([key for key in table.cells if "sum" not in key]) == 36
    assert table.highlight_rows == ["1"]
    assert table.row(1, 6) == JOURNEY_CELLS
    assert table.cells[("0", "1")] == "0.2006"
    assert [table.cells[(str(i), "sum")] for i in range(6)] == ["1.0000"] * 6
    assert [table.cells[("sum", str(j))] for j in range(6)] != ["1.0000"] * 6
    assert table.masked() == set()
    assert 'class="attnlib-heatmap"' in explorer.heatmap.value
    bars = shown_text(explorer.bars)
    assert all(cell in bars for cell in JOURNEY_CELLS) and "sum 1.0000" in bars
    assert "[0.4419, 0.6515, 0.5683]" in shown_text(explorer.formula)
    assert "'journey'" in shown_text(explorer.token_label)


def test_widget_classes_and_display():
    explorer = widgets.AttentionExplorer()
    assert {"attnlib-explorer", "attnlib-attention-explorer"} <= set(explorer.widget._dom_classes)
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == (
        explorer.widget.model_id
    )
    assert bundle["text/plain"] == (
        "AttentionExplorer: a live explorer. Run this cell in JupyterLab to use it."
    )
    explorer.query.value = 4
    assert explorer._repr_mimebundle_()["text/plain"] == bundle["text/plain"]


def test_controls_are_the_promised_widgets():
    explorer = widgets.AttentionExplorer()
    assert explorer.sentence.continuous_update is False
    assert (explorer.query.min, explorer.query.max, explorer.query.value) == (0, 5, 1)
    assert [value for _, value in explorer.dim.options] == [-1, 0]
    assert explorer.causal.value is False
    t = explorer.temperature
    assert (t.min, t.max, t.step, t.value) == (0.1, 5.0, 0.1, 1.0)


@pytest.mark.parametrize(
    "sentence",
    ["your journey starts with one step", "  YOUR   journey\tstarts with one STEP  "],
)
def test_the_books_sentence_in_any_case_or_spacing_gets_the_books_inputs(sentence):
    explorer = widgets.AttentionExplorer(sentence)
    assert torch.equal(explorer.view.inputs, BOOK_INPUTS)
    assert explorer.view.weights.tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    assert len(explorer.tokens) == 6


def test_another_sentence_gets_embed_vectors():
    explorer = widgets.AttentionExplorer("Your journey starts with one step.", seed=7)
    tokens, inputs = embed("Your journey starts with one step.", d=3, seed=7)
    assert explorer.tokens == tuple(tokens) and len(tokens) == 7
    assert torch.equal(explorer.view.inputs, inputs)
    assert not torch.equal(explorer.view.inputs[:6], BOOK_INPUTS)


# ----------------------------------------------------------------------------- each control


def test_query_slider_moves_the_row_and_the_label():
    explorer = widgets.AttentionExplorer()
    explorer.query.value = 0
    view = explorer.view
    assert (view.query, view.token) == (0, "Your")
    assert view.weights[1].item() == pytest.approx(0.2006, abs=ATOL)
    assert torch.allclose(view.context, view.weights @ BOOK_INPUTS, atol=1e-6)
    assert Table(explorer.heatmap.value).highlight_rows == ["0"]
    assert "'Your'" in shown_text(explorer.token_label)
    assert "z(Your) = " in shown_text(explorer.formula)
    _check_consistent(explorer)


def test_causal_zeros_above_the_diagonal_rows_still_sum_to_one():
    explorer = widgets.AttentionExplorer()
    explorer.causal.value = True
    view = explorer.view
    assert view.causal is True
    assert (view.attn_weights[_upper(6)] == 0).all()
    assert (view.attn_weights[~_upper(6)] > 0).all()
    assert view.row_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    # "Your" sees only itself; the last token sees the whole sentence, as without the mask.
    assert view.attn_weights[0, 0].item() == 1.0
    assert view.attn_weights[5].tolist() == pytest.approx(
        torch.softmax(BOOK_INPUTS @ BOOK_INPUTS[5], dim=0).tolist(), abs=1e-6
    )
    # journey sees Your and itself: softmax of the scores 0.9544 and 1.4950.
    e0, e1 = math.exp(0.9544), math.exp(1.4950)
    assert view.weights[:2].tolist() == pytest.approx([e0 / (e0 + e1), e1 / (e0 + e1)], abs=ATOL)
    assert view.weights[2:].tolist() == [0.0] * 4

    table = Table(explorer.heatmap.value)
    assert table.masked() == {(i, j) for i in range(6) for j in range(i + 1, 6)}
    assert all(table.cells[(str(i), str(j))] == "0.0000" for i, j in table.masked())
    assert "style" not in table.cell_attrs[("0", "5")]  # grey from the stylesheet
    assert [table.cells[(str(i), "sum")] for i in range(6)] == ["1.0000"] * 6
    assert "causal mask on" in view.text and "-inf" in view.text
    _check_consistent(explorer)

    explorer.causal.value = False
    assert Table(explorer.heatmap.value).row(1, 6) == JOURNEY_CELLS


def test_dim_zero_columns_sum_to_one():
    explorer = widgets.AttentionExplorer()
    explorer.dim.value = 0
    view = explorer.view
    assert view.dim == 0
    assert view.col_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert not torch.allclose(view.row_sums, torch.ones(6), atol=1e-3)
    # The scores are symmetric, so dim=0 gives the transpose: journey's column is the book's row.
    assert view.attn_weights[:, 1].tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    assert view.attn_weights[0, 1].item() == pytest.approx(0.1385, abs=ATOL)
    assert "not a weighted average" in view.text
    table = Table(explorer.heatmap.value)
    assert [table.cells[("sum", str(j))] for j in range(6)] == ["1.0000"] * 6
    assert table.cells[("0", "1")] == "0.1385"
    _check_consistent(explorer)


def test_dim_zero_with_causal_mask():
    explorer = widgets.AttentionExplorer(dim=0, causal=True)
    view = explorer.view
    assert (view.attn_weights[_upper(6)] == 0).all()
    assert view.col_sums.tolist() == pytest.approx([1.0] * 6, abs=1e-6)
    assert view.attn_weights[5, 5].item() == 1.0  # the last key is seen by the last query only
    _check_consistent(explorer)


def test_temperature_divides_the_scores():
    explorer = widgets.AttentionExplorer()
    explorer.temperature.value = 0.5
    scores_row = torch.tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])
    assert explorer.view.weights.tolist() == pytest.approx(
        torch.softmax(scores_row / 0.5, dim=0).tolist(), abs=ATOL
    )
    assert explorer.view.temperature == 0.5
    assert "temperature 0.5" in explorer.view.text
    _check_consistent(explorer)
    cells = Table(explorer.heatmap.value).row(1, 6)
    assert cells != JOURNEY_CELLS
    assert cells == [f"{w:.4f}" for w in torch.softmax(scores_row / 0.5, dim=0).tolist()]


def test_lower_temperature_sharpens_higher_flattens():
    explorer = widgets.AttentionExplorer()
    maxima, minima = [], []
    for temperature in [5.0, 2.0, 1.0, 0.5, 0.1]:
        explorer.temperature.value = temperature
        maxima.append(explorer.view.weights.max().item())
        minima.append(explorer.view.weights.min().item())
    assert maxima == sorted(maxima) and maxima[0] < maxima[-1]
    assert minima == sorted(minima, reverse=True)
    assert maxima[0] < 0.2 and maxima[-1] > 0.4  # nearly flat (1/6) against peaked at journey
    assert explorer.view.weights.argmax().item() == 1


def test_temperature_outside_the_slider_range_widens_it():
    explorer = widgets.AttentionExplorer(temperature=0.05)
    assert explorer.temperature.value == 0.05 and explorer.temperature.min == 0.05
    assert widgets.AttentionExplorer(temperature=8).temperature.max == 8.0


def test_a_repeated_word_gets_identical_rows_of_scores():
    explorer = widgets.AttentionExplorer("the cat saw the dog")
    view = explorer.view
    assert view.tokens == ("the", "cat", "saw", "the", "dog")
    assert torch.equal(view.attn_scores[0], view.attn_scores[3])
    assert torch.equal(view.attn_scores[:, 0], view.attn_scores[:, 3])
    assert torch.equal(view.attn_weights[0], view.attn_weights[3])
    table = Table(explorer.heatmap.value)
    assert table.row(0, 5) == table.row(3, 5)
    explorer.causal.value = True  # now "the" at 3 sees more than "the" at 0
    assert not torch.equal(explorer.view.attn_weights[0], explorer.view.attn_weights[3])
    assert torch.equal(explorer.view.attn_scores[0], explorer.view.attn_scores[3])


# ----------------------------------------------------------------------------- sentences


def test_a_new_sentence_redraws_with_its_tokens():
    explorer = widgets.AttentionExplorer()
    explorer.query.value = 4
    explorer.sentence.value = "Attention is all you need, they said"
    view = explorer.view
    expected_tokens = ("Attention", "is", "all", "you", "need", ",", "they", "said")
    assert view.tokens == expected_tokens
    assert explorer.query.max == 7 and view.query == 4 and view.token == "need"
    _, inputs = embed("Attention is all you need, they said", d=3, seed=123)
    assert torch.equal(view.inputs, inputs)
    table = Table(explorer.heatmap.value)
    assert len([key for key in table.cells if "sum" not in key]) == 64
    weights = torch.softmax(inputs @ inputs.T, dim=-1)
    assert table.row(4, 8) == [f"{w:.4f}" for w in weights[4].tolist()]
    assert "need" in shown_text(explorer.token_label)
    assert explorer.status.value == ""
    _check_consistent(explorer)


def test_a_shorter_sentence_clamps_the_query():
    explorer = widgets.AttentionExplorer(query=5)
    explorer.sentence.value = "hello world"
    assert explorer.query.max == 1 and explorer.query.value == 1
    assert explorer.view.query == 1 and explorer.view.token == "world"
    explorer.sentence.value = "one"
    assert (explorer.query.max, explorer.query.value, explorer.view.token) == (0, 0, "one")
    assert explorer.view.weights.tolist() == [1.0]
    assert explorer.status.value == ""
    explorer.sentence.value = "your journey starts with one step"
    assert explorer.query.max == 5 and explorer.view.query == 0
    assert explorer.view.attn_weights[1].tolist() == pytest.approx(JOURNEY_WEIGHTS, abs=ATOL)
    _check_consistent(explorer)


@pytest.mark.parametrize(
    ("sentence", "message"),
    [
        ("", "sentence: expected at least one word"),
        ("   \t ", "sentence: expected at least one word"),
        (" ".join(["word"] * 33), "sentence: expected at most 32 tokens, got 33"),
        ("a, " * 17, "sentence: expected at most 32 tokens, got 34"),
    ],
)
def test_a_bad_sentence_shows_its_error_and_keeps_the_last_good_view(sentence, message):
    explorer = widgets.AttentionExplorer()
    explorer.sentence.value = "the cat sat"
    good_view, good_html = explorer.view, explorer.heatmap.value
    explorer.sentence.value = sentence
    status = html.unescape(explorer.status.value)
    assert f"ValueError: {message}" in status and "attnlib-error" in status
    assert isinstance(explorer.last_error, ValueError)
    assert explorer.view is good_view
    assert explorer.heatmap.value == good_html
    assert explorer.tokens == ("the", "cat", "sat")
    assert explorer.query.max == 2

    # Other controls still work on the last good sentence, and the error stays up.
    explorer.query.value = 2
    assert explorer.view.query == 2 and explorer.view.tokens == ("the", "cat", "sat")
    assert message in html.unescape(explorer.status.value)

    explorer.sentence.value = "a good sentence again"
    assert explorer.status.value == "" and explorer.last_error is None
    assert explorer.tokens == ("a", "good", "sentence", "again")
    assert explorer.query.max == 3
    _check_consistent(explorer)


def test_an_error_in_an_update_is_shown_and_the_last_view_stays(monkeypatch):
    explorer = widgets.AttentionExplorer()
    good_view, good_html = explorer.view, explorer.heatmap.value

    def broken(*args, **kwargs):
        raise RuntimeError("the view function broke")

    # The update path computes the settings' grid of weights (the query only selects a row).
    monkeypatch.setattr(widgets, "_attention_grid", broken)
    explorer.temperature.value = 2.0
    assert "RuntimeError: the view function broke" in html.unescape(explorer.status.value)
    assert explorer.view is good_view and explorer.heatmap.value == good_html
    monkeypatch.undo()
    explorer.temperature.value = 3.0
    assert explorer.status.value == "" and explorer.view.temperature == 3.0


def test_moving_the_query_reuses_the_settings_weights(monkeypatch):
    explorer = widgets.AttentionExplorer("the dog saw the cat", causal=True)
    explorer.query.value = 0  # a first move: the grid of these settings now exists
    calls = []
    real = widgets._attention_grid

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(widgets, "_attention_grid", counted)
    for query in (2, 4, 3, 1):
        explorer.query.value = query
        assert not calls, "a query move recomputed the weights of every query"
        # Still the same view as the validated, from-scratch public function gives.
        expected = widgets.attention_view(
            explorer.inputs, explorer.tokens, query=query, causal=True
        )
        calls.clear()
        assert torch.equal(explorer.view.attn_weights, expected.attn_weights)
        assert torch.equal(explorer.view.context, expected.context)
        assert explorer.view.text == expected.text
    explorer.temperature.value = 2.0
    assert len(calls) == 1  # a new setting computes its grid once
    assert explorer.view.temperature == 2.0


# ----------------------------------------------------------------------------- heads


def test_one_head_has_no_head_control():
    explorer = widgets.AttentionExplorer(num_heads=1)
    assert explorer.head is None and explorer.projections is None
    assert explorer.view.context.shape == (3,)
    assert explorer.view.scale == 1.0


def test_two_heads_match_the_seeded_projections_and_the_head_selector_changes_the_weights():
    explorer = widgets.AttentionExplorer(num_heads=2)
    assert (explorer.head.min, explorer.head.max, explorer.head.value) == (0, 1, 0)
    assert explorer.module.d_out == 4 and explorer.module.head_dim == 2
    view0 = explorer.view
    assert view0.head == 0 and view0.context.shape == (2,)
    assert view0.scale == pytest.approx(1 / math.sqrt(2))
    _check_consistent(explorer)
    html0 = explorer.heatmap.value

    explorer.head.value = 1
    view1 = explorer.view
    assert view1.head == 1
    assert not torch.allclose(view0.attn_weights, view1.attn_weights, atol=1e-3)
    assert not torch.allclose(view0.context, view1.context, atol=1e-3)
    assert explorer.heatmap.value != html0
    assert "head 1 of 2" in view1.text and "v(journey)" in view1.text
    _check_consistent(explorer)


@pytest.mark.parametrize(("num_heads", "d_out"), [(2, None), (3, 6), (2, 8), (4, 4)])
def test_heads_match_the_modules_own_forward_pass(num_heads, d_out):
    explorer = widgets.AttentionExplorer(num_heads=num_heads, d_out=d_out, causal=True)
    with torch.no_grad():
        explorer.module(BOOK_INPUTS[None])
    module_weights = explorer.module.last_attn_weights[0]  # (num_heads, 6, 6)
    for head in range(num_heads):
        explorer.head.value = head
        assert torch.allclose(explorer.view.attn_weights, module_weights[head], atol=1e-6)
        _check_consistent(explorer)


def test_building_the_heads_leaves_the_readers_random_stream_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    widgets.AttentionExplorer(num_heads=2, seed=5)
    assert torch.equal(torch.rand(3), expected)


def test_the_seed_picks_the_heads_weights():
    a = widgets.AttentionExplorer(num_heads=2, seed=1)
    b = widgets.AttentionExplorer(num_heads=2, seed=2)
    assert not torch.allclose(a.view.attn_weights, b.view.attn_weights)
    _check_consistent(a, seed=1)
    _check_consistent(b, seed=2)


# ----------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_heads": 0}, r"num_heads: expected an int >= 1, got 0"),
        ({"num_heads": 2.0}, r"num_heads: expected an int >= 1, got float 2.0"),
        ({"num_heads": 2, "d_out": 3}, r"d_out: expected a multiple of num_heads=2.*got 3"),
        ({"num_heads": 2, "d_out": 0}, r"d_out: expected an int >= 1, got 0"),
        ({"num_heads": 1, "d_out": 2}, r"d_out: expected None with num_heads=1.*got int 2"),
        ({"temperature": 0}, r"temperature: expected a finite number > 0, got 0"),
        ({"temperature": -1.0}, r"temperature: expected a finite number > 0, got -1.0"),
        ({"temperature": float("nan")}, r"temperature: expected a finite number > 0, got nan"),
        ({"temperature": "hot"}, r"temperature: expected a number > 0, got str 'hot'"),
        ({"dim": 1}, r"dim: expected -1 \(across each row\) or 0 \(down each column\), got 1"),
        ({"dim": True}, r"dim: expected -1 .*got True"),
        ({"query": 6}, r"query: expected an int in \[0, 5\] \(the sentence has 6 tokens\), got 6"),
        ({"query": -1}, r"query: expected an int in \[0, 5\], got -1"),
        ({"query": 1.0}, r"query: expected an int in \[0, 5\], got float 1.0"),
        ({"causal": 1}, r"causal: expected True or False, got int 1"),
        ({"causal": "yes"}, r"causal: expected True or False, got str 'yes'"),
        ({"seed": -1}, r"seed: expected an int >= 0, got -1"),
        ({"sentence": ""}, r"sentence: expected at least one word, got ''"),
        ({"sentence": "x " * 40}, r"sentence: expected at most 32 tokens, got 40"),
        ({"sentence": 42}, r"sentence: expected a str, got int 42"),
        (
            {"sentence": "a b", "query": 2},
            r"query: expected an int in \[0, 1\] \(the sentence "
            r"has 2 tokens\), got 2",
        ),
        ({"sentence": "hello"}, r"query: expected an int in \[0, 0\].*got 1; pass query=0"),
        (
            {"sentence": "hello"},
            r"query: expected an int in \[0, 0\] \(the sentence has 1 token\), got 1",
        ),
        ({"dim": 0.0}, r"dim: expected -1 \(across each row\) or 0 .*got float 0.0"),
        (
            {"temperature": 1e-300},
            r"attn_scores: expected finite scores, got overflow \(attn_scores \* 1 / "
            r"temperature 1e-300 go beyond the largest torch.float32\); raise the temperature",
        ),
        (
            {"temperature": 1e-300, "num_heads": 2},
            r"attn_scores: expected finite scores, got overflow \(attn_scores \* 0.707107 / "
            r"temperature 1e-300",
        ),
        (
            {"temperature": 1e-320},
            r"temperature: expected a number for which scale / temperature is finite, "
            r"got 1e-320 \(scale 1\); raise the temperature",
        ),
    ],
)
def test_bad_constructor_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        widgets.AttentionExplorer(**kwargs)


def test_a_numpy_int_dim_is_accepted():
    explorer = widgets.AttentionExplorer(dim=np.int64(0))
    assert explorer.view.dim == 0 and type(explorer.view.dim) is int
    _check_consistent(explorer)


def test_attention_view_refuses_inputs_whose_scores_overflow():
    with pytest.raises(
        ValueError,
        match=r"attn_scores: expected finite scores, got overflow \(vectors up to 8.9e\+19 give "
        r"dot products beyond the largest torch.float32\); scale the inputs down",
    ):
        widgets.attention_view(BOOK_INPUTS * 1e20, TOKENS, query=1)


def test_a_temperature_that_overflows_the_scores_shows_an_error_not_nan():
    explorer = widgets.AttentionExplorer()
    good_view, good_html = explorer.view, explorer.heatmap.value
    explorer.temperature.min = 1e-300
    explorer.temperature.value = 1e-300
    status = html.unescape(explorer.status.value)
    assert "ValueError: attn_scores: expected finite scores, got overflow" in status
    assert "raise the temperature" in status
    assert explorer.view is good_view and explorer.heatmap.value == good_html
    assert "nan" not in explorer.heatmap.value.lower()
    explorer.temperature.value = 0.5
    assert explorer.status.value == "" and explorer.view.temperature == 0.5


@pytest.mark.parametrize("num_heads", [1, 2])
@pytest.mark.parametrize(("dim", "causal", "temperature"), [(-1, False, 1.0), (0, True, 0.3)])
def test_the_weights_come_from_attention_weights(monkeypatch, num_heads, dim, causal, temperature):
    # One implementation of the arithmetic: the explorer asks attnlib.attention for its weights.
    from attnlib import attention

    calls = []

    def spy(queries, keys, **kwargs):
        result = attention.attention_weights(queries, keys, **kwargs)
        calls.append((queries, keys, kwargs, result))
        return result

    monkeypatch.setattr(widgets, "attention_weights", spy)
    explorer = widgets.AttentionExplorer(
        num_heads=num_heads, dim=dim, causal=causal, temperature=temperature
    )
    (call,) = calls
    queries, keys, kwargs, result = call
    view = explorer.view
    assert torch.equal(queries, view.queries) and torch.equal(keys, view.keys)
    assert kwargs == {
        "scale": pytest.approx(view.scale / temperature),
        "causal": causal,
        "dim": -1 if dim == -1 else -2,
    }
    assert torch.equal(view.attn_weights, result)
    # What enters softmax, as the view shows it, is what attention_weights used.
    assert torch.equal(attention.softmax(view.scaled_scores, dim=dim), result)
    _check_consistent(explorer)


def test_editing_a_view_in_place_does_not_change_the_next_view():
    explorer = widgets.AttentionExplorer(causal=True)
    explorer.view.masked.zero_()
    explorer.view.attn_weights.zero_()
    explorer.temperature.value = 2.0
    assert torch.equal(explorer.view.masked, _upper(6))
    _check_consistent(explorer)


def test_attention_view_checks_head_and_projections():
    with pytest.raises(ValueError, match=r"head: expected an int in \[0, 0\], got 1"):
        widgets.attention_view(BOOK_INPUTS, TOKENS, query=1, head=1)
    projections = widgets.AttentionExplorer(num_heads=2).projections
    with pytest.raises(ValueError, match=r"head: expected an int in \[0, 1\], got 2"):
        widgets.attention_view(BOOK_INPUTS, TOKENS, query=1, head=2, projections=projections)
    with pytest.raises(ValueError, match=r"projections: expected d_in = 2 \(as inputs\)"):
        widgets.attention_view(BOOK_INPUTS[:, :2], TOKENS, query=1, projections=projections)
    with pytest.raises(ValueError, match=r"tokens: expected 6 tokens"):
        widgets.attention_view(BOOK_INPUTS, TOKENS[:5], query=1)


def test_head_projections_check_shapes():
    with pytest.raises(ValueError, match=r"W_key: expected the shape of W_query, \(2, 3, 2\)"):
        widgets.HeadProjections(torch.ones(2, 3, 2), torch.ones(2, 3, 1), torch.ones(2, 3, 2))
    with pytest.raises(ValueError, match=r"W_query: expected shape \(num_heads, d_in, head_dim\)"):
        widgets.HeadProjections(torch.ones(3, 2), torch.ones(3, 2), torch.ones(3, 2))


# ----------------------------------------------------------------------------- figure


def test_figure_is_a_static_snapshot_of_the_view():
    explorer = widgets.AttentionExplorer()
    explorer.query.value = 3
    explorer.causal.value = True
    fig = explorer.figure()
    assert isinstance(fig, Figure)
    heat = fig.axes[0]
    (row,) = [p for p in heat.patches if p.get_gid() == "highlight_row"]
    assert row.get_xy() == (-0.5, 2.5)
    assert "causal" in heat.get_title()
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "attention weight"][0]
    assert "with" in bars.get_title()
    cell_texts = {t.get_text() for t in heat.texts}
    assert "0.00" in cell_texts  # the masked weights


# ----------------------------------------------------------------------------- properties

_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "Your", "journey", "step", "ÿes", "x1"]
_sentences = st.lists(
    st.sampled_from(_WORDS + [",", ".", "!", "?", "'"]), min_size=1, max_size=12
).map(" ".join)
_bad_sentences = st.sampled_from(["", "  ", "\n", " ".join(["w"] * 33), "!" * 40])
_steps = st.lists(
    st.one_of(
        st.tuples(st.just("query"), st.integers(0, 11)),
        st.tuples(st.just("dim"), st.sampled_from([-1, 0])),
        st.tuples(st.just("causal"), st.booleans()),
        st.tuples(st.just("temperature"), st.floats(0.1, 5.0)),
        st.tuples(st.just("head"), st.integers(0, 2)),
        st.tuples(st.just("sentence"), _sentences),
        st.tuples(st.just("bad"), _bad_sentences),
    ),
    min_size=1,
    max_size=10,
)


@_SETTINGS
@given(sentence=_sentences, num_heads=st.sampled_from([1, 3]), steps=_steps)
def test_any_sequence_of_control_changes_keeps_the_view_consistent(sentence, num_heads, steps):
    explorer = widgets.AttentionExplorer(sentence, num_heads=num_heads, query=0)
    _check_consistent(explorer)
    bad = False
    for name, value in steps:
        if name == "head" and explorer.head is None:
            continue
        if name == "bad":
            before = (explorer.view, explorer.query.max, explorer.heatmap.value)
            explorer.sentence.value = value
            if explorer.sentence.value == value and not bad:
                # The value changed, so the observer ran and refused it.
                assert (explorer.view, explorer.query.max, explorer.heatmap.value) == before
            assert "sentence: expected" in html.unescape(explorer.status.value)
            bad = True
        elif name == "sentence":
            explorer.sentence.value = value
            if explorer.last_error is None:
                bad = False
                assert explorer.tokens == tuple(embed(value, 3, 123)[0])
            assert (explorer.status.value == "") is not bad
        else:
            control = getattr(explorer, name)
            control.value = value
            assert (explorer.status.value == "") is not bad
        _check_consistent(explorer)


@_SETTINGS
@given(
    sentence=_sentences,
    query=st.integers(0, 11),
    dim=st.sampled_from([-1, 0]),
    causal=st.booleans(),
    temperatures=st.lists(st.floats(0.1, 5.0), min_size=2, max_size=5, unique=True),
    num_heads=st.sampled_from([1, 2]),
)
def test_lower_temperature_never_flattens(sentence, query, dim, causal, temperatures, num_heads):
    explorer = widgets.AttentionExplorer(
        sentence, num_heads=num_heads, dim=dim, causal=causal, query=0
    )
    query = min(query, explorer.query.max)
    explorer.query.value = query
    maxima = []
    for temperature in sorted(temperatures, reverse=True):
        explorer.temperature.value = temperature
        view = explorer.view
        # The distribution is the query's row (dim=-1) or a column (dim=0).
        maxima.append((view.weights if dim == -1 else view.attn_weights[:, query]).max().item())
        _check_consistent(explorer)
    assert all(later >= earlier - 1e-6 for earlier, later in zip(maxima, maxima[1:], strict=False))


@_SETTINGS
@given(word=st.sampled_from(_WORDS), others=st.lists(st.sampled_from(_WORDS), max_size=6))
def test_a_repeated_word_has_equal_score_rows_any_sentence(word, others):
    sentence = " ".join([word, *others, word.upper()])
    explorer = widgets.AttentionExplorer(sentence, num_heads=2)
    last = len(explorer.tokens) - 1
    for head in (0, 1):
        explorer.head.value = head
        scores = explorer.view.attn_scores
        assert torch.equal(scores[0], scores[last])
        assert torch.equal(explorer.view.attn_weights[0], explorer.view.attn_weights[last])
