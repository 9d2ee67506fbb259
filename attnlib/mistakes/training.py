"""Mistakes in training a language model (notebook 10): targets, one step, a blind guess.

The answer's arguments: ``token_ids`` (a text's ids), ``start`` and ``context_length`` (a
window); ``model, optimizer, inputs, targets`` for a training step, which :func:`after_steps`
runs on little models; ``vocab_size`` for a uniform guess.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from attnlib._seeding import seeded
from attnlib.mistakes._row import Mistake, table
from attnlib.training import AdamW

#: How many steps the reader's training step is run for on each little model.
NUM_STEPS = 3


class SGD:
    """Plain gradient descent with torch's optimizer methods, as the course's AdamW has them
    (``torch.optim`` would import ``torch._dynamo``, 72 MB, into the reader's kernel)."""

    def __init__(self, params: Any, lr: float) -> None:
        self.params, self.lr = list(params), lr

    zero_grad = AdamW.zero_grad

    @torch.no_grad()
    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                p -= self.lr * p.grad


def after_steps(step: Callable[..., Any], vocab_size: int, batch_size: int, num_tokens: int) -> Any:
    """The losses of :data:`NUM_STEPS` calls of ``step(model, optimizer, inputs, targets)`` on
    a little seeded model, then its parameters, as one float64 vector; ``...`` for the stub,
    ``None`` if the step returned nothing."""
    with seeded(vocab_size):  # the reader's stream stays where their notebook left it
        model = nn.Sequential(nn.Embedding(vocab_size, 6), nn.Linear(6, vocab_size))
    optimizer = SGD(model.parameters(), lr=0.5)
    generator = torch.Generator().manual_seed(vocab_size + batch_size)
    inputs = torch.randint(vocab_size, (batch_size, num_tokens), generator=generator)
    targets = torch.randint(vocab_size, (batch_size, num_tokens), generator=generator)
    losses = []
    for _ in range(NUM_STEPS):
        loss = step(model, optimizer, inputs, targets)
        if loss is Ellipsis or loss is None:
            return loss
        losses.append(float(loss.detach() if isinstance(loss, torch.Tensor) else loss))
    params = torch.cat([p.detach().flatten() for p in model.parameters()])
    return torch.cat([torch.tensor(losses, dtype=torch.float64), params.double()])


def next_word_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The notebook's loss: (b, num_tokens, vocab_size) and (b, num_tokens) -> a 0-d tensor."""
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def step_with(zero: bool = True, update: bool = True) -> Callable[..., float]:
    """The notebook's training step, with zero_grad or step left out."""

    def step(model, optimizer, inputs, targets):
        if zero:
            optimizer.zero_grad()
        loss = next_word_loss(model(inputs), targets)
        loss.backward()
        if update:
            optimizer.step()
        return loss.item()

    return step


def _window(first: int, end: int) -> Callable[..., Any]:
    """The targets of the window at ``start``, taken from ``first`` words after its start to ``end``
    words after its end (the right targets: 1 and 1)."""
    return lambda token_ids, start, context_length: token_ids[
        start + first : start + end + context_length
    ]


def loss_value(value: float) -> torch.Tensor:
    """A loss as the exercise compares it: a 0-d float64 tensor (so within a tolerance)."""
    return torch.tensor(value, dtype=torch.float64)


TABLE: dict[str, Mistake] = table(
    """
targets_not_shifted | targets equal to the inputs
    the model would learn to repeat the word it reads. The target at position i is the word after
    inputs[i]: token_ids[start + 1 : start + 1 + context_length].
targets_shifted_back | targets shifted the wrong way (the previous word)
    start - 1 gives each position the word before it, which the model has already read. Shift
    forward: token_ids[start + 1 : start + 1 + context_length].
targets_one_short | targets one word short
    start + 1 moves the start; the end must move too, so that there is one target per input:
    token_ids[start + 1 : start + 1 + context_length].
targets_one_long | targets one word too many
    only the end moved: the targets start at the first input and hold context_length + 1 ids. Move
    both ends: token_ids[start + 1 : start + 1 + context_length].
grads_not_zeroed | gradients not zeroed before backward()
    backward() adds to .grad, so each step also follows every earlier step's gradients. Call
    optimizer.zero_grad() first.
no_update | the parameters never change
    the gradients are computed but not used: call optimizer.step() after loss.backward() (step
    before backward, or zero_grad between them, finds no gradients).
uniform_log2 | log base 2 instead of the natural log
    cross_entropy uses the natural logarithm: math.log(vocab_size), not math.log2.
uniform_log10 | log base 10 instead of the natural log
    cross_entropy uses the natural logarithm: math.log(vocab_size), not math.log10.
uniform_probability | the probability of the right word, not its loss
    a uniform guess gives every word probability 1 / vocab_size; the loss is its negative natural
    log, -log(1 / vocab_size) = log(vocab_size).
uniform_log_sign | the log of the probability without the minus sign
    log(1 / vocab_size) is negative; a loss is the *negative* log of the right word's probability:
    -log(1 / vocab_size) = log(vocab_size).
even_over_all_words | the weight spread over every word of the sentence
    the causal mask hides the words after the query: the fourth word sees only itself and the three
    before it, 4 words, so each gets 1 / 4.
even_without_itself | the query's own word left out
    a query also weighs itself (the diagonal is not masked): the fourth word shares its weight among
    itself and the three words before it, 1 / 4 each.
even_masked_out | the word before taken to be hidden
    the mask hides the words AFTER the query; the word just before it is visible, and gets its
    share: 1 / 4 of the fourth word's weight.
pattern_next_word | a causal head reading the next word
    the causal mask hides every later key: the cells above the diagonal are 0. Look at the cells
    just below the diagonal.
pattern_itself | the diagonal (each word itself)
    the diagonal is each query's own word; the bright cells here are one step to the left of it,
    just below the diagonal.
pattern_first | the first word of the sentence
    a head that reads the first word lights up the first column; here the bright cells follow the
    diagonal, one step to its left.
pattern_even | the weight spread evenly
    evenly spread rows fade from left to right with no line; the head asked about has one bright
    cell per row, just below the diagonal.
no_position_head_forms | a previous-token head without positions
    without pos_emb, a word's vector in the first block is the same wherever the word stands: its
    query cannot ask for 'the key one place before me', only for keys with some content. Which word
    came just before is not in the vectors.
no_position_next_word | a head reading the next word
    taking away the position embeddings leaves the causal mask as it was: every key after a query
    stays hidden, so no head can weigh the next word.
""",
    targets_not_shifted=_window(0, 0),
    targets_shifted_back=_window(-1, -1),
    targets_one_short=_window(1, 0),
    targets_one_long=_window(0, 1),
    grads_not_zeroed=step_with(zero=False),
    no_update=step_with(update=False),
    uniform_log2=lambda vocab_size: math.log2(vocab_size),
    uniform_log10=lambda vocab_size: math.log10(vocab_size),
    uniform_probability=lambda vocab_size: 1 / vocab_size,
    uniform_log_sign=lambda vocab_size: -math.log(vocab_size),
)
