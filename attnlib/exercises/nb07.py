"""Exercises of notebook 07: multi-head attention, heads side by side, split and merged.

The step-by-step example of the notebook: the book's sentence twice, ``batch`` of shape
``(2, 6, 3)``, projected by ``MultiHeadAttention(3, 12, 6, 0.0, num_heads=3)`` built right after
``torch.manual_seed(123)``: ``d_out = 12``, 3 heads of ``head_dim`` 4. Every function exercise
also runs on seeded random batches of other sizes, numbers of heads and dropout rates, with the
reader's layer and attnlib's built and run under the same seeds.
"""

from __future__ import annotations

from typing import Any

import torch

from attnlib.attention import context_vectors
from attnlib.data import example_inputs
from attnlib.exercises._calls import ATTEND, Forbid, no_forward
from attnlib.exercises._cases import random_tensor
from attnlib.exercises._function import Case, FunctionExercise, detached, rows
from attnlib.exercises._layers import DROPOUT_SEED, build, reused, run, trained
from attnlib.exercises._value import ValueExercise, whole
from attnlib.mistakes import heads
from attnlib.modules import MultiHeadAttention, MultiHeadAttentionWrapper, split_heads

NUM_HEADS = 3  # of the step-by-step example: d_out = 12, head_dim = 4


def _batch() -> torch.Tensor:
    """The book's batch: the example sentence twice, ``(2, 6, 3)``."""
    inputs = example_inputs()
    return torch.stack((inputs, inputs))


def _mha(seed: int, d_in: int, d_out: int, context_length: int, num_heads: int) -> Any:
    """A ``MultiHeadAttention`` built right after ``torch.manual_seed(seed)``, no dropout."""
    return build(MultiHeadAttention, (d_in, d_out, context_length, 0.0, num_heads), seed)


def _example() -> MultiHeadAttention:
    """The notebook's step-by-step layer, with its seed."""
    return _mha(123, 3, 12, 6, NUM_HEADS)


def _merge(context_vec: torch.Tensor) -> torch.Tensor:
    b, num_heads, num_tokens, head_dim = context_vec.shape
    return context_vec.transpose(1, 2).contiguous().view(b, num_tokens, num_heads * head_dim)


# --- 07.wrapper_forward: heads side by side ------------------------------------------------
#: (batch shape, d_out, context_length, dropout, num_heads) of the random cases.
_WRAPPER_SIZES = (((3, 4, 5), 3, 5, 0.3, 3), ((1, 7, 2), 1, 7, 0.5, 2))


def _wrapper_case(label: str, args: tuple, x: torch.Tensor) -> Case:
    """A wrapper built with ``args`` and run on ``x`` after the dropout seed; ``layer`` is
    attnlib's, built the same way (its parameters are the ones a gradient must reach)."""
    layer = build(MultiHeadAttentionWrapper, args)
    return Case(label, {"args": args, "x": x, "seed": DROPOUT_SEED, "layer": layer})


def _wrapper_cases() -> list[Case]:
    cases = [_wrapper_case("the book's batch, d_out 2, 2 heads", (3, 2, 6, 0.0, 2), _batch())]
    for seed, (shape, d_out, length, p, h) in enumerate(_WRAPPER_SIZES):
        label = f"a random batch {shape}, d_out {d_out}, {h} heads, dropout {p}"
        x = random_tensor(*shape, seed=80 + seed)
        cases.append(_wrapper_case(label, (shape[-1], d_out, length, p, h), x))
    return cases


FunctionExercise(
    name="07.wrapper_forward",
    task="write the wrapper's forward: every head on x, their outputs side by side",
    answer_names=("MyWrapper",),
    cases=_wrapper_cases,
    call=run,
    solution=MultiHeadAttentionWrapper,
    gradient=trained,
    rules=(reused(MultiHeadAttentionWrapper),),
    mistakes=rows("heads_cat_wrong_axis", "heads_summed"),
    # the heads are attnlib's CausalAttention, as the notebook hands them out: only the
    # wrapper's own forward is the answer
    forbids=Forbid(attnlib=("MultiHeadAttentionWrapper",), how="with torch.cat"),
    praise="Each token's row now holds head 0's d_out features, then head 1's, and so on.",
)


# --- 07.two_features: the book's exercise 3.2 ------------------------------------------------
def _two_feature_cases() -> list[Case]:
    """As :func:`run` takes them: the layer ``make(d_in, context_length, dropout)`` returns
    is built after seed 123 and run on the case's batch ``x``."""
    batches = [("the book's", 6, 0.0, _batch())]
    for seed, (shape, length, p) in enumerate((((2, 4, 5), 5, 0.0), ((1, 7, 2), 7, 0.5))):
        batches.append(("a random", length, p, random_tensor(*shape, seed=90 + seed)))
    return [
        Case(
            f"{whose} batch {tuple(x.shape)}, context_length {length}, dropout {p:g}",
            {"args": (x.shape[-1], length, p), "x": x, "seed": DROPOUT_SEED},
        )
        for whose, length, p, x in batches
    ]


def _two_heads(d_in: int, length: int, p: float) -> MultiHeadAttentionWrapper:
    return MultiHeadAttentionWrapper(d_in, 1, length, p, num_heads=2)


FunctionExercise(
    name="07.two_features",
    task="return a MultiHeadAttentionWrapper with num_heads=2 whose context vectors have 2 "
    "features",
    answer_names=("two_feature_wrapper",),
    cases=_two_feature_cases,
    call=run,
    solution=_two_heads,
    gradient=trained,
    mistakes=rows("wrapper_d_out_total", "wrapper_one_head"),
    forbids=Forbid(because="building attnlib's wrapper is the task"),
    praise="Two heads of d_out = 1, side by side: (2, 6, 2) for the book's batch.",
)


# --- 07.d_out: is d_out per head or in total? ----------------------------------------------
def _book_layer_sizes() -> tuple[int, int]:
    module = _mha(123, 3, 2, 6, 2)
    with torch.no_grad():
        return module.head_dim, module(_batch()).shape[-1]


#: Pairs a reader may give, and what they would mean for the layer.
_PAIRS_SEEN = {
    (2, 2): "2 features per head, side by side for 2 heads, would give 4 out: both cannot "
    "be 2; which one does d_out = 2 size?",
    (1, 4): "1 feature per head and 2 heads give 2 features out, not 4",
    (2, 1): "swapped? the heads split d_out = 2, so each has fewer features than the output",
}


ValueExercise(
    name="07.d_out",
    task="set features_per_head and out_features for MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)",
    answer_names=("features_per_head", "out_features"),
    accept=whole,
    expected=_book_layer_sizes,
    mistakes={"d_out_per_head": lambda: (2, 4)},
    explain=lambda value: _PAIRS_SEEN.get(value),
    praise="d_out = 2 is shared by the 2 heads: 1 feature each, 2 features out.",
)


# --- 07.split_heads ----------------------------------------------------------------------
def _split_cases() -> list[Case]:
    with torch.no_grad():
        queries = _example().W_query(_batch())
    return [
        Case("the book's queries (2, 6, 12), 3 heads", {"x": queries, "num_heads": NUM_HEADS}),
        Case("random (3, 4, 8), 2 heads", {"x": random_tensor(3, 4, 8, seed=100), "num_heads": 2}),
        Case("random (1, 5, 6), 3 heads", {"x": random_tensor(1, 5, 6, seed=101), "num_heads": 3}),
    ]


FunctionExercise(
    name="07.split_heads",
    task="return x cut into heads, shape (b, num_heads, num_tokens, head_dim)",
    answer_names=("split_heads",),
    cases=_split_cases,
    solution=split_heads,
    gradient=("x",),
    mistakes=rows("split_without_transpose", "split_transpose_last", "d_out_per_head"),
    forbids=Forbid(attnlib=("split_heads",), how="with .view and .transpose"),
    praise="view cuts each token's features into heads; transpose(1, 2) puts the heads "
    "before the tokens.",
)


# --- 07.merge_heads ----------------------------------------------------------------------
def _merge_cases() -> list[Case]:
    module = _example()
    with torch.no_grad():
        module(_batch())
        values = split_heads(module.W_value(_batch()), NUM_HEADS)
    context = context_vectors(module.last_attn_weights, values)
    return [
        Case("the book's context (2, 3, 6, 4)", {"context_vec": context}),
        Case("random (3, 2, 4, 5)", {"context_vec": random_tensor(3, 2, 4, 5, seed=110)}),
        Case("random (1, 4, 3, 2)", {"context_vec": random_tensor(1, 4, 3, 2, seed=111)}),
    ]


FunctionExercise(
    name="07.merge_heads",
    task="return the heads side by side again, shape (b, num_tokens, num_heads * head_dim)",
    answer_names=("merge_heads",),
    cases=_merge_cases,
    solution=_merge,
    gradient=("context_vec",),
    mistakes=rows("merge_without_transpose", "view_without_contiguous"),
    forbids=Forbid(because="attnlib has no merge function; MultiHeadAttention is not called"),
    praise="Each token's row holds its heads' features, head 0 first.",
)


# --- 07.one_head: one head's weights, from the rows of the projections that make it -------
def _one_head_cases() -> list[Case]:
    book = {"mha": _example(), "x": example_inputs()}
    return [
        Case("the notebook's mha (3 heads of 4), head 1", {**book, "h": 1}),
        Case("the notebook's mha, head 2", {**book, "mha": _example(), "h": 2}),
        Case(
            "a layer of 2 heads of 4 (5 -> 8), 4 random tokens, head 1",
            {"mha": _mha(5, 5, 8, 6, 2), "x": random_tensor(4, 5, seed=160), "h": 1},
        ),
        Case(
            "a layer of 3 heads of 2 (4 -> 6) built for 8 tokens, 5 random tokens, head 0",
            {"mha": _mha(6, 4, 6, 8, 3), "x": random_tensor(5, 4, seed=161), "h": 0},
        ),
    ]


def _one_head_reference(a: dict[str, Any]) -> torch.Tensor:
    """attnlib's whole layer on the one sequence: the weights it kept, of head h."""
    with torch.no_grad():
        a["mha"](a["x"][None])
    return a["mha"].last_attn_weights[0, a["h"]]


FunctionExercise(
    name="07.one_head",
    task="write one_head_weights(mha, x, h): head h's attention weights on x, from the "
    "rows of mha's W_query and W_key that make head h, without calling mha(...)",
    answer_names=("one_head_weights",),
    cases=_one_head_cases,
    call=lambda one_head_weights, a: detached(one_head_weights(a["mha"], a["x"], a["h"])),
    reference=_one_head_reference,
    forbids=Forbid(
        attnlib=("split_heads", *ATTEND), how="from the head's rows, with torch.softmax"
    ),
    rules=(no_forward("mha", "head h alone, from the rows of mha's weights that make it"),),
    mistakes=rows("head_strided", "head_scale_d_out", "head_unmasked"),
    praise="Head h is one block of head_dim rows of each projection: a small causal "
    "attention of its own, scaled by the root of head_dim.",
)


# --- 07.head_dim_one: the explorer's question --------------------------------------------
ValueExercise(
    name="07.head_dim_one",
    task="set most_weighted to the largest number of different tokens that can be some "
    "query's most weighted token, in one head with head_dim 1",
    answer_names=("most_weighted",),
    accept=whole,
    expected=lambda: 2,
    mistakes={"argmax_per_query": lambda: len(example_inputs()), "query_sign_ignored": lambda: 1},
    praise="A score is q_i * k_j: a positive query picks the largest key, a negative one "
    "the smallest, whatever the query's size.",
)


# --- 07.copy_heads: the wrapper's heads inside MultiHeadAttention ------------------------------
def _copy_cases() -> list[Case]:
    """The book's batch, 2 heads of 2 features, then random batches of other sizes."""
    batches = [("the book's", _batch(), 2, 2)]
    for seed, (shape, d_out, h) in enumerate((((3, 4, 5), 2, 3), ((1, 7, 2), 1, 4))):
        batches.append(("a random", random_tensor(*shape, seed=130 + seed), d_out, h))
    return [
        Case(
            f"{whose} batch {tuple(x.shape)}, {h} heads of {d_out} feature{'s' * (d_out > 1)}",
            {"d_in": x.shape[-1], "d_out": d_out, "num_heads": h, "x": x},
        )
        for whose, x, d_out, h in batches
    ]


def _copied_output(copy_heads: Any, a: dict[str, Any]) -> Any:
    """MultiHeadAttention's output on x after the reader's copy_heads(wrapper, mha)."""
    wrapper, mha = heads.pair(a["d_in"], a["d_out"], a["num_heads"])
    if copy_heads(wrapper, mha) is Ellipsis:  # the stub: nothing copied yet
        return Ellipsis
    with torch.no_grad():
        return mha(a["x"])


def _wrapper_output(a: dict[str, Any]) -> torch.Tensor:
    wrapper, _ = heads.pair(a["d_in"], a["d_out"], a["num_heads"])
    with torch.no_grad():
        return wrapper(a["x"])


FunctionExercise(
    name="07.copy_heads",
    task="write copy_heads(wrapper, mha): fill mha's weights so that mha(x) equals wrapper(x)",
    answer_names=("copy_heads",),
    cases=_copy_cases,
    call=_copied_output,
    reference=_wrapper_output,
    mistakes=rows("out_proj_left_random", "out_proj_bias_kept", "heads_reversed"),
    forbids=Forbid(because="the two layers are handed out; copying weights is the task"),
    praise="The same numbers from both layers: MultiHeadAttention is the wrapper's heads, "
    "stacked into three larger projections, followed by out_proj.",
)
