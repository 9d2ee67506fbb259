"""Exercises of notebook 10: a tiny language model trained on the CPU. The targets as the
inputs shifted by one word, one training step, the loss of a uniform guess, and the pattern
a head learned. Each function the reader writes is judged on several sizes, so a size
written as a number is caught."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from attnlib.exercises._core import Exercise, register, same_result
from attnlib.exercises.nb09 import _near, _number
from attnlib.mistakes import MISTAKES, Mistake

#: This notebook's named mistakes, added to the course's table (their makes live below).
NB10_MISTAKES = {
    "targets_not_shifted": Mistake(
        "targets equal to the inputs",
        "the model would learn to repeat the word it reads. The target at position i is the word "
        "after inputs[i]: token_ids[start + 1 : start + 1 + context_length].",
    ),
    "targets_shifted_back": Mistake(
        "targets shifted the wrong way (the previous word)",
        "start - 1 gives each position the word before it, which the model has already read. "
        "Shift forward: token_ids[start + 1 : start + 1 + context_length].",
    ),
    "targets_one_short": Mistake(
        "targets one word short",
        "start + 1 moves the start; the end must move too, so that there is one target per input: "
        "token_ids[start + 1 : start + 1 + context_length].",
    ),
    "grads_not_zeroed": Mistake(
        "gradients not zeroed before backward()",
        "backward() adds to .grad, so each step also follows every earlier step's gradients. "
        "Call optimizer.zero_grad() first.",
    ),
    "no_update": Mistake(
        "the parameters never change",
        "the gradients are computed but not used: call optimizer.step() after loss.backward() "
        "(step before backward, or zero_grad between them, finds no gradients).",
    ),
    "uniform_log2": Mistake(
        "log base 2 instead of the natural log",
        "cross_entropy uses the natural logarithm: math.log(vocab_size), not math.log2.",
    ),
    "uniform_probability": Mistake(
        "the probability of the right word, not its loss",
        "a uniform guess gives every word probability 1 / vocab_size; the loss is its negative "
        "natural log, -log(1 / vocab_size) = log(vocab_size).",
    ),
    "uniform_log_sign": Mistake(
        "the log of the probability without the minus sign",
        "log(1 / vocab_size) is negative; a loss is the *negative* log of the right word's "
        "probability: -log(1 / vocab_size) = log(vocab_size).",
    ),
    "pattern_next_word": Mistake(
        "a causal head reading the next word",
        "the causal mask hides every later key: the cells above the diagonal are 0. Look at the "
        "cells just below the diagonal.",
    ),
    "pattern_itself": Mistake(
        "the diagonal (each word itself)",
        "the diagonal is each query's own word; the bright cells here are one step to the left "
        "of it, just below the diagonal.",
    ),
}
for _name, _mistake in NB10_MISTAKES.items():
    if MISTAKES.setdefault(_name, _mistake) is not _mistake:
        raise ValueError(f"mistake {_name!r} is already in the course's table")


# --- 10.targets: the targets as the inputs shifted by one --------------------------------------

#: (number of tokens in the text, start, context_length): the notebook's length, and others.
TARGET_CASES = ((50, 3, 16), (30, 2, 4), (40, 11, 9))


def _targets_of(make: Callable[[torch.Tensor, int, int], Any]) -> Any:
    results = []
    for length, start, context_length in TARGET_CASES:
        token_ids = (torch.arange(length) * 7) % 101  # distinct ids, so a shift shows
        result = make(token_ids, start, context_length)
        if result is Ellipsis or result is None:
            return Ellipsis
        results.append(result)
    return tuple(results)


def _pair(inputs_slice: Callable[[int, int], slice], targets_slice: Callable[[int, int], slice]):
    return lambda: _targets_of(
        lambda ids, s, n: (ids[inputs_slice(s, n)], ids[targets_slice(s, n)])
    )


def _run_targets(answer: Callable[..., Any]) -> Any:
    def call(ids: torch.Tensor, start: int, context_length: int) -> Any:
        inputs, targets = answer(ids, start, context_length)
        return Ellipsis if targets is Ellipsis or targets is None else (inputs, targets)

    return _targets_of(call)


def _same_pairs(a: Any, b: Any) -> bool:
    return len(a) == len(b) and all(
        len(x) == 2 and len(y) == 2 and same_result(x[0], y[0]) and same_result(x[1], y[1])
        for x, y in zip(a, b, strict=True)
    )


def _inputs(s: int, n: int) -> slice:
    return slice(s, s + n)


register(
    Exercise(
        name="10.targets",
        task="set targets to the words that follow each of the inputs",
        run=_run_targets,
        expected=_pair(_inputs, lambda s, n: slice(s + 1, s + 1 + n)),
        mistakes={
            "targets_not_shifted": _pair(_inputs, _inputs),
            "targets_shifted_back": _pair(_inputs, lambda s, n: slice(s - 1, s - 1 + n)),
            "targets_one_short": _pair(_inputs, lambda s, n: slice(s + 1, s + n)),
        },
        same=_same_pairs,
        praise="Every position has the word after it as its target: one text, context_length "
        "questions.",
    )
)


# --- 10.training_step: zero the gradients, loss, backward, step -------------------------------

#: (vocab_size, batch size, num_tokens) of the little models the step is tried on.
STEP_CASES = ((11, 2, 5), (23, 3, 8))
NUM_STEPS = 3


class _SGD:
    """Plain gradient descent with torch's optimizer methods (``torch.optim`` would import
    ``torch._dynamo``, 72 MB, into the reader's kernel)."""

    def __init__(self, params: Any, lr: float) -> None:
        self.params, self.lr = list(params), lr

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                p -= self.lr * p.grad


def _little_model(vocab_size: int) -> nn.Module:
    torch.manual_seed(10)
    return nn.Sequential(nn.Embedding(vocab_size, 6), nn.Linear(6, vocab_size))


def _cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def _after_steps(step: Callable[..., Any]) -> Any:
    """The losses and the parameters of little models after ``NUM_STEPS`` calls of ``step``."""
    results = []
    for vocab_size, batch_size, num_tokens in STEP_CASES:
        model = _little_model(vocab_size)
        optimizer = _SGD(model.parameters(), lr=0.5)
        generator = torch.Generator().manual_seed(vocab_size)
        inputs = torch.randint(vocab_size, (batch_size, num_tokens), generator=generator)
        targets = torch.randint(vocab_size, (batch_size, num_tokens), generator=generator)
        losses = []
        for _ in range(NUM_STEPS):
            loss = step(model, optimizer, inputs, targets)
            if loss is Ellipsis or loss is None:
                return Ellipsis
            losses.append(float(loss.detach() if isinstance(loss, torch.Tensor) else loss))
        params = torch.cat([p.detach().flatten() for p in model.parameters()])
        results.append((torch.tensor(losses), params))
    return tuple(results)


def _step(zero: bool = True, update: bool = True) -> Callable[..., float]:
    def step(model, optimizer, inputs, targets):
        if zero:
            optimizer.zero_grad()
        loss = _cross_entropy(model(inputs), targets)
        loss.backward()
        if update:
            optimizer.step()
        return loss.item()

    return step


register(
    Exercise(
        name="10.training_step",
        task="zero the gradients, compute the loss, call backward and step, return the loss",
        run=_after_steps,
        expected=lambda: _after_steps(_step()),
        mistakes={
            "grads_not_zeroed": lambda: _after_steps(_step(zero=False)),
            "no_update": lambda: _after_steps(_step(update=False)),
        },
        same=_same_pairs,
        praise="Three steps on two little models gave the same losses and parameters as ours.",
    )
)


# --- 10.uniform_loss: the loss of a uniform guess ---------------------------------------------

#: The vocabulary sizes the function is checked at (the notebook's is among the larger ones).
VOCAB_SIZES = (2, 50, 1157, 50257)


def _uniform_losses(make: Callable[[int], Any]) -> Any:
    results = tuple(_number(make(vocab_size)) for vocab_size in VOCAB_SIZES)
    return Ellipsis if any(r is Ellipsis or r is None for r in results) else results


def _near_all(a: Any, b: Any) -> bool:
    return len(a) == len(b) and all(_near(1e-3)(x, y) for x, y in zip(a, b, strict=True))


register(
    Exercise(
        name="10.uniform_loss",
        task="return the cross-entropy loss of a model that gives every word the same probability",
        run=_uniform_losses,
        expected=lambda: _uniform_losses(math.log),
        mistakes={
            "uniform_log2": lambda: _uniform_losses(math.log2),
            "uniform_probability": lambda: _uniform_losses(lambda v: 1 / v),
            "uniform_log_sign": lambda: _uniform_losses(lambda v: math.log(1 / v)),
        },
        same=_near_all,
        praise="ln(vocab_size): the loss of knowing nothing, where training starts from.",
    )
)


# --- 10.head_pattern: what the strongest head learned -----------------------------------------

register(
    Exercise(
        name="10.head_pattern",
        task="set pattern to 'previous', 'itself', 'next', 'first' or 'even'",
        run=lambda answer: answer,
        expected=lambda: "previous",
        mistakes={"pattern_next_word": lambda: "next", "pattern_itself": lambda: "itself"},
        praise="Each word looks at the word before it: with it, the layer above can tell which "
        "word came before which.",
    )
)
