"""An explorer's picture draws every token it accepts as typed: `$` is a character, not math."""

from __future__ import annotations

import base64
import io

import pytest
from matplotlib.text import Text
from PIL import Image

from attnlib._validate import MAX_TOKEN_CHARS
from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, SoftmaxAxisExplorer
from attnlib.widgets.figures import TITLE_TOKEN

DOLLARS = ["$5", "costs", "$x^2$", "a_b", "100%", "\\alpha"]
LONGEST = ["a" * (MAX_TOKEN_CHARS - 1) + str(i) for i in range(6)]  # the longest accepted

EXPLORERS = {
    "QueryExplorer": lambda tokens: QueryExplorer(tokens=tokens),
    "LoopStepper": lambda tokens: LoopStepper(tokens=tokens),
    "SoftmaxAxisExplorer": lambda tokens: SoftmaxAxisExplorer(tokens=tokens),
}


def _texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_text()]


def _picture(explorer) -> Image.Image:
    bundle = explorer._repr_mimebundle_()  # what a notebook saves: the figure as a PNG
    return Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))


@pytest.mark.parametrize("name", EXPLORERS)
def test_a_token_with_a_dollar_is_drawn_literally(name):
    explorer = EXPLORERS[name](DOLLARS)
    fig = explorer.figure()
    with_dollar = [t for t in _texts(fig) if "$" in t.get_text()]
    assert with_dollar, "the tokens with $ are drawn somewhere"
    assert [t.get_text() for t in with_dollar if t.get_parse_math()] == []  # none read as math
    drawn = " ".join(t.get_text() for t in _texts(fig))
    assert all(token in drawn for token in DOLLARS)
    assert _picture(explorer).size[0] > 0


def test_a_sentence_with_dollars_is_drawn_literally():
    explorer = AttentionExplorer("It costs $5, or $x^2$.", query=2)
    fig = explorer.figure()
    math = [t.get_text() for t in _texts(fig) if "$" in t.get_text() and t.get_parse_math()]
    assert math == []
    assert explorer.view.token == "$"
    assert any("'$'" in t.get_text() for t in _texts(fig))  # the bars' title names the query
    assert _picture(explorer).size[0] > 0


# In check-all for the heatmap-alone and heatmap-above-bars layouts: `make test` draws 32 of the
# longest tokens whole in both (test_explorer_token_limit.py, LoopStepper and QueryExplorer), and
# shows six of them as a picture (test_widgets.py, loop-longest and query-longest).
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.check_all) if n in ("QueryExplorer", "LoopStepper") else n
        for n in EXPLORERS
    ],
)
def test_the_longest_tokens_an_explorer_accepts_are_shown(name):
    explorer = EXPLORERS[name](LONGEST)
    drawn = " ".join(t.get_text() for t in _texts(explorer.figure()))
    assert all(token in drawn for token in LONGEST)
    assert _picture(explorer).size[0] > 0  # displayed without error


def test_a_short_query_token_is_named_in_the_bars_title():
    tokens = ["tok$" + str(i) for i in range(6)]
    fig = QueryExplorer(tokens=tokens).figure()
    titles = [ax.get_title() for ax in fig.axes]
    assert len(tokens[1]) <= TITLE_TOKEN
    assert "attention weights of 'tok$1': x⁽²⁾, inputs[1]" in titles
