"""A right number is not enough where a layer must learn: a result cut off from training, a
forward that changes its layer, a training step that returns a tensor are not "Correct".

The cut-off answers are generated: every exercise with a gradient check has its published
solution wrapped so that its output is detached, computed under ``torch.no_grad()``, or its
module frozen; each must be named as cut off from training, with the first parameter no
gradient reaches. A learner's answers once falsely called "Correct" are kept as typed
(learner_answers.py).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import torch
from learner_answers import FALSELY_CORRECT, REFUSED_RIGHT
from test_exercise_variants import _answer, _run
from test_exercises import exercises
from torch import nn

from attnlib.exercises import EXERCISES, check
from attnlib.exercises._compare import describe, outcome
from attnlib.training import AdamW

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
#: Every exercise whose result must stay trainable (a layer, or a step of one).
WITH_GRADIENT = sorted(n for n, e in EXERCISES.items() if getattr(e, "gradient", None))
#: The exercises whose cases build a layer (a class the reader writes), with their book's case.
BOOK_CASES = {n: EXERCISES[n].cases()[0].args for n in WITH_GRADIENT}
LAYERS = {n: args for n, args in BOOK_CASES.items() if "layer" in args}
#: Judged in `make test`: the first layer and the first function; the others in `make check-all`.
FAST = {min(LAYERS), min(set(WITH_GRADIENT) - set(LAYERS))}


def _solutions() -> dict[str, str]:
    found = {}
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for exercise in exercises(nbformat.read(path, as_version=4)):
            found[exercise["name"]] = exercise["solution"]
    return found


SOLUTIONS = _solutions()


def _detach(result):
    """``result`` cut off from training: tensors detached, a layer returned frozen."""
    if isinstance(result, (tuple, list)):
        return type(result)(_detach(r) for r in result)
    if isinstance(result, nn.Module):
        return result.requires_grad_(False)
    return result.detach() if isinstance(result, torch.Tensor) else result


def _first_parameter(name: str) -> str | None:
    """The first parameter of the layer exercise ``name``'s book case (named by the verdict)."""
    if name not in LAYERS:
        return None
    return next(iter(dict(LAYERS[name]["layer"].named_parameters())))


def cut_off(name: str, answer) -> list[tuple[str, object]]:
    """``answer`` (the solution) with its result cut off from training, each way a reader may."""
    if isinstance(answer, type):

        class Detached(answer):
            def forward(self, *args):
                return super().forward(*args).detach()

        class NoGrad(answer):
            def forward(self, *args):
                with torch.no_grad():
                    return super().forward(*args)

        return [("output .detach()", Detached), ("forward under torch.no_grad()", NoGrad)]

    def detached(*args):
        return _detach(answer(*args))

    def no_grad(*args):  # a layer returned is built alike under no_grad: frozen instead
        with torch.no_grad():
            made = answer(*args)
        return made.requires_grad_(False) if isinstance(made, nn.Module) else made

    return [("result .detach()", detached), ("under torch.no_grad()", no_grad)]


def test_the_layer_exercises_all_check_gradients() -> None:
    """Every exercise whose solution writes a class or builds a layer has the check."""
    layers = {n for n, code in SOLUTIONS.items() if "class " in code or "Attention" in code}
    functions = {n for n, e in EXERCISES.items() if hasattr(e, "cases")}
    assert layers & functions <= set(WITH_GRADIENT)
    assert "07.wrapper_forward" in LAYERS  # the derivation finds the layer exercise


@pytest.mark.parametrize(
    "name",
    [n if n in FAST else pytest.param(n, marks=pytest.mark.check_all) for n in WITH_GRADIENT],
)
def test_a_solution_cut_off_from_training_is_named(name: str) -> None:
    exercise = EXERCISES[name]
    namespace = _run(SOLUTIONS[name])
    solution = _answer(exercise, namespace)
    assert exercise.judge(solution).correct
    for label, answer in cut_off(name, solution):
        verdict = exercise.judge(answer)
        assert verdict.mistake == "no_gradient", (label, verdict.message)
        assert "no gradient reaches" in verdict.message
        if first := _first_parameter(name):
            assert f"reaches {first}:" in verdict.message, verdict.message


@pytest.mark.check_all
@pytest.mark.parametrize("answer", FALSELY_CORRECT, ids=lambda a: f"{a[0]}: {a[1]}")
def test_a_learners_falsely_correct_answers_are_not_correct(answer) -> None:
    name, label, code, words = answer
    namespace = _run(code)
    assert namespace is not None, f"{label}: the answer raised"
    verdict = EXERCISES[name].judge(_answer(EXERCISES[name], namespace))
    assert not verdict.correct and verdict.status != "course fault", verdict.message
    assert words in verdict.message


def _mask_cut_in_place(answer: type) -> type:
    """``answer`` whose forward first cuts every mask buffer to the input's tokens, in place."""

    class Cut(answer):
        def forward(self, x):
            for module in self.modules():
                if isinstance(getattr(module, "mask", None), torch.Tensor):
                    module.mask = module.mask[: x.shape[1], : x.shape[1]]
            return super().forward(x)

    return Cut


#: The layer exercises whose layer holds a causal mask buffer (in itself or in its heads).
MASKED = [n for n, a in LAYERS.items() if any(hasattr(m, "mask") for m in a["layer"].modules())]


@pytest.mark.parametrize(
    "name", [MASKED[0], *(pytest.param(n, marks=pytest.mark.check_all) for n in MASKED[1:])]
)
def test_a_forward_that_cuts_its_mask_in_place_is_told_so(name: str) -> None:
    exercise = EXERCISES[name]
    solution = _answer(exercise, _run(SOLUTIONS[name]))
    verdict = exercise.judge(_mask_cut_in_place(solution))
    assert verdict.status == "wrong", verdict.message
    assert "your forward changes the layer" in verdict.message
    assert "on 6 tokens after 4" in verdict.message


_STEP = """
def training_step(model, optimizer, inputs, targets):
    optimizer.zero_grad({zero})
    loss = next_word_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return {returned}
"""


@pytest.mark.parametrize(
    "returned", ["loss", pytest.param("loss.detach()", marks=pytest.mark.check_all)]
)
def test_a_training_step_returning_the_loss_tensor_is_not_correct(returned: str) -> None:
    namespace = _run(_STEP.format(zero="", returned=returned))
    verdict = EXERCISES["10.training_step"].judge(namespace["training_step"])
    assert verdict.status == "wrong", verdict.message
    assert "return a number with loss.item()" in verdict.message


@pytest.mark.parametrize(
    "zero",
    [
        "set_to_none=True",
        *(pytest.param(z, marks=pytest.mark.check_all) for z in ("set_to_none=False", "True")),
    ],
)
def test_zero_grad_takes_set_to_none_as_torch_does(zero: str) -> None:
    namespace = _run(_STEP.format(zero=zero, returned="loss.item()"))
    assert EXERCISES["10.training_step"].judge(namespace["training_step"]).correct


def test_adamw_zero_grad_sets_none_or_zeros_and_refuses_a_non_flag() -> None:
    weight = nn.Parameter(torch.ones(2))
    optimizer = AdamW([weight], lr=0.1)
    (weight * 3).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    assert torch.equal(weight.grad, torch.zeros(2))
    optimizer.zero_grad()
    assert weight.grad is None
    with pytest.raises(ValueError, match="set_to_none.*True or False.*got"):
        optimizer.zero_grad(set_to_none="yes")


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("math", "import math"),
        ("np", "import numpy as np"),
        ("F", "import torch.nn.functional as F"),
        ("torch", "import torch"),
        ("MultiHeadAttention", "from attnlib.modules import MultiHeadAttention"),
        ("softmax", "from attnlib import softmax"),
    ],
)
def test_a_name_not_imported_is_told_to_import_it(name: str, line: str) -> None:
    import attnlib.modules  # noqa: F401  (loaded, as in notebooks 05 on)

    raised = outcome(lambda: exec(f"def f():\n    return {name}\nf()", {}))
    said = describe(raised, torch.zeros(2))
    assert f"name '{name}' is not defined): import it in your cell ({line})" in said, said


@pytest.mark.parametrize("name", ["queries", "token", "test", "attn_weights"])
def test_a_notebook_name_is_still_told_to_use_the_arguments(name: str) -> None:
    raised = outcome(lambda: exec(f"def f():\n    return {name}\nf()", {}))
    assert "use its arguments, not a name from the notebook" in describe(raised, torch.zeros(2))


def test_a_math_name_in_an_exercise_says_import_it() -> None:
    namespace: dict = {}
    exec("def scaled_weights(attn_scores, keys):\n"
         "    return (attn_scores / math.sqrt(keys.shape[-1])).softmax(-1)", namespace)  # fmt: skip
    verdict = EXERCISES["05.scale"].judge(namespace["scaled_weights"])
    assert "import it in your cell (import math)" in verdict.message, verdict.message


def test_grid_bytes_of_8_per_score_names_float64_and_two_grids() -> None:
    verdict = check("09.grid_bytes", lambda num_tokens: 2 * 4 * num_tokens * num_tokens)
    assert verdict.mistake == "grid_float64"
    assert "float64" in verdict.message and "two float32 grids" in verdict.message


def test_nan_for_a_weight_is_said_to_be_no_number() -> None:
    verdict = check("08.first_self", float("nan"))
    assert verdict.status == "wrong"
    assert "nan is not a number" in verdict.message and "too small" not in verdict.message


def test_an_inverted_keep_mask_in_dropout_is_named() -> None:
    for body in (
        "attn_weights * ~keep / (1 - p)",
        "torch.where(keep, 0.0, attn_weights) / (1 - p)",
    ):
        namespace = _run(f"def dropout_with(attn_weights, keep, p):\n    return {body}\n")
        verdict = EXERCISES["06.dropout"].judge(namespace["dropout_with"])
        assert verdict.mistake == "dropout_inverted", (body, verdict.message)
        assert "inverted" in verdict.message


@pytest.mark.check_all
@pytest.mark.parametrize("answer", REFUSED_RIGHT, ids=lambda a: f"{a[0]}: {a[1]}")
def test_a_learners_once_refused_right_answers_are_correct(answer) -> None:
    name, label, code = answer
    namespace = _run(code)
    verdict = EXERCISES[name].judge(_answer(EXERCISES[name], namespace))
    assert verdict.correct, (label, verdict.message)


_RENAMED = """
class MyWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        heads = [CausalAttention(d_in, d_out, context_length, dropout) for _ in range(num_heads)]
        self.blocks = nn.ModuleList(heads)

    def forward(self, x):
        outputs = [block(x) for block in self.blocks]
        outputs[0] = {first}
        return torch.cat(outputs, dim=-1)
"""


def test_a_layer_with_its_own_parameter_names_is_judged_by_them() -> None:
    exercise = EXERCISES["07.wrapper_forward"]
    right = _run(_RENAMED.format(first="outputs[0]"))["MyWrapper"]
    assert exercise.judge(right).correct
    cut = _run(_RENAMED.format(first="outputs[0].detach()"))["MyWrapper"]
    verdict = exercise.judge(cut)
    assert verdict.mistake == "no_gradient", verdict.message
    assert "reaches blocks.0.W_query.weight:" in verdict.message, verdict.message


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_a_check_leaves_the_readers_random_stream_where_it_was(name: str) -> None:
    """Many checks build and run seeded layers: the reader's next random numbers are the same
    with the check of a right answer run in between as without it."""
    answer = _answer(EXERCISES[name], _run(SOLUTIONS[name]))
    torch.manual_seed(7)
    expected = torch.rand(4)
    torch.manual_seed(7)
    assert check(name, answer).correct
    assert torch.equal(torch.rand(4), expected)
