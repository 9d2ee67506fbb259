"""The explorers of notebooks 01, 03, 04, 06 and 08, and the views they must show as moved.

Each case starts with the view the notebook leaves after Run All, then moves a
control with the keyboard, each move with the view it must bring (``expected.py``).
"""

from __future__ import annotations

from .dom import checkbox, slider, text_box, toggle
from .expected import (
    BOOK_SENTENCE,
    Keys,
    attention_step,
    loop_step,
    query_step,
    sentence_step,
    softmax_step,
)
from .views import ExplorerCase, Typed


def replace_text(text: str) -> Keys:
    """Keys that replace a text box's content with ``text`` and apply it (Enter)."""
    typed: Keys = (Typed(text),) if text else ()
    return ("ControlOrMeta+a", "Delete", *typed, "Enter")


LOOP_STEPPER_01 = ExplorerCase(
    "01_scores_loops.ipynb",
    ".attnlib-explorer.attnlib-loop-stepper",
    (
        # The notebook opens it at [2, 2] (iteration 15).
        loop_step(15),
        loop_step(16, slider("step"), ("ArrowRight",)),
        loop_step(1, slider("step"), ("Home",)),
        loop_step(8, slider("step"), ("ArrowRight",) * 7),
        loop_step(36, slider("step"), ("End",)),
    ),
)
SOFTMAX_AXIS_03 = ExplorerCase(
    "03_softmax_weights.ipynb",
    ".attnlib-explorer.attnlib-softmax-explorer",
    (
        softmax_step(-1),
        # A toggle button is pressed from the keyboard with Space (or Enter).
        softmax_step(0, toggle("dim", "dim=0"), ("Space",)),
        softmax_step(-1, toggle("dim", "dim=-1"), ("Enter",)),
    ),
)
QUERY_EXPLORER_04 = ExplorerCase(
    "04_context_vectors.ipynb",
    ".attnlib-explorer.attnlib-query-explorer",
    (
        query_step(1),
        query_step(2, slider("query"), ("ArrowRight",)),
        query_step(0, slider("query"), ("ArrowLeft", "ArrowLeft")),
    ),
)
# AttentionExplorer(causal=True): the book's sentence, simplified attention, query 1.
CAUSAL_EXPLORER_06 = ExplorerCase(
    "06_causal_attention.ipynb",
    ".attnlib-explorer.attnlib-attention-explorer",
    (
        attention_step(1, causal=True),
        attention_step(3, causal=True, focus=slider("query"), keys=("ArrowRight",) * 2),
        # A checkbox is ticked or unticked from the keyboard with Space.
        attention_step(3, causal=False, focus=checkbox("causal"), keys=("Space",)),
        attention_step(1, causal=False, focus=slider("query"), keys=("Home", "ArrowRight")),
    ),
)
# The notebook's first explorer, `explorer`, as its last code cells leave it: after the
# error demo, the reader's sentence "Time flies like an arrow." again with no error, query 0,
# causal off, dim=-1, temperature 1. (08 also shows `dogs` and `two_heads` after it.)
TIME_FLIES = ("Time", "flies", "like", "an", "arrow", ".")
THE_DOG = ("The", "dog", "saw", "the", "cat", ".")
EMPTY = "expected at least one word"
SENTENCE_EXPLORER_08 = ExplorerCase(
    "08_explorer.ipynb",
    ".attnlib-explorer.attnlib-attention-explorer",
    (
        sentence_step("as the notebook leaves it", TIME_FLIES, 0, None),
        # A good sentence clears the error; "The"/"the" are rows 0 and 3.
        sentence_step(
            "typed 'The dog saw the cat.'",
            THE_DOG,
            0,
            (0, 3),
            text_box("sentence"),
            replace_text("The dog saw the cat."),
        ),
        sentence_step(
            "typed an empty sentence",
            THE_DOG,
            0,
            (0, 3),
            text_box("sentence"),
            replace_text(""),
            error=EMPTY,
        ),
        # The book's sentence, typed, brings back the book's embeddings: exact numbers again.
        attention_step(
            0,
            causal=False,
            focus=text_box("sentence"),
            keys=replace_text(BOOK_SENTENCE),
            label=f"typed {BOOK_SENTENCE!r}",
        ),
    ),
    nth=0,
    count=3,
)
