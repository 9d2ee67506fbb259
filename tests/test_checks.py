"""Reader checkpoints: correct tensors pass; each common mistake, made on purpose, is named.

Also the table of mistakes the checkpoints name (attnlib.mistakes): every row is a real
mistake, and the simplified-attention ones (notebooks 01-04) are recognised by diagnose.
"""

from __future__ import annotations

import math
import string

import pytest
import torch
from book import (
    ALL_CONTEXT_VECS,
    ATTN_SCORES,
    ATTN_WEIGHTS,
    JOURNEY_CONTEXT,
    SCORE_0_1,
    WEIGHT_0_1,
    WEIGHT_1_0,
)

from attnlib import CheckpointError, check_context, check_scores, check_weights, diagnose, modules
from attnlib.checks import close
from attnlib.data import example_inputs
from attnlib.mistakes import MISTAKES, heads
from attnlib.mistakes.blockwise import blocks
from attnlib.mistakes.training import after_steps

INPUTS = example_inputs()


def reader_scores(inputs=INPUTS):
    """How a reader builds the scores in notebook 01: two loops over a zero grid."""
    attn_scores = torch.zeros(len(inputs), len(inputs), dtype=inputs.dtype)
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = x_i @ x_j
    return attn_scores


def reader_weights(dim=-1, inputs=INPUTS):
    return torch.softmax(reader_scores(inputs), dim=dim)


def reader_context(weights, start=None, pair=lambda i: i):
    """The reader's running sum; `start` and `pair` let a test make the loop's mistakes."""
    context_vec = torch.zeros(3) if start is None else start.clone()
    for i in range(len(INPUTS)):
        context_vec += weights[i] * INPUTS[pair(i)]
    return context_vec


def swap_0_1(i: int) -> int:
    """One swapped pair: weight 0 meets input 1 and weight 1 meets input 0, the rest is right."""
    return {0: 1, 1: 0}.get(i, i)


# --- what passes -------------------------------------------------------------------------------


def test_correct_tensors_pass_with_one_line(capsys):
    check_scores(reader_scores())
    check_weights(reader_weights())
    check_context(reader_context(reader_weights()[1]), query=1)
    check_context(reader_weights() @ INPUTS)
    lines = capsys.readouterr().out.splitlines()
    journey = ", ".join(f"{v:.4f}" for v in JOURNEY_CONTEXT)
    assert lines == [
        "✓ scores checkpoint passed: shape (6, 6), 36 entries, symmetric, "
        f"[0, 1] == [1, 0] == {SCORE_0_1:.4f}",
        "✓ weights checkpoint passed: shape (6, 6), every row sums to 1, "
        f"[0, 1] = {WEIGHT_0_1:.4f}, [1, 0] = {WEIGHT_1_0:.4f}",
        f"✓ context checkpoint passed: index 1 ('journey', x⁽²⁾) -> [{journey}]",
        "✓ context checkpoint passed: shape (6, 3), row i blends every input for query i",
    ]


def _in(dtype):
    """The example inputs in ``dtype``: every stage then computed in that precision."""
    return INPUTS.to(dtype)


PASSING = [
    # Values typed from the book's printout, rounded to 4 decimals as a reader types them.
    pytest.param(check_scores, lambda: torch.tensor(ATTN_SCORES), {}, id="scores-typed"),
    pytest.param(check_weights, lambda: torch.tensor(ATTN_WEIGHTS), {}, id="weights-typed"),
    pytest.param(check_context, lambda: torch.tensor(ALL_CONTEXT_VECS), {}, id="contexts-typed"),
    pytest.param(
        check_context, lambda: torch.tensor(JOURNEY_CONTEXT), {"query": 1}, id="journey-typed"
    ),
]
for _dtype in (torch.float16, torch.bfloat16, torch.float64):
    _name = str(_dtype).removeprefix("torch.")
    PASSING += [
        pytest.param(check_scores, lambda d=_dtype: _in(d) @ _in(d).T, {}, id=f"scores-{_name}"),
        pytest.param(
            check_weights,
            lambda d=_dtype: torch.softmax(_in(d) @ _in(d).T, dim=-1),
            {},
            id=f"weights-{_name}",
        ),
        pytest.param(
            check_context,
            lambda d=_dtype: torch.softmax(_in(d) @ _in(d).T, dim=-1) @ _in(d),
            {},
            id=f"contexts-{_name}",
        ),
        pytest.param(
            check_context,
            lambda d=_dtype: torch.softmax(_in(d) @ _in(d).T, dim=-1)[1] @ _in(d),
            {"query": 1},
            id=f"journey-{_name}",
        ),
    ]


@pytest.mark.parametrize("check, make, kwargs", PASSING)
def test_a_correct_answer_passes_rounded_or_in_any_precision(check, make, kwargs, capsys):
    check(make(), **kwargs)
    assert capsys.readouterr().out.startswith("✓ ")


def test_checks_accept_the_readers_own_inputs(capsys):
    inputs = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    attn_weights = torch.softmax(inputs @ inputs.T, dim=-1)
    check_weights(attn_weights, inputs=inputs, tokens=["a", "b", "c"])
    check_context(attn_weights[2] @ inputs, query=2, inputs=inputs, tokens=["a", "b", "c"])
    assert "index 2 ('c', x⁽³⁾)" in capsys.readouterr().out
    with pytest.raises(CheckpointError, match="index 1 \\('b', x⁽²⁾\\), not of index 2"):
        check_context(attn_weights[1] @ inputs, query=2, inputs=inputs, tokens=["a", "b", "c"])


REFERENCE = torch.tensor(JOURNEY_CONTEXT)


@pytest.mark.parametrize(
    "result, same",
    [
        pytest.param(REFERENCE + 5e-5, True, id="half-a-printed-unit-off"),
        pytest.param(REFERENCE + 1e-3, False, id="1e-3-off"),
        pytest.param(REFERENCE[:2], False, id="another-shape"),
        pytest.param(REFERENCE.to(torch.bfloat16), True, id="rounded-to-bfloat16"),
        pytest.param((REFERENCE + 0.1).to(torch.bfloat16), False, id="bfloat16-0.1-off"),
    ],
)
def test_close_allows_the_printed_rounding_and_the_dtypes_own(result, same):
    assert close(result, REFERENCE) is same


# --- what fails, and what the failure says ---------------------------------------------------


def _off_by_1e3(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x.view(-1)[0] += 1e-3
    return x


def _weights_moved_by_1e3() -> torch.Tensor:
    """1e-3 of query 0's weight moved from key 1 to key 0: every row still sums to 1."""
    attn_weights = torch.softmax(INPUTS @ INPUTS.T, dim=-1)
    attn_weights[0, 0] += 1e-3
    attn_weights[0, 1] -= 1e-3
    return attn_weights


def _one_row_reversed():
    wrong = reader_weights().clone()
    wrong[0] = wrong[0].flip(0)  # rows still sum to 1, but values are wrong
    return wrong


def failing(id, check, make, kwargs, mistake, words):
    return pytest.param(check, make, kwargs, mistake, words, id=id)


FAILING = [
    # (check, reader's wrong tensor, kwargs, the mistake named, words the message must contain)
    failing("wrong_query_index-2-for-1", check_context,
            lambda: reader_context(reader_weights()[2]), {"query": 1},
            "wrong_query_index",
            "context vector of index 2 ('starts', x⁽³⁾), not of index 1 ('journey', x⁽²⁾)"),
    failing("wrong_query_index-off-by-one", check_context,
            lambda: reader_context(reader_weights()[0]), {"query": 1},
            "wrong_query_index",
            "of index 0 ('Your', x⁽¹⁾), not of index 1 ('journey', x⁽²⁾). Python counts from 0, "
            "the book from 1: use attn_weights[1]"),
    failing("softmax_dim0-weights", check_weights, lambda: reader_weights(dim=0), {},
            "softmax_dim0", "softmax(attn_scores, dim=-1)"),
    failing("softmax_dim0-contexts", check_context, lambda: reader_weights(dim=0) @ INPUTS, {},
            "softmax_dim0", "the columns sum to 1 but the rows do not"),
    failing("softmax_dim0-one-context", check_context,
            lambda: reader_context(reader_weights(dim=0)[1]), {"query": 1},
            "softmax_dim0", "dim=0"),
    failing("wrong_pairing-one-swap", check_context,
            lambda: reader_context(reader_weights()[1], pair=swap_0_1), {"query": 1},
            "wrong_pairing", "weights[i] * x_i"),
    failing("wrong_pairing-shifted", check_context,
            lambda: reader_context(reader_weights()[1], pair=lambda i: (i + 1) % 6), {"query": 1},
            "wrong_pairing", "enumerate(inputs)"),
    failing("wrong_pairing-reversed", check_context,
            lambda: reader_context(reader_weights()[1], pair=lambda i: 5 - i), {"query": 1},
            "wrong_pairing", "weights[i] * x_i"),
    failing("no_zero_start-an-input", check_context,
            lambda: reader_context(reader_weights()[1], start=INPUTS[1]), {"query": 1},
            "no_zero_start", "off by [0.55, 0.87, 0.66]"),
    failing("no_zero_start-ones", check_context,
            lambda: reader_context(reader_weights()[1], start=torch.ones(3)), {"query": 1},
            "no_zero_start", "torch.zeros_like(inputs[0])"),
    failing("transposed_product", check_scores, lambda: INPUTS.T @ INPUTS, {},
            "transposed_product", "gives a (3, 3) grid"),
    failing("no_exp", check_weights,
            lambda: reader_scores() / reader_scores().sum(dim=-1, keepdim=True), {},
            "no_exp", "normalising without exp"),
    failing("wrong_stage-weights-as-scores", check_scores, reader_weights, {},
            "wrong_stage", "this tensor is the attention weights; pass the scores instead"),
    failing("wrong_stage-scores-as-weights", check_weights, reader_scores, {},
            "wrong_stage", "this tensor is the attention scores; pass the weights instead"),
    # Nothing known: the message says how far off, or what is wrong with the shape.
    failing("unknown-values", check_weights, _one_row_reversed, {},
            "unknown", "differ from softmax(attn_scores, dim=-1)"),
    failing("unknown-row-sums", check_weights, lambda: reader_weights() * 2, {},
            "unknown", "the row sums are ["),
    failing("unknown-shape-scores", check_scores, lambda: torch.ones(6, 5), {},
            "unknown", "expected shape (6, 6), one row and one column per token, got (6, 5)"),
    failing("unknown-shape-context", check_context, lambda: torch.ones(6, 3), {"query": 1},
            "unknown", "expected shape (3,), got (6, 3)"),
    # Off by 1e-3, above the printed 4 decimals: the tolerance must not let these through.
    failing("scores-off-by-1e-3", check_scores, lambda: _off_by_1e3(INPUTS @ INPUTS.T), {},
            "unknown", "by up to 0.0010"),
    failing("weights-off-by-1e-3", check_weights, _weights_moved_by_1e3, {},
            "unknown", "rows sum to 1, but the values differ from softmax(attn_scores, dim=-1) "
            "by up to 0.0010"),
    failing("journey-off-by-1e-3", check_context,
            lambda: _off_by_1e3(torch.tensor(JOURNEY_CONTEXT)), {"query": 1},
            "unknown", "by up to 0.0010"),
    # Not a tensor with values at all.
    failing("a-list", check_scores, lambda: [[1.0]], {},
            "unknown", "expected a real-valued torch.Tensor with values, got list"),
    failing("complex", check_scores, lambda: torch.ones(6, 6, dtype=torch.complex64), {},
            "unknown", "dtype torch.complex64"),
    failing("meta-scores", check_scores, lambda: torch.ones(6, 6, device="meta"), {},
            "unknown", "expected a real-valued torch.Tensor with values"),
    failing("meta-weights", check_weights, lambda: torch.ones(6, 6, device="meta"), {},
            "unknown", "expected a real-valued torch.Tensor with values"),
    failing("meta-context", check_context, lambda: torch.ones(3, device="meta"), {"query": 1},
            "unknown", "expected a real-valued torch.Tensor with values"),
]  # fmt: skip


@pytest.mark.parametrize("check, make, kwargs, mistake, words", FAILING)
def test_a_wrong_answer_fails_and_the_failure_names_the_mistake(
    check, make, kwargs, mistake, words
):
    with pytest.raises(CheckpointError) as info:
        check(make(), **kwargs)
    assert info.value.mistake == mistake
    assert words in str(info.value)
    assert info.value.hint
    if mistake in MISTAKES:
        assert info.value.hint in str(info.value)


def test_diagnose_names_stages_and_mistakes():
    assert diagnose(reader_scores()).stage == "scores" and diagnose(reader_scores()).ok
    assert diagnose(reader_weights()).stage == "weights"
    found = diagnose(reader_context(reader_weights()[4]))
    assert (found.stage, found.query, found.mistake) == ("context_vec", 4, None)
    assert diagnose(torch.ones(2)).mistake == "unknown"


def test_diagnose_judges_float64_like_float32():
    inputs = INPUTS.double()
    scores = inputs @ inputs.T
    assert diagnose(scores, inputs=inputs).ok
    assert diagnose(scores).ok  # against the float32 example inputs
    assert diagnose(inputs.T @ inputs, inputs=inputs).mistake == "transposed_product"
    found = diagnose(torch.softmax(scores, dim=-1) @ inputs, inputs=inputs)
    assert (found.stage, found.mistake) == ("context_vecs", None)
    swapped = torch.softmax(scores, dim=-1)[1][[1, 0, 2, 3, 4, 5]] @ inputs
    assert diagnose(swapped, inputs=inputs, query=1).mistake == "wrong_pairing"


def test_diagnose_of_a_tensor_without_values_is_unknown_not_an_error():
    assert diagnose(torch.ones(6, 6, device="meta")).mistake == "unknown"
    assert diagnose([[1.0]]).mistake == "unknown"


SEVEN = ["a", "b", "c", "d", "e", "f", "g"]


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda: check_context(torch.ones(3)),
                     "query: expected the index of the query token", id="context-without-query"),
        pytest.param(lambda: check_context(torch.ones(3), query=6),
                     "query: expected an index in [0, 5], got 6", id="query-past-the-end"),
        pytest.param(lambda: check_context(torch.ones(3), query=-1),
                     "query: expected an int >= 0, got -1", id="query-negative"),
        pytest.param(lambda: diagnose(torch.ones(3), query=6),
                     "query: expected an index in [0, 5], got 6", id="diagnose-query-past-the-end"),
        pytest.param(lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2)),
                     "inputs: expected shape", id="inputs-1d"),
        pytest.param(lambda: check_scores(torch.ones(2, 2),
                                          inputs=torch.ones(2, 2, dtype=torch.long)),
                     "floating-point dtype", id="inputs-long"),
        pytest.param(lambda: check_scores(torch.ones(6, 6),
                                          inputs=torch.ones(6, 3, device="meta")),
                     "inputs: expected a tensor with values, got one on the meta device",
                     id="inputs-meta"),
        pytest.param(lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2, 2), tokens=5),
                     "tokens: expected a list of 2 strings, got int 5", id="tokens-an-int"),
        pytest.param(lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2, 2), tokens=["a"]),
                     "tokens: expected one string per input row (2), got 1", id="tokens-too-few"),
        pytest.param(lambda: check_scores(INPUTS @ INPUTS.T, tokens=["a", "b"]),
                     "one string per input row (6), got 2", id="tokens-too-few-for-the-example"),
        pytest.param(lambda: check_scores(torch.ones(2, 2), inputs=torch.ones(2, 2),
                                          tokens=["a", 2]),
                     "tokens[1]: expected a str", id="tokens-not-str"),
        pytest.param(lambda: check_scores(INPUTS @ INPUTS.T, inputs=INPUTS, tokens=SEVEN),
                     "one string per input row (6), got 7", id="scores-7-tokens-for-6"),
        pytest.param(lambda: check_weights(reader_weights(), tokens=SEVEN),
                     "one string per input row (6), got 7", id="weights-7-tokens-for-6"),
        pytest.param(lambda: check_context(reader_weights() @ INPUTS, tokens=SEVEN),
                     "one string per input row (6), got 7", id="context-7-tokens-for-6"),
        pytest.param(lambda: diagnose(reader_scores(), inputs=INPUTS, tokens=SEVEN),
                     "one string per input row (6), got 7", id="diagnose-7-tokens-for-6"),
        pytest.param(lambda: check_scores(reader_scores(), tokens=["x" * 101] + SEVEN[1:6]),
                     "tokens[0]: expected at most 100 characters, got 101", id="token-too-long"),
    ],
)  # fmt: skip
def test_bad_arguments_to_checks_raise_value_error(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


# --- the table of mistakes ---------------------------------------------------------------------


@pytest.mark.parametrize("name", MISTAKES)
def test_every_mistake_has_a_label_and_a_hint(name):
    mistake = MISTAKES[name]
    assert isinstance(mistake.label, str) and mistake.label.strip()
    assert isinstance(mistake.hint, str) and mistake.hint.strip()
    # The hint is a format string for its {placeholders}: a stray brace would break it.
    list(string.Formatter().parse(mistake.hint))


SCORES = INPUTS @ INPUTS.T
WEIGHTS = torch.softmax(SCORES, dim=-1)
CAUSAL = torch.ones(6, 6, dtype=torch.bool).triu(1)
KEEP = (torch.arange(36).reshape(6, 6) % 3 != 0).float()  # dropout keeps two weights in three
P = 0.2  # not the book's 0.5: there 1/p and 1/(1 - p) are both 2
X_HEADS = torch.arange(24.0).reshape(1, 6, 4)  # (b, num_tokens, d_out), cut into 2 heads
CONTEXT_HEADS = torch.arange(24.0).reshape(1, 2, 6, 2)  # (b, num_heads, num_tokens, head_dim)
LARGE = torch.tensor([[1.0, 2.0, 100.0]])  # scores whose exp overflows float32
FAR_APART = torch.tensor([[0.0, 1.0], [-200.0, -199.0]])  # row 1 far below the grid's maximum
VALUES = INPUTS @ torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # (6, 2), d_out = 2
# Blockwise attention: 3 queries and 5 keys, later keys longer so the maximum grows from block
# to block (a block of 2 keys leaves a last block of 1).
BLOCK_QKV = (
    torch.tensor([[1.0, 0.5], [-0.5, 1.0], [0.2, -1.0]]),
    torch.tensor([[0.1, 0.2], [-0.3, 0.1], [1.0, 0.5], [-1.5, 2.0], [3.0, -2.5]]),
    torch.tensor(
        [[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0], [2.0, -1.0, 1.0], [0.5, 0.5, 0.5]]
    ),
)


def _blockwise_whole() -> torch.Tensor:
    """The correct result: softmax over all keys at once, then the blend of the values."""
    queries, keys, values = BLOCK_QKV
    return torch.softmax(queries @ keys.T / math.sqrt(keys.shape[-1]), dim=-1) @ values


KEYS_4 = INPUTS @ torch.ones(3, 4)  # keys of d_out = 4
W_QKV = [torch.eye(3)[:, :2], torch.eye(3)[:, 1:], torch.ones(3, 2)]
BATCH = torch.stack((INPUTS, INPUTS))
torch.manual_seed(0)
LAYER = modules.CausalAttention(3, 2, 8, 0.5)
MHA = modules.MultiHeadAttention(3, 4, 8, 0.0, num_heads=2)  # 2 heads of head_dim 2


def _scaled(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    return torch.softmax(scores / d_k**0.5, dim=-1)


def _causal_weights() -> torch.Tensor:
    return torch.softmax(SCORES.masked_fill(CAUSAL, -torch.inf) / 2**0.5, dim=-1)


def _projections(matrices: list[torch.Tensor]) -> torch.Tensor:
    return torch.stack([INPUTS @ w for w in matrices])


def _last_row() -> torch.Tensor:
    """The last token's context vector of LAYER on INPUTS (it sees every token)."""
    with torch.no_grad():
        keys, query = LAYER.W_key(INPUTS), LAYER.W_query(INPUTS[5])
        return torch.softmax(keys @ query / 2**0.5, dim=-1) @ LAYER.W_value(INPUTS)


def _head_weights(h: int) -> torch.Tensor:
    """Head ``h``'s causal weights in MHA on INPUTS: rows 2h, 2h + 1 of each projection."""
    with torch.no_grad():
        q = INPUTS @ MHA.W_query.weight[2 * h : 2 * h + 2].T
        k = INPUTS @ MHA.W_key.weight[2 * h : 2 * h + 2].T
        return torch.softmax((q @ k.T).masked_fill(CAUSAL, -torch.inf) / 2**0.5, dim=-1)


def _two_features(make=None) -> torch.Tensor:
    """The wrapper ``make(d_in, context_length, dropout)`` builds (seed 123), run on BATCH;
    without ``make``, two heads of 1 feature: what 07.two_features must give."""
    torch.manual_seed(123)
    wrapper = make(3, 6, 0.0) if make else modules.MultiHeadAttentionWrapper(3, 1, 6, 0.0, 2)
    torch.manual_seed(5)
    with torch.no_grad():
        return wrapper(BATCH)


def _two_heads() -> torch.Tensor:
    """A wrapper of 2 heads of 2 features, seed 123, on BATCH: what 07.copy_heads must give."""
    torch.manual_seed(123)
    wrapper = modules.MultiHeadAttentionWrapper(3, 2, 8, 0.0, num_heads=2)
    with torch.no_grad():
        return wrapper(BATCH)


def _wrapper_on_batch(cls) -> torch.Tensor:
    """A wrapper class built with 2 heads of 2 features (seed 123), its output on BATCH."""
    torch.manual_seed(123)
    with torch.no_grad():
        return cls(3, 2, 6, 0.0, 2)(BATCH)


def _right_wrapper_on_batch() -> torch.Tensor:
    return _wrapper_on_batch(modules.MultiHeadAttentionWrapper)


def _copied(copy_heads) -> torch.Tensor:
    """MultiHeadAttention's output on BATCH after ``copy_heads(wrapper, mha)`` (07.copy_heads)."""
    wrapper, mha = heads.pair(3, 2, 2)
    copy_heads(wrapper, mha)
    with torch.no_grad():
        return mha(BATCH)


X_0, X_1 = INPUTS[0], INPUTS[1]
# The wrong line does not run at all: the reader meets an error instead of a result.
RAISES = (RuntimeError, TypeError)

TOKEN_IDS = torch.arange(40) % 13


def _a_training_step(model, optimizer, inputs, targets):
    """One right step of notebook 10, in plain torch: zero the gradients, loss, backward, step."""
    optimizer.zero_grad()
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    optimizer.step()
    return loss


# name -> (the mistake made with its row's `make`, the correct result written in plain torch)
LAST_ROW_LAYER = modules.CausalAttention(3, 2, 8, 0.0).eval()
ONE_HEAD_LAYER = modules.MultiHeadAttention(3, 4, 8, 0.0, num_heads=2).eval()


def _head_weights(mha, x, h):
    """Head ``h``'s causal weights as the layer makes them: project, cut with view, attend."""
    n, size = x.shape[0], mha.head_dim
    with torch.no_grad():
        q = mha.W_query(x).view(n, mha.num_heads, size).transpose(0, 1)[h]
        k = mha.W_key(x).view(n, mha.num_heads, size).transpose(0, 1)[h]
        scores = (q @ k.T / size**0.5).masked_fill(torch.ones(n, n).triu(1).bool(), -torch.inf)
        return torch.softmax(scores, dim=-1)


MADE = {
    # scores
    "transposed_product": (lambda make: make(INPUTS), lambda: SCORES),
    "same_token": (lambda make: make(INPUTS), lambda: SCORES),
    "products_not_summed": (lambda make: make(X_0, X_1), lambda: torch.dot(X_0, X_1)),
    "products_in_one_cell": (lambda make: make(INPUTS), lambda: RAISES),
    "sums_multiplied": (lambda make: make(X_0, X_1), lambda: torch.dot(X_0, X_1)),
    "row_written_whole": (lambda make: make(INPUTS), lambda: SCORES),
    "book_number_as_index": (lambda make: make(INPUTS, 2), lambda: INPUTS[1]),  # x^(2)
    "column_not_token": (lambda make: make(INPUTS, 1), lambda: INPUTS[1]),
    "no_transpose": (lambda make: make(INPUTS, INPUTS), lambda: RAISES),
    "elementwise_product": (lambda make: make(INPUTS), lambda: SCORES),
    "operands_swapped": (lambda make: make(INPUTS[:3], INPUTS), lambda: INPUTS[:3] @ INPUTS.T),
    # weights
    "softmax_dim0": (lambda make: make(SCORES), lambda: WEIGHTS),
    "no_exp": (lambda make: make(SCORES), lambda: WEIGHTS),
    "no_keepdim": (lambda make: make(SCORES), lambda: WEIGHTS),
    "softmax_whole_grid": (lambda make: make(SCORES), lambda: WEIGHTS),
    "no_max_shift": (lambda make: make(LARGE), lambda: torch.softmax(LARGE, dim=-1)),
    "max_of_grid": (lambda make: make(FAR_APART), lambda: torch.softmax(FAR_APART, dim=-1)),
    "max_no_keepdim": (lambda make: make(SCORES), lambda: WEIGHTS),
    "max_without_values": (lambda make: make(SCORES), lambda: RAISES),
    "column_not_row": (lambda make: make(WEIGHTS, 1), lambda: WEIGHTS[1]),
    # context vectors
    "weights_transposed": (lambda make: make(WEIGHTS, INPUTS), lambda: WEIGHTS @ INPUTS),
    "product_order": (lambda make: make(WEIGHTS, INPUTS), lambda: RAISES),
    "no_softmax": (
        lambda make: make(INPUTS, 1),
        lambda: torch.softmax(INPUTS @ INPUTS[1], dim=-1) @ INPUTS,
    ),
    "assigned_not_added": (lambda make: make(WEIGHTS[1], INPUTS), lambda: WEIGHTS[1] @ INPUTS),
    # trainable attention: d_k = 2 for the book's d_in = 3, d_out = 2
    "no_scale": (lambda make: make(SCORES, VALUES), lambda: _scaled(SCORES, 2)),
    "scale_by_d_k": (lambda make: make(SCORES, VALUES), lambda: _scaled(SCORES, 2)),
    "scale_by_d_in": (lambda make: make(SCORES, VALUES), lambda: _scaled(SCORES, 2)),
    "scale_by_num_tokens": (lambda make: make(SCORES, VALUES), lambda: _scaled(SCORES, 2)),
    "scale_hardcoded": (lambda make: make(SCORES, KEYS_4), lambda: _scaled(SCORES, 4)),
    "projection_order": (lambda make: make(INPUTS, *[torch.ones(3, 2)] * 3), lambda: RAISES),
    "projection_mixed_up": (lambda make: make(INPUTS, *W_QKV), lambda: _projections(W_QKV)),
    # 05.query_scaled: W_query times c = 2, the weights of the scores times 2
    **{
        name: (lambda make: make(WEIGHTS, 2.0), lambda: torch.softmax(2 * SCORES, dim=-1))
        for name in (
            "query_scale_cancels",
            "query_scale_times_c",
            "query_scale_squared",
            "query_scale_not_renormalised",
            "query_scale_weights_as_scores",
        )
    },
    "weights_sized_by_d_out": (lambda make: make(6, 2), lambda: (6, 6)),
    # causal attention: make(attn_scores, d_k) -> the weights, or a whole forward pass
    "mask_diagonal": (lambda make: make(SCORES, 2), lambda: _causal_weights()),
    "mask_inverted": (lambda make: make(SCORES, 2), lambda: _causal_weights()),
    "mask_not_bool": (lambda make: make(SCORES, 2), lambda: RAISES),
    "mask_zero": (lambda make: make(SCORES, 2), lambda: _causal_weights()),
    "mask_after_softmax": (lambda make: make(SCORES, 2), lambda: _causal_weights()),
    "mask_left_out": (lambda make: make(SCORES, 2), lambda: _causal_weights()),
    "last_row_own_value": (lambda make: make(LAYER, INPUTS), _last_row),
    "last_row_first_query": (lambda make: make(LAYER, INPUTS), _last_row),
    "last_row_unscaled": (lambda make: make(LAYER, INPUTS), _last_row),
    "last_row_inputs_blended": (lambda make: make(LAYER, INPUTS), _last_row),
    "query_not_value": (lambda make: make(LAYER, INPUTS), lambda: LAYER.W_value(INPUTS[0])),
    "dropout_by_p": (lambda make: make(WEIGHTS, KEEP, P), lambda: WEIGHTS * KEEP / (1 - P)),
    "dropout_unscaled": (lambda make: make(WEIGHTS, KEEP, P), lambda: WEIGHTS * KEEP / (1 - P)),
    "dropout_inverted": (
        lambda make: make(WEIGHTS, KEEP.bool(), P),
        lambda: WEIGHTS * KEEP / (1 - P),
    ),
    # the memory of the grid, float32: 4 bytes a score
    "grid_entries_not_bytes": (lambda make: make(6), lambda: 4 * 6 * 6),
    "grid_one_row": (lambda make: make(6), lambda: 4 * 6 * 6),
    "grid_float64": (lambda make: make(6), lambda: 4 * 6 * 6),
    "grid_bits": (lambda make: make(6), lambda: 4 * 6 * 6),
    "grid_in_mib": (lambda make: make(6), lambda: 4 * 6 * 6),
    "grid_in_mb": (lambda make: make(6), lambda: 4 * 6 * 6),
    # a huge temperature: each of num_tokens weights tends to 1 / num_tokens
    "hot_weights_vanish": (lambda make: make(6), lambda: 1 / 6),
    "hot_weights_to_one": (lambda make: make(6), lambda: 1 / 6),
    "hot_weights_count": (lambda make: make(6), lambda: 1 / 6),
    # context from scratch: "step" of inputs twice as long, not of the book's inputs
    "not_from_scratch": (
        lambda make: make(2 * INPUTS, 5),
        lambda: torch.softmax(2 * INPUTS @ (2 * INPUTS[5]), dim=-1) @ (2 * INPUTS),
    ),
    # blockwise attention, in blocks of 2 keys of BLOCK_QKV
    **{
        name: (lambda make: blocks(*BLOCK_QKV, 2, make), _blockwise_whole)
        for name in (
            "no_rescale",
            "context_not_rescaled",
            "sum_not_rescaled",
            "new_block_rescaled",
            "rescale_divides",
            "block_replaces_sums",
            "block_sum_of_all",
            "running_sum_no_keepdim",
        )
    },
    # multi-head attention
    "heads_cat_wrong_axis": (_wrapper_on_batch, _right_wrapper_on_batch),
    "heads_summed": (_wrapper_on_batch, _right_wrapper_on_batch),
    "split_transpose_last": (
        lambda make: make(X_HEADS, 2),
        lambda: X_HEADS.view(1, 6, 2, 2).transpose(1, 2),
    ),
    "d_out_per_head": (lambda make: make(X_HEADS, 2), lambda: RAISES),
    "wrapper_d_out_total": (lambda make: _two_features(make), lambda: _two_features()),
    "wrapper_one_head": (lambda make: _two_features(make), lambda: _two_features()),
    "view_without_contiguous": (lambda make: make(CONTEXT_HEADS), lambda: RAISES),
    "split_without_transpose": (
        lambda make: make(X_HEADS, 2),
        lambda: X_HEADS.view(1, 6, 2, 2).transpose(1, 2),
    ),
    "merge_without_transpose": (
        lambda make: make(CONTEXT_HEADS),
        lambda: CONTEXT_HEADS.transpose(1, 2).reshape(1, 6, 4),
    ),
    "head_strided": (lambda make: make(MHA, INPUTS, 1), lambda: _head_weights(1)),
    "head_scale_d_out": (lambda make: make(MHA, INPUTS, 1), lambda: _head_weights(1)),
    "head_unmasked": (lambda make: make(MHA, INPUTS, 1), lambda: _head_weights(1)),
    # the wrapper's heads inside MultiHeadAttention (07.copy_heads)
    "out_proj_left_random": (_copied, _two_heads),
    "out_proj_bias_kept": (_copied, _two_heads),
    "heads_reversed": (_copied, _two_heads),
    # the mean score of entries drawn like torch.rand (05.expected_score): 64 terms of 1/4
    "expected_score_zero": (lambda make: make(64), lambda: torch.tensor(16.0)),
    "expected_score_one_mean": (lambda make: make(64), lambda: torch.tensor(16.0)),
    "expected_score_square": (lambda make: make(64), lambda: torch.tensor(16.0)),
    "expected_score_spread": (lambda make: make(64), lambda: torch.tensor(16.0)),
    # 05.query_scaled: W_query times c raises each weight to the power c, rows renormalised
    **{
        name: (lambda make: make(WEIGHTS, 2.0), lambda: WEIGHTS**2 / (WEIGHTS**2).sum(-1, True))
        for name in (
            "query_scale_cancels",
            "query_scale_times_c",
            "query_scale_squared",
            "query_scale_not_renormalised",
            "query_scale_weights_as_scores",
        )
    },
    # 06.last_row: the last token sees every token, so its row is the causal layer's last row
    **{
        name: (
            lambda make: make(LAST_ROW_LAYER, INPUTS),
            lambda: LAST_ROW_LAYER(INPUTS[None])[0, -1],
        )
        for name in (
            "last_row_own_value",
            "last_row_first_query",
            "last_row_unscaled",
            "last_row_inputs_blended",
        )
    },
    # 07.one_head: head 1's weights, its queries and keys cut by view and transpose
    **{
        name: (
            lambda make: make(ONE_HEAD_LAYER, INPUTS, 1),
            lambda: _head_weights(ONE_HEAD_LAYER, INPUTS, 1),
        )
        for name in ("head_strided", "head_scale_d_out", "head_unmasked")
    },
    # training (notebook 10)
    "targets_not_shifted": (lambda make: make(TOKEN_IDS, 3, 8), lambda: TOKEN_IDS[4:12]),
    "targets_shifted_back": (lambda make: make(TOKEN_IDS, 3, 8), lambda: TOKEN_IDS[4:12]),
    "targets_one_short": (lambda make: make(TOKEN_IDS, 3, 8), lambda: TOKEN_IDS[4:12]),
    "targets_one_long": (lambda make: make(TOKEN_IDS, 3, 8), lambda: TOKEN_IDS[4:12]),
    "grads_not_zeroed": (
        lambda make: after_steps(make, 11, 2, 5),
        lambda: after_steps(_a_training_step, 11, 2, 5),
    ),
    "no_update": (
        lambda make: after_steps(make, 11, 2, 5),
        lambda: after_steps(_a_training_step, 11, 2, 5),
    ),
    "uniform_log2": (lambda make: make(1157), lambda: math.log(1157)),
    "uniform_log10": (lambda make: make(1157), lambda: math.log(1157)),
    "uniform_probability": (lambda make: make(1157), lambda: math.log(1157)),
    "uniform_log_sign": (lambda make: make(1157), lambda: math.log(1157)),
}


def test_every_mistake_with_a_make_is_made_here():
    assert set(MADE) == {name for name, mistake in MISTAKES.items() if mistake.make is not None}


def _differs(got, expected) -> bool:
    """Whether ``got`` is something else than ``expected``: a tensor, a number or a tuple."""
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == len(expected):
        return any(_differs(g, e) for g, e in zip(got, expected, strict=True))
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor)
        return (
            got.shape != expected.shape
            or got.dtype != expected.dtype
            or not torch.allclose(got.float(), expected.float())
        )
    if isinstance(expected, float):
        return not math.isclose(float(got), expected, rel_tol=1e-3)
    return got != expected


@pytest.mark.parametrize("name", MADE)
def test_each_made_mistake_gives_something_else_than_the_correct_result(name):
    make, correct = MADE[name]
    expected = correct()
    if expected is RAISES:
        with pytest.raises(RAISES):
            make(MISTAKES[name].make)
        return
    assert _differs(make(MISTAKES[name].make), expected)


def _diagnosed(name: str) -> tuple[torch.Tensor, int | None]:
    """A reader's tensor with mistake ``name`` of notebooks 01-04, and the query it is for."""
    hand_made = {
        "wrong_query_index": (WEIGHTS[2] @ INPUTS, 1),
        "wrong_pairing": (reader_context(WEIGHTS[1], pair=swap_0_1), 1),
        "no_zero_start": (reader_context(WEIGHTS[1], start=INPUTS[1]), 1),
    }
    if name in hand_made:
        return hand_made[name]
    return MADE[name][0](MISTAKES[name].make), None


@pytest.mark.parametrize(
    "name",
    [
        "wrong_query_index",
        "softmax_dim0",
        "wrong_pairing",
        "no_zero_start",
        "transposed_product",
        "no_exp",
        "same_token",
    ],
)
def test_diagnose_names_each_mistake_of_notebooks_01_to_04(name):
    result, query = _diagnosed(name)
    assert diagnose(result, query=query).mistake == name


@pytest.mark.parametrize(
    "name, words", [("no_keepdim", "keepdim=True"), ("weights_transposed", "attn_weights.T")]
)
def test_mistakes_that_give_softmax_dim0s_numbers_are_named_by_its_hint(name, words):
    # On the example's symmetric scores these give exactly softmax(dim=0)'s tensor: no value
    # can tell them apart, so the hint of softmax_dim0 names them too.
    result, query = _diagnosed(name)
    found = diagnose(result, query=query)
    assert found.mistake == "softmax_dim0" and words in found.hint


# --- at the edges: the whole text of each failure, one- and two-token sentences, the reader's ---
# own inputs, long sentences, and what diagnose says about stages. Expected values come from
# plain torch, from the definition of each mistake, or are written out by hand.

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
