"""Reader checkpoints: correct tensors pass; each common mistake, made on purpose, is named."""

from __future__ import annotations

import pytest
import torch

from attnlib import CheckpointError, check_context, check_scores, check_weights, diagnose
from attnlib.data import example_inputs

INPUTS = example_inputs()


def reader_scores():
    """How a reader builds the scores in notebook 01: two loops over a zero grid."""
    attn_scores = torch.zeros(6, 6)
    for i, x_i in enumerate(INPUTS):
        for j, x_j in enumerate(INPUTS):
            attn_scores[i, j] = x_i @ x_j
    return attn_scores


def reader_weights(dim=-1):
    return torch.softmax(reader_scores(), dim=dim)


def reader_context(weights, start=None, pair=lambda i: i):
    """The reader's running sum; `start` and `pair` let a test make the loop's mistakes."""
    context_vec = torch.zeros(3) if start is None else start.clone()
    for i in range(len(INPUTS)):
        context_vec += weights[i] * INPUTS[pair(i)]
    return context_vec


def test_correct_tensors_pass_with_one_line(capsys):
    check_scores(reader_scores())
    check_weights(reader_weights())
    check_context(reader_context(reader_weights()[1]), query=1)
    check_context(reader_weights() @ INPUTS)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "✓ scores checkpoint passed: shape (6, 6), 36 entries, symmetric, "
        "[0, 1] == [1, 0] == 0.9544",
        "✓ weights checkpoint passed: shape (6, 6), every row sums to 1, "
        "[0, 1] = 0.2006, [1, 0] = 0.1385",
        "✓ context checkpoint passed: query 1 ('journey') -> [0.4419, 0.6515, 0.5683]",
        "✓ context checkpoint passed: shape (6, 3), row i blends every input for query i",
    ]


def test_rounded_printed_values_still_pass():
    check_context(torch.tensor([0.4419, 0.6515, 0.5683]), query=1)


MISTAKES = [
    # (mistake, check, reader's wrong tensor, kwargs, words the message must contain)
    (
        "wrong_query_index",
        check_context,
        lambda: reader_context(reader_weights()[2]),
        {"query": 1},
        "context vector of query 2 ('starts'), not of query 1 ('journey')",
    ),
    (
        "wrong_query_index",
        check_context,
        lambda: reader_context(reader_weights()[0]),
        {"query": 1},
        "token number 2 is index 1",
    ),
    (
        "softmax_dim0",
        check_weights,
        lambda: reader_weights(dim=0),
        {},
        "softmax(attn_scores, dim=-1)",
    ),
    (
        "softmax_dim0",
        check_context,
        lambda: reader_weights(dim=0) @ INPUTS,
        {},
        "the columns sum to 1 but the rows do not",
    ),
    (
        "softmax_dim0",
        check_context,
        lambda: reader_context(reader_weights(dim=0)[1]),
        {"query": 1},
        "dim=0",
    ),
    (
        "wrong_pairing",
        check_context,
        lambda: reader_context(reader_weights()[1], pair=lambda i: (i + 1) % 6),
        {"query": 1},
        "enumerate(inputs)",
    ),
    (
        "wrong_pairing",
        check_context,
        lambda: reader_context(reader_weights()[1], pair=lambda i: 5 - i),
        {"query": 1},
        "weights[i] * x_i",
    ),
    (
        "no_zero_start",
        check_context,
        lambda: reader_context(reader_weights()[1], start=INPUTS[1]),
        {"query": 1},
        "off by [0.55, 0.87, 0.66]",
    ),
    (
        "no_zero_start",
        check_context,
        lambda: reader_context(reader_weights()[1], start=torch.ones(3)),
        {"query": 1},
        "torch.zeros_like(inputs[0])",
    ),
    (
        "transposed_product",
        check_scores,
        lambda: INPUTS.T @ INPUTS,
        {},
        "gives a (3, 3) grid",
    ),
    (
        "no_exp",
        check_weights,
        lambda: reader_scores() / reader_scores().sum(dim=-1, keepdim=True),
        {},
        "normalising without exp",
    ),
]


@pytest.mark.parametrize("mistake, check, make, kwargs, words", MISTAKES)
def test_each_mistake_is_named(mistake, check, make, kwargs, words):
    with pytest.raises(CheckpointError) as info:
        check(make(), **kwargs)
    assert info.value.mistake == mistake
    assert words in str(info.value)
    assert info.value.hint and info.value.hint in str(info.value)


def test_unknown_mistake_says_how_far_off():
    wrong = reader_weights().clone()
    wrong[0] = wrong[0].flip(0)  # rows still sum to 1, but values are wrong
    with pytest.raises(CheckpointError, match=r"differ from softmax\(attn_scores, dim=-1\)") as e:
        check_weights(wrong)
    assert e.value.mistake == "unknown"


def test_row_sums_are_reported_when_they_are_not_one():
    with pytest.raises(CheckpointError, match=r"row sums are \[") as e:
        check_weights(reader_weights() * 2)
    assert e.value.mistake == "unknown"


def test_wrong_shape_is_reported():
    with pytest.raises(CheckpointError, match=r"expected shape \(6, 6\).*got \(6, 5\)"):
        check_scores(torch.ones(6, 5))
    with pytest.raises(CheckpointError, match=r"expected shape \(3,\), got \(6, 3\)"):
        check_context(torch.ones(6, 3), query=1)


def test_not_a_tensor_is_a_checkpoint_error():
    with pytest.raises(CheckpointError, match="expected a real-valued torch.Tensor with values, got list"):
        check_scores([[1.0]])
    with pytest.raises(CheckpointError, match="dtype torch.complex64"):
        check_scores(torch.ones(6, 6, dtype=torch.complex64))


def test_bad_tokens_are_value_errors_with_or_without_inputs():
    inputs = torch.ones(2, 2)
    with pytest.raises(ValueError, match="tokens: expected a list of 2 strings, got int 5"):
        check_scores(torch.ones(2, 2), inputs=inputs, tokens=5)
    with pytest.raises(ValueError, match=r"one string per input row \(6\), got 2"):
        check_scores(INPUTS @ INPUTS.T, tokens=["a", "b"])
    with pytest.raises(ValueError, match=r"tokens\[1\]: expected a str"):
        check_scores(torch.ones(2, 2), inputs=inputs, tokens=["a", 2])


def test_diagnose_names_stages_and_mistakes():
    assert diagnose(reader_scores()).stage == "scores" and diagnose(reader_scores()).ok
    assert diagnose(reader_weights()).stage == "weights"
    assert diagnose(INPUTS.T @ INPUTS).mistake == "transposed_product"
    found = diagnose(reader_context(reader_weights()[4]))
    assert (found.stage, found.query, found.mistake) == ("context_vec", 4, None)
    assert diagnose(torch.ones(2)).mistake == "unknown"


def test_checks_accept_the_readers_own_inputs(capsys):
    inputs = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    attn_weights = torch.softmax(inputs @ inputs.T, dim=-1)
    check_weights(attn_weights, inputs=inputs, tokens=["a", "b", "c"])
    check_context(attn_weights[2] @ inputs, query=2, inputs=inputs, tokens=["a", "b", "c"])
    assert "query 2 ('c')" in capsys.readouterr().out
    with pytest.raises(CheckpointError, match="query 1 \\('b'\\), not of query 2"):
        check_context(attn_weights[1] @ inputs, query=2, inputs=inputs, tokens=["a", "b", "c"])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: check_context(torch.ones(3)), "query: expected the index of the query token"),
        (
            lambda: check_context(torch.ones(3), query=6),
            "query: expected an index in [0, 5], got 6",
        ),
        (lambda: check_context(torch.ones(3), query=-1), "query: expected an int >= 0, got -1"),
        (lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2)), "inputs: expected shape"),
        (
            lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2, 2), tokens=["a"]),
            "tokens: expected one string per input row (2), got 1",
        ),
        (
            lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2, 2, dtype=torch.long)),
            "floating-point dtype",
        ),
    ],
)
def test_bad_arguments_to_checks_raise_value_error(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
