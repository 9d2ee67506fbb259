"""Exercises of notebook 10: a tiny language model trained on the CPU. The targets as the
inputs shifted by one word, one training step, the loss of a uniform guess, and the pattern
a head learned. Each function the reader writes runs on several sizes, so a size written
as a number or an argument left unused is caught and the case named."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch

from attnlib.exercises._calls import Forbid
from attnlib.exercises._compare import named_entries
from attnlib.exercises._function import Case, FunctionExercise, rows
from attnlib.exercises._value import ValueExercise, as_number, number, word
from attnlib.mistakes import training
from attnlib.mistakes.training import after_steps, loss_value


# --- 10.targets: the targets as the inputs shifted by one --------------------------------------
def _target_cases() -> list[Case]:
    """(ids in the text, start, context_length): the notebook's window first, then others;
    the ids are distinct neighbours, so a shift shows."""
    return [
        Case(
            f"a text of {length:,} ids, start={start}, context_length={context_length}",
            dict(
                token_ids=(torch.arange(length) * 7) % 1009,
                start=start,
                context_length=context_length,
            ),
        )
        for length, start, context_length in ((4608, 3, 16), (30, 2, 4), (40, 11, 9))
    ]


def _targets(answer: Callable[..., Any], args: Mapping[str, Any]) -> Any:
    """The targets the reader's function returns beside the inputs (the part they write)."""
    result = answer(args["token_ids"], args["start"], args["context_length"])
    if isinstance(result, tuple) and len(result) == 2:
        return result[1]
    return result


FunctionExercise(
    name="10.targets",
    task="set targets to the words that follow each of the inputs",
    answer_names=("inputs_and_targets",),
    cases=_target_cases,
    call=_targets,
    reference=lambda a: a["token_ids"][a["start"] + 1 : a["start"] + 1 + a["context_length"]],
    mistakes=rows(
        "targets_not_shifted", "targets_shifted_back", "targets_one_short", "targets_one_long"
    ),
    forbids=Forbid(because="slicing: nothing in attnlib computes it"),
    praise="Every position has the word after it as its target: one window, context_length "
    "questions.",
)


# --- 10.training_step: zero the gradients, loss, backward, step -------------------------------
def _losses_then_parameters(values: torch.Tensor) -> torch.Tensor:
    """``after_steps``' vector named run by run, so a difference says which losses and which
    parameters differ, not which entries of one long vector."""
    steps = training.NUM_STEPS
    losses = ("the loss at step", "the losses at steps", steps)
    return named_entries(values, losses, ("parameter", "parameters", len(values) - steps))


def _returns_a_number(step: Callable[..., Any], case: Case, calls: Any) -> str | None:
    """The rule: the step returns the loss as a Python number (``loss.item()``)."""
    returned = []

    def recorded(*args: Any) -> Any:
        returned.append(step(*args))
        return returned[-1]

    after_steps(recorded, **case.args)
    if returned and isinstance(returned[0], torch.Tensor):
        return (
            "the right steps, but the loss comes back as a tensor: return a number with "
            "loss.item(), as the exercise asks (a loss tensor kept from every step keeps "
            "that step's graph in memory)"
        )
    return None


FunctionExercise(
    name="10.training_step",
    task="zero the gradients, compute the loss, call backward and step, return the loss",
    answer_names=("training_step",),
    # (vocab_size, batch_size, num_tokens) of the little models: the notebook's sizes first
    cases=lambda: [
        Case(
            f"a model of {v:,} words on {b} windows of {n}",
            dict(vocab_size=v, batch_size=b, num_tokens=n),
        )
        for v, b, n in ((1157, 4, 16), (11, 2, 5), (23, 3, 8))
    ],
    call=lambda step, a: after_steps(step, **a),
    reference=lambda a: _losses_then_parameters(after_steps(training.step_with(), **a)),
    mistakes=rows("grads_not_zeroed", "no_update"),
    forbids=Forbid(because="the step runs the reader's model through attnlib's layers"),
    rules=(_returns_a_number,),
    praise=f"{training.NUM_STEPS} steps on little models gave the same losses and parameters "
    "as ours.",
)


# --- 10.uniform_loss: the loss of a uniform guess ---------------------------------------------
FunctionExercise(
    name="10.uniform_loss",
    task="return the cross-entropy loss of a model that gives every word the same probability",
    answer_names=("uniform_loss",),
    # the notebook's vocabulary, then small ones and GPT-2's
    cases=lambda: [Case(f"vocab_size={v:,}", {"vocab_size": v}) for v in (1157, 2, 50, 50257)],
    # the reader's number as a 0-d float64 tensor, compared within a tolerance
    call=lambda uniform_loss, a: as_number(uniform_loss(a["vocab_size"]), loss_value),
    solution=math.log,
    mistakes=rows("uniform_log2", "uniform_log10", "uniform_probability", "uniform_log_sign"),
    forbids=Forbid(because="arithmetic: nothing in attnlib computes it"),
    praise="ln(vocab_size): the loss of knowing nothing, where training starts from.",
)


# --- 10.even_weight: the untrained head's weight on the word before ----------------------------
#: The query of the explorer's question: the fourth word of the sentence (index 3).
EVEN_QUERY = 3

ValueExercise(
    name="10.even_weight",
    task="set even_weight to the weight the fourth word gives the word before it when it "
    "spreads its weight evenly",
    answer_names=("even_weight",),
    accept=number,
    expected=lambda: 1 / (EVEN_QUERY + 1),
    mistakes={
        "even_over_all_words": lambda: 1 / 16,
        "even_without_itself": lambda: 1 / EVEN_QUERY,
        "even_masked_out": lambda: 0,
    },
    exact=False,
    praise="1 / 4: the mask leaves the fourth word 4 keys, itself and the three before it.",
)


# --- 10.head_pattern: what the strongest head learned -----------------------------------------
ValueExercise(
    name="10.head_pattern",
    task="set pattern to 'previous', 'itself', 'next', 'first' or 'even'",
    answer_names=("pattern",),
    accept=word("previous", "itself", "next", "first", "even"),
    expected=lambda: "previous",
    mistakes={
        "pattern_next_word": lambda: "next",
        "pattern_itself": lambda: "itself",
        "pattern_first": lambda: "first",
        "pattern_even": lambda: "even",
    },
    praise="Each word looks at the word before it: with it, the layer above can tell which "
    "word came before which.",
)


# --- 10.no_position: predict the ablation (no position embeddings) ----------------------------
ValueExercise(
    name="10.no_position",
    task="set forms to 'yes' (a previous-token head forms as before), 'no' (no head "
    "rises far above the even spread) or 'next' (a head on the next word instead)",
    answer_names=("forms",),
    accept=word("yes", "no", "next"),
    expected=lambda: "no",
    mistakes={"no_position_head_forms": lambda: "yes", "no_position_next_word": lambda: "next"},
    praise="Without positions, nothing in the first block's vectors says which word came "
    "just before: attention alone sees a set of words, the mask aside.",
)
