"""Wrong answers the checks have never seen: variants of each solution must not print Correct.

Each solution of every notebook (from its folded cell) is mutated one edit at a time: a size
written as the book's number, an argument ignored for the notebook's global, dim=0, keepdim
or a transpose or a return or exp or .values left out, operands swapped, `*` for `@`, `=` for
`+=`, a result right for the book's input only. A variant that gives the solution's results on
the checker's cases and on perturbed copies of them is equivalent and left out, by computing;
every other one is judged in-process and must be named or described, never Correct, never a
fault of the checker. The share of named and described verdicts is printed per notebook.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path

import course
import nbformat
import pytest
import torch
from test_exercises import answers, exercises

from attnlib.exercises import EXERCISES
from attnlib.exercises._compare import outcome, same
from attnlib.exercises._function import Case, FunctionExercise
from attnlib.mistakes import MISTAKES

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# Every notebook of the course with exercises: a new one is generated variants of at once.
WITH_EXERCISES = tuple(p.name[:2] for p in course.NOTEBOOKS if exercises(nbformat.read(p, 4)))
PREAMBLE = """
import torch
import torch.nn.functional as F
import attnlib
from attnlib import TOKENS, example_inputs
inputs = example_inputs()
a, b, x = inputs[0], inputs[1], inputs @ inputs.T
attn_scores = inputs @ inputs.T
attn_weights = torch.softmax(attn_scores, dim=-1)
all_context_vecs = attn_weights @ inputs
num_tokens = 6
running_sum, context, rescale = torch.ones(6, 1), torch.ones(6, 3), torch.full((6, 1), 0.5)
exps, block_values = torch.ones(6, 4), torch.ones(4, 3)
import math
from attnlib.mistakes.training import SGD, next_word_loss
token_ids, start, context_length, vocab_size = torch.arange(4608) % 1157, 0, 16, 1157
model = torch.nn.Sequential(torch.nn.Embedding(1157, 6), torch.nn.Linear(6, 1157))
optimizer = SGD(model.parameters(), lr=0.1)
targets = token_ids[1:17][None]
from torch import nn
from attnlib import modules
from attnlib.modules import CausalAttention, MultiHeadAttentionWrapper
torch.manual_seed(123)
d_in, d_out, num_heads, context_length, dropout, p = 3, 2, 3, 6, 0.0, 0.2
W_query, W_key, W_value = (torch.rand(d_in, d_out) for _ in range(3))
keys, d_k = inputs @ W_key, d_out
batch = torch.stack((inputs, inputs))
ca = CausalAttention(d_in, d_out, context_length, dropout)
"""
#: (what the edit stands for, pattern, replacement): each applied at one match at a time.
EDITS = [
    ("dim=0", r"dim=-1", "dim=0"),
    ("dim=1", r"dim=-1", "dim=1"),
    ("no keepdim", r", keepdim=True", ""),
    ("no transpose", r"\.T\b", ""),
    ("`*` for `@`", r" @ ", " * "),
    ("operands swapped", r"(\w[\w\[\]:, ]*?) @ ([\w\[\]:.]+)", r"\2 @ \1"),
    ("no return", r"return ", ""),
    ("no exp", r"torch\.exp\(", "("),
    ("no .values", r"\.values", ""),
    ("no sum", r"\.sum\([^)]*\)", ""),
    ("sum of all", r"\.sum\([^)]+\)", ".sum()"),
    ("no max shift", r" - x\.max\(dim=-1, keepdim=True\)\.values", ""),
    ("max of grid", r"x\.max\(dim=-1, keepdim=True\)\.values", "x.max()"),
    ("size as a number", r"inputs\.shape\[0\]", "6"),
    ("size as a number", r"len\(inputs\)", "6"),
    ("`=` for `+=`", r"\+=", "="),
    ("same token", r"x_j\)", "x_i)"),
    ("row not cell", r"\[i, j\] =", "[i] ="),
    ("book's number as index", r"\[1\]", "[2]"),
    ("book's number as index", r"\[1, i\]", "[2, i]"),
    ("column", r"attn_weights\[1, i\]", "attn_weights[i, 1]"),
    ("query 5 as 6", r"\[5\]", "[4]"),
    ("no softmax", r"torch\.softmax\((\w+), dim=-1\)", r"\1"),
    ("zeros start", r"torch\.zeros_like\(inputs\[0\]\)", "inputs[0].clone()"),
    ("scores for weights", r"attn_weights @", "attn_scores @"),
    # 01-04: more wrong answers a learner types
    ("mean for sum", r"\(a \* b\)\.sum\(\)", "(a * b).mean()"),
    ("plus for times", r"\(a \* b\)", "(a + b)"),
    ("a with itself", r"\(a \* b\)", "(a * a)"),
    ("max for sum", r"\(a \* b\)\.sum\(\)", "(a * b).max()"),
    ("sums multiplied", r"\(a \* b\)\.sum\(\)", "a.sum() * b.sum()"),
    ("a slice for a row", r"query = inputs\[1\]", "query = inputs[1:2]"),
    ("a column for a row", r"query = inputs\[1\]", "query = inputs[:, 1]"),
    ("the last token", r"query = inputs\[1\]", "query = inputs[-1]"),
    ("d_in for num_tokens", r"inputs\.shape\[0\]", "inputs.shape[1]"),
    ("one loop short", r"enumerate\(inputs\)", "enumerate(inputs[:-1])"),
    ("averaged", r"torch\.dot\(x_i, x_j\)", "torch.dot(x_i, x_j) / num_tokens"),
    ("itself", r'answer = "starts"', 'answer = "journey"'),
    ("the longest", r'answer = "starts"', 'answer = "step"'),
    ("wrong word", r'answer = "starts"', 'answer = "start"'),
    ("both halves", r"repeats = 15", "repeats = 30"),
    ("distinct", r"repeats = 15", "repeats = 21"),
    ("diagonal", r"repeats = 15", "repeats = 6"),
    ("all cells", r"repeats = 15", "repeats = 36"),
    ("outer sizes swapped", r"shape = \(3, 3\)", "shape = (6, 6)"),
    ("one side", r"shape = \(3, 3\)", "shape = (3, 6)"),
    ("keys cut too", r"inputs\[:3\] @ inputs\.T", "inputs[:3] @ inputs[:3].T"),
    ("off by one", r"inputs\[:3\]", "inputs[1:4]"),
    ("two rows", r"inputs\[:3\]", "inputs[:2]"),
    ("weights for scores", r"return (inputs @ inputs\.T)", r"return torch.softmax(\1, dim=-1)"),
    ("squared without transpose", r"return inputs @ inputs\.T", "return inputs @ inputs"),
    ("scaled", r"return inputs @ inputs\.T", "return inputs @ inputs.T / inputs.shape[1] ** 0.5"),
    ("linear", r"times = 4", "times = 2"),
    ("cubic", r"times = 4", "times = 8"),
    ("exp on top only", r"torch\.exp\(x\)\.sum", "x.sum"),
    ("exp below only", r"return torch\.exp\(x\) /", "return x /"),
    ("log for exp", r"torch\.exp\(", "torch.log("),
    ("shift added", r"x - x\.max", "x + x.max"),
    ("min for max", r"x\.max\(dim=-1, keepdim=True\)", "x.min(dim=-1, keepdim=True)"),
    ("shift on top only", r"/ torch\.exp\(shifted\)", "/ torch.exp(x)"),
    ("rows", r'"columns"', '"rows"'),
    ("shift changes", r"same_weights = True", "same_weights = False"),
    ("flatter", r'"sharper"', '"flatter"'),
    ("unchanged", r'"sharper"', '"same"'),
    ("query's own input", r"\* x_i", "* inputs[1]"),
    ("scores for weights", r"attn_weights\[1, i\]", "attn_scores[1, i]"),
    ("weights transposed", r"return attn_weights @ inputs", "return attn_weights.T @ inputs"),
    ("result transposed", r"return attn_weights @ inputs", "return (inputs.T @ attn_weights.T)"),
    ("averaged", r"return attn_weights @ inputs", "return attn_weights @ inputs / len(inputs)"),
    ("columns like rows", r'journey_receives = "more"', 'journey_receives = "equal"'),
    ("below an even share", r'journey_receives = "more"', 'journey_receives = "less"'),
    ("wrong word", r'journey_receives = "more"', 'journey_receives = "most"'),
    ("one score", r"inputs @ inputs\[query_index\]", "inputs[query_index] @ inputs[query_index]"),
    # 04.from_scratch
    ("size as a number", r"inputs\[query_index\]", "inputs[5]"),
    ("last token for the query", r"inputs\[query_index\]", "inputs[-1]"),
    ("the notebook's grid", r"return attn_weights_q @ inputs", "return all_context_vecs[5]"),
    (
        "the notebook's grid",
        r"return attn_weights_q @ inputs",
        "return all_context_vecs[query_index]",
    ),
    ("the notebook's grid", r"inputs @ inputs\[query_index\]", "attn_scores[query_index]"),
    ("no softmax", r"torch\.softmax\((\w+), dim=-1\)", r"\1 / \1.sum()"),
    # kinds a learner found in 01-04 (issue 18's report): each must be told, never Correct
    (
        "argument changed in place",
        r"\n    return (.+)",
        r"\n    _result = \1\n    _FIRST_.add_(1)\n    return _result",
    ),
    ("rounded to 4 decimals", r"\n    return (.+)", r"\n    return (\1).round(decimals=4)"),
    ("ready-made product", r"\(a \* b\)\.sum\(\)", "torch.dot(a, b)"),
    ("ready-made product", r"\(a \* b\)\.sum\(\)", "torch.inner(a, b)"),
    (
        "a product per row",
        r"return inputs\[:3\] @ inputs\.T",
        "return torch.stack([inputs[i] @ inputs.T for i in range(3)])",
    ),
    (
        "weights recomputed, argument ignored",
        r"return attn_weights @ inputs",
        "return torch.softmax(inputs @ inputs.T, dim=-1) @ inputs",
    ),
    ("inputs transposed", r"attn_weights @ inputs", "attn_weights @ inputs.T"),
    ("elementwise for a product", r"return inputs\[:3\] @ inputs\.T", "return inputs[:3] * inputs"),
    ("one argument", r"def dot\(a, b\):", "def dot(a):"),
    # 08: predictions
    ("wrong value", r"first_self = 1\.0", "first_self = 0.0"),
    ("wrong value", r"first_self = 1\.0", "first_self = 1 / 6"),
    ("size as a number", r"1 / num_tokens", "1 / 6"),
    ("size as a number", r"1 / num_tokens", "0.1667"),
    ("inverted", r"1 / num_tokens", "num_tokens"),
    ("limit taken to vanish", r"1 / num_tokens", "0"),
    ("swapped", r"same_without_mask = True", "same_without_mask = False"),
    ("swapped", r"same_with_mask = False", "same_with_mask = True"),
    ("d_out for head_dim", r"head_size = 2", "head_size = 4"),
    ("d_in for head_dim", r"head_size = 2", "head_size = 3"),
    # 09: costs and the running softmax
    ("decimal for binary", r"16_384", "16_000"),
    ("decimal for binary", r"16_384", "15_625"),
    ("linear", r"16_384", "128"),
    ("doubled", r"16_384", "256"),
    ("slope as ratio", r"slope = 2", "slope = 4"),
    ("measured slope", r"slope = 2", "slope = 1.8"),
    ("grid growth for the block", r"block_times = 2", "block_times = 4"),
    ("block fixed", r"block_times = 2", "block_times = 1"),
    ("float64", r"return 4 \*", "return 8 *"),
    ("bits", r"return 4 \*", "return 32 *"),
    ("no bytes per entry", r"return 4 \* ", "return "),
    ("one row", r" \* num_tokens\n", "\n"),
    ("size as a number", r"num_tokens \* num_tokens", "num_tokens * 1024"),
    ("size as a number", r"4 \* num_tokens \* num_tokens", "4 * 1024 * 1024"),
    ("in MiB", r"(4 \* num_tokens \* num_tokens)", r"\1 / 2**20"),
    ("in MB", r"(4 \* num_tokens \* num_tokens)", r"\1 / 1e6"),
    ("no rescale", r" \* rescale", ""),
    ("rescale divides", r" \* rescale", " / rescale"),
    ("new block rescaled", r"= (\w+) \* rescale \+ (.+)", r"= (\1 + \2) * rescale"),
    ("`=` for `+=`", r"= \w+ \* rescale \+ ", "= "),
    ("sum of all", r"exps\.sum\(dim=-1, keepdim=True\)", "exps.sum()"),
    ("axis swapped", r"exps\.sum\(dim=-1", "exps.sum(dim=0"),
    ("values not blended", r"exps @ block_values", "exps.sum(dim=-1, keepdim=True)"),
    ("block_values transposed", r"exps @ block_values", "(block_values.T @ exps.T).T * 2"),
    ("rescale as the max", r"\* rescale", "* torch.log(rescale).neg()"),
    # notebooks 05-07: sizes and rates as numbers, steps left out, axes swapped
    ("size as a number", r"keys\.shape\[-1\]", "2"),
    ("scale as a number", r"d_k\*\*0\.5", "2**0.5"),
    ("size as a number", r"num_tokens, num_tokens", "6, 6"),
    ("mask not cut", r"\[:num_tokens, :num_tokens\]", ""),
    ("mask cut as a number", r"\[:num_tokens, :num_tokens\]", "[:6, :6]"),
    ("dropout left out", r"self\.dropout\(attn_weights\)", "attn_weights"),
    ("dropout twice", r"self\.dropout\(attn_weights\)", "self.dropout(self.dropout(attn_weights))"),
    ("dropout on the values", r"attn_weights @ values", "attn_weights @ self.dropout(values)"),
    ("rate as a number", r"\(1 - p\)", "0.8"),
    ("keys.T on a batch", r"keys\.transpose\(1, 2\)", "keys.T"),
    ("view without contiguous", r"\.contiguous\(\)", ""),
    ("transpose left out", r"\.transpose\(1, 2\)", ""),
    ("last two axes swapped", r"\.transpose\(1, 2\)", ".transpose(-2, -1)"),
    ("scale left out", r" / self\.head_dim\*\*0\.5", ""),
    ("scale by d_out", r"self\.head_dim\*\*0\.5", "self.d_out**0.5"),
    ("no out_proj", r"return self\.out_proj\((\w+)\)", r"return \1"),
    ("diagonal hidden", r"diagonal=1", "diagonal=0"),
    ("0 for -inf", r"-torch\.inf", "0.0"),
    ("inputs for values", r"attn_weights @ values", "attn_weights @ x"),
    ("query for value", r"W_value", "W_query"),
    ("key for query", r"W_query", "W_key"),
    ("d_out as the total", r"d_in, 1,", "d_in, 2,"),
    ("one head", r"num_heads=2", "num_heads=1"),
    (
        "the class, not a layer",
        r"return MultiHeadAttentionWrapper\(.*\)",
        "return MultiHeadAttentionWrapper",
    ),
    ("head_dim as a number", r"d_out // num_heads", "4"),
    ("head_dim as a float", r"d_out // num_heads", "d_out / num_heads"),
    ("first token as 1", r"inputs\[0\]", "inputs[1]"),
    ("whole-number division", r"1 / num_tokens", "1 // num_tokens"),
    # 05.expected_score, 07.copy_heads, 08.swap_rows: reasoning answers
    ("one mean per term", r"d_k / 4", "d_k / 2"),
    ("mean of a square", r"d_k / 4", "d_k / 3"),
    ("centred on 0", r"return d_k / 4", "return 0"),
    ("spread for mean", r"d_k / 4", "d_k ** 0.5 / 4"),
    ("size as a number", r"d_k / 4", "2 / 4"),
    ("heads reversed", r"for head in wrapper\.heads", "for head in reversed(wrapper.heads)"),
    ("bias kept", r"\n        mha\.out_proj\.bias\.zero_\(\)", ""),
    ("out_proj left", r"\n        mha\.out_proj\.weight\.copy_\(torch\.eye\(mha\.d_out\)\)", ""),
    ("heads along d_in", r"torch\.cat\(weights, dim=0\)", "torch.cat(weights, dim=1)"),
    ("head 0 everywhere", r"torch\.cat\(weights, dim=0\)", "weights[0].repeat(len(weights), 1)"),
    ("size as a number", r"torch\.eye\(mha\.d_out\)", "torch.eye(4)"),
    (
        "cases swapped",
        r"changed_without_mask = set\(\)",
        'changed_without_mask = {"journey", "starts"}',
    ),
    (
        "every later token",
        r'changed_with_mask = \{"journey", "starts"\}',
        'changed_with_mask = {"journey", "starts", "with", "one", "step"}',
    ),
    ("one word", r'\{"journey", "starts"\}', '{"starts"}'),
    ("counted from 1", r'\{"journey", "starts"\}', "{2, 3}"),
    # 10: targets, a training step, a blind guess, a head's pattern
    (
        "targets not shifted",
        r"targets = token_ids\[start \+ 1:start \+ 1 \+",
        "targets = token_ids[start:start +",
    ),
    ("targets shifted back", r"start \+ 1", "start - 1"),
    (
        "targets shifted back",
        r"targets = token_ids\[start \+ 1:start \+ 1 \+",
        "targets = token_ids[start - 1:start - 1 +",
    ),
    (
        "targets shifted by two",
        r"targets = token_ids\[start \+ 1:start \+ 1 \+",
        "targets = token_ids[start + 2:start + 2 +",
    ),
    ("targets one short", r"start \+ 1 \+ context_length", "start + context_length"),
    ("size as a number", r"start \+ 1 \+ context_length", "start + 17"),
    ("size as a number", r"start \+ context_length\]", "start + 16]"),
    ("the notebook's window", r"token_ids\[start \+ 1:start \+ 1 \+ context_length\]", "targets"),
    ("no zero_grad", r"    optimizer\.zero_grad\(\)\n", ""),
    ("no step", r"    optimizer\.step\(\)\n", ""),
    ("no backward", r"    loss\.backward\(\)\n", ""),
    (
        "step before backward",
        r"loss\.backward\(\)\n    optimizer\.step\(\)",
        "optimizer.step()\n    loss.backward()",
    ),
    (
        "zero_grad after backward",
        r"optimizer\.zero_grad\(\)\n(.+)\n    loss\.backward\(\)\n",
        r"\1\n    loss.backward()\n    optimizer.zero_grad()\n",
    ),
    (
        "loss of the inputs",
        r"next_word_loss\(model\(inputs\), targets\)",
        "next_word_loss(model(inputs), inputs)",
    ),
    ("log base 2", r"math\.log\(vocab_size\)", "math.log2(vocab_size)"),
    ("log base 10", r"math\.log\(vocab_size\)", "math.log10(vocab_size)"),
    ("1/V", r"math\.log\(vocab_size\)", "1 / vocab_size"),
    ("no minus sign", r"math\.log\(vocab_size\)", "math.log(1 / vocab_size)"),
    ("size as a number", r"math\.log\(vocab_size\)", "math.log(1157)"),
    ("the vocabulary size", r"math\.log\(vocab_size\)", "vocab_size"),
    ("log of one less", r"math\.log\(vocab_size\)", "math.log(vocab_size - 1)"),
    ("next word", r"pattern = 'previous'", "pattern = 'next'"),
    ("itself", r"pattern = 'previous'", "pattern = 'itself'"),
    ("first", r"pattern = 'previous'", "pattern = 'first'"),
    ("even", r"pattern = 'previous'", "pattern = 'even'"),
    ("not a choice", r"pattern = 'previous'", "pattern = 'before'"),
    ("over every word", r"even_weight = 1 / 4", "even_weight = 1 / 16"),
    ("itself left out", r"even_weight = 1 / 4", "even_weight = 1 / 3"),
    ("hidden", r"even_weight = 1 / 4", "even_weight = 0"),
    ("rounded", r"even_weight = 1 / 4", "even_weight = 0.3"),
    ("in quotes", r"even_weight = 1 / 4", "even_weight = '0.25'"),
    ("a head forms", r"forms = 'no'", "forms = 'yes'"),
    ("on the next word", r"forms = 'no'", "forms = 'next'"),
    ("a boolean", r"forms = 'no'", "forms = False"),
    ("not a choice", r"forms = 'no'", "forms = 'weaker'"),
]


#: Edits that break a rule the exercise states (no torch.dot, one product): the values stay
#: right, so these variants are kept even where they compute the solution's results.
BREAKS_A_RULE = {"ready-made product", "a product per row"}


def _signature_edits(code: str) -> list[tuple[str, str]]:
    """An argument ignored: renamed in the signature, so the body reads the notebook's global;
    and a result right for the book's sizes only."""
    found = []
    for match in re.finditer(r"def \w+\(([^)]*)\):", code):
        params = [p.strip() for p in match.group(1).split(",")]
        for p in params:
            kept = [f"_{q}_unused" if q == p else q for q in params]
            renamed = match.group(0).replace(f"({match.group(1)})", f"({', '.join(kept)})", 1)
            found.append(("argument ignored", code.replace(match.group(0), renamed, 1)))
        first = params[0]
        book_only = re.sub(
            r"return (.+)",
            rf"return (\1) if {first}.shape[0] in (3, 6) else (\1) * 1.5",
            code,
        )
        found.append(("right for the book's sizes only", book_only))
    return found


def variants(code: str) -> list[tuple[str, str]]:
    found = _signature_edits(code)
    signature = re.search(r"def \w+\((\w+)", code)
    for label, pattern, replacement in EDITS:
        if "_FIRST_" in replacement and not signature:
            continue  # an edit of a function's first argument, in a cell without a function
        if signature:
            replacement = replacement.replace("_FIRST_", signature.group(1))
        for match in re.finditer(pattern, code):
            edited = code[: match.start()] + match.expand(replacement) + code[match.end() :]
            found.append((label, edited))
    return [(label, v) for label, v in found if v != code]


def _run(code: str) -> dict | None:
    namespace: dict = {}
    exec(PREAMBLE, namespace)
    try:
        exec(compile(code, "<variant>", "exec"), namespace)
    except Exception:
        return None  # a cell that raises: the reader sees the error before any check
    return namespace


def _perturbed(cases: list[Case]) -> list[Case]:
    generator = torch.Generator().manual_seed(99)
    out = []
    for case in cases:
        args = {
            k: v * (1 + 0.1 * torch.rand(v.shape, generator=generator))
            if isinstance(v, torch.Tensor) and v.is_floating_point()
            else v
            for k, v in case.args.items()
        }
        if "attn_weights" in args:  # still rows of weights
            args["attn_weights"] = args["attn_weights"] / args["attn_weights"].sum(-1, keepdim=True)
        out.append(Case(case.label, args))
    return out


def _equivalent(exercise, variant_ns: dict, solution_ns: dict) -> bool:
    names = exercise.answer_names
    if isinstance(exercise, FunctionExercise):
        mine, right = variant_ns[names[0]], solution_ns[names[0]]
        cases = exercise.cases()
        for case in cases + _perturbed(cases):
            given = copy.deepcopy(dict(case.args))
            got = outcome(lambda g=given: exercise.call(mine, g))
            want = exercise.call(right, dict(case.args))
            changed = any(
                isinstance(v, torch.Tensor) and not torch.equal(given[k], v)
                for k, v in case.args.items()
            )  # an argument changed in place is a difference the caller sees
            if changed or not same(got, want):
                return False
        return True
    return all(same(variant_ns.get(n), solution_ns[n]) for n in names)


def _answer(exercise, namespace: dict):
    values = [namespace.get(n, Ellipsis) for n in exercise.answer_names]
    return values[0] if len(values) == 1 else dict(zip(exercise.answer_names, values, strict=True))


def judged_variants(number: str) -> list[tuple[str, str, object]]:
    """(exercise, edit, verdict) for every non-equivalent variant of notebook ``number``."""
    path = next(NOTEBOOKS.glob(f"{number}_*.ipynb"))
    out = []
    for found in exercises(nbformat.read(path, as_version=4)):
        exercise = EXERCISES[found["name"]]
        solution_ns = _run(found["solution"])
        assert solution_ns is not None, found["name"]
        for label, code in variants(found["solution"]):
            namespace = _run(code)
            if namespace is None or (
                label not in BREAKS_A_RULE and _equivalent(exercise, namespace, solution_ns)
            ):
                continue
            out.append((found["name"], label, exercise.judge(_answer(exercise, namespace))))
    return out


@pytest.mark.parametrize("number", WITH_EXERCISES)
def test_no_variant_of_a_solution_is_called_correct(number: str) -> None:
    judged = judged_variants(number)
    assert judged, f"notebook {number}: no variants generated"
    wrong = [
        (n, label, v.message) for n, label, v in judged if v.status in ("correct", "course fault")
    ]
    assert not wrong, wrong
    counts = Counter(v.status for _, _, v in judged)
    told = counts["mistake"] + counts["wrong"] + counts["refused"]
    share = told / len(judged)
    print(f"\nnotebook {number}: {len(judged)} wrong variants, {counts['mistake']} named, "
          f"{counts['wrong'] + counts['refused']} described, share {share:.0%}")  # fmt: skip
    assert share >= 0.7


@pytest.mark.parametrize("number", WITH_EXERCISES)
def test_each_solution_is_correct_and_each_typed_mistake_named_in_process(number: str) -> None:
    """The kernel runner's promise (tests/test_exercises.py, `make check-all`) in-process: each
    folded solution is judged Correct, each typed mistaken answer by its mistake's label."""
    path = next(NOTEBOOKS.glob(f"{number}_*.ipynb"))
    typed = answers(path)
    for found in exercises(nbformat.read(path, as_version=4)):
        exercise = EXERCISES[found["name"]]
        namespace = _run(found["solution"])
        assert namespace is not None, f"{found['name']}: the solution raised"
        verdict = exercise.judge(_answer(exercise, namespace))
        assert verdict.correct, f"{found['name']}: the solution printed {verdict.message!r}"
        for mistake, code in typed.get(found["name"], {}).items():
            namespace = _run(code)
            assert namespace is not None, f"{found['name']}/{mistake}: the typed answer raised"
            shown = exercise.judge(_answer(exercise, namespace)).message
            assert MISTAKES[mistake].label in shown, f"{found['name']}/{mistake} printed {shown!r}"
