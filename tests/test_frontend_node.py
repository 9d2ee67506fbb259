"""The front end's views (static/src/views.js) against the Python views, in node.

Hundreds of settings of every kind of explorer, on the book's sentence and on
others (long, one token, quotes, several heads), are computed by the ES modules
themselves in one node process and compared with ``explorer.view``: every number
to 4 decimals, every text word for word (its numbers to 4 decimals). The query, softmax
and loop explorers' views are looked up from what their kernel sent (views.query_shown ...):
for them this checks the lookup and the words sent; the attention and training explorers'
views are computed in the browser, and this keeps them equal to Python's. The browser
tests then need only a few settings per explorer to show the drawing follows them.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import torch

from attnlib.attention import causal_mask
from attnlib.data import TOKENS, embed, example_inputs
from attnlib.widgets import (
    AttentionExplorer,
    LoopStepper,
    QueryExplorer,
    SoftmaxAxisExplorer,
    TrainingExplorer,
    _text,
    attention_view,
)
from attnlib.widgets.attention_view import DROPOUT_DRAWS, DROPOUT_RATES, dropout_fields

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "frontend_views.mjs"
NUMBER = re.compile(r"-?\d+\.\d+|-inf")
TOLERANCE = 1.01e-4  # 4 decimals shown: half a unit in the last place, and some slack
SENTENCES = (
    ("Your journey starts with one step", 1, None),
    ("Your journey starts with one step", 2, 4),
    ("it's a \"quoted\" and it's long enough to need many more tokens than six, ok", 4, 16),
    ("solo", 1, None),
    ("a b c d e f g h i j k l m n o p q r s t u v w x y z one two three four five six", 16, 16),
)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed (CI is set, so the node check is required)")
        pytest.skip("node is not installed")
    return node


def _close(a, b) -> bool:
    """Nested numbers equal to TOLERANCE; None in JSON is -inf."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_close, a, b))
    a = float("-inf") if a is None else a
    b = float("-inf") if b is None else b
    return a == b or abs(a - b) <= TOLERANCE


def _same_text(shown: str, expected: str) -> bool:
    """The same words, and numbers equal to TOLERANCE."""
    if NUMBER.sub("#", shown) != NUMBER.sub("#", expected):
        return False
    pairs = zip(NUMBER.findall(shown), NUMBER.findall(expected), strict=True)
    return all(_close(float(a), float(b)) for a, b in pairs)


def _grid(t: torch.Tensor) -> list:
    return [[None if v == float("-inf") else v for v in row] for row in t.tolist()]


def _panels(view) -> dict[str, str]:
    texts = _text.TEXTS["panels"]
    vec = "x" if getattr(view, "num_heads", 1) == 1 else "v"
    return {
        "label": _text.fill(
            texts["query"], {"query": view.query, "token_repr": _text.quoted(view.token)}
        ),
        "bars": _text.fill(texts["bars"], {"query": view.query, "total": view.weights.sum()}),
        "blend": _text.fill(texts["blend"], {"query": view.query, "vec": vec}),
        "context": _text.fill(texts["context"], {"query": view.query}),
    }


def _announce(kind: str, view, flags: dict, **fields) -> str:
    """The line a screen reader hears after a move, from the Python view's numbers."""
    values = {
        "query": view.query,
        "token_repr": _text.quoted(view.token),
        "row": view.weights.tolist(),
        "total": view.weights.sum().item(),
        "row_sum": view.weights.sum().item(),
        **fields,
    }
    return _text.compose(_text.TEXTS[kind]["announce"], values, flags)


def _cases(rng: random.Random) -> tuple[list[dict], list[list[dict]]]:
    """The cases for node (kind, data, states) and, per state, what Python shows."""
    cases, expected = [], []

    def add(kind: str, data: dict, pairs: list[tuple[dict, dict]]) -> None:
        cases.append({"kind": kind, "data": data, "states": [s for s, _ in pairs]})
        expected.append([e for _, e in pairs])

    base = {"query": 0, "dim": -1, "causal": False, "temperature": 1.0, "head": 0, "step": 0}
    query = QueryExplorer()
    pairs = []
    for q in range(len(TOKENS)):
        query.query.value = q
        v = query.view
        text = {"formula": v.text, "caption": _text.TEXTS["query"]["caption"], "panels": _panels(v)}
        text["announce"] = _announce("query", v, {})
        pairs.append(
            (
                {**base, "query": q},
                {
                    "weights": _grid(v.attn_weights),
                    "row": v.weights.tolist(),
                    "context": v.context.tolist(),
                    **text,
                },
            )
        )
    add("query", query.frontend.data, pairs)

    scores = example_inputs() @ example_inputs().T
    for grid in (scores, scores.masked_fill(causal_mask(len(TOKENS)), -torch.inf)):
        softmax = SoftmaxAxisExplorer(grid)
        pairs = []
        for dim in (-1, 0):
            softmax.dim.value = dim
            v = softmax.view
            caption = _text.fill(_text.TEXTS["softmax"]["caption"], {"dim": dim})
            sums = [v.row_sums.tolist(), v.col_sums.tolist()]
            pairs.append(
                (
                    {**base, "dim": dim},
                    {
                        "weights": _grid(v.attn_weights),
                        "sums": sums,
                        "explanation": v.text,
                        "caption": caption,
                        "announce": _text.compose(
                            _text.TEXTS["softmax"]["announce"], {}, {"rows": dim == -1}
                        ),
                    },
                )
            )
        add("softmax", softmax.frontend.data, pairs)

    loop = LoopStepper()
    pairs = []
    loop_texts = _text.TEXTS["loop"]
    for step in range(1, len(TOKENS) ** 2 + 1):
        loop.step.value = step
        v = loop.view
        fields = {
            "i": v.i,
            "j": v.j,
            "token_i": TOKENS[v.i],
            "token_j": TOKENS[v.j],
            "iteration": step,
            "iterations": len(TOKENS) ** 2,
        }
        words = {
            "formula": v.text,
            "position": _text.fill(loop_texts["position"], fields),
            "code": _text.fill(loop_texts["code"], fields),
            "announce": _text.compose(loop_texts["announce"], {**fields, "score": v.score}, {}),
            "at": [v.i, v.j],
        }
        pairs.append(({**base, "step": step}, words))
    add("loop", loop.frontend.data, pairs)

    temperatures = [
        0.1,
        0.5,
        1.0,
        1.0,
        2.3,
        5.0,
        0.30000000000000004,
        round(rng.uniform(0.1, 5), 1),
    ]
    for sentence, heads, d_out in SENTENCES:
        explorer = AttentionExplorer(sentence, num_heads=heads, d_out=d_out, query=0)
        n = len(explorer.tokens)
        pairs = []
        for _ in range(60):
            state = {
                **base,
                "query": rng.randrange(n),
                "dim": rng.choice((-1, 0)),
                "causal": rng.random() < 0.5,
                "temperature": rng.choice(temperatures),
                "head": rng.randrange(heads),
                # Dropout off half the time, else one of the rates and draws.
                "dropout_index": rng.choice((0, rng.randrange(1, len(DROPOUT_RATES)))),
                "draw": rng.randrange(DROPOUT_DRAWS),
            }
            v = attention_view(
                explorer.inputs,
                explorer.tokens,
                projections=explorer.projections,
                **{k: state[k] for k in ("query", "dim", "causal", "temperature", "head", "draw")},
                dropout=DROPOUT_RATES[state["dropout_index"]],
                seed=explorer._seed,
            )
            pairs.append(
                (
                    state,
                    {
                        "weights": _grid(v.attn_weights),
                        "row": v.weights.tolist(),
                        "context": v.context.tolist(),
                        "rowSums": v.row_sums.tolist(),
                        "colSums": v.col_sums.tolist(),
                        "scaled": _grid(v.scaled_scores),
                        "formula": v.text,
                        "panels": _panels(v),
                        "announce": _announce(
                            "attention",
                            v,
                            {"many": heads > 1, "causal": state["causal"], "drop": v.dropout > 0},
                            head=state["head"],
                            num_heads=heads,
                            **dropout_fields(
                                v.dropout, v.draw, v.seed, v.dropped, v.query, v.weights.sum()
                            ),
                        ),
                    },
                )
            )
        add("attention", explorer.frontend.data, pairs)

    # (num_snapshots, num_blocks, num_heads, tokens): notebook 10's sizes, more snapshots than
    # cells, one word.
    for num_snapshots, blocks, heads, words in (
        (21, 2, 2, "I had always thought Jack Gisburn rather a cheap genius -- though a good"),
        (12, 1, 3, "it's 'quoted'"),
        (3, 1, 1, "solo"),
    ):
        tokens = words.split()
        n = len(tokens)
        generator = torch.Generator().manual_seed(n)
        scores = 3 * torch.randn(num_snapshots, blocks, heads, n, n, generator=generator)
        snapshots = torch.softmax(scores.masked_fill(causal_mask(n), -torch.inf), dim=-1)
        steps = [30 * k for k in range(num_snapshots)]
        explorer = TrainingExplorer(snapshots, tokens, steps)
        pairs = []
        for _ in range(30):
            state = {
                **base,
                "step": rng.randrange(num_snapshots),
                "head": rng.randrange(blocks * heads),
                "query": rng.randrange(n),
            }
            explorer.snapshot.value = state["step"]
            explorer.head.value = state["head"]
            explorer.query.value = state["query"]
            v = explorer.view
            want = {
                "weights": _grid(v.attn_weights),
                "row": v.weights.tolist(),
                "caption": v.caption,
                "bars": v.bars,
                "formula": v.text,
                "headline": v.headline,
            }
            pairs.append((state, want))
        add("training", explorer.frontend.data, pairs)
    return cases, expected


def test_the_front_ends_views_agree_with_the_python_views():
    node = _node()
    cases, expected = _cases(random.Random(21))
    count = sum(len(c["states"]) for c in cases)
    started = time.perf_counter()
    out = subprocess.run(
        [node, str(SCRIPT)], input=json.dumps(cases), capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    wrong = []
    for case, views, wants in zip(cases, shown, expected, strict=True):
        for state, view, want in zip(case["states"], views, wants, strict=True):
            for key, value in want.items():
                if isinstance(value, str):
                    ok = _same_text(view[key], value)
                elif isinstance(value, dict):
                    ok = all(_same_text(view[key][k], t) for k, t in value.items())
                else:
                    ok = _close(view[key], value)
                if not ok:
                    wrong.append(
                        f"{case['kind']} {state} {key}: node {view[key]!r}, python {value!r}"
                    )
    print(f"node check: {count} settings in {seconds:.2f} s")
    assert count >= 300
    assert not wrong, f"{len(wrong)} differences, first: " + "\n".join(wrong[:5])


# ----------------------------------------------------------------- the formula as math

DECIMAL = re.compile(r"-?\d+\.\d+")
# The formula writes a long vector as its first 3 numbers, an ellipsis, its last; a long dot
# product as its first 2 products, an ellipsis, its last; a large sum of exponentials as
# m × 10^e with m to 3 decimals.
VECTOR_SHOWN, PRODUCTS_SHOWN, PLAIN_BELOW = 6, 4, 1e5


def _shortened(items: list, shown: int, head: int) -> list:
    return items if len(items) <= shown else items[:head] + items[len(items) - (shown - head - 1) :]


def _total(logits: torch.Tensor) -> tuple[float, float]:
    """Σ e^v over the finite ``logits`` as the formula writes it, and the tolerance."""
    total = torch.exp(logits[torch.isfinite(logits)].double()).sum().item()
    if total < PLAIN_BELOW:
        # The Python view's scores are float32: a sum in the hundreds differs in its 4th decimal.
        return total, max(TOLERANCE, 2e-6 * total)
    exponent = int(torch.floor(torch.log10(torch.tensor(total, dtype=torch.float64))).item())
    return total / 10**exponent, 1.01e-3


def _weight_numbers(into: torch.Tensor, weights: torch.Tensor, i: int, j: int, dim: int):
    """α_ij = e^{into_ij} / Σ e^{...} = weight: the numbers, or none for a masked cell."""
    if not torch.isfinite(into[i, j]):
        return []
    along = into[i] if dim == -1 else into[:, j]
    return [(into[i, j].item(), TOLERANCE), _total(along), (weights[i, j].item(), TOLERANCE)]


def _vector_numbers(vector: torch.Tensor) -> list:
    return [(v, TOLERANCE) for v in _shortened(vector.tolist(), VECTOR_SHOWN, 3)]


def _math_cases(rng: random.Random) -> tuple[list[dict], list[list[list]]]:
    """Cases for node with a cell in each state, and per state the numbers of each line."""
    cases, expected = [], []
    base = {"query": 0, "dim": -1, "causal": False, "temperature": 1.0, "head": 0, "step": 0}

    query = QueryExplorer()
    states, wants = [], []
    for q in range(len(TOKENS)):
        query.query.value = q
        v, j = query.view, rng.randrange(len(TOKENS))
        scores = example_inputs() @ example_inputs().T
        states.append({**base, "query": q, "cell": [q, j]})
        wants.append(
            [_weight_numbers(scores, v.attn_weights, q, j, -1), _vector_numbers(v.context)]
        )
    cases.append({"kind": "query", "data": query.frontend.data, "states": states})
    expected.append(wants)

    scores = example_inputs() @ example_inputs().T
    for grid in (scores, scores.masked_fill(causal_mask(len(TOKENS)), -torch.inf)):
        softmax = SoftmaxAxisExplorer(grid)
        states, wants = [], []
        for dim in (-1, 0, -1, 0):
            softmax.dim.value = dim
            i, j = rng.randrange(len(TOKENS)), rng.randrange(len(TOKENS))
            states.append({**base, "dim": dim, "cell": [i, j]})
            wants.append([_weight_numbers(grid, softmax.view.attn_weights, i, j, dim)])
        cases.append({"kind": "softmax", "data": softmax.frontend.data, "states": states})
        expected.append(wants)

    # The loop's formula is its current iteration's dot product, whatever cell is in view.
    tokens, inputs = embed(" ".join(f"w{k}" for k in range(5)), d=7)
    for loop in (LoopStepper(), LoopStepper(inputs, tokens)):
        n = len(loop.tokens)
        states, wants = [], []
        for step in rng.sample(range(1, n * n + 1), 5):
            loop.step.value = step
            v = loop.view
            pairs = _shortened(list(v.terms), PRODUCTS_SHOWN, 2)
            numbers = [(x, TOLERANCE) for pair in pairs for x in pair] + [(v.score, TOLERANCE)]
            states.append({**base, "step": step, "cell": [0, 0]})
            wants.append([numbers])
        cases.append({"kind": "loop", "data": loop.frontend.data, "states": states})
        expected.append(wants)

    for sentence, heads, d_out in SENTENCES:
        explorer = AttentionExplorer(sentence, num_heads=heads, d_out=d_out, query=0)
        n = len(explorer.tokens)
        states, wants = [], []
        for _ in range(20):
            state = {
                **base,
                "query": rng.randrange(n),
                "dim": rng.choice((-1, 0)),
                "causal": rng.random() < 0.5,
                "temperature": rng.choice((0.1, 0.5, 1.0, 2.3, 5.0)),
                "head": rng.randrange(heads),
                "dropout_index": rng.choice((0, rng.randrange(1, len(DROPOUT_RATES)))),
                "draw": rng.randrange(DROPOUT_DRAWS),
            }
            i, j = state["query"], rng.randrange(n)
            v = attention_view(
                explorer.inputs,
                explorer.tokens,
                projections=explorer.projections,
                **{k: state[k] for k in ("query", "dim", "causal", "temperature", "head", "draw")},
                dropout=DROPOUT_RATES[state["dropout_index"]],
                seed=explorer._seed,
            )
            lines = []
            scaled = v.scale != 1 or state["temperature"] != 1
            if scaled and v.masked[i, j]:
                lines.append([])  # s = −∞ (masked): no number
            elif scaled:
                t = state["temperature"]
                shown_t = [(t, TOLERANCE)] if t != int(t) else []
                lines.append(
                    [(v.attn_scores[i, j].item(), TOLERANCE), *shown_t]
                    + [(v.scaled_scores[i, j].item(), TOLERANCE)]
                )
            lines.append(_weight_numbers(v.scaled_scores, v.softmax_weights, i, j, state["dim"]))
            if v.dropout > 0:
                # After dropout: α · 1/(1 − p) = the weight, or α → 0 where dropped or masked.
                kept = [(v.dropout, TOLERANCE), (v.attn_weights[i, j].item(), TOLERANCE)]
                lines.append([] if v.dropped[i, j] or v.masked[i, j] else kept)
            lines.append(_vector_numbers(v.context))
            states.append({**state, "cell": [i, j]})
            wants.append(lines)
        cases.append({"kind": "attention", "data": explorer.frontend.data, "states": states})
        expected.append(wants)
    return cases, expected


def test_the_formula_as_math_writes_the_python_views_numbers():
    """Each line of the formula under an explorer (MathML, as text) holds the numbers of the
    cell in view, computed here from the Python views: the score, what softmax takes, the sum
    of exponentials and the weight; the query's context vector; the loop's dot product."""
    node = _node()
    cases, expected = _math_cases(random.Random(24))
    out = subprocess.run(
        [node, str(SCRIPT)], input=json.dumps(cases), capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    wrong = []
    for case, views, wants in zip(cases, json.loads(out.stdout), expected, strict=True):
        for state, view, want in zip(case["states"], views, wants, strict=True):
            shown = [[float(x) for x in DECIMAL.findall(line)] for line in view["math"]]
            ok = len(shown) == len(want) and all(
                len(got) == len(line)
                and all(abs(g - w) <= tol for g, (w, tol) in zip(got, line, strict=True))
                for got, line in zip(shown, want, strict=True)
            )
            if not ok:
                wrong.append(f"{case['kind']} {state}: node {view['math']}, python {want}")
    assert not wrong, f"{len(wrong)} differences, first: " + "\n".join(wrong[:3])
