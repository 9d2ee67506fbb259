"""A search over every public name of attnlib with odd arguments, in ``make check-all``.

The names come from ``attnlib.__all__`` and the classes and functions defined in
``attnlib.modules``, never from a hand list, so a new public name is searched the day it is
added. Each call ends in one class: ``result`` (returned, every float tensor in it finite),
``refused`` (``ValueError`` or ``CheckpointError`` with words), ``raw`` (any other exception),
``hang`` (more than ``HANG_SECONDS``) or ``silent`` (returned inf or NaN although every tensor
given was finite: a result a reader would take for an answer). A constructed layer is
then called on an odd ``x`` too, counted under ``<name>.forward``. The report prints the
counts of each class per name; the search passes with 0 raw, 0 hangs and 0 silent.
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

import attnlib
from attnlib import modules
from attnlib._validate import describe

pytestmark = pytest.mark.check_all

CALLS = int(os.environ.get("ATTNLIB_FUZZ_CALLS", "300"))  #: calls per public name
HANG_SECONDS = 10
REFUSED = (ValueError, attnlib.CheckpointError)
DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool)
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
    return values.to(rng.choice(DTYPES))


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
    except REFUSED as err:
        return ("refused" if str(err).strip() else "raw"), None
    except Exception:
        return "raw", None
    finally:
        signal.alarm(0)
    silent = non_finite(result) and not non_finite([*args, *kwargs.values()])
    return ("silent" if silent else "result"), result


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
