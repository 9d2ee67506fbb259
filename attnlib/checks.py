"""Checkpoints for readers: a one-line pass, or a ``CheckpointError`` naming the mistake.

Each check recomputes the stage on the CPU, in float32, and compares. When the reader's tensor
differs, :func:`diagnose` compares it with what each mistake of :data:`attnlib.mistakes.MISTAKES`
gives, and the error says which one it matches and how to fix it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _validate as check
from attnlib.data import TOKENS, example_inputs
from attnlib.mistakes import MISTAKES, hint

#: How far a reader's value may be from the reference: below the 4 printed decimals, so a
#: value typed from the printout passes. Half precision gets its own resolution on top.
TOLERANCE = 1e-4

# stage: (its name in a wrong-stage hint, the note after its shape, what its values differ from)
_STAGES = {
    "scores": ("the attention scores", ", one row and one column per token", "inputs @ inputs.T"),
    "weights": ("the attention weights", "", "softmax(attn_scores, dim=-1)"),
    "context_vecs": ("all the context vectors", ", one row per query", "the reference"),
    "context_vec": ("one context vector", "", "the reference"),
}


class CheckpointError(Exception):
    """A reader's tensor failed a checkpoint; ``mistake`` and ``hint`` say why."""

    def __init__(self, message: str, mistake: str | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.mistake, self.hint = mistake, hint


@dataclass(frozen=True)
class Diagnosis:
    """What a tensor is: its ``stage`` (or None), the ``mistake`` it shows (a key of ``MISTAKES``,
    None if correct, or ``"unknown"``), the ``hint`` and the ``query`` of one context vector."""

    stage: str | None
    mistake: str | None
    hint: str
    query: int | None = None

    @property
    def ok(self) -> bool:
        return self.stage is not None and self.mistake is None


def close(result: torch.Tensor, expected: torch.Tensor) -> bool:
    """Same shape and equal within :data:`TOLERANCE` (or the dtype's resolution, if coarser)."""
    if result.shape != expected.shape:
        return False
    eps = torch.finfo(result.dtype).eps if result.is_floating_point() else 0.0  # ints are exact
    tol = max(TOLERANCE, 4 * eps)
    return bool(torch.allclose(result.float(), expected.float(), atol=tol, rtol=tol))


def _reference(inputs: Any, tokens: Any) -> tuple[torch.Tensor, list[str]]:
    """The inputs ``(num_tokens, d_in)`` as float32, and the name of each token in messages."""
    if inputs is None:
        inputs, tokens = example_inputs(), TOKENS if tokens is None else tokens
    check.readable(check.tensor(inputs, "inputs", "(num_tokens, d_in)", (2,)), "inputs")
    tokens = None if tokens is None else check.tokens(tokens, inputs.shape[0])
    names = [str(i) if tokens is None else f"{i} ({tokens[i]!r})" for i in range(len(inputs))]
    return inputs.detach().cpu().float(), names


def _no_values(x: Any) -> str:
    """What ``x`` is if it has no real numbers to read (a meta tensor has none), else ''."""
    if isinstance(x, torch.Tensor) and x.device.type == "meta":
        return check.describe(x) + " on the meta device"
    return "" if isinstance(x, torch.Tensor) and not x.is_complex() else check.describe(x)


def _candidates(inputs: torch.Tensor, query: int | None):
    """``(stage, mistake, tensor, query)`` for every correct result and every made mistake."""
    scores = inputs @ inputs.T
    yield "scores", None, scores, None
    for mistake in ("transposed_product", "same_token"):
        yield "scores", mistake, MISTAKES[mistake].make(inputs), None
    variants = {None: torch.softmax(scores, dim=-1)}
    variants.update((name, MISTAKES[name].make(scores)) for name in ("softmax_dim0", "no_exp"))
    for mistake, w in variants.items():
        yield "weights", mistake, w, None
        yield "context_vecs", mistake, w @ inputs, None
        if query is not None and mistake is not None:
            yield "context_vec", mistake, w[query] @ inputs, query
    for q in range(inputs.shape[0]):
        mistake = None if query is None or q == query else "wrong_query_index"
        yield "context_vec", mistake, variants[None][q] @ inputs, q
    if query is not None:
        # Every other pairing for up to 7 tokens (7! orders); for more, a reversal and two shifts.
        base = list(range(inputs.shape[0]))
        orders = [base[::-1], base[1:] + base[:1], base[-1:] + base[:-1]]
        if len(base) <= 7:
            orders = itertools.islice(itertools.permutations(base), 1, None)
        for order in orders:
            yield "context_vec", "wrong_pairing", variants[None][query, list(order)] @ inputs, query


def diagnose(
    result: torch.Tensor,
    inputs: torch.Tensor | None = None,
    query: int | None = None,
    tokens: Sequence[str] | None = None,
) -> Diagnosis:
    """Name what ``result`` is: scores or weights ``(num_tokens, num_tokens)``, context vectors
    ``(num_tokens, d_in)`` or the one ``(d_in,)`` of ``query``, correct or a known mistake.
    ``inputs`` default to the course's example."""
    inputs, names = _reference(inputs, tokens)
    query = None if query is None else check.index(query, "query", inputs.shape[0])
    if got := _no_values(result):
        return Diagnosis(None, "unknown", f"expected a real tensor with values, got {got}")
    return _identify(result.detach().cpu(), inputs, names, query)


def _identify(result: torch.Tensor, inputs: torch.Tensor, names, query: int | None) -> Diagnosis:
    """:func:`diagnose` for arguments already checked; ``names`` as :func:`_reference` gives."""
    (t, d), index = inputs.shape, query or 0
    fill = {"query": names[index], "number": index + 1, "index": index, "t": t, "d": d}
    for stage, mistake, expected, q in _candidates(inputs, query):
        if close(result, expected):
            got = "" if q is None else names[q]
            text = "" if mistake is None else hint(mistake, got=got, **fill)
            return Diagnosis(stage, mistake, text, q)
    if query is not None and result.shape == (d,):  # a running sum that did not start from 0
        offset = result - torch.softmax(inputs @ inputs.T, dim=-1)[query] @ inputs
        if close(offset, offset[:1].expand_as(offset)) or any(close(offset, x) for x in inputs):
            text = hint("no_zero_start", offset=[round(v, 4) for v in offset.tolist()])
            return Diagnosis("context_vec", "no_zero_start", text, query)
    return Diagnosis(None, "unknown", "re-run the cells above in order and compare stage by stage.")


def _as_result(result: Any, what: str) -> torch.Tensor:
    """The reader's tensor on the CPU, or a ``CheckpointError`` saying what came instead."""
    if got := _no_values(result):
        fix = "pass the tensor your cell computed"
        message = f"expected a real-valued torch.Tensor with values, got {got}; {fix}"
        raise CheckpointError(f"{what} checkpoint failed: {message}", "unknown", fix)
    return result.detach().cpu()


def _judge(what: str, stage: str, result, expected, inputs, names, query=None) -> None:
    """Raise a ``CheckpointError`` naming the mistake unless ``result`` is close to ``expected``."""
    if close(result, expected):
        return
    found = _identify(result, inputs, names, query)
    if found.ok:  # a correct tensor of another stage: the reader passed the wrong variable
        text = hint("wrong_stage", stage=_STAGES[found.stage][0], wanted=what.lower())
        raise CheckpointError(f"{what} checkpoint failed: {text}", "wrong_stage", text)
    if found.mistake != "unknown":
        label = MISTAKES[found.mistake].label
        message = f"{what} checkpoint failed. Likely mistake: {label}: {found.hint}"
        raise CheckpointError(message, found.mistake, found.hint)
    _, note, reference = _STAGES[stage]  # nothing explains it: say what differs
    if result.shape != expected.shape:
        detail = f"expected shape {tuple(expected.shape)}{note}, got {tuple(result.shape)}"
    elif stage == "weights" and not close(result.sum(dim=-1), torch.ones(len(result))):
        sums = [round(v, 4) for v in result.float().sum(dim=-1).flatten().tolist()]
        detail = f"every row should sum to 1, but the row sums are {sums}"
    else:
        off = float((result.float() - expected).abs().max())
        values = "rows sum to 1, but the values" if stage == "weights" else "values"
        detail = f"{values} differ from {reference} by up to {off:.4f}"
    raise CheckpointError(f"{what} checkpoint failed: {detail}", "unknown", detail)


def check_scores(
    attn_scores: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the scores: shape ``(num_tokens, num_tokens)``, symmetric, ``X @ X.T``."""
    inputs, names = _reference(inputs, tokens)
    result, t = _as_result(attn_scores, "Scores"), inputs.shape[0]
    _judge("Scores", "scores", result, inputs @ inputs.T, inputs, names)
    pair = f", [0, 1] == [1, 0] == {result[0, 1]:.4f}" if t > 1 else ""
    entries = "1 entry" if t == 1 else f"{t * t} entries"
    print(f"✓ scores checkpoint passed: shape ({t}, {t}), {entries}, symmetric{pair}")


def check_weights(
    attn_weights: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the weights: shape ``(num_tokens, num_tokens)``, rows sum to 1, softmax."""
    inputs, names = _reference(inputs, tokens)
    result, t = _as_result(attn_weights, "Weights"), inputs.shape[0]
    _judge("Weights", "weights", result, torch.softmax(inputs @ inputs.T, dim=-1), inputs, names)
    pair = f", [0, 1] = {result[0, 1]:.4f}, [1, 0] = {result[1, 0]:.4f}" if t > 1 else ""
    print(f"✓ weights checkpoint passed: shape ({t}, {t}), every row sums to 1{pair}")


def check_context(
    context: torch.Tensor,
    query: int | None = None,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for one context vector ``(d_in,)`` of ``query``, or all ``(num_tokens, d_in)``."""
    inputs, names = _reference(inputs, tokens)
    result = _as_result(context, "Context")
    (t, d), weights = inputs.shape, torch.softmax(inputs @ inputs.T, dim=-1)
    if query is None and result.dim() == 1:
        expected = f"the index of the query token for a single context vector of shape ({d},)"
        raise check.invalid("query", expected, None)
    if query is None:
        _judge("Context vectors", "context_vecs", result, weights @ inputs, inputs, names)
        passed = f"shape ({t}, {d}), row i blends every input for query i"
    else:
        query = check.index(query, "query", t)
        what = f"Context vector of query {names[query]}"
        _judge(what, "context_vec", result, weights[query] @ inputs, inputs, names, query)
        shown = ", ".join(f"{v:.4f}" for v in result.tolist())
        passed = f"query {names[query]} -> [{shown}]"
    print(f"✓ context checkpoint passed: {passed}")
