"""Checkpoints for readers: a one-line pass, or a ``CheckpointError`` naming the mistake.

Each check recomputes the stage on the CPU, in float32, and compares. When
the reader's tensor differs, :func:`diagnose` compares it with what each mistake
of :data:`attnlib.mistakes.MISTAKES` gives, and the error says which one it
matches and how to fix it.
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

_STAGE_NAMES = {
    "scores": "the attention scores",
    "weights": "the attention weights",
    "context_vecs": "all the context vectors",
    "context_vec": "one context vector",
}


class CheckpointError(Exception):
    """A reader's tensor failed a checkpoint; ``mistake`` and ``hint`` say why."""

    def __init__(self, message: str, mistake: str | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.mistake = mistake
        self.hint = hint


@dataclass(frozen=True)
class Diagnosis:
    """What a tensor is: ``stage`` it belongs to (or None) and the ``mistake`` it shows.

    ``mistake`` is a key of :data:`~attnlib.mistakes.MISTAKES`, ``None`` when the
    tensor is the correct result of ``stage``, or ``"unknown"`` when nothing
    matched. ``query`` is the query a single context vector belongs to; ``hint``
    says how to fix it.
    """

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
    tol = max(TOLERANCE, 4 * torch.finfo(result.dtype).eps)
    return bool(torch.allclose(result.float(), expected.float(), atol=tol, rtol=tol))


def _name(tokens: Sequence[str] | None, i: int) -> str:
    return f"{i} ({tokens[i]!r})" if tokens is not None else str(i)


def _candidates(inputs: torch.Tensor, query: int | None):
    """``(stage, mistake, tensor, query)`` for every correct result and every made mistake."""
    scores = inputs @ inputs.T
    weights = torch.softmax(scores, dim=-1)
    yield "scores", None, scores, None
    yield "scores", "transposed_product", MISTAKES["transposed_product"].make(inputs), None
    yield "scores", "same_token", MISTAKES["same_token"].make(inputs), None
    variants = {None: weights}
    for name in ("softmax_dim0", "no_exp"):
        variants[name] = MISTAKES[name].make(scores)
    for mistake, w in variants.items():
        yield "weights", mistake, w, None
        yield "context_vecs", mistake, w @ inputs, None
        if query is not None and mistake is not None:
            yield "context_vec", mistake, w[query] @ inputs, query
    for q in range(inputs.shape[0]):
        if query is None or q == query:
            yield "context_vec", None, weights[q] @ inputs, q
        else:
            yield "context_vec", "wrong_query_index", weights[q] @ inputs, q


def _loop_mistake(result: torch.Tensor, inputs: torch.Tensor, query: int) -> dict | None:
    """The running sum's own mistakes for one context vector: pairing and the start value."""
    weights = torch.softmax(inputs @ inputs.T, dim=-1)[query]
    num_tokens = inputs.shape[0]
    # Every other order for short sentences; for long ones a reversal and the two shifts.
    base = list(range(num_tokens))
    orders = (
        list(itertools.permutations(base))[1:]
        if num_tokens <= 7
        else [base[::-1], base[1:] + base[:1], base[-1:] + base[:-1]]
    )
    shuffled = weights[torch.tensor(orders).reshape(-1, num_tokens)] @ inputs
    if any(close(result, s) for s in shuffled):
        return {"mistake": "wrong_pairing"}
    offset = result - weights @ inputs
    constant = close(offset, offset[:1].expand_as(offset))
    if constant or any(close(offset, x) for x in inputs):
        return {"mistake": "no_zero_start", "offset": [round(v, 4) for v in offset.tolist()]}
    return None


def diagnose(
    result: torch.Tensor,
    inputs: torch.Tensor | None = None,
    query: int | None = None,
    tokens: Sequence[str] | None = None,
) -> Diagnosis:
    """Name what ``result`` is: a stage's correct output, or a known mistake.

    ``result`` may be attention scores or weights ``(num_tokens, num_tokens)``,
    all context vectors ``(num_tokens, d_in)`` or one context vector ``(d_in,)``.
    ``inputs`` defaults to the course's example, ``(num_tokens, d_in)``. With
    ``query`` given, a single context vector is judged against that query.
    """
    inputs, tokens = _reference(inputs, tokens)
    if query is not None:
        query = check.index(query, "query", inputs.shape[0])
    if not _has_values(result):
        got = check.describe(result) + (" on the meta device" if _on_meta(result) else "")
        return Diagnosis(None, "unknown", f"expected a real tensor with values, got {got}")
    result = result.detach().cpu()
    for stage, mistake, expected, q in _candidates(inputs, query):
        if close(result, expected):
            return Diagnosis(stage, mistake, _hint(mistake, inputs, tokens, query, q), q)
    if query is not None and result.shape == (inputs.shape[1],):
        found = _loop_mistake(result, inputs, query)
        if found is not None:
            mistake = found.pop("mistake")
            return Diagnosis("context_vec", mistake, hint(mistake, **found), query)
    return Diagnosis(None, "unknown", "re-run the cells above in order and compare stage by stage.")


def _hint(mistake, inputs, tokens, query, got) -> str:
    if mistake is None:
        return ""
    t, d = inputs.shape
    index = query if query is not None else 0
    return hint(
        mistake,
        got=_name(tokens, got) if got is not None else "",
        query=_name(tokens, index),
        number=index + 1,
        index=index,
        t=t,
        d=d,
    )


def _reference(inputs: Any, tokens: Any) -> tuple[torch.Tensor, tuple[str, ...] | None]:
    """The inputs to check against, ``(num_tokens, d_in)`` float32, and their tokens."""
    if inputs is None:
        inputs, tokens = example_inputs(), TOKENS if tokens is None else tokens
    check.tensor(inputs, "inputs", "(num_tokens, d_in)", (2,))
    if inputs.device.type == "meta":
        raise ValueError("inputs: expected a tensor with values, got one on the meta device")
    tokens = None if tokens is None else check.tokens(tokens, inputs.shape[0])
    return inputs.detach().cpu().float(), tokens


def _fail(what: str, diagnosis: Diagnosis, detail: str) -> None:
    if diagnosis.ok:
        # A correct tensor of another stage: the reader passed the wrong variable.
        text = hint("wrong_stage", stage=_STAGE_NAMES[diagnosis.stage], wanted=what.lower())
        raise CheckpointError(f"{what} checkpoint failed: {text}", "wrong_stage", text)
    if diagnosis.mistake != "unknown":
        label = MISTAKES[diagnosis.mistake].label
        raise CheckpointError(
            f"{what} checkpoint failed. Likely mistake: {label}: {diagnosis.hint}",
            diagnosis.mistake,
            diagnosis.hint,
        )
    raise CheckpointError(f"{what} checkpoint failed: {detail}", "unknown", detail)


def _on_meta(x: Any) -> bool:
    return isinstance(x, torch.Tensor) and x.device.type == "meta"


def _has_values(x: Any) -> bool:
    """A real tensor whose numbers can be read (a meta tensor has none)."""
    return isinstance(x, torch.Tensor) and not x.is_complex() and x.device.type != "meta"


def _as_result(result: Any, what: str) -> torch.Tensor:
    if not _has_values(result):
        got = check.describe(result) + (" on the meta device" if _on_meta(result) else "")
        hint = "pass the tensor your cell computed"
        raise CheckpointError(
            f"{what} checkpoint failed: expected a real-valued torch.Tensor with values, "
            f"got {got}; {hint}",
            "unknown",
            hint,
        )
    return result.detach().cpu()


def _judge(what: str, result: torch.Tensor, expected: torch.Tensor, shape_doc: str, **kw) -> None:
    """Raise the right ``CheckpointError`` unless ``result`` is close to ``expected``.

    ``kw``: ``detail`` (a function of the largest difference, for a tensor of the
    right shape), ``inputs``, ``tokens`` and ``query`` for :func:`diagnose`.
    """
    if close(result, expected):
        return
    if result.shape == expected.shape:
        detail = kw["detail"](float((result.float() - expected).abs().max()))
    else:
        detail = f"expected shape {shape_doc}, got {tuple(result.shape)}"
    _fail(what, diagnose(result, kw["inputs"], kw.get("query"), kw["tokens"]), detail)


def check_scores(
    attn_scores: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the scores: shape ``(num_tokens, num_tokens)``, symmetric, ``X @ X.T``."""
    inputs, tokens = _reference(inputs, tokens)
    result = _as_result(attn_scores, "Scores")
    t = inputs.shape[0]
    _judge(
        "Scores",
        result,
        inputs @ inputs.T,
        f"({t}, {t}), one row and one column per token",
        detail=lambda off: f"values differ from inputs @ inputs.T by up to {off:.4f}",
        inputs=inputs,
        tokens=tokens,
    )
    pair = f", [0, 1] == [1, 0] == {result[0, 1]:.4f}" if t > 1 else ""
    entries = "1 entry" if t == 1 else f"{t * t} entries"
    print(f"✓ scores checkpoint passed: shape ({t}, {t}), {entries}, symmetric{pair}")


def check_weights(
    attn_weights: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the weights: shape ``(num_tokens, num_tokens)``, rows sum to 1, softmax."""
    inputs, tokens = _reference(inputs, tokens)
    result = _as_result(attn_weights, "Weights")
    t = inputs.shape[0]
    expected = torch.softmax(inputs @ inputs.T, dim=-1)
    sums = [round(v, 4) for v in result.float().sum(dim=-1).flatten().tolist()]

    def detail(off: float) -> str:
        if close(result.sum(dim=-1), torch.ones(t)):
            return (
                "rows sum to 1, but the values differ from softmax(attn_scores, dim=-1) "
                f"by up to {off:.4f}"
            )
        return f"every row should sum to 1, but the row sums are {sums}"

    _judge("Weights", result, expected, f"({t}, {t})", detail=detail, inputs=inputs, tokens=tokens)
    pair = f", [0, 1] = {result[0, 1]:.4f}, [1, 0] = {result[1, 0]:.4f}" if t > 1 else ""
    print(f"✓ weights checkpoint passed: shape ({t}, {t}), every row sums to 1{pair}")


def check_context(
    context: torch.Tensor,
    query: int | None = None,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for one context vector ``(d_in,)`` of ``query``, or all ``(num_tokens, d_in)``."""
    inputs, tokens = _reference(inputs, tokens)
    result = _as_result(context, "Context")
    (t, d), weights = inputs.shape, torch.softmax(inputs @ inputs.T, dim=-1)
    if query is None and result.dim() == 1:
        raise ValueError(
            "query: expected the index of the query token for a single context vector "
            f"of shape ({d},), got None"
        )
    if query is None:
        what, expected = "Context vectors", weights @ inputs
        shape_doc = f"({t}, {d}), one row per query"
    else:
        query = check.index(query, "query", t)
        what = f"Context vector of query {_name(tokens, query)}"
        expected, shape_doc = weights[query] @ inputs, f"({d},)"
    detail = lambda off: f"values differ from the reference by up to {off:.4f}"  # noqa: E731
    _judge(what, result, expected, shape_doc, detail=detail, inputs=inputs, tokens=tokens,
           query=query)  # fmt: skip
    if query is None:
        print(f"✓ context checkpoint passed: shape ({t}, {d}), row i blends every input for "
              "query i")  # fmt: skip
    else:
        shown = ", ".join(f"{v:.4f}" for v in result.tolist())
        print(f"✓ context checkpoint passed: query {_name(tokens, query)} -> [{shown}]")
