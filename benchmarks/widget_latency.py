"""Latency of the explorers' live views, against re-plotting a matplotlib heatmap per change.

    python benchmarks/widget_latency.py [--rounds N]

In one process, each explorer's control is driven through all its values for
``N`` rounds (after one untimed warm-up round). Measured per change: from
setting ``control.value`` to the observer having finished (view computed, HTML
drawn into the widgets; without a kernel the comm send is a no-op). The naive
baseline does the same changes the slow way: the same view function, then a
fresh ``plots.heatmap`` rendered to PNG (``savefig`` into memory, then closed).

The AttentionExplorer is driven through each of its controls (query, dim, causal,
temperature, head, sentence) on the book's sentence, and through query and
temperature on a 32-token sentence (the longest it accepts, the largest grid;
its baseline, seconds per PNG, is timed for one round only). The AttentionExplorer's
baseline is :func:`attnlib.widgets.attention_view`, then the same PNG heatmap.

Prints one line per explorer control and, last, over all explorers' changes:
``median_ms=<m> p95_ms=<p> baseline_median_ms=<b> speedup=<b/m>``.
The target is a median <= 10 ms and a p95 <= 25 ms on a 2-core machine.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# Runs from a checkout without installing attnlib.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attnlib import plots, widgets  # noqa: E402


def _cycle(values: list[Any], current: Any) -> list[Any]:
    """All ``values`` once, starting after ``current``, so that every assignment is a change."""
    start = values.index(current) + 1
    return values[start:] + values[:start]


def _baseline_query(explorer: widgets.QueryExplorer, value: int) -> None:
    view = widgets.query_view(explorer.inputs, explorer.tokens, value)
    _render_png(view.attn_weights, explorer.tokens, highlight_row=view.query)


def _baseline_softmax(explorer: widgets.SoftmaxAxisExplorer, value: int) -> None:
    view = widgets.softmax_view(explorer.scores, explorer.tokens, value)
    _render_png(view.attn_weights, explorer.tokens)


def _baseline_loop(explorer: widgets.LoopStepper, value: int) -> None:
    view = widgets.loop_view(explorer.inputs, explorer.tokens, value)
    _render_png(view.scores, explorer.tokens, highlight_cell=(view.i, view.j))


def _baseline_attention(field: str) -> Callable[[widgets.AttentionExplorer, Any], None]:
    """The slow way for an AttentionExplorer control ``field``: view, then a fresh PNG."""

    def draw(explorer: widgets.AttentionExplorer, value: Any) -> None:
        tokens, inputs = explorer.tokens, explorer.inputs
        settings = {
            "query": explorer.query.value,
            "dim": explorer.dim.value,
            "causal": explorer.causal.value,
            "temperature": explorer.temperature.value,
            "head": 0 if explorer.head is None else explorer.head.value,
        }
        if field == "sentence":
            tokens, inputs = widgets.sentence_inputs(value)
            settings["query"] = min(settings["query"], len(tokens) - 1)
        else:
            settings[field] = value
        view = widgets.attention_view(inputs, tokens, projections=explorer.projections, **settings)
        _render_png(view.attn_weights, view.tokens, highlight_row=view.query)

    return draw


def _render_png(matrix: Any, tokens: tuple[str, ...], **highlight: Any) -> None:
    fig = plots.heatmap(matrix, tokens, tokens, fmt="{:.4f}", **highlight)
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


def _time_changes(
    control: Any, values: list[Any], rounds: int, check: Callable[[Any], None]
) -> list[float]:
    """Milliseconds per ``control.value = v`` over ``rounds`` cycles through ``values``."""
    timings = []
    for round_number in range(rounds + 1):  # round 0 warms up
        for value in _cycle(values, control.value):
            start = time.perf_counter()
            control.value = value
            elapsed = time.perf_counter() - start
            check(value)
            if round_number:
                timings.append(elapsed * 1e3)
    return timings


def _time_baseline(
    explorer: Any, draw: Callable[[Any, Any], None], values: list[Any], rounds: int, first: Any
) -> list[float]:
    timings = []
    current = first
    for round_number in range(rounds + 1):
        for value in _cycle(values, current):
            start = time.perf_counter()
            draw(explorer, value)
            elapsed = time.perf_counter() - start
            current = value
            if round_number:
                timings.append(elapsed * 1e3)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per control")
    rounds = parser.parse_args().rounds

    query = widgets.QueryExplorer()
    softmax = widgets.SoftmaxAxisExplorer()
    loop = widgets.LoopStepper()
    num_tokens = len(query.tokens)
    attention = widgets.AttentionExplorer()
    heads = widgets.AttentionExplorer(num_heads=2)
    long_sentence = " ".join(f"word{k}" for k in range(32))
    long = widgets.AttentionExplorer(long_sentence, num_heads=2, causal=True)
    temperatures = [0.1, 0.5, 1.0, 2.0, 5.0]
    sentences = [
        widgets.DEFAULT_SENTENCE,
        "The cat sat on the mat.",
        "Attention is all you need, they said",
    ]
    cases = [
        (
            "QueryExplorer.query",
            query,
            query.query,
            list(range(num_tokens)),
            "query",
            _baseline_query,
        ),
        ("SoftmaxAxisExplorer.dim", softmax, softmax.dim, [-1, 0], "dim", _baseline_softmax),
        (
            "LoopStepper.step",
            loop,
            loop.step,
            list(range(num_tokens * num_tokens)),
            "step",
            _baseline_loop,
        ),
    ]
    # (control name, values, view field); each change is one reader's move.
    attention_controls = [
        ("query", list(range(num_tokens)), "query"),
        ("dim", [-1, 0], "dim"),
        ("causal", [False, True], "causal"),
        ("temperature", temperatures, "temperature"),
    ]
    for control, values, field in attention_controls:
        cases.append(
            (
                f"AttentionExplorer.{control}",
                attention,
                getattr(attention, control),
                values,
                field,
                _baseline_attention(field),
            )
        )
    cases += [
        ("AttentionExplorer(num_heads=2).head", heads, heads.head, [0, 1], "head",
         _baseline_attention("head")),
        ("AttentionExplorer.sentence", attention, attention.sentence, sentences,
         lambda view, value: view.tokens == tuple(widgets.tokenize(value)),
         _baseline_attention("sentence")),
    ]  # fmt: skip
    # The last item of a case: its baseline's timed rounds. A 32x32 PNG takes seconds,
    # so the long sentence's baseline gets one round.
    cases = [(*case, rounds) for case in cases]
    cases += [
        ("AttentionExplorer(32 tokens, 2 heads, causal).query", long, long.query,
         [1, 8, 16, 24, 31], "query", _baseline_attention("query"), min(rounds, 1)),
        ("AttentionExplorer(32 tokens, 2 heads, causal).temperature", long, long.temperature,
         temperatures, "temperature", _baseline_attention("temperature"), min(rounds, 1)),
    ]  # fmt: skip

    print(
        f"python {sys.version.split()[0]}, matplotlib {matplotlib.__version__}, "
        f"{os.cpu_count()} CPUs, {rounds} timed rounds per control"
    )
    live_all: list[float] = []
    baseline_all: list[float] = []
    for name, explorer, control, values, field, baseline, baseline_rounds in cases:

        def check(
            value: Any, explorer: Any = explorer, field: Any = field, name: str = name
        ) -> None:
            # The observer ran: the view shows the value just set, with no error.
            if callable(field):
                shown = field(explorer.view, value)
            else:
                shown = getattr(explorer.view, field) == value
            if not shown or explorer.status.value:
                raise RuntimeError(f"{name}: view not updated to {value}: {explorer.status.value}")

        first = control.value
        live = _time_changes(control, values, rounds, check)
        slow = _time_baseline(explorer, baseline, values, baseline_rounds, first)
        live_all += live
        baseline_all += slow
        median, p95 = np.median(live), np.percentile(live, 95)
        print(
            f"{name}: changes={len(live)} median_ms={median:.2f} p95_ms={p95:.2f} "
            f"baseline_median_ms={np.median(slow):.2f} speedup={np.median(slow) / median:.2f}"
        )
    median, p95 = np.median(live_all), np.percentile(live_all, 95)
    base = np.median(baseline_all)
    print(
        f"median_ms={median:.2f} p95_ms={p95:.2f} baseline_median_ms={base:.2f} "
        f"speedup={base / median:.2f}"
    )


if __name__ == "__main__":
    main()
