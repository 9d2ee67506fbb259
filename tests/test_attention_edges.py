"""attnlib.attention at its edges: the whole sentence of each refusal, batches and masks that
broadcast, and scores far apart.

Found by mutation testing (`make mutants`): each test here fails when one argument name,
shape, axis or rule in attention.py is changed. Expected values come from plain torch or
are written out by hand, never from attnlib.
"""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import time

import pytest
import torch
import torch.nn.functional as F

from attnlib import attention as A
from attnlib.checks import check_scores
from attnlib.modules import CausalAttention
from attnlib.plots import weights_bar

F32 = torch.ones(4, 3)
F64 = torch.ones(4, 3, dtype=torch.float64)
HUGE = torch.full((4, 3), 1e20)  # its dot products, 3e40, overflow float32
NAN = float("nan")

OVERFLOW = "the numbers overflowed; use smaller inputs (or scale)"
BAD_VALUES = "the values hold inf or NaN, or their blend overflowed; use finite, smaller values"


def refusal(id: str, call, message: str):
    return pytest.param(call, message, id=id)


# The reader sees the whole sentence: the argument's name first, then what was expected
# (with the course's names for the axes), then what came.
REFUSALS = [
    # scores
    refusal("loop-1d", lambda: A.attention_scores_loop(torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refusal("loop-3d", lambda: A.attention_scores_loop(torch.ones(2, 4, 3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 4, 3)"),
    refusal("loop-overflow", lambda: A.attention_scores_loop(HUGE),
            f"attn_scores: got inf or NaN; {OVERFLOW}"),
    refusal("scores-1d", lambda: A.attention_scores(torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refusal("scores-overflow", lambda: A.attention_scores(HUGE),
            f"attn_scores: got inf or NaN; {OVERFLOW}"),
    # softmax
    refusal("softmax_naive-empty", lambda: A.softmax_naive(torch.ones(2, 0)),
            "x: expected no empty axis in (..., n), got shape (2, 0)"),
    refusal("softmax_naive-overflow", lambda: A.softmax_naive(torch.tensor([1.0, 2.0, 100.0])),
            "softmax_naive(x): got inf or NaN; exp overflowed (scores above ~88 in float32); "
            "use softmax, which subtracts the max"),
    refusal("softmax-empty", lambda: A.softmax(torch.ones(0)),
            "x: expected no empty axis in (..., n), got shape (0,)"),
    refusal("softmax-nan", lambda: A.softmax(torch.tensor([0.0, NAN, 1.0])),
            "softmax(x): got inf or NaN; no +inf or NaN: softmax needs finite scores, or -inf "
            "where masked"),
    # one context vector
    refusal("context_vector-1d-inputs", lambda: A.context_vector(torch.ones(3), torch.ones(3)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 1-d shape (3,)"),
    refusal("context_vector-3d-inputs",
            lambda: A.context_vector(torch.ones(2, 4, 3), torch.ones(4)),
            "inputs: expected shape (num_tokens, d_in) (2-d), got 3-d shape (2, 4, 3)"),
    refusal("context_vector-3-weights", lambda: A.context_vector(F32, torch.ones(3)),
            "weights: expected one weight per input, num_tokens = 4, got 3 (shape (3,))"),
    refusal("context_vector-float64-weights", lambda: A.context_vector(F32, torch.ones(4).double()),
            "weights: expected dtype torch.float32 on cpu (as inputs), got dtype torch.float64 "
            "on cpu; convert with weights.to(torch.float32) (or .to('cpu'))"),
    refusal("context_vector-overflow",
            lambda: A.context_vector(torch.full((2, 3), 3e38), torch.ones(2)),
            f"context_vec: got inf or NaN; {OVERFLOW}"),
    # all context vectors
    refusal("context_vectors-1d-weights", lambda: A.context_vectors(torch.ones(4), F32),
            "attn_weights: expected shape (..., num_queries, num_tokens) (at least 2-d), "
            "got 1-d shape (4,)"),
    refusal("context_vectors-1d-inputs", lambda: A.context_vectors(torch.ones(4, 4), torch.ones(4)),
            "inputs: expected shape (..., num_tokens, d) (at least 2-d), got 1-d shape (4,)"),
    refusal("context_vectors-5-columns", lambda: A.context_vectors(torch.ones(4, 5), F32),
            "attn_weights: expected one column per input token = 4, got 5 (shape (4, 5))"),
    refusal("context_vectors-float64-inputs", lambda: A.context_vectors(torch.ones(4, 4), F64),
            "attn_weights: expected dtype torch.float64 on cpu (as inputs), got dtype "
            "torch.float32 on cpu; convert with attn_weights.to(torch.float64) (or .to('cpu'))"),
    refusal("context_vectors-overflow",
            lambda: A.context_vectors(torch.ones(1, 2), torch.full((2, 3), 3e38)),
            f"context_vecs: got inf or NaN; {OVERFLOW}"),
    # the causal mask: the limit is checked on the first size itself
    refusal("causal_mask-too-long", lambda: A.causal_mask(10**6),
            "num_tokens: expected an int <= 16384 (the limit), got 1000000"),
    # queries against keys
    refusal("sdpa-1d-queries", lambda: A.scaled_dot_product_attention(torch.ones(3), F32, F32),
            "queries: expected shape (..., num_queries, d_k) (at least 2-d), got 1-d shape (3,)"),
    refusal("sdpa-1d-keys", lambda: A.scaled_dot_product_attention(F32, torch.ones(3), F32),
            "keys: expected shape (..., num_keys, d_k) (at least 2-d), got 1-d shape (3,)"),
    refusal("sdpa-d_k", lambda: A.scaled_dot_product_attention(F32, torch.ones(4, 2), F32),
            "keys: expected the queries' last dimension d_k = 3, got 2 (shape (4, 2))"),
    refusal("sdpa-float64-keys", lambda: A.scaled_dot_product_attention(F32, F64, F32),
            "keys: expected dtype torch.float32 on cpu (as queries), got dtype torch.float64 "
            "on cpu; convert with keys.to(torch.float32) (or .to('cpu'))"),
    refusal("weights-batches",
            lambda: A.attention_weights(torch.ones(2, 5, 3), torch.ones(3, 5, 3)),
            "expected batch axes that broadcast together, got queries (2,), keys (3,)"),
    refusal("weights-mask-too-big",
            lambda: A.attention_weights(F32, F32, hidden=torch.ones(5, 5, dtype=torch.bool)),
            "hidden: expected a shape broadcastable to the scores' (4, 4), got (5, 5); slice a "
            "longer mask with mask[:num_tokens, :num_tokens]"),
    refusal("sdpa-float-mask",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, attn_mask=torch.ones(4, 4)),
            "attn_mask: expected a bool tensor (True = attend, as torch's), got a tensor of "
            "shape (4, 4) and dtype torch.float32"),
    refusal("weights-overflow", lambda: A.attention_weights(F32, F32, scale=1e300),
            f"attn_weights: got inf or NaN; either {OVERFLOW}, or a mask hides every key of a "
            "query (an inverted mask?)"),
    # dropout
    refusal("sdpa-dropout-a-float",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=0.1),
            "dropout: expected a callable such as torch.nn.Dropout(p), got float 0.1"),
    refusal("sdpa-dropout-returns-a-float",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: 0.5),
            "dropout: expected it to return the weights' shape, got float 0.5"),
    refusal("sdpa-dropout-returns-a-column",
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: w[:, :1]),
            "dropout: expected it to return the weights' shape, got a tensor of shape (4, 1) "
            "and dtype torch.float32"),
]  # fmt: skip

# Both functions that blend values refuse the same values in the same words.
VALUES = [
    ("1d", lambda: (F32, F32, torch.ones(4)),
     "values: expected shape (..., num_keys, d_v) (at least 2-d), got 1-d shape (4,)"),
    ("rows", lambda: (F32, F32, torch.ones(5, 3)),
     "values: expected one row per key, num_keys = 4, got 5 (shape (5, 3))"),
    ("float64", lambda: (F32, F32, F64),
     "values: expected dtype torch.float32 on cpu (as queries), got dtype torch.float64 "
     "on cpu; convert with values.to(torch.float32) (or .to('cpu'))"),
    ("batches", lambda: (torch.ones(2, 5, 3), torch.ones(5, 3), torch.ones(3, 5, 3)),
     "expected batch axes that broadcast together, got queries (2,), keys (), values (3,)"),
    ("none", lambda: (F32, F32, None),
     "values: expected a torch.Tensor of floats, got NoneType None"),
    ("nan", lambda: (F32, F32, torch.full((4, 3), NAN)),
     f"context_vecs: got inf or NaN; {BAD_VALUES}"),
]  # fmt: skip
REFUSALS += [
    refusal(f"{name}-{case}-values", lambda f=f, args=args: f(*args()), message)
    for name, f in (("sdpa", A.scaled_dot_product_attention), ("blockwise", A.blockwise_attention))
    for case, args, message in VALUES
]  # fmt: skip


@pytest.mark.parametrize("call, message", REFUSALS)
def test_a_refusal_names_the_argument_what_was_expected_and_what_came(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# --- shapes that broadcast ---------------------------------------------------------------------


def test_context_vectors_of_a_batch_with_fewer_queries_than_tokens():
    gen = torch.Generator().manual_seed(0)
    attn_weights = torch.softmax(torch.rand(2, 3, 4, generator=gen), dim=-1)  # 3 queries
    inputs = torch.rand(2, 4, 5, generator=gen)  # 4 tokens
    expected = torch.einsum("bqt,btd->bqd", attn_weights, inputs)
    torch.testing.assert_close(A.context_vectors(attn_weights, inputs), expected)


@pytest.mark.parametrize("shape", [(4,), (1, 4)], ids=["(num_keys,)", "(1, num_keys)"])
def test_a_mask_of_one_row_hides_the_same_keys_from_every_query(shape):
    gen = torch.Generator().manual_seed(1)
    queries, keys = torch.rand(3, 2, generator=gen), torch.rand(4, 2, generator=gen)
    mask = torch.tensor([False, True, False, True]).reshape(shape)
    scores = (queries @ keys.T).masked_fill(torch.tensor([False, True, False, True]), -math.inf)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=mask)
    torch.testing.assert_close(got, torch.softmax(scores, dim=-1))
    assert (got[:, [1, 3]] == 0).all()


def test_a_batch_of_queries_over_shared_keys_takes_a_mask_per_sequence():
    gen = torch.Generator().manual_seed(2)
    queries, keys = torch.rand(2, 5, 3, generator=gen), torch.rand(5, 3, generator=gen)
    mask = torch.zeros(2, 5, 5, dtype=torch.bool)
    mask[0, :, 4] = True  # sequence 0 hides key 4, sequence 1 hides nothing
    scores = (queries @ keys.T).masked_fill(mask, -math.inf)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=mask)
    torch.testing.assert_close(got, torch.softmax(scores, dim=-1))


def test_an_int_too_big_for_a_float_is_refused_in_words_not_by_float():
    # float(10**400) raises OverflowError: check.is_real turns such an int away first.
    queries = torch.ones(2, 3)
    expected = "^scale: expected a float > 0, a positive finite number, got int 1000"
    with pytest.raises(ValueError, match=expected):
        A.attention_weights(queries, queries, scale=10**400)
    with pytest.raises(ValueError, match=r"^dropout: expected a float in \[0, 1\), got int 1000"):
        CausalAttention(3, 2, context_length=4, dropout=10**400)


def test_batch_axes_beyond_numpys_64_broadcast_as_torch_broadcasts_them():
    # numpy's broadcast_shapes stops at 64 axes; torch does not, so neither may the check.
    gen = torch.Generator().manual_seed(3)
    queries = torch.rand((1,) * 68 + (3, 4), generator=gen)
    keys = torch.rand((1,) * 67 + (2, 5, 4), generator=gen)
    got = A.attention_weights(queries, keys, scale=1.0, hidden=torch.zeros(5, dtype=torch.bool))
    assert got.shape == (1,) * 67 + (2, 3, 5)
    expected = torch.softmax(queries @ keys.transpose(-2, -1), dim=-1)
    torch.testing.assert_close(got.reshape(2, 3, 5), expected.reshape(2, 3, 5))  # its 64-axis cap


# --- scores far apart: each row is shifted by its own maximum -----------------------------------

FAR_APART = torch.tensor([[0.0, 1.0], [-200.0, -199.0]])  # row 1 far below the grid's maximum


def test_softmax_of_rows_far_apart_is_each_rows_own():
    # softmax([0, 1]) = [1 / (1 + e), e / (1 + e)], and a shift of a whole row cancels.
    row = [1 / (1 + math.e), math.e / (1 + math.e)]
    torch.testing.assert_close(A.softmax(FAR_APART), torch.tensor([row, row]))
    torch.testing.assert_close(A.softmax(FAR_APART.T, dim=0), torch.tensor([row, row]).T)


@pytest.mark.parametrize("block_size", [1, 128])
def test_blockwise_attention_of_queries_far_apart_matches_torch(block_size):
    # Scaled scores of about +-212: one query's exps, taken against the other's maximum, vanish.
    queries = torch.tensor([[300.0, 0.0], [-300.0, 0.0]])
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    values = torch.tensor([[1.0], [2.0]])
    got = A.blockwise_attention(queries, keys, values, block_size=block_size)
    torch.testing.assert_close(got, F.scaled_dot_product_attention(queries, keys, values))


# --- sizes refused before they are tried: one rule, bytes against a 2 GiB limit ------------------

LIMIT = "over the limit of 2,147,483,648 bytes (2 GiB)"
BIG = torch.zeros(1, 1).expand(100_000, 1)  # 100,000 tokens in 4 bytes of storage


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.attention_scores(torch.zeros(1, 1).expand(200_000, 1)),
            "attention_scores: inputs (copied) (200000, 1) + attn_scores (200000, 200000) need "
            f"160,000,800,000 bytes, {LIMIT}",
            id="scores-200000-tokens",
        ),
        pytest.param(
            lambda: A.softmax(torch.zeros(1).expand(100_000, 100_000)),
            "softmax(x): exps (100000, 100000) + weights (100000, 100000) need "
            f"80,000,000,000 bytes, {LIMIT}",
            id="softmax-expanded",
        ),
        pytest.param(
            lambda: A.softmax_naive(torch.zeros(1, dtype=torch.float64).expand(30_000, 10_000)),
            "softmax(x): exps (30000, 10000) + weights (30000, 10000) need 4,800,000,000 bytes, "
            f"{LIMIT}",
            id="softmax_naive-float64",
        ),
        pytest.param(
            lambda: A.attention_weights(BIG, BIG),
            "attention_weights: queries (copied) (100000, 1) + keys (copied) (100000, 1) + "
            "attn_scores (100000, 100000) + attn_weights (100000, 100000) need "
            f"80,000,800,000 bytes, {LIMIT}",
            id="weights",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(BIG, BIG, BIG),
            "scaled_dot_product_attention: queries (copied) (100000, 1) + keys (copied) "
            "(100000, 1) + values (copied) (100000, 1) + attn_scores (100000, 100000) + "
            "attn_weights (100000, 100000) + context_vecs (100000, 1) need 80,001,600,000 bytes, "
            f"{LIMIT}",
            id="sdpa",
        ),
        pytest.param(
            lambda: A.blockwise_attention(BIG, BIG, BIG, block_size=10**5),
            "blockwise_attention: queries (copied) (100000, 1) + keys (copied) (100000, 1) + "
            "values (copied) (100000, 1) + a block of attn_scores (100000, 100000) + its exps "
            f"(100000, 100000) + context_vecs (100000, 1) need 80,001,600,000 bytes, {LIMIT}",
            id="blockwise-one-big-block",
        ),
        pytest.param(
            lambda: A.context_vectors(BIG, torch.zeros(1, 1).expand(1, 100_000)),
            "context_vectors: attn_weights (copied) (100000, 1) + inputs (copied) (1, 100000) + "
            f"context_vecs (100000, 100000) need 40,000,800,000 bytes, {LIMIT}",
            id="context_vectors",
        ),
    ],
)
def test_a_call_that_needs_more_than_the_memory_limit_is_refused_naming_its_bytes(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_blockwise_attention_in_small_blocks_is_not_held_to_the_whole_grid():
    queries = torch.zeros(1, 1).expand(3_000, 1)
    # 3,000 x 3,000 scores would be 36 MB; blocks of 16 keys hold 192 KB at a time.
    assert A.blockwise_attention(queries, queries, queries[:, :1], block_size=16).shape == (3000, 1)


# --- the odd calls issue 32 found: each refused in words at once, in a child as they were run -----

WORK = (
    "over the limit of 8,589,934,592 (a few seconds; a multiply-add is 1 step, an entry 128, "
    "a row of softmax 1024)"
)
BATCH = torch.zeros(1, 1, 1).expand(30_000_000, 2, 1)  # 30 million sequences of 2 tokens


def in_a_child(call, seconds: int = 10, memory: int = 4 * 1024**3) -> tuple[str, str]:
    """What ``call()`` does in a forked child with ``memory`` bytes of address space and
    ``seconds`` of time, as the odd calls were run: ``(exception's name, message)``,
    ``("returned", "")`` or ``("hang", "")``; so a regression fails here instead of hanging."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            signal.alarm(seconds)
            call()
            outcome = ["returned", ""]
        except BaseException as err:  # noqa: BLE001  what it raised is the answer
            outcome = [type(err).__name__, str(err)]
        os.write(write, json.dumps(outcome).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return tuple(json.loads(data)) if data and not os.WIFSIGNALED(status) else ("hang", "")


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.attention_weights(BATCH, BATCH),
            "attention_weights: queries (copied) (30000000, 2, 1) + keys (copied) (30000000, 2, 1)"
            " + attn_scores (30000000, 2, 2) + attn_weights (30000000, 2, 2) take about "
            f"76,920,000,000 steps of work, {WORK}",
            id="weights-huge-batch",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(BATCH, BATCH, BATCH),
            "scaled_dot_product_attention: queries (copied) (30000000, 2, 1) + keys (copied) "
            "(30000000, 2, 1) + values (copied) (30000000, 2, 1) + attn_scores (30000000, 2, 2) + "
            "attn_weights (30000000, 2, 2) + context_vecs (30000000, 2, 1) take about "
            f"84,720,000,000 steps of work, {WORK}",
            id="sdpa-huge-batch",
        ),
        pytest.param(
            lambda: A.blockwise_attention(BATCH, BATCH, BATCH),
            "blockwise_attention: queries (copied) (30000000, 2, 1) + keys (copied) "
            "(30000000, 2, 1) + values (copied) (30000000, 2, 1) + a block of attn_scores "
            "(30000000, 2, 2) + its exps (30000000, 2, 2) + context_vecs (30000000, 2, 1) take "
            f"about 77,040,000,000 steps of work, {WORK}",
            id="blockwise-huge-batch",
        ),
        pytest.param(
            lambda: A.context_vector(
                torch.zeros(1, 3).expand(10**6, 3), torch.zeros(1).expand(10**6)
            ),
            "inputs: expected at most 65536 tokens (the loop takes one Python step per token; use "
            "context_vectors), got 1000000",
            id="context_vector-a-million-tokens",
        ),
        pytest.param(
            lambda: A.context_vectors(
                torch.zeros(1, 1).expand(10**5, 10**5), torch.zeros(1, 1).expand(10**5, 1)
            ),
            "context_vectors: attn_weights (copied) (100000, 100000) + inputs (copied) (100000, 1) "
            f"+ context_vecs (100000, 1) need 40,000,800,000 bytes, {LIMIT}",
            id="context_vectors-expanded",
        ),
        pytest.param(
            lambda: check_scores(torch.zeros(6, 6), inputs=torch.zeros(1, 3).expand(23_000, 3)),
            "attention_scores: inputs (copied) (23000, 3) + attn_scores (23000, 23000) take about "
            f"69,299,000,000 steps of work, {WORK}",
            id="check_scores-expanded-inputs",
        ),
        pytest.param(
            lambda: weights_bar(torch.tensor(0.5).to_sparse(), ["a"]),
            "weights: expected a dense tensor (layout torch.strided), got layout torch.sparse_coo; "
            "use weights.to_dense()",
            id="weights_bar-sparse-0-d",
        ),
        pytest.param(
            lambda: A.softmax(torch.tensor([[0.0, 1.0], [-math.inf, -math.inf]])),
            "x: expected a score above -inf in every slice along dim=-1 (is a mask hiding all?), "
            "got only -inf in x[1, :]",
            id="softmax-a-row-of-only-minus-inf",
        ),
        pytest.param(
            lambda: A.softmax_naive(torch.full((2, 3), -math.inf), dim=0),
            "x: expected a score above -inf in every slice along dim=0 (is a mask hiding all?), "
            "got only -inf in x[:, 0]",
            id="softmax_naive-a-column-of-only-minus-inf",
        ),
    ],
)
def test_an_odd_call_is_refused_in_words_at_once(call, message):
    start = time.monotonic()
    kind, said = in_a_child(call)
    assert (kind, said) == ("ValueError", message)
    assert time.monotonic() - start < 5, "refused, but only after the work it refuses"


def test_the_child_tells_a_hang_and_a_raw_error_from_a_refusal():
    assert in_a_child(lambda: time.sleep(5), seconds=1) == ("hang", "")
    assert in_a_child(lambda: torch.ones(2) @ torch.ones(3))[0] == "RuntimeError"
    too_big = in_a_child(lambda: torch.empty(2**31), memory=2**30)
    assert too_big[0] == "RuntimeError" and "alloc" in too_big[1]


def test_the_loop_has_its_own_limit_on_tokens():
    with pytest.raises(ValueError) as info:
        A.attention_scores_loop(torch.zeros(1, 3).expand(400, 3))
    assert str(info.value) == (
        "inputs: expected at most 256 tokens (the loop takes num_tokens**2 Python steps; "
        "use attention_scores), got 400"
    )


# --- no raw exception from torch: what torch cannot take is refused in words -------------------

AXES_65 = torch.ones((1,) * 63 + (2, 3))  # 65 axes, one more than torch's elementwise operations


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(
            lambda: A.softmax(AXES_65),
            "x: expected at most 64 axes (torch's elementwise operations take no more), got 65-d",
            id="softmax",
        ),
        pytest.param(
            lambda: A.softmax_naive(AXES_65),
            "x: expected at most 64 axes (torch's elementwise operations take no more), got 65-d",
            id="softmax_naive",
        ),
        pytest.param(
            lambda: A.blockwise_attention(AXES_65, AXES_65, AXES_65),
            "queries, keys: expected scores of at most 64 axes, torch's elementwise limit, "
            "got 65-d",
            id="blockwise",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(AXES_65, AXES_65, AXES_65 * NAN),
            f"context_vecs: got inf or NaN; {BAD_VALUES}",
            id="sdpa-65-axes-nan",
        ),
        pytest.param(
            lambda: A.attention_scores(torch.ones(3, 3).to_sparse()),
            "inputs: expected a dense tensor (layout torch.strided), got layout torch.sparse_coo; "
            "use inputs.to_dense()",
            id="sparse-scores",
        ),
        pytest.param(
            lambda: A.softmax(torch.ones(3, 3).to_sparse_csr()),
            "x: expected a dense tensor (layout torch.strided), got layout torch.sparse_csr; "
            "use x.to_dense()",
            id="sparse-softmax",
        ),
        pytest.param(
            lambda: A.scaled_dot_product_attention(F32, F32, F32, dropout=lambda w: w.double()),
            "dropout(attn_weights): expected dtype torch.float32 on cpu (as attn_weights), got "
            "dtype torch.float64 on cpu",
            id="dropout-returns-float64",
        ),
    ],
)
def test_what_torch_would_refuse_with_its_own_error_is_refused_in_words(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(message)
