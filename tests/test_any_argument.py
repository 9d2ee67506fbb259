"""Whatever a reader passes to attnlib, the answer is a result or an error in words.

The course's rule: nothing a reader can do ends in a raw torch, numpy or matplotlib
error. Two searches hold attnlib to it:

- Hypothesis draws arguments a reader might pass by accident (wrong types, wrong ranks and
  sizes, empty axes, integer, bool, complex and half-precision tensors, meta tensors, NaN and
  inf, numpy arrays, nested lists) and calls every public function with them: each call must
  return, or raise ``ValueError`` (``CheckpointError`` from a checkpoint), whose message names
  an argument or says what was expected. 60 draws per function in ``make test``, 1,000 in
  ``make check-all`` (ATTNLIB_FUZZ_EXAMPLES).
- A seeded random search (``make check-all`` only) over every public name of attnlib, taken
  from ``attnlib.__all__`` and the classes and functions defined in ``attnlib.modules``, never
  from a hand list, so a new public name is searched the day it is added; its odd values
  include huge expanded views, huge batches and rows of only -inf. Each call ends in one
  class: ``result`` (returned, every float tensor in it finite), ``refused`` (``ValueError``
  or ``CheckpointError`` with words), ``raw`` (any other exception), ``hang`` (more than
  ``HANG_SECONDS``) or ``silent`` (returned inf or NaN although every tensor given was
  finite: a result a reader would take for an answer). A constructed layer is then called on
  an odd ``x`` too, counted under ``<name>.forward``. The report prints the counts of each
  class per name; the search passes with 0 raw, 0 hangs and 0 silent.
"""

from __future__ import annotations

import collections
import inspect
import os
import random
import signal
import sys
import time

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attnlib
from attnlib import exercises, modules, plots, widgets
from attnlib._validate import describe

# A warning from inside attnlib is noise a reader did not ask for: in the hypothesis search and
# its kept cases it is an error. (A mark on each of those tests: a module-wide one would outrank
# a test's own filter, and the random search below keeps the configured ones.)
NO_WARNING = pytest.mark.filterwarnings("error")

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


@NO_WARNING
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


@NO_WARNING
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


@NO_WARNING
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


@NO_WARNING
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
]  # fmt: skip


@NO_WARNING
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


@NO_WARNING
@pytest.mark.parametrize("exercise", sorted(exercises.EXERCISES))
@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, derandomize=not FRESH,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(answer=_answers())
def test_an_exercise_judges_any_answer_in_one_line(exercise: str, answer) -> None:
    verdict = exercises.check(exercise, answer)
    assert verdict.status in ("not attempted", "correct", "mistake", "wrong", "refused")
    assert verdict.message.strip() and "\n" not in verdict.message.strip(), verdict.message


@NO_WARNING
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


# ----------------------------------------------------------------------------- the random search
# Every public name, a seeded search of ATTNLIB_FUZZ_CALLS calls each (ATTNLIB_FUZZ_SEED);
# `make check-all` only.

CALLS = int(os.environ.get("ATTNLIB_FUZZ_CALLS", "300"))  #: calls per public name
HANG_SECONDS = 10
FILLS = (0.0, 1.0, -2.5, 1e4, 1e30, float("nan"), float("inf"), float("-inf"))


def public_names() -> dict[str, object]:
    """Every callable of ``attnlib.__all__`` but the result types, and ``attnlib.modules``'s."""
    names = {
        name: getattr(attnlib, name)
        for name in attnlib.__all__
        if callable(getattr(attnlib, name))
        and name not in ("CheckpointError", "Diagnosis")  # what the checks return or raise
    }
    for name, obj in vars(modules).items():
        defined_here = getattr(obj, "__module__", None) == modules.__name__
        if defined_here and not name.startswith("_") and callable(obj):
            names[name] = obj
    names.pop("HeadProjections", None)  # a NamedTuple of results, not something to call
    return names


def odd_tensor(rng: random.Random) -> torch.Tensor:
    """A tensor of rank 0 to 4 (axes of 0 to 7), any dtype and fill; sometimes one on the meta
    device, sparse, of 65 axes, a huge expanded view of 4 bytes (or a huge batch of them), or
    only -inf."""
    kind = rng.randrange(20)
    if kind == 0:
        return torch.empty(rng.randrange(1, 5), 3, device="meta")
    if kind == 1:
        return torch.ones(4, 3).to_sparse()
    if kind == 2:
        return torch.ones((1,) * 63 + (4, 3))
    if kind == 3:
        return torch.zeros(1, 1).expand(rng.choice([100_000, 3_000_000]), rng.choice([1, 100_000]))
    if kind == 4:  # a huge batch of tiny sequences: little memory each, much work in all
        return torch.zeros(1, 1, 1).expand(rng.choice([3_000_000, 30_000_000]), 2, 1)
    if kind == 5:  # one query's only scores, all hidden: no softmax
        return torch.full((rng.randrange(1, 4), 3), -torch.inf)
    shape = [rng.choice([0, 1, 2, 3, 4, 6, 7]) for _ in range(rng.randrange(5))]
    values = torch.full(shape, rng.choice(FILLS)) + torch.rand(shape)
    return values.to(rng.choice(DTYPES[:-1]))  # no complex here


class _BadRepr:
    """An object whose repr raises: a message must not need it."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def odd_value(rng: random.Random) -> object:
    """What a reader might pass by accident, or a good value, for any argument."""
    pool = [
        lambda: odd_tensor(rng),
        lambda: odd_tensor(rng),
        lambda: attnlib.example_inputs() * rng.choice([1.0, -1.0, 1e20]),
        lambda: None,
        lambda: rng.choice([True, False]),
        lambda: rng.choice([-1, 0, 1, 2, 3, 4, 6, 16, 65_536, 10**6, 2**70]),
        lambda: rng.choice([0.0, 0.5, 1.0, -0.5, 1e300, float("nan"), float("inf")]),
        lambda: rng.choice(["", " ", "x", "Your journey starts", "\ud800", "a" * 5000, "$x$"]),
        lambda: rng.choice([[], [1.0, 2.0], [[1.0, 2.0, 3.0]], [["a"]], ("a", "b")]),
        lambda: np.ones(rng.choice([(6, 3), (2, 2), (0,), ()])),
        lambda: rng.choice([np.int64(3), np.float32(0.5), object(), print, _BadRepr()]),
    ]
    return rng.choice(pool)()


def _grid() -> torch.Tensor:
    inputs = attnlib.example_inputs()
    return torch.softmax(inputs @ inputs.T, dim=-1)


# A good value for a parameter of this name, so that a call gets past its first argument and the
# search reaches the later checks and the math; keyed by the parameter's name, not by function.
GOOD = {
    "d_in": lambda: 3,
    "d_out": lambda: 4,
    "context_length": lambda: 6,
    "dropout": lambda: 0.1,
    "num_heads": lambda: 2,
    "qkv_bias": lambda: False,
    "inputs": attnlib.example_inputs,
    "x": attnlib.example_inputs,
    "queries": attnlib.example_inputs,
    "keys": attnlib.example_inputs,
    "values": attnlib.example_inputs,
    "weights": lambda: _grid()[1],
    "attn_weights": _grid,
    "attn_scores": _grid,
    "result": _grid,
    "context": lambda: _grid() @ attnlib.example_inputs(),
    "num_tokens": lambda: 6,
    "num_keys": lambda: 6,
    "dim": lambda: -1,
    "block_size": lambda: 2,
    "sentence": lambda: "Your journey starts",
    "d": lambda: 3,
    "seed": lambda: 1,
    "query": lambda: 1,
    "tokens": lambda: list(attnlib.TOKENS),
    "scale": lambda: 0.5,
    "causal": lambda: True,
    "device": lambda: "cpu",
    "module": lambda: modules.MultiHeadAttention(3, 4, 6, 0.0, 2),
}


def arguments(fn: object, rng: random.Random) -> tuple[list, dict]:
    """For every required parameter of ``fn`` and some optional ones, an odd value or (more
    often, where the parameter's name is known) a good one."""
    args, kwargs = [], {}
    for param in inspect.signature(fn).parameters.values():
        optional = param.default is not param.empty
        if optional and rng.random() < 0.5:
            continue
        good = GOOD.get(param.name)
        value = good() if good and rng.random() < 0.7 else odd_value(rng)
        if param.kind is param.KEYWORD_ONLY:
            kwargs[param.name] = value
        elif param.kind is param.POSITIONAL_OR_KEYWORD:
            args.append(value)
    return args, kwargs


def odd_x(layer: torch.nn.Module, rng: random.Random) -> object:
    """An input for ``layer``: often a sequence or a batch of the book's, else an odd value."""
    inputs = attnlib.example_inputs()[: rng.randrange(1, 7), : getattr(layer, "d_in", 3)]
    good = [inputs, inputs[None], inputs.expand(2, -1, -1), inputs * 1e20]
    return rng.choice(good) if rng.random() < 0.7 else odd_value(rng)


class Hang(Exception):
    """A call that ran past ``HANG_SECONDS``."""


def _alarm(signum, frame):
    raise Hang


def non_finite(result: object) -> bool:
    """Whether ``result`` (a tensor, or a tuple or list holding tensors) holds inf or NaN."""
    if isinstance(result, (tuple, list)):
        return any(non_finite(r) for r in result)
    if isinstance(result, torch.Tensor) and result.is_floating_point():
        finite = result.device.type == "meta" or bool(torch.isfinite(result.reshape(-1)).all())
        return not finite
    return False


def classify(fn: object, args: list, kwargs: dict) -> tuple[str, object]:
    """The class of one call, and its result (``None`` unless it returned)."""
    signal.alarm(HANG_SECONDS)
    try:
        result = fn(*args, **kwargs)
    except Hang:
        return "hang", None
    except ALLOWED as err:
        return ("refused" if str(err).strip() else "raw"), None
    except Exception:
        return "raw", None
    finally:
        signal.alarm(0)
    silent = non_finite(result) and not non_finite([*args, *kwargs.values()])
    return ("silent" if silent else "result"), result


@pytest.mark.check_all
def test_every_public_name_gives_a_result_or_words_for_odd_arguments(capsys):
    names = public_names()
    assert {"softmax", "scaled_dot_product_attention", "MultiHeadAttention"} <= names.keys()
    rng = random.Random(int(os.environ.get("ATTNLIB_FUZZ_SEED", "0")))
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failures = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for name, fn in sorted(names.items()):
            for _ in range(CALLS):
                args, kwargs = arguments(fn, rng)
                with _quiet(capsys):
                    kind, result = classify(fn, args, kwargs)
                counts[name][kind] += 1
                if kind in ("raw", "hang", "silent"):
                    failures.append(f"{kind}: {name}({_shown(args, kwargs)})")
                if isinstance(result, torch.nn.Module):  # then its forward pass, on an odd x
                    x = odd_x(result, rng)
                    kind, _ = classify(result, [x], {})
                    counts[f"{name}.forward"][kind] += 1
                    if kind in ("raw", "hang", "silent"):
                        failures.append(f"{kind}: {name}(...)({describe(x)})")
    finally:
        signal.signal(signal.SIGALRM, previous)
    with capsys.disabled():
        report(counts)
    assert failures == [], failures[:20]


class _quiet:
    """Swallows what a checkpoint prints, so the report stays readable."""

    def __init__(self, capsys):
        self.capsys = capsys

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.capsys.readouterr()
        return False


def _shown(args: list, kwargs: dict) -> str:
    shown = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return ", ".join(shown)


def report(counts: dict[str, collections.Counter]) -> None:
    kinds = ("result", "refused", "raw", "hang", "silent")
    total = collections.Counter()
    lines = []
    for name in sorted(counts):
        total.update(counts[name])
        lines.append(f"{name:<34}" + " ".join(f"{k}={counts[name][k]}" for k in kinds))
    lines.append(f"{'total':<34}" + " ".join(f"{k}={total[k]}" for k in kinds))
    print("\nfuzz report (calls per public name and class)\n" + "\n".join(lines))


@pytest.mark.check_all
def test_the_search_can_tell_each_class(monkeypatch):
    def nan_returner(x):
        return torch.tensor([float("nan")])

    def raw_raiser(x):
        return torch.ones(2) @ torch.ones(3)

    assert classify(nan_returner, [1], {})[0] == "silent"
    assert classify(raw_raiser, [1], {})[0] == "raw"
    assert classify(attnlib.softmax, [torch.ones(2)], {})[0] == "result"
    assert classify(attnlib.softmax, ["x"], {})[0] == "refused"
    monkeypatch.setattr(sys.modules[__name__], "HANG_SECONDS", 1)
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        assert classify(time.sleep, [3], {})[0] == "hang"
    finally:
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.check_all
def test_the_report_counts_every_class_per_name_and_in_all(capsys):
    counts = {
        "softmax": collections.Counter(result=3, refused=2),
        "embed": collections.Counter(raw=1, hang=1, silent=4),
    }
    report(counts)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "fuzz report (calls per public name and class)"
    assert lines[2].split() == ["embed", "result=0", "refused=0", "raw=1", "hang=1", "silent=4"]
    assert lines[3].split() == ["softmax", "result=3", "refused=2", "raw=0", "hang=0", "silent=0"]
    assert lines[4].split() == ["total", "result=3", "refused=2", "raw=1", "hang=1", "silent=4"]
