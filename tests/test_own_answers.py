"""An answer that hands its work to the course's own answer is not the reader's answer.

For every exercise that forbids names (its ``forbids``) and every name it bans, a variant of the
notebook's solution that also enters that name (attnlib's function or layer forward, torch's
ready-made op) is generated and must not be called correct, and must name what it used; the
delegations a reader would type (an alias, a subclass, a one-line call) likewise. Every folded
solution stays correct (also checked by test_exercise_variants.py), the profile hook is gone
after every check however the answer ends, and an interrupt still stops the check.
"""

from __future__ import annotations

import functools
import sys

import nbformat
import pytest
import torch
import torch.nn.functional as F
from test_exercise_variants import NOTEBOOKS, _answer, _run
from test_exercises import exercises

from attnlib import attention, modules
from attnlib.exercises import EXERCISES, check, checkpoint
from attnlib.exercises._function import FunctionExercise

FUNCTIONS = {n: e for n, e in EXERCISES.items() if isinstance(e, FunctionExercise)}
#: What each function exercise forbids, from its own declaration.
OWN = {n: e.forbids for n, e in FUNCTIONS.items() if not e.forbids.because}

#: A call that enters torch's op of each banned name, on throwaway inputs.
TORCH_CALLS = {
    "softmax": lambda: torch.softmax(torch.zeros(2), dim=-1),
    "log_softmax": lambda: F.log_softmax(torch.zeros(2), dim=-1),
    "special_softmax": lambda: torch.special.softmax(torch.zeros(2), dim=-1),
    "scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(
        *(torch.zeros(1, 2, 2) for _ in range(3))
    ),
}


def _attnlib(name: str):
    return getattr(attention, name, None) or getattr(modules, name)


def _enter(name: str) -> None:
    """Enter attnlib's ``name`` (a class: its forward) with throwaway arguments: its code runs,
    and its argument check refuses them, which the variant swallows."""
    thing = _attnlib(name)
    function = thing.forward if isinstance(thing, type) else thing
    code = function.__code__
    required = code.co_argcount - len(function.__defaults__ or ())
    try:
        function(*([None] * required))
    except Exception:
        pass


def _with(answer, touch):
    """``answer`` that also runs ``touch()``: a function wrapped, a layer class subclassed."""
    if isinstance(answer, type):
        return type(answer.__name__, (answer,), {"forward": _forward_with(touch)})

    @functools.wraps(answer)  # keeps the signature 09's check reads
    def touched(*args, **kwargs):
        touch()
        return answer(*args, **kwargs)

    return touched


def _forward_with(touch):
    def forward(self, x):
        touch()
        return super(type(self), self).forward(x)

    return forward


@functools.cache
def _sources() -> dict[str, str]:
    """Each exercise's folded solution, as code."""
    found = {}
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for exercise in exercises(nbformat.read(path, as_version=4)):
            found[exercise["name"]] = exercise["solution"]
    return found


@functools.cache
def solution(name: str) -> dict:
    """The namespace that exercise ``name``'s solution leaves, run once."""
    return _run(_sources()[name])


#: Layer exercises take about a second a check: `make test` keeps those the quick
#: delegations below name, `make check-all` the rest.
LAYERS = {n for n, e in FUNCTIONS.items() if "layer" in e.cases()[0].args}


def _tiered(params: list[tuple], fast: set[tuple]) -> list:
    """``params`` with every layer exercise's case left to `make check-all` but ``fast``."""
    slow = pytest.mark.check_all
    return [pytest.param(*p, marks=slow) if p[0] in LAYERS and p not in fast else p for p in params]


#: (exercise, the code a reader types that hands the work over, what the verdict names)
DELEGATIONS = [
    ("01.dot", "dot = lambda a, b: attnlib.attention_scores(torch.stack([a, b]))[0, 1]",
     "attnlib.attention_scores"),
    ("01.dot", "dot = lambda a, b: attnlib.attention_scores_loop(torch.stack([a, b]))[0, 1]",
     "attnlib.attention_scores_loop"),
    ("01.loop_body", "attention_scores_loop = attnlib.attention_scores_loop",
     "attnlib.attention_scores_loop"),
    ("01.loop_body",
     "def attention_scores_loop(inputs):\n    return attnlib.attention_scores(inputs)",
     "attnlib.attention_scores"),
    ("02.matmul", "attention_scores = attnlib.attention_scores", "attnlib.attention_scores"),
    ("02.first_rows", "first_three_rows = lambda inputs: attnlib.attention_scores(inputs)[:3]",
     "attnlib.attention_scores"),
    ("03.softmax_naive", "softmax_naive = attnlib.softmax_naive", "attnlib.softmax_naive"),
    ("03.softmax_naive", "softmax_naive = attnlib.softmax", "attnlib.softmax"),
    ("03.softmax_naive", "softmax_naive = lambda x: torch.softmax(x, dim=-1)", "torch.softmax"),
    ("03.softmax_naive", "softmax_naive = lambda x: F.softmax(x, dim=-1)", "torch.softmax"),
    ("03.softmax_naive", "softmax_naive = torch.nn.Softmax(dim=-1)", "torch.softmax"),
    ("03.softmax_naive", "softmax_naive = lambda x: x.softmax(-1)", "torch.softmax"),
    ("03.softmax_naive", "softmax_naive = lambda x: x.log_softmax(-1).exp()", "torch.log_softmax"),
    ("03.softmax_stable", "softmax_stable = attnlib.softmax", "attnlib.softmax"),
    ("03.softmax_stable", "softmax_stable = lambda x: torch.softmax(x, -1)", "torch.softmax"),
    ("04.all_context", "all_context_vectors = attnlib.context_vectors", "attnlib.context_vectors"),
    ("04.from_scratch", "def context_from_scratch(inputs, query):\n    scores = "
     "attnlib.attention_scores(inputs)\n    return attnlib.context_vectors(torch.softmax(scores, "
     "-1), inputs)[query]", "attnlib.attention_scores"),
    ("06.mask", "def causal_weights(attn_scores, d_k):\n    mask = attnlib.causal_mask("
     "attn_scores.shape[-1])\n    return torch.softmax(attn_scores.masked_fill(mask, -torch.inf) "
     "/ d_k**0.5, dim=-1)", "attnlib.causal_mask"),
    ("06.last_row", "def last_row(ca, x):\n    q, k, v = ca.W_query(x[-1:]), ca.W_key(x), "
     "ca.W_value(x)\n    return attnlib.scaled_dot_product_attention(q, k, v)[0][0]",
     "attnlib.scaled_dot_product_attention"),
    ("07.wrapper_forward", "class MyWrapper(modules.MultiHeadAttentionWrapper):\n    pass",
     "attnlib.modules.MultiHeadAttentionWrapper"),
    ("07.split_heads", "split_heads = modules.split_heads", "attnlib.modules.split_heads"),
    ("09.rescale", "rescale_and_add = attnlib.blockwise_attention", "attnlib.blockwise_attention"),
    ("09.rescale", "def rescale_and_add(queries, keys, values, block_size):\n    return "
     "F.scaled_dot_product_attention(queries, keys, values)",
     "torch.nn.functional.scaled_dot_product_attention"),
]  # fmt: skip


def _banned() -> list:
    banned = [(ex, "attnlib", n) for ex, own in OWN.items() for n in own.attnlib] + [
        (ex, "torch", n) for ex, own in OWN.items() for n in own.torch
    ]
    # `make test` runs the first name of each exercise no quick DELEGATIONS case covers
    quick = {d[0] for d in DELEGATIONS if d[0] not in LAYERS or d[1].startswith("from attnlib")}
    uncovered = set(OWN) - quick  # of those, every function and the last layer
    names = {n for n in uncovered if n not in LAYERS} | {[n for n in OWN if n in uncovered][-1]}
    fast = {next(b for b in banned if b[0] == name) for name in names}
    return [p if p in fast else pytest.param(*p, marks=pytest.mark.check_all) for p in banned]


def test_every_function_exercise_says_what_it_bans_or_why_nothing() -> None:
    for name, exercise in FUNCTIONS.items():
        forbids = exercise.forbids
        assert bool(forbids.attnlib or forbids.torch) != bool(forbids.because), name
    assert {"01.dot", "03.softmax_naive", "07.one_head"} <= set(OWN)


@pytest.mark.parametrize(("name", "kind", "banned"), _banned())
def test_a_solution_that_enters_a_banned_name_is_refused(name, kind, banned) -> None:
    exercise = EXERCISES[name]
    right = _answer(exercise, solution(name))
    assert exercise.judge(right).correct, name
    touch = (lambda: _enter(banned)) if kind == "attnlib" else TORCH_CALLS[banned]
    verdict = exercise.judge(_with(right, touch))
    assert not verdict.correct, (name, banned)
    shown = banned if kind == "attnlib" else banned.replace("special_", "special.")
    assert shown in verdict.message and "write it yourself" in verdict.message, verdict.message
    assert sys.getprofile() is None


@pytest.mark.parametrize(
    ("name", "code", "used"),
    _tiered(DELEGATIONS, {d for d in DELEGATIONS if d[0] == "07.wrapper_forward"}),
)
def test_a_delegation_a_reader_types_is_refused(name, code, used) -> None:
    namespace = _run(code)
    assert namespace is not None, code
    verdict = EXERCISES[name].judge(_answer(EXERCISES[name], namespace))
    assert not verdict.correct, (name, code)
    assert f"from {used}," in verdict.message, verdict.message
    assert sys.getprofile() is None


def test_check_reads_the_readers_cells_and_refuses_there_too() -> None:
    namespace = _run("attention_scores_loop = attnlib.attention_scores_loop")
    namespace["check"] = check
    exec("verdict = check('01.loop_body')", namespace)
    assert namespace["verdict"].status == "wrong"
    assert "attnlib.attention_scores_loop" in namespace["verdict"].message


def test_the_course_s_own_object_is_judged_on_its_numbers_by_a_checkpoint_only() -> None:
    # notebook 07's checkpoint judges the wrapper class with checkpoint()
    wrapper = modules.MultiHeadAttentionWrapper
    assert checkpoint("07.wrapper_forward", wrapper).status == "checkpoint"
    # the same class typed into check() by a reader is a delegation: not their answer
    refused = check("07.wrapper_forward", wrapper)
    assert not refused.correct and "attnlib.modules.MultiHeadAttentionWrapper" in refused.message
    # handed over, but not the course's object itself: a delegation all the same
    assert not check("01.loop_body", lambda inputs: attention.attention_scores(inputs)).correct


def test_the_hook_is_gone_and_an_interrupt_stops_the_check() -> None:
    def softmax(x):
        return torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)

    def interrupted(x):
        if sys.getprofile() is not None:  # the own rule's run, under its hook
            raise KeyboardInterrupt
        return softmax(x)

    def raising(x):
        if sys.getprofile() is not None:
            raise RuntimeError("only under the hook")
        return softmax(x)

    with pytest.raises(KeyboardInterrupt):
        check("03.softmax_naive", interrupted)
    assert sys.getprofile() is None
    assert check("03.softmax_naive", raising).correct  # judged on its numbers already
    assert sys.getprofile() is None


def test_another_profiler_is_left_in_place() -> None:
    seen = []

    def profiler(frame, event, arg):
        seen.append(event)

    sys.setprofile(profiler)
    try:
        aliased = checkpoint("01.loop_body", attention.attention_scores_loop)
        verdict = EXERCISES["01.loop_body"].judge(attention.attention_scores_loop)
    finally:
        sys.setprofile(None)
    assert seen  # it kept running during the check
    assert aliased.status == "checkpoint"  # the course's own, judged by a checkpoint
    assert not verdict.correct  # the answer itself is still recognised
