"""The raw exceptions issue 22 listed, one test each: a refusal in words, or a verdict, instead.

KeyboardInterrupt is the exception: raised in a reader's function, it must still stop the
kernel, so ``check`` lets it through.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import attnlib
from attnlib import mistakes
from attnlib.exercises import check


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_an_unknown_mistake_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError) as info:
        mistakes.hint("nope")
    message = str(info.value)
    assert message.startswith("name: expected the name of a mistake (")
    assert "wrong_query_index" in message and "no_zero_start" in message
    assert message.endswith("got str 'nope'")


def test_a_hint_without_a_value_for_its_placeholder_names_it():
    with pytest.raises(ValueError) as info:
        mistakes.hint("no_zero_start")
    expected = "values: expected a value for each of ['offset'], got none for ['offset']"
    assert str(info.value) == expected
    assert mistakes.hint("no_zero_start", offset=[0.5]).count("[0.5]") == 1


def test_a_check_called_with_a_list_for_a_name_says_what_a_name_is():
    verdict = check(["01.loop_body"], 1)
    assert verdict.status == "course fault"
    assert "an exercise is named by a str such as '01.dot', not ['01.loop_body']" in verdict.message
    assert "TypeError" not in verdict.message


def test_an_answer_whose_repr_raises_gets_a_verdict():
    verdict = check("01.dot", _BadRepr())
    assert verdict.status == "refused"
    assert verdict.message == (
        "Not quite: expected the function `dot`, got an object of type _BadRepr whose repr fails."
    )


def test_an_argument_whose_repr_raises_is_refused_in_words():
    with pytest.raises(ValueError) as info:
        attnlib.softmax(_BadRepr())
    expected = "x: expected a torch.Tensor of floats, got a _BadRepr whose repr fails"
    assert str(info.value) == expected


def _quantized() -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch deprecates quantized tensors; readers may have one
        return torch.quantize_per_tensor(torch.ones(6, 3), 0.1, 0, torch.qint8)


def test_a_quantized_tensor_is_refused_by_its_dtype():
    with pytest.raises(ValueError) as info:
        attnlib.attention_scores(_quantized())
    assert str(info.value) == (
        "inputs: expected a floating-point dtype (e.g. torch.float32), got torch.qint8; "
        "convert with inputs.float()"
    )
    verdict = check("02.matmul", _quantized())
    assert verdict.status == "refused" and "torch.qint8 tensor of shape (6, 3)" in verdict.message


def test_a_dropout_that_returns_float64_is_refused_as_dropout():
    x = torch.ones(6, 3)
    with pytest.raises(ValueError) as info:
        attnlib.scaled_dot_product_attention(x, x, x, dropout=lambda w: w.double())
    assert str(info.value).startswith(
        "dropout(attn_weights): expected dtype torch.float32 on cpu (as attn_weights), "
        "got dtype torch.float64"
    )


def test_a_keyboard_interrupt_in_the_reader_s_function_still_stops_the_kernel():
    def dot(a, b):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check("01.dot", dot)


def test_float64_inputs_that_overflow_float32_are_refused_with_the_reason():
    inputs = torch.tensor([[1e200, 0.0], [0.0, 1.0]], dtype=torch.float64)
    with pytest.raises(ValueError) as info:
        attnlib.attention_scores(inputs)
    assert str(info.value) == (
        "attn_scores: got inf or NaN; the numbers overflowed; use smaller inputs (or scale)"
    )


def test_check_scores_refuses_nan_inputs_as_inputs():
    inputs = torch.tensor([[float("nan"), 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError) as info:
        attnlib.check_scores(torch.zeros(2, 2), inputs=inputs)
    assert str(info.value).startswith("inputs: got inf or NaN; a checkpoint needs finite inputs")
