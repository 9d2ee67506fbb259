"""Checkpoints for readers: each recomputes its stage in float32 (from the example inputs unless
given others), then says a one-line pass or raises a ``CheckpointError`` naming the mistake.

In a notebook the line, and a caught error shown with ``display(err)``, are cards (the look of
the exercises' verdicts, :mod:`attnlib.cards`) whose ``text/plain`` is the same line; anywhere
else the line is printed."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnlib import _attention_args as arguments
from attnlib import _validate as validate
from attnlib._names import book as superscript
from attnlib.attention import attention_scores, context_vectors, softmax
from attnlib.cards import Part, card
from attnlib.data import TOKENS, example_inputs
from attnlib.mistakes import MISTAKES, hint

TOLERANCE = 1e-4  #: below the 4 printed decimals, so a value typed from the printout passes

_STAGES = {  # stage: (its name in a wrong-stage hint, the note after its shape, the reference)
    "scores": ("the attention scores", ", one row and one column per token", "inputs @ inputs.T"),
    "weights": ("the attention weights", "", "softmax(attn_scores, dim=-1)"),
    "context_vecs": ("all the context vectors", ", one row per query", "the reference"),
    "context_vec": ("one context vector", "", "the reference"),
}


class CheckpointError(Exception):
    """A reader's tensor failed a checkpoint; ``mistake`` and ``hint`` say why. Displayed
    (``display(err)`` in a notebook) it is a card: the mistake's name, then its fix."""

    def __init__(self, message: str, mistake: str | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.mistake, self.hint = mistake, hint

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        title, _, why = str(self).partition(" checkpoint failed")
        why = why.lstrip(":. ")
        row = MISTAKES.get(self.mistake) if self.mistake != "wrong_stage" else None
        if row is not None and why.startswith(f"Likely mistake: {row.label}: "):
            parts = [Part("Likely mistake", row.label), Part("Hint", _capital(self.hint))]
        else:
            parts = [Part("", _capital(why))]
        html = card("wrong", f"{title} checkpoint failed", parts)
        return {"text/plain": str(self), "text/html": html}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class _Passed:
    """A checkpoint's pass line; in a notebook a card, its ``text/plain`` the line itself."""

    line: str

    def __repr__(self) -> str:
        return self.line

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        title, _, rest = self.line.removeprefix("✓ ").partition(": ")
        html = card("correct", _capital(title), [Part("", _capital(rest))])
        return {"text/plain": self.line, "text/html": html}


def _say(line: str) -> None:
    """Show a pass ``line``: a card under IPython (a notebook, its kernel), else printed."""
    from IPython import get_ipython  # IPython comes with ipywidgets, a dependency
    from IPython.display import display

    if get_ipython() is not None:
        display(_Passed(line))
    else:
        print(line)


@dataclass(frozen=True)
class Diagnosis:
    """What :func:`diagnose` found; ``ok`` if a correct tensor of a known stage."""

    stage: str | None  # "scores", "weights", "context_vecs", "context_vec", or None if unknown
    mistake: str | None  # a key of MISTAKES, None if correct, or "unknown"
    hint: str  # how to fix it
    query: int | None = None  # the query of one context vector

    @property
    def ok(self) -> bool:
        return self.stage is not None and self.mistake is None


def close(result: torch.Tensor, expected: torch.Tensor) -> bool:
    """Same shape and equal within :data:`TOLERANCE` (or the dtype's resolution, if coarser)."""
    if result.shape != expected.shape:
        return False
    tol = max(TOLERANCE, 4 * torch.finfo(result.dtype).eps if result.is_floating_point() else 0)
    return bool(torch.allclose(result.float(), expected.float(), atol=tol, rtol=tol))


def _reference(inputs: Any, tokens: Any) -> tuple[torch.Tensor, list[str]]:
    """The inputs ``(num_tokens, d_in)`` as float32, and the name of each token in messages."""
    if inputs is None:
        inputs = example_inputs()
        tokens = TOKENS if tokens is None else tokens
    arguments.checkpoint_inputs(inputs)
    tokens = None if tokens is None else validate.tokens(tokens, inputs.shape[0])
    names = [_name(i, tokens) for i in range(len(inputs))]
    reference = inputs.detach().cpu().float()  # float32, as the reader's cells compute
    return validate.finite(reference, "inputs", validate.UNREADABLE_INPUTS), names


def _name(index: int, tokens: Sequence[str] | None) -> str:
    """How messages name a token: "index 1 ('journey', x⁽²⁾)", Python's index and the book's x."""
    book = f"x{superscript(index)}"
    return f"index {index} ({book if tokens is None else f'{tokens[index]!r}, {book}'})"


def _no_values(x: Any) -> str:
    """What ``x`` is if it has no real numbers to read (a meta tensor has none), else ''."""
    if isinstance(x, torch.Tensor) and x.device.type == "meta":
        return validate.describe(x) + " on the meta device"
    return "" if isinstance(x, torch.Tensor) and not x.is_complex() else validate.describe(x)


def _blended(attn_weights: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor | None:
    """:func:`context_vectors` of weights ``(..., num_tokens)`` (one row or a grid); ``None``
    where a mistake's weights hold inf or NaN (no result the reader gave can match them)."""
    rows = attn_weights if attn_weights.dim() > 1 else attn_weights[None]
    try:
        blended = context_vectors(rows, inputs)
    except ValueError:
        return None
    return blended if attn_weights.dim() > 1 else blended[0]


def _candidates(inputs: torch.Tensor, query: int | None):
    """``(stage, mistake, tensor, query)`` for every correct result and every made mistake."""
    scores = attention_scores(inputs)
    for mistake in (None, "transposed_product", "same_token"):
        yield "scores", mistake, scores if mistake is None else MISTAKES[mistake].make(inputs), None
    weights = softmax(scores)
    for mistake in (None, "softmax_dim0", "no_exp"):
        w = weights if mistake is None else MISTAKES[mistake].make(scores)
        yield "weights", mistake, w, None
        yield "context_vecs", mistake, _blended(w, inputs), None
        if query is not None and mistake is not None:
            yield "context_vec", mistake, _blended(w[query], inputs), query
    for q, row in enumerate(_blended(weights, inputs)):
        yield "context_vec", None if query in (None, q) else "wrong_query_index", row, q
    if query is not None:  # every other pairing up to 7 tokens; for more, a reversal and 2 shifts
        base = list(range(len(inputs)))
        few = [base[::-1], base[1:] + base[:1], base[-1:] + base[:-1]]
        orders = list(itertools.permutations(base))[1:] if len(base) <= 7 else few
        # Every pairing at once: the query's weights reordered, one row per order.
        reordered = weights[query][torch.tensor(orders, dtype=torch.long)] if orders else None
        for paired in [] if reordered is None else _blended(reordered, inputs):
            yield "context_vec", "wrong_pairing", paired, query


def diagnose(
    result: torch.Tensor,
    inputs: torch.Tensor | None = None,
    query: int | None = None,
    tokens: Sequence[str] | None = None,
) -> Diagnosis:
    """Name what ``result`` is: scores or weights ``(num_tokens, num_tokens)``, context vectors
    ``(num_tokens, d_in)`` or the one ``(d_in,)`` of ``query``, correct or a known mistake."""
    inputs, names = _reference(inputs, tokens)
    query = None if query is None else validate.index(query, "query", inputs.shape[0])
    if got := _no_values(result):
        return Diagnosis(None, "unknown", f"expected a real tensor with values, got {got}")
    # A bool or integer result is compared by its values, as numbers.
    return _identify(result.detach().cpu().to(inputs.dtype), inputs, names, query)


def _identify(result: torch.Tensor, inputs: torch.Tensor, names, query: int | None) -> Diagnosis:
    """:func:`diagnose` for arguments already checked; ``names`` as :func:`_reference` gives."""
    (t, d), index = inputs.shape, query or 0
    fill = {"query": names[index], "index": index, "t": t, "d": d}
    for stage, mistake, expected, q in _candidates(inputs, query):
        if expected is not None and close(
            result, expected
        ):  # only wrong_query_index says {got}, and it has a q
            text = "" if mistake is None else hint(mistake, got=names[q or 0], **fill)
            return Diagnosis(stage, mistake, text, q)
    if query is not None and result.shape == (d,):  # a running sum that did not start from 0
        offset = result - _blended(softmax(attention_scores(inputs)), inputs)[query]
        if close(offset, offset[:1].expand_as(offset)) or any(close(offset, x) for x in inputs):
            text = hint("no_zero_start", offset=[round(v, 4) for v in offset.tolist()])
            return Diagnosis("context_vec", "no_zero_start", text, query)
    return Diagnosis(None, "unknown", "re-run the cells above in order and compare stage by stage.")


def _as_result(result: Any, what: str) -> torch.Tensor:
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
        likely = f"Likely mistake: {MISTAKES[found.mistake].label}: {found.hint}"
        raise CheckpointError(f"{what} checkpoint failed. {likely}", found.mistake, found.hint)
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
    (inputs, names), result = _reference(inputs, tokens), _as_result(attn_scores, "Scores")
    _judge("Scores", "scores", result, attention_scores(inputs), inputs, names)
    entries = f"{result.numel()} entries" if len(result) > 1 else "1 entry"
    pair = f", [0, 1] == [1, 0] == {result[0, 1]:.4f}" if len(result) > 1 else ""
    _say(f"✓ scores checkpoint passed: shape {tuple(result.shape)}, {entries}, symmetric{pair}")


def check_weights(
    attn_weights: torch.Tensor,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for the weights: shape ``(num_tokens, num_tokens)``, rows sum to 1, softmax."""
    (inputs, names), result = _reference(inputs, tokens), _as_result(attn_weights, "Weights")
    _judge("Weights", "weights", result, softmax(attention_scores(inputs)), inputs, names)
    pair = f", [0, 1] = {result[0, 1]:.4f}, [1, 0] = {result[1, 0]:.4f}" if len(result) > 1 else ""
    _say(f"✓ weights checkpoint passed: shape {tuple(result.shape)}, every row sums to 1{pair}")


def check_context(
    context: torch.Tensor,
    query: int | None = None,
    inputs: torch.Tensor | None = None,
    tokens: Sequence[str] | None = None,
) -> None:
    """Checkpoint for one context vector ``(d_in,)`` of ``query``, or all ``(num_tokens, d_in)``."""
    (inputs, names), result = _reference(inputs, tokens), _as_result(context, "Context")
    (t, d), weights = inputs.shape, softmax(attention_scores(inputs))
    if query is None and result.dim() == 1:
        expected = f"the index of the query token for a single context vector of shape ({d},)"
        raise validate.invalid("query", expected, None)
    if query is None:
        _judge("Context vectors", "context_vecs", result, _blended(weights, inputs), inputs, names)
        passed = f"shape ({t}, {d}), row i blends every input for query i"
    else:
        query = validate.index(query, "query", t)
        what = f"Context vector of {names[query]}"
        _judge(what, "context_vec", result, _blended(weights[query], inputs), inputs, names, query)
        passed = f"{names[query]} -> [{', '.join(f'{v:.4f}' for v in result.tolist())}]"
    _say(f"✓ context checkpoint passed: {passed}")
