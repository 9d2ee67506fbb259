"""Whatever a reader passes to attnlib, the answer is a result or an error in words.

The course's rule: nothing a reader can do ends in a raw torch, numpy or matplotlib
error. Hypothesis draws arguments a reader might pass by accident (wrong types, wrong
ranks and sizes, empty axes, integer, bool, complex and half-precision tensors, meta
tensors, NaN and inf, numpy arrays, nested lists) and calls every public function
with them: each call must return, or raise ``ValueError`` (``CheckpointError`` from a
checkpoint), whose message names an argument or says what was expected.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attnlib
from attnlib import exercises, modules, plots, widgets
from attnlib._validate import describe

# A warning from inside attnlib is noise a reader did not ask for: here it is an error.
pytestmark = pytest.mark.filterwarnings("error")

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool,
          torch.complex64)  # fmt: skip


@st.composite
def tensors(draw) -> torch.Tensor:
    """Any rank up to 4, empty axes too, of any dtype; values from 0 to NaN and inf; or meta."""
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    dtype = draw(st.sampled_from(DTYPES))
    if draw(st.integers(0, 9)) == 0:
        return torch.empty(shape, dtype=dtype, device="meta")
    fill = draw(st.sampled_from([0.0, 1.0, -2.5, 1e4, float("nan"), float("inf")]))
    values = torch.full(shape, fill) + torch.arange(torch.Size(shape).numel()).reshape(shape)
    return values.to(dtype)


def readers_values():
    """What a reader might pass by accident, for any argument."""
    return st.one_of(
        tensors(),
        st.none(),
        st.booleans(),
        st.integers(-3, 10),
        st.sampled_from([2**70, -(2**70)]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),
        st.sampled_from(["\ud800", "x" * 5000, "a\x00b", "🙂 " * 40, "$x^2$", " "]),
        st.lists(st.floats(-3, 3), max_size=4),
        st.lists(st.lists(st.integers(0, 3), max_size=3), max_size=3),
        tensors().map(_as_numpy),
    )


def _as_numpy(t: torch.Tensor):
    """The same numbers as a numpy array (numpy has no bfloat16 and meta has no numbers)."""
    return t if t.device.type == "meta" or t.dtype == torch.bfloat16 else t.numpy()


PUBLIC = {
    "attention_scores_loop": attnlib.attention_scores_loop,
    "attention_scores": attnlib.attention_scores,
    "softmax_naive": attnlib.softmax_naive,
    "softmax": attnlib.softmax,
    "context_vector": attnlib.context_vector,
    "context_vectors": attnlib.context_vectors,
    "causal_mask": attnlib.causal_mask,
    "attention_weights": attnlib.attention_weights,
    "scaled_scores": attnlib.attention.scaled_scores,
    "weights_from_scores": attnlib.attention.weights_from_scores,
    "scaled_dot_product_attention": attnlib.scaled_dot_product_attention,
    "blockwise_attention": attnlib.blockwise_attention,
    "check_scores": attnlib.check_scores,
    "check_weights": attnlib.check_weights,
    "check_context": attnlib.check_context,
    "diagnose": attnlib.diagnose,
    "embed": attnlib.embed,
    "tokenize": attnlib.tokenize,
    "split_heads": modules.split_heads,
    "head_projections": modules.head_projections,
    "SelfAttentionV1": modules.SelfAttentionV1,
    "SelfAttentionV2": modules.SelfAttentionV2,
    "CausalAttention": modules.CausalAttention,
    "MultiHeadAttention": modules.MultiHeadAttention,
    "MultiHeadAttentionWrapper": modules.MultiHeadAttentionWrapper,
    "heatmap": plots.heatmap,
    "weights_bar": plots.weights_bar,
    "vectors_3d": plots.vectors_3d,
    "new_figure": plots.new_figure,
    "label_room": plots.label_room,
    "QueryExplorer": widgets.QueryExplorer,
    "SoftmaxAxisExplorer": widgets.SoftmaxAxisExplorer,
    "LoopStepper": widgets.LoopStepper,
    "AttentionExplorer": widgets.AttentionExplorer,
    "attention_view": widgets.attention_view,
    "loop_view": widgets.loop_view,
    "query_view": widgets.query_view,
    "softmax_view": widgets.softmax_view,
}


def parameters(name: str) -> tuple[int, int, list[str], list[str]]:
    """How many positional arguments ``name`` needs and takes; its keyword-only names, the
    required ones first."""
    params = list(inspect.signature(PUBLIC[name]).parameters.values())
    positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    needed = sum(p.default is p.empty for p in positional)
    keywords = [p for p in params if p.kind is p.KEYWORD_ONLY]
    required = [p.name for p in keywords if p.default is p.empty]
    return needed, len(positional), required, [p.name for p in keywords if p.name not in required]


# The same draws on every run, so a failure in CI is one anybody can repeat; set
# ATTNLIB_FUZZ_EXAMPLES (e.g. 2000) for a longer search (make check-all: 1,000), the same
# draws on every run so that CI is repeatable; ATTNLIB_FUZZ_FRESH=1 for fresh random draws.
EXAMPLES = int(os.environ.get("ATTNLIB_FUZZ_EXAMPLES", "0")) or 60
FRESH = os.environ.get("ATTNLIB_FUZZ_FRESH") == "1"
ALLOWED = (ValueError, attnlib.CheckpointError)


def call(name: str, args: list, kwargs: dict | None = None) -> None:
    kwargs = kwargs or {}
    try:
        PUBLIC[name](*args, **kwargs)
    except ALLOWED as err:
        assert str(err).strip(), f"{name}: an error without words"
    except Exception as err:  # anything else is a raw error a reader should never meet
        shown = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
        pytest.fail(f"{name}({', '.join(shown)}) raised {type(err).__name__}: {err}")


@pytest.mark.parametrize("name", sorted(PUBLIC))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not FRESH,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_arguments_give_a_result_or_words(name: str, data: st.DataObject) -> None:
    needed, most, required, optional = parameters(name)
    args = data.draw(st.lists(readers_values(), min_size=needed, max_size=most))
    chosen = data.draw(st.lists(st.sampled_from(optional), unique=True)) if optional else []
    chosen = required + chosen
    call(name, args, {k: data.draw(readers_values(), label=k) for k in chosen})


@pytest.mark.parametrize("name", ["SelfAttentionV1", "SelfAttentionV2"])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not FRESH)
@given(x=readers_values())
def test_a_layer_given_any_x_gives_a_result_or_words(name: str, x) -> None:
    torch.manual_seed(0)
    layer = PUBLIC[name](3, 2)
    try:
        layer(x)
    except ValueError as err:
        assert str(err).strip()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not FRESH)
@given(x=readers_values())
def test_a_causal_layer_given_any_x_gives_a_result_or_words(x) -> None:
    torch.manual_seed(0)
    layers = (modules.CausalAttention(3, 2, 4, 0.0), modules.MultiHeadAttention(3, 2, 4, 0.0, 2),
              modules.MultiHeadAttentionWrapper(3, 2, 4, 0.0, 2))  # fmt: skip
    for layer in layers:
        try:
            layer(x)
        except ValueError as err:
            assert str(err).strip()


def test_the_fuzzer_can_tell_a_raw_error():
    # A public function that let a torch error through would fail this file.
    with pytest.raises(pytest.fail.Exception, match="raised RuntimeError"):
        PUBLIC["_raw"] = lambda x: torch.ones(2) @ torch.ones(3)
        try:
            call("_raw", [np.ones(1)])
        finally:
            del PUBLIC["_raw"]


# Edges the search found, kept as plain cases so that every run tries them.
FOUND = [
    ("causal_mask", [2, None, "xyz"],
     "device: expected None or a device this machine has, e.g. 'cpu', got str 'xyz'"),
    ("causal_mask", [2, None, 0],
     "device: expected None or a device this machine has, e.g. 'cpu', got int 0"),
    ("QueryExplorer", [torch.ones(2, 2, device="meta")],
     "inputs: expected a tensor with values, got one on the meta device"),
    ("SoftmaxAxisExplorer", [torch.ones(2, 2, device="meta")],
     "attn_scores: expected a tensor with values, got one on the meta device"),
    ("heatmap", [torch.ones(2, 2, device="meta"), ["a", "b"], ["a", "b"]],
     "matrix: expected a tensor with values, got one on the meta device"),
    ("weights_bar", [torch.ones(2, device="meta"), ["a", "b"]],
     "weights: expected a tensor with values, got one on the meta device"),
    ("weights_bar", [torch.tensor(0.5).to_sparse(), ["a"]],
     "weights: expected a dense tensor (layout torch.strided), got layout torch.sparse_coo; "
     "use weights.to_dense()"),
    ("heatmap", [torch.ones(2, 2).to_sparse(), ["a", "b"], ["a", "b"]],
     "matrix: expected a dense tensor (layout torch.strided), got layout torch.sparse_coo; "
     "use matrix.to_dense()"),
    ("softmax", [torch.tensor([[0.0, 1.0], [-float("inf"), -float("inf")]])],
     "x: expected a score above -inf in every slice along dim=-1 (is a mask hiding all?), "
     "got only -inf in x[1, :]"),
    ("context_vector", [torch.zeros(1, 3).expand(10**6, 3), torch.zeros(1).expand(10**6)],
     "inputs: expected at most 65536 tokens (the loop takes one Python step per token; use "
     "context_vectors), got 1000000"),
]  # fmt: skip


@pytest.mark.parametrize("name, args, message", FOUND)
def test_an_edge_the_search_found_is_refused_in_words(name: str, args: list, message: str):
    with pytest.raises(ValueError) as info:
        PUBLIC[name](*args)
    assert str(info.value) == message


def _answers():
    """A reader's answer to an exercise: any value, or a function returning one or raising."""
    value = readers_values()
    returning = value.map(lambda v: lambda *args, **kwargs: v)
    raising = st.sampled_from([ValueError, RuntimeError, IndexError, ZeroDivisionError]).map(
        lambda error: lambda *args, **kwargs: (_ for _ in ()).throw(error("reader's bug"))
    )
    return st.one_of(value, returning, raising)


@pytest.mark.parametrize("exercise", sorted(exercises.EXERCISES))
@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(answer=_answers())
def test_an_exercise_judges_any_answer_in_one_line(exercise: str, answer) -> None:
    verdict = exercises.check(exercise, answer)
    assert verdict.status in ("not attempted", "correct", "mistake", "wrong", "refused")
    assert verdict.message.strip() and "\n" not in verdict.message.strip(), verdict.message


def test_an_exercise_judges_the_answers_the_search_found():
    empty = exercises.check("01.loop_body", lambda *args: np.array([], dtype=np.float32))
    assert empty.message == (
        "Not quite: for the book's 6 tokens, got a numpy array, expected a torch tensor of "
        "shape (6, 6)."
    )
    column = exercises.check("01.highest", np.ones((2, 1)))
    assert column.message == (
        "Not quite: expected a token such as 'Your' or its index, got a numpy array of "
        "shape (2, 1)."
    )
    complex_answer = exercises.check("01.dot", lambda a, b: np.complex64(1 + 2j))
    assert complex_answer.message == (  # a constant: the same for every case
        "Not quite: the result does not change with the input: are the arguments used?"
    )
