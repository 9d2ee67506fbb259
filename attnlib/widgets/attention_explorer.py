"""The AttentionExplorer of notebooks 06-08: every knob of the chapter on a sentence of your own.

The kernel sends a sentence's data once (tokens, and per head the scores and
the values); query, softmax axis, causal mask, temperature and head are drawn
in the browser. Only a new sentence goes through the kernel.
"""

from __future__ import annotations

import base64

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from attnlib import _validate as validate
from attnlib._seeding import seeded
from attnlib.attention import scaled_scores
from attnlib.data import EXAMPLE_SENTENCE, MAX_TOKENS, sentence_inputs
from attnlib.modules import HeadProjections, MultiHeadAttention, head_projections
from attnlib.widgets import _text, figures
from attnlib.widgets.attention_view import (
    DROPOUT_DRAWS,
    DROPOUT_RATES,
    AttentionView,
    attention_view,
    dropout_keep,
    head_qkv,
)
from attnlib.widgets.base import Control, Explorer, message_for
from attnlib.widgets.explorers import axis_toggle
from attnlib.widgets.frontend import ExplorerView

#: The book's sentence; any case and spacing of it gets the book's embeddings.
DEFAULT_SENTENCE = EXAMPLE_SENTENCE
#: The temperature slider's range (a temperature given outside it widens the slider).
TEMPERATURE_RANGE = (0.1, 5.0)


def build_heads(
    num_heads: int, d_out: int | None, seed: int
) -> tuple[MultiHeadAttention | None, HeadProjections | None]:
    """The seeded MultiHeadAttention and its per-head weights; ``(None, None)`` for one head."""
    num_heads = validate.integer(num_heads, "num_heads", 1, validate.MAX_HEADS)
    if num_heads == 1:
        if d_out is not None:
            raise ValueError(
                "d_out: expected None with num_heads=1 (simplified self-attention has no "
                f"projections), got {validate.describe(d_out)}"
            )
        return None, None
    d_out = validate.integer(2 * num_heads if d_out is None else d_out, "d_out", 1, validate.MAX_D)
    if d_out % num_heads:
        raise ValueError(
            f"d_out: expected a multiple of num_heads={num_heads} (each head gets "
            f"d_out // num_heads dimensions), got {d_out}"
        )
    # The book's way to fix the weights, without moving the reader's random stream.
    with seeded(seed):
        module = MultiHeadAttention(
            d_in=3, d_out=d_out, context_length=MAX_TOKENS, dropout=0.0, num_heads=num_heads
        )
    module = module.eval().requires_grad_(False)
    return module, head_projections(module)


def dropout_data(num_heads: int, num_tokens: int, seed: int) -> dict:
    """Dropout's masks for the browser: per rate of :data:`DROPOUT_RATES` after the first
    (0, none), per draw, per head, the kept weights as base64 of bits (cell ``i * n + j``,
    least significant bit first): one short line each in a saved notebook."""
    keep = [
        [
            [
                base64.b64encode(np.packbits(mask.flatten().numpy(), bitorder="little")).decode()
                for mask in dropout_keep(num_heads, num_tokens, rate, seed + draw)
            ]
            for draw in range(DROPOUT_DRAWS)
        ]
        for rate in DROPOUT_RATES[1:]
    ]
    return {"rates": list(DROPOUT_RATES), "draws": DROPOUT_DRAWS, "seed": seed, "keep": keep}


def sentence_data(
    tokens: tuple[str, ...],
    inputs: torch.Tensor,
    projections: HeadProjections | None,
    seed: int = 123,
) -> dict:
    """What the browser needs of a sentence: tokens, per head its scores and values, and
    dropout's masks (:func:`dropout_data`)."""
    num_heads = 1 if projections is None else projections.W_query.shape[0]
    heads, scale = [], 1.0
    for head in range(num_heads):
        queries, keys, values, scale = head_qkv(inputs, projections, head)
        scores = scaled_scores(queries, keys, scale=1.0)
        heads.append({"scores": scores.tolist(), "values": values.tolist()})
    return {
        "tokens": list(tokens),
        "heads": heads,
        "scale": scale,
        "dropout": dropout_data(num_heads, len(tokens), seed),
        **_text.for_browser(tokens),
    }


class AttentionExplorer(Explorer):
    """Attention on a sentence of your own: every knob of the chapter in one place.

    ``sentence``: the text to attend over (at most 32 tokens of at most 20
    characters); the book's sentence (any case or spacing) uses the book's
    embeddings, any other sentence :func:`attnlib.data.embed` with ``d=3`` and
    ``seed``. With ``num_heads == 1`` the explorer shows simplified
    self-attention (no weights, no scaling); with ``num_heads > 1`` (at most 16) a
    :class:`attnlib.modules.MultiHeadAttention` with ``d_out`` (default
    ``2 * num_heads``, at most 64, a multiple of ``num_heads``) is built after
    ``torch.manual_seed(seed)`` (the reader's random state is restored) and the
    selected head is shown.

    Controls: ``sentence`` (Text, applied on Enter or leaving the box), ``query``
    (IntSlider, follows the sentence's length), ``dim`` (ToggleButtons, -1 or 0),
    ``causal`` (Checkbox), ``temperature`` (FloatSlider, 0.1 .. 5; the scores are
    divided by it), ``head`` (Dropdown of the heads, or ``None`` with one head), ``dropout``
    (Dropdown over :data:`~attnlib.widgets.attention_view.DROPOUT_RATES`, 0 by default);
    the view's own "resample" button (or :meth:`resample`) shows the next of
    :data:`~attnlib.widgets.attention_view.DROPOUT_DRAWS` draws of dropout's mask, draw
    ``k`` being the one ``torch.nn.Dropout`` makes right after ``torch.manual_seed(seed + k)``.

    ``view``: an :class:`~attnlib.widgets.attention_view.AttentionView`; ``module``:
    the MultiHeadAttention or ``None``. A bad sentence shows its error in
    ``sentence_status``, right under the box (and ``last_error``), while the last good
    sentence stays shown; a refused value of another control is said right under that
    control (:meth:`status_of`); bad constructor arguments raise ``ValueError``.
    """

    _css_class = "attnlib-attention-explorer"

    def __init__(
        self,
        sentence: str = DEFAULT_SENTENCE,
        *,
        num_heads: int = 1,
        d_out: int | None = None,
        seed: int = 123,
        query: int = 1,
        dim: int = -1,
        causal: bool = False,
        temperature: float = 1.0,
        dropout: float = 0.0,
    ):
        self._seed = validate.integer(seed, "seed", 0, 2**63 - 1 - DROPOUT_DRAWS)
        self.module, self.projections = build_heads(num_heads, d_out, seed)
        self._tokens, self._inputs = sentence_inputs(sentence, self._seed)
        _check_query(query, len(self._tokens))
        settings = {"query": query, "dim": dim, "causal": causal, "temperature": temperature}
        first = attention_view(
            self._inputs,
            self._tokens,
            **settings,
            projections=self.projections,
            dropout=dropout,
            seed=self._seed,
        )
        self._build_controls(sentence, first, num_heads)
        self.frontend = ExplorerView(
            kind="attention",
            data=sentence_data(self._tokens, self._inputs, self.projections, self._seed),
            query=first.query,
            dim_index=self.dim.index,
            causal=first.causal,
            temperature=first.temperature,
            dropout_index=self.dropout.index,
        )
        knobs = [self.query, self.temperature] + ([self.head] if self.head else [])
        switches = widgets.HBox([self.dim, self.causal, self.dropout])
        rows = [self.sentence, widgets.HBox(knobs), switches]
        controls = self._controls_linked()
        self._assemble(rows, [Control("sentence", self.sentence, needs_kernel=True), *controls])
        # A sentence's error right under its box (each control's messages are said under it).
        self.sentence_status = self.status_of("sentence")
        for control in controls:
            self._guard(control)
        self.sentence.observe(self._on_sentence, names="value")

    def _controls_linked(self) -> list[Control]:
        """The controls drawn in the browser: all but the sentence, which the kernel reads."""
        controls = [
            Control("query", self.query, trait="query"),
            Control("dim", self.dim, "index", "dim_index"),
            Control("causal", self.causal, trait="causal"),
            Control("temperature", self.temperature, trait="temperature"),
            Control("dropout", self.dropout, "index", "dropout_index"),
        ]
        # The head menu's index is its head.
        return controls + ([Control("head", self.head, "index", "head")] if self.head else [])

    def _build_controls(self, sentence: str, first: AttentionView, num_heads: int) -> None:
        self.sentence = widgets.Text(
            value=sentence,
            description="sentence",
            placeholder="type a sentence, then Enter",
            continuous_update=False,  # applied on Enter or leaving the box, not per keystroke
            layout=widgets.Layout(width="36em"),
        )
        self.query = widgets.IntSlider(
            value=first.query,
            min=0,
            max=len(first.tokens) - 1,
            description="query",
            continuous_update=True,
            readout=False,  # the book's name beside it instead (controls.js): x⁽²⁾, not 1
        )
        self.dim = axis_toggle(first.dim)
        self.causal = widgets.Checkbox(
            value=first.causal, description="causal mask (hide later tokens)", indent=False
        )
        low, high = TEMPERATURE_RANGE
        self.temperature = widgets.FloatSlider(
            value=first.temperature,
            min=min(low, first.temperature),
            max=max(high, first.temperature),
            step=0.1,
            description="temperature",
            style={"description_width": "initial"},  # the whole word, not "temperat..."
            readout_format=".2f",
            continuous_update=True,
        )
        self.dropout = widgets.Dropdown(
            options=[("0 (off)" if r == 0 else f"{r:g}", r) for r in DROPOUT_RATES],
            value=first.dropout,
            description="dropout",
            layout=widgets.Layout(width="12em"),
        )
        self.head: widgets.Dropdown | None = None
        if num_heads > 1:
            # A menu naming each head, not a slider of two or three positions.
            self.head = widgets.Dropdown(
                options=[(head_label(h, num_heads), h) for h in range(num_heads)],
                value=0,
                description="head",
                layout=widgets.Layout(width="14em"),
            )

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens of the sentence shown now (the last good one)."""
        return self._tokens

    @property
    def inputs(self) -> torch.Tensor:
        """Their embeddings, ``(num_tokens, 3)``."""
        return self._inputs

    def _view_of(self, tokens: tuple[str, ...], inputs: torch.Tensor, query: int) -> AttentionView:
        return attention_view(
            inputs,
            tokens,
            query=query,
            dim=self.dim.value,
            causal=self.causal.value,
            temperature=self.temperature.value,
            head=0 if self.head is None else self.head.value,
            projections=self.projections,
            dropout=self.dropout.value,
            draw=self.frontend.draw,
            seed=self._seed,
        )

    @property
    def view(self) -> AttentionView:
        """What is shown now: :func:`attention_view` of the last good sentence and the controls."""
        return self._view_of(self._tokens, self._inputs, self.query.value)

    def _on_sentence(self, change: dict) -> None:
        """A new sentence: shown if it is good, else its error under the box."""
        try:
            tokens, inputs = sentence_inputs(change["new"], self._seed)
            # A shorter sentence keeps the query, or moves it to its last token.
            query = min(self.query.value, len(tokens) - 1)
            self._view_of(tokens, inputs, query)
        except Exception as exc:  # said under the box, never raised
            self.last_error = ValueError(message_for("sentence", exc))
            self._errors = {"sentence": f"{self.last_error} (still showing the last good sentence)"}
            self._show_status()
            return
        self._adopt(tokens, inputs, query)

    def _adopt(self, tokens: tuple[str, ...], inputs: torch.Tensor, query: int) -> None:
        """Show a good sentence: query slider fitted first, so the browser never sees a
        query beyond the sentence, then the sentence's data."""
        with self._muting():
            self._tokens, self._inputs = tokens, inputs
            self.query.value = query
            self.query.max = len(tokens) - 1
            self.frontend.data = sentence_data(tokens, inputs, self.projections, self._seed)
        self.last_error = None
        self._errors = {}
        self._show_status()

    def resample(self) -> None:
        """Show the next draw of dropout's mask (what the view's "resample" button does)."""
        self.frontend.draw = (self.frontend.draw + 1) % DROPOUT_DRAWS

    def figure(self) -> Figure:
        """The current view as a matplotlib Figure (weights heatmap and the query's bars)."""
        return figures.attention_figure(self.view)


def head_label(head: int, num_heads: int) -> str:
    """The head menu's entry for Python's head ``head``: "head 1 of 4" is head 0."""
    template = _text.TEXTS["controls"]["head_option"]
    return _text.fill(template, {"head": head, "num_heads": num_heads})


def _check_query(query: object, num_tokens: int) -> None:
    """The default query 1 is the book's "journey"; a one-word sentence has no index 1."""
    if isinstance(query, int) and not isinstance(query, bool) and query >= num_tokens:
        hint = "; pass query=0" if num_tokens == 1 else ""
        raise ValueError(
            f"query: expected an int in [0, {num_tokens - 1}] (the sentence has "
            f"{num_tokens} token{'s' if num_tokens != 1 else ''}), got {query}{hint}"
        )
