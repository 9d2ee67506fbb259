"""The front end's views (static/src/views.js) against the Python views, in node.

Hundreds of settings of every kind of explorer, on the book's sentence and on
others (long, one token, quotes, several heads), are computed by the ES modules
themselves in one node process and compared with ``explorer.view``: every number
to 4 decimals, every text word for word (its numbers to 4 decimals). The browser
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
from attnlib.data import TOKENS, example_inputs
from attnlib.widgets import (
    AttentionExplorer,
    LoopStepper,
    QueryExplorer,
    SoftmaxAxisExplorer,
    TrainingExplorer,
    _text,
    attention_view,
)

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
        "label": _text.fill(texts["query"], {"query": view.query, "token_repr": repr(view.token)}),
        "bars": _text.fill(texts["bars"], {"query": view.query, "total": view.weights.sum()}),
        "blend": _text.fill(texts["blend"], {"token": view.token, "vec": vec}),
        "context": _text.fill(texts["context"], {"token": view.token}),
    }


def _announce(kind: str, view, flags: dict, **fields) -> str:
    """The line a screen reader hears after a move, from the Python view's numbers."""
    values = {
        "query": view.query,
        "token_repr": repr(view.token),
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
    for step in range(len(TOKENS) ** 2):
        loop.step.value = step
        v = loop.view
        fields = {
            "i": v.i,
            "j": v.j,
            "token_i": TOKENS[v.i],
            "token_j": TOKENS[v.j],
            "iteration": step + 1,
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
            }
            v = attention_view(
                explorer.inputs,
                explorer.tokens,
                projections=explorer.projections,
                **{k: state[k] for k in ("query", "dim", "causal", "temperature", "head")},
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
                            {"many": heads > 1, "causal": state["causal"]},
                            head=state["head"],
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
