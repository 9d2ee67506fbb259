"""Checkpoints for readers: a one-line pass, or a ``CheckpointError`` naming the mistake.

Each check recomputes the stage with :mod:`attnlib.attention` and compares. When
the reader's tensor differs, :func:`diagnose` compares it against the results of
the common mistakes, made on purpose, and the error says which one it matches
and how to fix it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import attention
from attnlib._validate import as_float_tensor, check_int, describe
from attnlib.data import TOKENS, example_inputs

# Readers may round or compute in another order; 1e-4 is below the 4 printed decimals.
_ATOL = 1e-4

MISTAKES: dict[str, str] = {
    "wrong_query_index": "the wrong query index (off by one?)",
    "softmax_dim0": "softmax along the wrong axis (dim=0)",
    "wrong_pairing": "a weight paired with the wrong input",
    "no_zero_start": "a running sum that did not start from zeros",
    "transposed_product": "the transposed product inputs.T @ inputs",
    "no_exp": "normalising without exp",
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

    ``mistake`` is a key of :data:`MISTAKES`, ``None`` when the tensor is the
    correct result of ``stage``, or ``"unknown"`` when nothing matched. ``query``
    is the query a single context vector belongs to; ``hint`` says how to fix it.
    """

    stage: str | None
    mistake: str | None
    hint: str
    query: int | None = None

    @property
    def ok(self) -> bool:
        return self.stage is not None and self.mistake is None


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=_ATOL, rtol=1e-4))


def _name(tokens: Sequence[str] | None, i: int) -> str:
    return f"{i} ({tokens[i]!r})" if tokens is not None and i < len(tokens) else str(i)


def _hint(mistake: str, tokens: Sequence[str] | None, **kw: Any) -> str:
    if mistake == "wrong_query_index":
        q, got = kw["query"], kw["got"]
        return (
            f"this is the context vector of query {_name(tokens, got)}, not of query "
            f"{_name(tokens, q)}. Python counts from 0: token number {q + 1} is index {q}; "
            f"use attn_weights[{q}] (and inputs[{q}] as the query)."
        )
    if mistake == "softmax_dim0":
        return (
            "the columns sum to 1 but the rows do not. Use softmax(attn_scores, dim=-1) so "
            "that each query's row of weights is a distribution over the tokens."
        )
    if mistake == "wrong_pairing":
        return (
            "each weight must multiply the input at its own position: loop with "
            "`for i, x_i in enumerate(inputs)` and add weights[i] * x_i."
        )
    if mistake == "no_zero_start":
        return (
            f"the result is off by {kw['offset']}. Start the running total from "
            "torch.zeros_like(inputs[0]), not torch.empty(...), an input, or ones."
        )
    if mistake == "transposed_product":
        t, d = kw["num_tokens"], kw["d"]
        return (
            f"inputs.T @ inputs compares embedding dimensions and gives a ({d}, {d}) grid; "
            f"inputs @ inputs.T compares tokens and gives the ({t}, {t}) grid of scores."
        )
    if mistake == "no_exp":
        return (
            "dividing each score by its row's sum is not softmax: it breaks on negative "
            "scores and does not stretch larger scores. Use torch.softmax(attn_scores, dim=-1)."
        )
    return kw.get("detail", "re-run the cells above in order and compare stage by stage.")


def _candidates(
    inputs: torch.Tensor, query: int | None
) -> list[tuple[str, str | None, torch.Tensor, int | None]]:
    """(stage, mistake, tensor, query) for every correct result and known mistake."""
    scores = attention.attention_scores(inputs)
    weights = attention.softmax(scores, dim=-1)
    weights_dim0 = attention.softmax(scores, dim=0)
    no_exp = scores / scores.sum(dim=-1, keepdim=True)
    out = [
        ("scores", None, scores, None),
        ("scores", "transposed_product", inputs.T @ inputs, None),
        ("weights", None, weights, None),
        ("weights", "softmax_dim0", weights_dim0, None),
        ("weights", "no_exp", no_exp, None),
        ("context_vecs", None, weights @ inputs, None),
        ("context_vecs", "softmax_dim0", weights_dim0 @ inputs, None),
        ("context_vecs", "no_exp", no_exp @ inputs, None),
    ]
    queries = range(inputs.shape[0]) if query is None else [query]
    for q in queries:
        out.append(("context_vec", None, weights[q] @ inputs, q))
    if query is not None:
        out += [
            ("context_vec", "softmax_dim0", weights_dim0[query] @ inputs, query),
            ("context_vec", "no_exp", no_exp[query] @ inputs, query),
        ]
        out += [
            ("context_vec", "wrong_query_index", weights[k] @ inputs, k)
            for k in range(inputs.shape[0])
            if k != query
        ]
    return out


def _pairings(num_tokens: int) -> torch.Tensor:
    """Index orders other than the identity: all of them for short sequences."""
    if num_tokens <= 7:
        perms = list(itertools.permutations(range(num_tokens)))[1:]
    else:
        base = list(range(num_tokens))
        perms = [base[::-1], base[1:] + base[:1], base[-1:] + base[:-1]]
    return torch.tensor(perms, dtype=torch.long).reshape(-1, num_tokens)


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
        _check_query(query, inputs.shape[0])
    if not isinstance(result, torch.Tensor):
        return Diagnosis(None, "unknown", f"expected a tensor, got {describe(result)}")
    result = result.detach().float()
    for stage, mistake, expected, q in _candidates(inputs, query):
        if _same(result, expected):
            hint = (
                ""
                if mistake is None
                else _hint(
                    mistake,
                    tokens,
                    query=query,
                    got=q,
                    num_tokens=inputs.shape[0],
                    d=inputs.shape[1],
                )
            )
            return Diagnosis(stage, mistake, hint, q)
    if query is not None and result.shape == (inputs.shape[1],):
        found = _diagnose_loop(result, inputs, query, tokens)
        if found is not None:
            return found
    return Diagnosis(None, "unknown", _hint("unknown", tokens))


def _diagnose_loop(
    result: torch.Tensor, inputs: torch.Tensor, query: int, tokens: Sequence[str] | None
) -> Diagnosis | None:
    """The loop's own mistakes for one context vector: pairing and the start value."""
    weights = _reference_weights(inputs)[query]
    shuffled = weights[_pairings(inputs.shape[0])] @ inputs
    if torch.isclose(shuffled, result, atol=_ATOL, rtol=1e-4).all(dim=-1).any():
        return Diagnosis("context_vec", "wrong_pairing", _hint("wrong_pairing", tokens), query)
    offset = result - weights @ inputs
    constant = torch.allclose(offset, offset[:1].expand_as(offset), atol=_ATOL)
    an_input = any(torch.allclose(offset, x, atol=_ATOL) for x in inputs)
    if an_input or constant:
        shown = [round(v, 4) for v in offset.tolist()]
        return Diagnosis(
            "context_vec", "no_zero_start", _hint("no_zero_start", tokens, offset=shown), query
        )
    return None


def _reference_weights(inputs: torch.Tensor) -> torch.Tensor:
    """The correct attention weights of the simplified attention, ``(num_tokens, num_tokens)``."""
    return attention.softmax(attention.attention_scores(inputs), dim=-1)


def _check_tokens(tokens: Any, num_tokens: int) -> tuple[str, ...]:
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)):
        raise ValueError(f"tokens: expected a list of {num_tokens} strings, got {describe(tokens)}")
    if len(tokens) != num_tokens or not all(isinstance(t, str) for t in tokens):
        raise ValueError(
            f"tokens: expected one string per input row ({num_tokens}), got {len(tokens)} "
            f"items: {list(tokens)[:8]!r}"
        )
    return tuple(tokens)


def _reference(
    inputs: torch.Tensor | None, tokens: Sequence[str] | None
) -> tuple[torch.Tensor, Sequence[str] | None]:
    """The inputs to check against, ``(num_tokens, d_in)`` float32, and their tokens."""
    if inputs is None:
        inputs = example_inputs()
        tokens = TOKENS if tokens is None else tokens
    else:
        as_float_tensor(inputs, "inputs")
        if inputs.dim() != 2 or 0 in inputs.shape:
            raise ValueError(
                f"inputs: expected shape (num_tokens, d_in) with at least one token, "
                f"got shape {tuple(inputs.shape)}"
            )
    if tokens is not None:
        tokens = _check_tokens(tokens, inputs.shape[0])
    return inputs.detach().float(), tokens


def _check_query(query: Any, num_tokens: int) -> int:
    check_int(query, "query", minimum=0)
    if query >= num_tokens:
        raise ValueError(f"query: expected an index in [0, {num_tokens - 1}], got {query}")
    return query


_STAGE_NAMES = {
    "scores": "the attention scores",
    "weights": "the attention weights",
    "context_vecs": "all the context vectors",
    "context_vec": "one context vector",
}


def _fail(what: str, result: Any, diagnosis: Diagnosis, detail: str) -> None:
    if diagnosis.ok:
        # A correct tensor of another stage: the reader passed the wrong variable.
        hint = f"this tensor is {_STAGE_NAMES[diagnosis.stage]}; pass the {what.lower()} instead."
        raise CheckpointError(f"{what} checkpoint failed: {hint}", "wrong_stage", hint)
    if diagnosis.mistake not in (None, "unknown"):
        label = MISTAKES[diagnosis.mistake]
        raise CheckpointError(
            f"{what} checkpoint failed. Likely mistake: {label}: {diagnosis.hint}",
            diagnosis.mistake,
            diagnosis.hint,
        )
    raise CheckpointError(f"{what} checkpoint failed: {detail}", "unknown", detail)


def _as_result(result: Any, what: str) -> torch.Tensor:
    if not isinstance(result, torch.Tensor) or result.is_complex():
        raise CheckpointError(
            f"{what} checkpoint failed: expected a real-valued torch.Tensor, "
            f"got {describe(result)}",
            "unknown",
            "pass the tensor your cell computed",
        )
    return result.detach().float()


def _max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max())


def check_scores(
    attn_scores: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the scores: shape ``(num_tokens, num_tokens)``, symmetric, ``X @ X.T``."""
    inputs, tokens = _reference(inputs, tokens)
    result = _as_result(attn_scores, "Scores")
    t = inputs.shape[0]
    expected = attention.attention_scores(inputs)
    if not _same(result, expected):
        detail = (
            f"expected shape ({t}, {t}), one row and one column per token, "
            f"got {tuple(result.shape)}"
            if result.shape != expected.shape
            else f"values differ from inputs @ inputs.T by up to {_max_diff(result, expected):.4f}"
        )
        _fail("Scores", result, diagnose(result, inputs, tokens=tokens), detail)
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
    expected = _reference_weights(inputs)
    if not _same(result, expected):
        if result.shape != expected.shape:
            detail = f"expected shape ({t}, {t}), got {tuple(result.shape)}"
        elif not torch.allclose(result.sum(dim=-1), torch.ones(t), atol=1e-3):
            sums = [round(v, 4) for v in result.sum(dim=-1).tolist()]
            detail = f"every row should sum to 1, but the row sums are {sums}"
        else:
            detail = (
                "rows sum to 1, but the values differ from softmax(attn_scores, dim=-1) "
                f"by up to {_max_diff(result, expected):.4f}"
            )
        _fail("Weights", result, diagnose(result, inputs, tokens=tokens), detail)
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
    t, d = inputs.shape
    weights = _reference_weights(inputs)
    if query is not None or result.dim() == 1:
        if query is None:
            raise ValueError(
                "query: expected the index of the query token for a single context vector "
                f"of shape ({d},), got None"
            )
        _check_query(query, t)
        expected = weights[query] @ inputs
        what = f"Context vector of query {_name(tokens, query)}"
        shape_doc = f"({d},)"
    else:
        expected = weights @ inputs
        what = "Context vectors"
        shape_doc = f"({t}, {d}), one row per query"
    if not _same(result, expected):
        detail = (
            f"expected shape {shape_doc}, got {tuple(result.shape)}"
            if result.shape != expected.shape
            else f"values differ from the reference by up to {_max_diff(result, expected):.4f}"
        )
        _fail(what, result, diagnose(result, inputs, query=query, tokens=tokens), detail)
    if result.dim() == 1:
        shown = ", ".join(f"{v:.4f}" for v in result.tolist())
        print(f"✓ context checkpoint passed: query {_name(tokens, query)} -> [{shown}]")
    else:
        print(
            f"✓ context checkpoint passed: shape ({t}, {d}), row i blends every input for query i"
        )
