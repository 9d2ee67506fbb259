"""Every sentence the explorers show, written once, as templates the browser fills too.

A template is text with fields ``{name}`` or ``{name:spec}``; ``spec`` names one
of :data:`SPECS`, the few number formats the front end repeats (``format.js``).
A text is a list of parts ``(when, template)``: a part is kept when every flag
named in ``when`` (space-separated, ``!`` negates) is set. The Python views fill
:data:`TEXTS` with :func:`compose`. The query, softmax and loop explorers send
the browser their texts filled; the attention and training explorers, whose settings
are too many to fill ahead, send :data:`TEXTS` with a sentence's data, where
``format.js`` fills them the same way (checked in node, tests/test_frontend_node.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from attnlib._names import book, book_sub, total

FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")


def fixed(x: float) -> str:
    """Four decimals, zero never signed (-0.00001 -> '0.0000'); a masked score is ``-inf``."""
    if x == float("-inf"):
        return "-inf"
    text = f"{x:.4f}"
    return "0.0000" if text == "-0.0000" else text


def short(x: float) -> str:
    """Up to four decimals, at least two: 0.55 -> '0.55', 0.1385 -> '0.1385'."""
    whole, _, frac = f"{x:.4f}".partition(".")
    return f"{whole}.{frac.rstrip('0').ljust(2, '0')}"


#: The number formats a template may ask for, by name.
SPECS: dict[str, Callable[[Any], str]] = {
    "f4": fixed,
    # The book counts tokens from 1: Python's index 1 is x⁽²⁾, its weights α₂,ⱼ.
    "book": book,
    "sub": book_sub,
    # Heads and blocks are counted from 1 in words ("head 1 of 4"), as tokens are.
    "one": lambda i: str(i + 1),
    "sum": total,
    # Parenthesised when negative, so that 0.5×(-0.2) is not read as a minus.
    "factor": lambda x: f"({short(x)})" if x < 0 else short(x),
    "g": lambda x: f"{x:g}",
    # Two decimals, as the temperature slider's readout: 1.0000000000000002 -> "1.00".
    "f2": lambda x: f"{x:.2f}",
    # A row of weights, short, for a screen reader: "0.14 0.24 0.23".
    "row": lambda xs: " ".join(f"{x:.2f}" for x in xs),
    "vec": lambda xs: "[" + ", ".join(fixed(x) for x in xs) + "]",
    "span": lambda xs: f"from {fixed(min(xs))} to {fixed(max(xs))}",
}

Parts = Sequence[tuple[str, str]]

WHY_ROWS = (
    ". Why dim=-1: query i's context vector blends the inputs with the weights in row i, "
    "so each row must be one distribution over the tokens. Softmax along dim=-1 normalises "
    "every row on its own; dim=0 normalises each column across different queries."
)

#: Every text an explorer shows, by kind and part of the view.
TEXTS: dict[str, dict[str, Any]] = {
    "panels": {
        "term": "{w:f4}·{vec}{j:book}",
        "plus": " + ",
        "product": "{a:factor}×{b:factor}",
        "query": "query {token_repr}: x{query:book}, inputs[{query}]",
        "bars": "weights α{query:sub},ⱼ of x{query:book} over the tokens (sum {total:sum}):",
        "blend": "z{query:book} = Σⱼ α{query:sub},ⱼ·{vec}⁽ʲ⁾, row by row:",
        "context": "z{query:book}",
        "row_sum": "row sum",
        "column_sum": "column sum",
        "current": "▶ {token}",
        "corner": "query \\ key",
        "masked": "masked",
        "scroll": "scroll sideways for more columns",
        "scroll_sums": "scroll sideways for more columns; the row sums stay at the right",
        # How a cell was computed, shown when the pointer rests on it.
        "cell_weight": (
            "α{i:sub},{j:sub} = attn_weights[{i}, {j}] = {value:f4}: query x{i:book} ({token_i}) "
            "on x{j:book} ({token_j}), the softmax along dim={dim} of the score {score:f4}"
        ),
        "cell_dropped": (
            "α{i:sub},{j:sub} = attn_weights[{i}, {j}] = 0: dropped by dropout "
            "(the softmax gave it {before:f4})"
        ),
        "cell_kept": (
            "α{i:sub},{j:sub} = attn_weights[{i}, {j}] = {value:f4}: kept by dropout, the "
            "softmax's {before:f4} × 1/(1 − {dropout:g})"
        ),
        "cell_masked": (
            "α{i:sub},{j:sub} = attn_weights[{i}, {j}] = 0: masked "
            "(x{j:book} comes after the query x{i:book})"
        ),
        "cell_score": (
            "ω{i:sub},{j:sub} = attn_scores[{i}, {j}] = x{i:book}·x{j:book} "
            "({token_i}·{token_j}) = {products} = {value:f4}"
        ),
        "cell_empty": "ω{i:sub},{j:sub} = attn_scores[{i}, {j}]: not computed yet",
        # The formula as math: a region of its own, scrolled sideways on a narrow screen.
        "math": "formula of the cell in view",
        "math_masked": "(masked: its score is −∞)",
        # The dropout bar of the AttentionExplorer: its button and what it says.
        "resample": "resample",
        "resample_label": "resample dropout: the next of {draws} draws",
        "dropout_off": "dropout off: no weight dropped (choose a rate to drop some)",
        "dropout_on": (
            "draw {draw_n} of {draws}, torch.manual_seed({draw_seed}): dropped weights show "
            "0 on grey; the rest are multiplied by 1/(1 − {dropout:g}) = {keep_scale:f4}"
        ),
        "dropped": "dropped",
        "after_dropout": "after dropout:",
        # The summary of the formula in words and code, folded under the formula as math.
        "formula_text": "the same in words and code",
    },
    # The controls' names and spoken values (ipywidgets gives them none; controls.js adds them).
    "controls": {
        "query": "query",
        "query_value": "{token}: x{query:book}, inputs[{query}]",
        "temperature": "temperature",
        "temperature_value": "{temperature:f2}",
        "head": "head",
        "head_value": "{head:one} of {heads}",
        # A head menu's entries: "head 1 of 4" is Python's head 0.
        "head_option": "head {head:one} of {num_heads}",
        "step": "iteration",
        "step_value": "{iteration} of {iterations}: i = {i} ({token_i}), j = {j} ({token_j})",
        "dim": "softmax axis",
        "play": "play",
        "pause": "pause",
        "stop": "stop",
        "repeat": "repeat",
    },
    "query": {
        "legend": "attention weight",
        "caption": "attention weights: rows = queries, columns = the tokens compared",
        "formula": [
            ("", "z{query:book} = {terms} = {context:vec}\n"),
            ("", "in code: attn_weights[{query}] @ inputs"),
        ],
        "announce": [
            ("", "query {token_repr}, x{query:book}, inputs[{query}]: "),
            ("", "weights {row:row}; sum {total:f2}"),
        ],
    },
    "softmax": {
        "legend": "attention weight",
        "caption": "softmax(attn_scores, dim={dim}): rows = queries, columns = the tokens compared",
        "explanation": [
            ("rows", "dim=-1 normalises across each row: every row sums to 1"),
            ("rows !cols_one", "; the columns do not (sums {col_sums:span})"),
            ("!rows", "dim=0 normalises down each column: every column sums to 1"),
            ("!rows !rows_one", "; the rows do not (sums {row_sums:span}), so no query has a "),
            ("!rows !rows_one", "distribution"),
            ("", WHY_ROWS),
        ],
        "announce": [
            ("rows", "softmax dim=-1: every row sums to 1"),
            ("!rows", "softmax dim=0: every column sums to 1"),
        ],
    },
    "loop": {
        "legend": "attention score",
        "caption": "attention scores: rows = queries (i), columns = the tokens compared (j)",
        "position": (
            "iteration {iteration} of {iterations}: i = {i}, j = {j}, the score ω{i:sub},{j:sub} "
            "of x{i:book} ({token_i}) and x{j:book} ({token_j})"
        ),
        "code": "attn_scores[{i}, {j}] = torch.dot(inputs[{i}], inputs[{j}])",
        "formula": [("", "ω{i:sub},{j:sub} = x{i:book}·x{j:book} = {products} = {score:f4}")],
        "announce": [
            ("", "iteration {iteration} of {iterations}: ω{i:sub},{j:sub} = "),
            ("", "attn_scores[{i}, {j}] = {score:f4}"),
        ],
    },
    "attention": {
        "legend": "attention weight",
        "caption": [
            ("!many", "attn_weights = softmax(attn_scores / {temperature:g}, dim={dim})"),
            ("many", "attn_weights = softmax(head {head:one}'s attn_scores / sqrt({head_dim}) / "),
            ("many", "{temperature:g}, dim={dim})"),
            ("causal", ", causal"),
            ("", ": rows = queries, columns = keys"),
        ],
        "formula": [
            ("", "query {token_repr}: x{query:book}, inputs[{query}] | softmax dim={dim} ("),
            ("rows", "across each row"),
            ("!rows", "down each column"),
            ("", ") | causal mask "),
            ("causal", "on"),
            ("!causal", "off"),
            ("", " | temperature {temperature:g}\n"),
            ("!many", "attn_weights = softmax(attn_scores / temperature, dim={dim})\n"),
            ("many", "head {head:one} of {num_heads} "),
            ("many", "(queries = inputs @ projections.W_query[{head}]): "),
            ("many", "attn_weights = softmax(queries @ keys.T / "),
            ("many", "sqrt({head_dim}) / temperature, dim={dim})\n"),
            ("", "attn_scores[{query}] = {scores:vec}\n"),
            ("changed", "into softmax: {scaled:vec}\n"),
            ("", "z{query:book} = {terms} = {context:vec}\n"),
            ("drop", "before dropout, "),
            ("rows", "every row sums to 1"),
            ("rows causal", "; masked weights are 0"),
            ("rows !cols_one", "; the columns do not ({col_sums:span})"),
            ("!rows", "every column sums to 1"),
            ("!rows !rows_one", "; row {query} (query x{query:book}) sums to {row_sum:f4}, "),
            ("!rows !rows_one", "so z{query:book} is not a weighted "),
            ("!rows !rows_one", "average (use dim=-1 for that)"),
            ("drop", "\ndropout {dropout:g}, draw {draw_n} of {draws} "),
            (
                "drop",
                "(torch.manual_seed({draw_seed})): {dropped} of the {cells} weights set to 0 ",
            ),
            (
                "drop",
                "({row_dropped} in row {query}), the rest multiplied by 1/(1 − {dropout:g}) = ",
            ),
            ("drop", "{keep_scale:f4}; row {query} now sums to {drop_sum:f4}"),
        ],
        "announce": [
            ("", "query {token_repr}, x{query:book}, inputs[{query}]"),
            ("many", ", head {head:one} of {num_heads}"),
            ("", ": weights {row:row}; sum {row_sum:f2}"),
            ("causal", "; later tokens masked"),
            ("drop", "; dropout {dropout:g}: {row_dropped} of this row's weights dropped"),
        ],
    },
    "training": {
        # The head menu's entries, every block's heads counted from 1.
        "head_option": "block {block:one}, head {head:one}",
        "controls": {
            "step": "training snapshot",
            "step_value": "snapshot {iteration} of {snapshots}",
        },
        "legend": "attention weight",
        "caption": (
            "block {block:one}, head {head:one} after {step} training steps: "
            "rows = queries, columns = keys"
        ),
        # The line beside the controls: where training is, and the head's one number.
        "headline": (
            "snapshot {number} of {count} (step {step}): block {block:one}, head {head:one} puts "
            "{share:f4} on the previous word on average (spread evenly: {even:f4})"
        ),
        "cell": "query {i} \u201c{token_i}\u201d, key {j} \u201c{token_j}\u201d: weight {value:f4}",
        "loss_title": "loss over training",
        "loss_axis": "training step",
        "loss_label": "loss over training; the snapshot shown is at step {step}, loss {loss:f2}",
        "formula": [
            ("", "step {step} (snapshot {number} of {count}), block {block:one}, head {head:one} "),
            ("", "(snapshots[{snapshot}, {block}, {head}])\n"),
            ("", "query {query:one} {token_repr}: its largest weight, {top:f4}, is on {top_repr}"),
            ("first", "; the first word has no word before it"),
            ("!first", "; on the word before, {before_repr}: {before:f4}"),
            ("", "\nthis head's mean weight on the previous word: {share:f4} "),
            ("", "(spread evenly: {even:f4})"),
        ],
    },
}


def fill(template: str, fields: Mapping[str, Any]) -> str:
    """``template`` with each ``{name}`` / ``{name:spec}`` replaced by ``fields[name]``."""

    def one(match: re.Match) -> str:
        value = fields[match.group(1)]
        spec = match.group(2)
        return SPECS[spec](value) if spec else str(value)

    return FIELD.sub(one, template)


def compose(parts: Parts, fields: Mapping[str, Any], flags: Mapping[str, bool]) -> str:
    """The parts whose flags hold, filled and joined."""

    def holds(when: str) -> bool:
        return all(not flags[w[1:]] if w[0] == "!" else flags[w] for w in when.split())

    return "".join(fill(template, fields) for when, template in parts if holds(when))


def terms(weights: Sequence[float], tokens: Sequence[str], vec: str) -> str:
    """``0.1385·x⁽¹⁾ + 0.2379·x⁽²⁾ + ...``: the blend that makes a context vector."""
    panels = TEXTS["panels"]
    items = (
        fill(panels["term"], {"w": w, "vec": vec, "j": j, "token": t})
        for j, (w, t) in enumerate(zip(weights, tokens, strict=True))
    )
    return panels["plus"].join(items)


def products(pairs: Sequence[tuple[float, float]]) -> str:
    """``0.55×0.43 + 0.87×0.15 + ...``: a dot product written out term by term."""
    panels = TEXTS["panels"]
    return panels["plus"].join(fill(panels["product"], {"a": a, "b": b}) for a, b in pairs)


def panels(query: int, token: str, total: float, vec: str) -> dict[str, str]:
    """The texts around query ``query``'s row: its label, its bars' heading (``total``: the
    row's sum), its blend's heading (of vectors ``vec``) and its context vector's name."""
    texts = TEXTS["panels"]
    return {
        "label": fill(texts["query"], {"query": query, "token_repr": quoted(token)}),
        "bars": fill(texts["bars"], {"query": query, "total": total}),
        "blend": fill(texts["blend"], {"query": query, "vec": vec}),
        "context": fill(texts["context"], {"query": query}),
    }


def quoted(token: str) -> str:
    """A token as prose quotes it: “journey” (not Python's 'journey')."""
    return f"\u201c{token}\u201d"


def for_browser(tokens: Sequence[str]) -> dict[str, Any]:
    """What the front end needs to write a sentence's texts: :data:`TEXTS` and the tokens quoted."""
    return {"texts": TEXTS, "reprs": [quoted(t) for t in tokens]}
