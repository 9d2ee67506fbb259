"""Reader checkpoints at their edges: the whole text of each failure, one- and two-token
sentences, the reader's own inputs, long sentences, and what diagnose says about stages.

Found by mutation testing (`make mutants`): each test here fails when one word, stage
name, bound or argument in checks.py is changed. Expected values come from plain torch,
from the definition of each mistake, or are written out by hand, never from attnlib.
"""

from __future__ import annotations

import pytest
import torch

from attnlib import CheckpointError, check_context, check_scores, check_weights, diagnose
from attnlib.data import example_inputs

INPUTS = example_inputs()  # the book's six tokens, "Your journey starts with one step"
WEIGHTS = torch.softmax(INPUTS @ INPUTS.T, dim=-1)
PASS_THE_TENSOR = "pass the tensor your cell computed"


def running_sum(weights, inputs, pair=lambda i: i, start=None):
    """A reader's loop for one context vector; `pair` and `start` make its two mistakes."""
    context_vec = torch.zeros(inputs.shape[1]) if start is None else start.clone()
    for i in range(len(inputs)):
        context_vec += weights[i] * inputs[pair(i)]
    return context_vec


def swap(a: int, b: int):
    return lambda i: {a: b, b: a}.get(i, i)


def failure(call) -> CheckpointError:
    with pytest.raises(CheckpointError) as info:
        call()
    return info.value


# --- the whole text of a failure ----------------------------------------------------------------

NOT_A_TENSOR = [
    pytest.param(lambda: check_scores([[1.0]]),
                 "Scores checkpoint failed: expected a real-valued torch.Tensor with values, "
                 "got list [[1.0]]", id="scores-a-list"),
    pytest.param(lambda: check_weights(torch.ones(6, 6, device="meta")),
                 "Weights checkpoint failed: expected a real-valued torch.Tensor with values, "
                 "got a tensor of shape (6, 6) and dtype torch.float32 on the meta device",
                 id="weights-meta"),
    pytest.param(lambda: check_context(torch.ones(3, dtype=torch.complex64), query=1),
                 "Context checkpoint failed: expected a real-valued torch.Tensor with values, "
                 "got a tensor of shape (3,) and dtype torch.complex64", id="context-complex"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", NOT_A_TENSOR)
def test_a_failure_without_a_tensor_says_what_came_and_what_to_pass(call, message):
    error = failure(call)
    assert str(error) == f"{message}; {PASS_THE_TENSOR}"
    assert (error.mistake, error.hint) == ("unknown", PASS_THE_TENSOR)


OWN = torch.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # a reader's own 3 tokens, d_in = 2

WRONG_SHAPE = [
    pytest.param(lambda: check_scores(torch.ones(6, 5)),
                 "Scores checkpoint failed: expected shape (6, 6), one row and one column per "
                 "token, got (6, 5)", id="scores"),
    pytest.param(lambda: check_weights(torch.ones(6)),
                 "Weights checkpoint failed: expected shape (6, 6), got (6,)", id="weights-1d"),
    pytest.param(lambda: check_context(torch.ones(6, 2)),
                 "Context vectors checkpoint failed: expected shape (6, 3), one row per query, "
                 "got (6, 2)", id="context-vectors"),
    pytest.param(lambda: check_context(torch.ones(2), query=1),
                 "Context vector of index 1 ('journey', x⁽²⁾) checkpoint failed: expected shape "
                 "(3,), got (2,)", id="context-vector"),
    pytest.param(lambda: check_context(torch.ones(3), query=1, inputs=OWN),
                 "Context vector of index 1 (x⁽²⁾) checkpoint failed: expected shape (2,), "
                 "got (3,)",
                 id="context-vector-own-inputs-no-tokens"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", WRONG_SHAPE)
def test_a_wrong_shape_fails_naming_the_checkpoint_and_both_shapes(call, message):
    error = failure(call)
    assert str(error) == message
    assert error.mistake == "unknown"


def test_row_sums_are_shown_to_4_decimals_row_by_row():
    # Columns of softmax weights do not sum to 1, so rows and columns cannot be mixed up.
    error = failure(lambda: check_weights(WEIGHTS * 1.234567))
    assert str(error) == (
        "Weights checkpoint failed: every row should sum to 1, but the row sums are "
        "[1.2346, 1.2346, 1.2346, 1.2346, 1.2346, 1.2346]"
    )


BAD_ARGUMENTS = [
    pytest.param(lambda: check_context(torch.ones(3)),
                 "query: expected the index of the query token for a single context vector of "
                 "shape (3,), got None", id="no-query"),
    pytest.param(lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2)),
                 "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (2,)",
                 id="inputs-1d"),
    pytest.param(lambda: check_scores(torch.ones(6, 6), inputs=torch.ones(6, 3, device="meta")),
                 "inputs: expected a tensor with values, got one on the meta device",
                 id="inputs-meta"),
]  # fmt: skip


@pytest.mark.parametrize("call, message", BAD_ARGUMENTS)
def test_a_bad_argument_is_a_value_error_in_one_sentence(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_a_checkpoint_error_made_by_hand_names_no_mistake():
    error = CheckpointError("Scores checkpoint failed")
    assert (str(error), error.mistake, error.hint) == ("Scores checkpoint failed", None, "")


# --- sentences of one and two tokens ------------------------------------------------------------

ONE = torch.tensor([[0.5, 2.0]])
TWO = torch.tensor([[1.0, 0.0], [0.5, 0.5]])  # scores [[1, 0.5], [0.5, 0.5]]


def test_one_and_two_token_sentences_pass_with_the_right_line(capsys):
    check_scores(ONE @ ONE.T, inputs=ONE)
    check_scores(TWO @ TWO.T, inputs=TWO)
    check_weights(torch.ones(1, 1), inputs=ONE)
    check_weights(torch.softmax(TWO @ TWO.T, dim=-1), inputs=TWO)
    # Row 0 of the weights: softmax([1, 0.5]) = [0.6225, 0.3775]; row 1 is [0.5, 0.5].
    assert capsys.readouterr().out.splitlines() == [
        "✓ scores checkpoint passed: shape (1, 1), 1 entry, symmetric",
        "✓ scores checkpoint passed: shape (2, 2), 4 entries, symmetric, "
        "[0, 1] == [1, 0] == 0.5000",
        "✓ weights checkpoint passed: shape (1, 1), every row sums to 1",
        "✓ weights checkpoint passed: shape (2, 2), every row sums to 1, [0, 1] = 0.3775, "
        "[1, 0] = 0.5000",
    ]


def test_one_token_with_a_query_is_judged_not_a_crash(capsys):
    # softmax over one token is [1.0]: the context vector is the input itself.
    check_context(ONE[0], query=0, inputs=ONE)
    passed = "✓ context checkpoint passed: index 0 (x⁽¹⁾) -> [0.5000, 2.0000]\n"
    assert capsys.readouterr().out == passed
    assert diagnose(ONE[0] + 1, inputs=ONE, query=0).mistake == "no_zero_start"
    assert failure(lambda: check_context(ONE[0] * 3, query=0, inputs=ONE)).mistake == "unknown"


def test_integer_tensors_are_judged_like_floats():
    # Scores rounded to ints are wrong by up to 0.5: a checkpoint failure, not a TypeError.
    rounded = (INPUTS @ INPUTS.T).round().long()
    assert failure(lambda: check_scores(rounded)).mistake == "unknown"
    exact = torch.tensor([[1, 2], [3, 4]])
    assert diagnose(exact @ exact.T, inputs=exact.float()).ok


# --- the reader's own inputs ------------------------------------------------------------------


def test_a_mistake_is_named_against_the_readers_own_inputs():
    transposed = failure(lambda: check_scores(OWN.T @ OWN, inputs=OWN))
    assert transposed.mistake == "transposed_product"
    assert "gives a (2, 2) grid" in transposed.hint and "the (3, 3) grid" in transposed.hint
    by_column = failure(lambda: check_weights(torch.softmax(OWN @ OWN.T, dim=0), inputs=OWN))
    assert by_column.mistake == "softmax_dim0"


def test_half_precision_scores_of_larger_inputs_pass():
    # Scores near 27 in float16 are off by up to 0.01: the tolerance grows with the values.
    x = torch.tensor([[3.1, 2.7, 1.9], [2.3, 3.7, 2.9], [1.3, 0.7, 3.3]], dtype=torch.float16)
    check_scores(x @ x.T, inputs=x)


# --- diagnose: the stage and the query of what it names ------------------------------------------


def test_diagnose_of_a_correct_stage_has_no_hint():
    found = diagnose(INPUTS @ INPUTS.T)
    assert (found.stage, found.mistake, found.hint) == ("scores", None, "")


def test_diagnose_of_something_unknown_says_to_go_back_stage_by_stage():
    found = diagnose(torch.ones(2))
    assert (found.stage, found.mistake, found.query) == (None, "unknown", None)
    assert found.hint == "re-run the cells above in order and compare stage by stage."


@pytest.mark.parametrize(
    "result, got",
    [
        pytest.param([[1.0]], "list [[1.0]]", id="a-list"),
        pytest.param(torch.ones(6, 6, device="meta"),
                     "a tensor of shape (6, 6) and dtype torch.float32 on the meta device",
                     id="meta"),
        pytest.param(torch.ones(6, 6, dtype=torch.complex64),
                     "a tensor of shape (6, 6) and dtype torch.complex64", id="complex"),
    ],
)  # fmt: skip
def test_diagnose_of_no_values_says_what_it_got(result, got):
    found = diagnose(result)
    assert (found.stage, found.mistake) == (None, "unknown")
    assert found.hint == f"expected a real tensor with values, got {got}"


SCORES = INPUTS @ INPUTS.T
STAGES = [
    # (the reader's tensor, query, stage, mistake, the query it belongs to)
    pytest.param(INPUTS.T @ INPUTS, None, "scores", "transposed_product", None,
                 id="transposed_product"),
    pytest.param((INPUTS * INPUTS).sum(-1, keepdim=True).expand(-1, 6), None, "scores",
                 "same_token", None, id="same_token"),  # x_i . x_i in every cell of row i
    pytest.param(torch.softmax(SCORES, dim=0)[1] @ INPUTS, 1, "context_vec", "softmax_dim0", 1,
                 id="softmax_dim0-one-vector"),
    pytest.param(WEIGHTS[2] @ INPUTS, 1, "context_vec", "wrong_query_index", 2,
                 id="wrong_query_index"),
    pytest.param(running_sum(WEIGHTS[1], INPUTS, pair=swap(0, 1)), 1, "context_vec",
                 "wrong_pairing", 1, id="wrong_pairing"),
]  # fmt: skip


@pytest.mark.parametrize("result, query, stage, mistake, belongs_to", STAGES)
def test_diagnose_names_the_stage_and_query_a_mistake_belongs_to(
    result, query, stage, mistake, belongs_to
):
    found = diagnose(result, query=query)
    assert (found.stage, found.mistake, found.query) == (stage, mistake, belongs_to)
    assert not found.ok and found.hint


def test_a_batch_of_context_vectors_is_not_taken_for_one_vector():
    # (1, 6, 3): no stage of notebooks 01-04 has a batch axis.
    for context_vecs in (WEIGHTS @ INPUTS, torch.softmax(SCORES, dim=0) @ INPUTS):
        assert diagnose(context_vecs[None]).mistake == "unknown"


def test_the_start_value_of_a_running_sum_is_shown_to_4_decimals():
    result = running_sum(WEIGHTS[1], INPUTS, start=torch.full((3,), 0.123456))
    error = failure(lambda: check_context(result, query=1))
    assert error.mistake == "no_zero_start"
    assert "off by [0.1235, 0.1235, 0.1235]" in error.hint
    found = diagnose(result, query=1)
    assert (found.stage, found.mistake, found.query) == ("context_vec", "no_zero_start", 1)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: check_scores(INPUTS @ INPUTS.T + 0.01),
         "Scores checkpoint failed: values differ from inputs @ inputs.T by up to 0.0100"),
        (lambda: check_context(WEIGHTS @ INPUTS + 0.01),
         "Context vectors checkpoint failed: values differ from the reference by up to 0.0100"),
    ],
)  # fmt: skip
def test_values_off_by_a_little_say_from_what_and_by_how_much(call, message):
    error = failure(call)
    assert (str(error), error.mistake) == (message, "unknown")


# --- the pairing of weights and inputs, in short and long sentences -------------------------------


def _sentence(num_tokens: int) -> torch.Tensor:
    """Random inputs, no two alike (the book's "journey" and "starts" nearly are)."""
    return torch.rand(num_tokens, 3, generator=torch.Generator().manual_seed(num_tokens))


def test_a_swap_of_the_last_two_inputs_is_a_wrong_pairing():
    # The first order after the right one: the book's inputs would hide it behind a second
    # swap of the near twins "journey" and "starts", which changes the result by under 1e-4.
    inputs = _sentence(6)
    weights = torch.softmax(inputs @ inputs.T, dim=-1)[1]
    result = running_sum(weights, inputs, pair=swap(4, 5))
    assert diagnose(result, inputs=inputs, query=1).mistake == "wrong_pairing"


def test_seven_tokens_still_get_every_order_a_single_swap_included():
    inputs = _sentence(7)
    weights = torch.softmax(inputs @ inputs.T, dim=-1)[2]
    result = running_sum(weights, inputs, pair=swap(3, 5))
    assert diagnose(result, inputs=inputs, query=2).mistake == "wrong_pairing"


@pytest.mark.parametrize(
    "pair",
    [lambda i: 7 - i, lambda i: (i + 1) % 8, lambda i: (i - 1) % 8],
    ids=["reversed", "shifted-left", "shifted-right"],
)
def test_a_long_sentence_still_names_a_reversed_or_shifted_pairing(pair):
    inputs = _sentence(8)
    weights = torch.softmax(inputs @ inputs.T, dim=-1)[2]
    result = running_sum(weights, inputs, pair=pair)
    assert diagnose(result, inputs=inputs, query=2).mistake == "wrong_pairing"


@pytest.mark.parametrize(
    "inputs",
    [
        torch.tensor([[0.1, float("nan")], [0.3, 0.4]]),
        torch.tensor([[1e200, 0.0], [0.0, 1.0]], dtype=torch.float64),  # inf in float32
    ],
    ids=["nan", "1e200-float64"],
)
def test_a_checkpoint_refuses_inputs_it_cannot_compute_with_as_inputs(inputs):
    with pytest.raises(ValueError) as info:
        check_scores(torch.zeros(2, 2), inputs=inputs)
    assert str(info.value) == (
        "inputs: got inf or NaN; a checkpoint needs finite inputs that float32 holds (|x| < 3.4e38)"
    )
