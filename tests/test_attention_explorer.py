"""attnlib.widgets.AttentionExplorer, headless: each control, sentences, heads, errors.

:func:`reference` computes what the explorer must show with plain torch (and the
module's own weights, sliced by hand), never through attnlib's attention code.
"""

from __future__ import annotations

import math
import re

import book
import pytest
import torch

from attnlib import widgets
from attnlib.data import sentence_inputs
from attnlib.modules import MultiHeadAttention

INPUTS = torch.tensor(book.BOOK_INPUTS)
TOKENS = book.TOKENS
BOOK = " ".join(TOKENS)


def reference(inputs, module, *, query, dim=-1, causal=False, temperature=1.0, head=0):
    """Weights ``(n, n)``, the query's context vector and the values, in plain torch."""
    if module is None:
        queries = keys = values = inputs
        scale = 1.0
    else:
        size = module.head_dim
        cut = slice(head * size, (head + 1) * size)  # head h owns these output columns
        queries, keys, values = (
            inputs @ linear.weight[cut].T
            for linear in (module.W_query, module.W_key, module.W_value)
        )
        scale = 1 / math.sqrt(size)
    scores = queries @ keys.T * scale / temperature
    if causal:
        scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), -torch.inf)
    weights = torch.softmax(scores, dim=dim)
    return weights, weights[query] @ values, values


def close(a, b, atol=1e-5) -> bool:
    return torch.allclose(torch.as_tensor(a).double(), torch.as_tensor(b).double(), atol=atol)


def assert_shows(explorer, inputs, **settings):
    weights, context, values = reference(inputs, explorer.module, **settings)
    view = explorer.view
    assert close(view.attn_weights, weights), settings
    assert close(view.context, context), settings
    assert close(view.values, values), settings
    assert close(view.row_sums, weights.sum(dim=1)) and close(view.col_sums, weights.sum(dim=0))


# ----------------------------------------------------------------------------- the book's sentence


def test_default_view_is_the_books_query_journey():
    explorer = widgets.AttentionExplorer()
    view = explorer.view
    assert view.tokens == TOKENS and (view.query, view.token) == (1, "journey")
    assert close(view.weights, book.JOURNEY_WEIGHTS, 1e-4)
    assert close(view.context, book.JOURNEY_CONTEXT, 1e-4)
    assert explorer.head is None and explorer.module is None
    assert view.text.splitlines()[0] == (
        "query \u201cjourney\u201d: x⁽²⁾, inputs[1] | softmax dim=-1 (across each row) | "
        "causal mask off"
        " | temperature 1"
    )


@pytest.mark.parametrize("sentence", [BOOK, BOOK.upper(), "  your   JOURNEY starts with one step "])
def test_the_books_sentence_in_any_case_or_spacing_gets_the_books_inputs(sentence):
    assert torch.equal(widgets.AttentionExplorer(sentence).inputs, INPUTS)


@pytest.mark.parametrize("query", [0, 3, 5])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_each_control_moves_the_view(query, causal, dim):
    explorer = widgets.AttentionExplorer()
    explorer.query.value = query
    explorer.causal.value = causal
    explorer.dim.value = dim
    assert_shows(explorer, INPUTS, query=query, dim=dim, causal=causal)
    assert explorer.view.masked.sum() == (15 if causal else 0)
    assert explorer.messages == ""


@pytest.mark.parametrize("temperature", [0.1, 0.5, 2.0, 5.0])
def test_temperature_divides_the_scores(temperature):
    explorer = widgets.AttentionExplorer()
    explorer.temperature.value = temperature
    assert_shows(explorer, INPUTS, query=1, temperature=temperature)
    assert close(explorer.view.scaled_scores, INPUTS @ INPUTS.T / temperature)


def test_lower_temperature_sharpens_higher_flattens():
    explorer = widgets.AttentionExplorer()
    peaks = []
    for temperature in (0.2, 1.0, 5.0):
        explorer.temperature.value = temperature
        peaks.append(explorer.view.weights.max().item())
    assert peaks[0] > peaks[1] > peaks[2] > 1 / 6


def test_a_temperature_outside_the_slider_range_widens_it():
    explorer = widgets.AttentionExplorer(temperature=8.0)
    assert explorer.temperature.max == 8.0 and explorer.temperature.value == 8.0


# ----------------------------------------------------------------------------- sentences


def test_another_sentence_gets_its_own_tokens_and_a_repeated_word_equal_rows():
    explorer = widgets.AttentionExplorer("the dog saw the dog", query=0)
    tokens, inputs = sentence_inputs("the dog saw the dog")
    assert explorer.tokens == tokens and torch.equal(explorer.inputs, inputs)
    weights = explorer.view.attn_weights
    assert torch.equal(weights[1], weights[4]) and torch.equal(weights[0], weights[3])


def test_a_new_sentence_is_sent_once_with_its_tokens_and_scores():
    explorer = widgets.AttentionExplorer()
    explorer.sentence.value = "The cat sat on the mat."
    tokens, inputs = sentence_inputs("The cat sat on the mat.")
    data = explorer.frontend.data
    assert data["tokens"] == list(tokens) and data["scale"] == 1.0
    (head,) = data["heads"]
    assert close(head["scores"], inputs @ inputs.T) and close(head["values"], inputs)
    assert explorer.query.max == len(tokens) - 1
    assert_shows(explorer, inputs, query=1)


def test_a_shorter_sentence_moves_the_query_to_its_last_token():
    explorer = widgets.AttentionExplorer()
    explorer.query.value = 5
    explorer.sentence.value = "short one"
    assert explorer.query.value == 1 and explorer.query.max == 1
    assert explorer.view.token == "one" and explorer.messages == ""


@pytest.mark.parametrize(
    ("sentence", "message"),
    [
        ("", "sentence: expected at least one word"),
        ("   ", "sentence: expected at least one word"),
        (" ".join(["word"] * 33), "sentence: expected at most 32 tokens"),
        ("a" * 21, "sentence: .*at most 20 characters"),
        ("bad \ud800 text", "sentence: .*surrogate"),
    ],
)
def test_a_bad_sentence_names_the_sentence_and_keeps_the_last_good_one(sentence, message):
    explorer = widgets.AttentionExplorer()
    explorer.query.value = 2
    explorer.sentence.value = sentence
    assert explorer.view.tokens == TOKENS and explorer.query.value == 2
    assert str(explorer.last_error).startswith("sentence:")
    # Said right under the sentence box, not in the status line under the drawing.
    said = explorer.sentence_status.value
    assert re.search(message, said), said
    assert "attnlib-error" in said and "Error" not in said
    assert explorer.messages == said
    explorer.query.value = 3  # another control moving leaves the sentence's error up
    assert "sentence:" in explorer.sentence_status.value
    explorer.sentence.value = "all good now"  # fixing it clears it
    assert explorer.sentence_status.value == "" and explorer.last_error is None
    assert explorer.view.tokens == ("all", "good", "now")


# ----------------------------------------------------------------------------- heads


def _book_module(num_heads, d_out, seed=123):
    torch.manual_seed(seed)
    return MultiHeadAttention(3, d_out, 32, 0.0, num_heads)


@pytest.mark.parametrize(("num_heads", "d_out"), [(2, 4), (2, 2), (3, 6)])
def test_each_head_shows_the_seeded_modules_projections(num_heads, d_out):
    explorer = widgets.AttentionExplorer(num_heads=num_heads, d_out=d_out)
    module = _book_module(num_heads, d_out)
    for name in ("W_query", "W_key", "W_value"):
        assert torch.equal(getattr(explorer.module, name).weight, getattr(module, name).weight)
    for head in range(num_heads):
        explorer.head.value = head
        assert_shows(explorer, INPUTS, query=1, head=head)
        assert explorer.view.scale == pytest.approx(1 / math.sqrt(d_out // num_heads))
    assert len(explorer.frontend.data["heads"]) == num_heads


def test_the_heads_match_the_modules_own_attention_weights():
    explorer = widgets.AttentionExplorer(num_heads=2, causal=True)
    explorer.module(INPUTS.unsqueeze(0))
    for head in range(2):
        explorer.head.value = head
        assert close(explorer.view.attn_weights, explorer.module.last_attn_weights[0, head])


def test_building_the_heads_leaves_the_readers_random_stream_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    widgets.AttentionExplorer(num_heads=2)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_heads": 10**6}, r"num_heads: .*16"),
        ({"num_heads": 0}, "num_heads:"),
        ({"num_heads": 2, "d_out": 3}, "d_out: expected a multiple of num_heads=2"),
        ({"num_heads": 2, "d_out": 10**6}, r"d_out: .*64"),
        ({"d_out": 4}, "d_out: expected None with num_heads=1"),
        ({"query": 6}, r"query: expected an int in \[0, 5\]"),
        ({"query": -1}, "query:"),
        ({"dim": 2}, "dim:"),
        ({"causal": 1}, "causal:"),
        ({"temperature": 0.0}, "temperature:"),
        ({"temperature": float("nan")}, "temperature:"),
        ({"seed": -1}, "seed:"),
        ({"sentence": ""}, "sentence: expected at least one word"),
        ({"sentence": "one", "query": 1}, "pass query=0"),
    ],
)
def test_bad_constructor_arguments_raise_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        widgets.AttentionExplorer(**kwargs)


# ----------------------------------------------------------------------------- refused values


def test_a_refused_value_is_put_back_and_named():
    explorer = widgets.AttentionExplorer()
    explorer.temperature.min = 0.0  # only code can do this; a reader's slider cannot
    explorer.temperature.value = 0.0
    assert explorer.temperature.value == 1.0
    said = explorer.status_of("temperature").value
    assert said.count("attnlib-error") == 1 and explorer.messages == said
    assert "temperature:" in said and "scale" not in said
    assert "Error" not in said
    explorer.query.value = 2  # another control's good move leaves it beside the temperature
    assert explorer.messages == said
    explorer.temperature.value = 2.0  # the temperature's own good move clears it
    assert explorer.messages == ""


def test_a_query_beyond_the_sentence_is_refused_naming_the_query():
    explorer = widgets.AttentionExplorer()
    explorer.query.max = 40
    explorer.query.value = 30
    assert explorer.query.value == 1
    said = explorer.status_of("query").value
    assert explorer.messages == said  # under the query slider, nowhere else
    assert "query:" in said and "highlight_row" not in said
    assert "IndexError" not in said


def test_a_temperature_that_would_overflow_the_scores_is_refused():
    explorer = widgets.AttentionExplorer()
    explorer.temperature.min = 1e-300
    explorer.temperature.value = 1e-300
    assert explorer.temperature.value == 1.0
    said = explorer.status_of("temperature").value
    assert "temperature:" in said and "raise it" in said


def test_the_figure_is_a_snapshot_of_the_current_view():
    explorer = widgets.AttentionExplorer(num_heads=2)
    explorer.head.value = 1
    fig = explorer.figure()
    assert fig.axes[0].get_title().startswith("head 1, dim=-1, temperature 1")
    assert "z⁽²⁾" in fig._suptitle.get_text()  # journey: x⁽²⁾, inputs[1]
