"""attnlib.exercises.check's verdicts: a check never raises and never calls an odd answer
Correct; right answers written other ways than the solution are Correct; a wrong one is
described in the learner's terms. All in-process: the checks are plain functions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import attnlib
from attnlib.exercises import EXERCISES, NOT_RUN, check

ALL = sorted(EXERCISES)


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _Stop(BaseException):
    """Not an Exception: what a careless reader's code might raise."""


def _raises(*args, **kwargs):
    raise _Stop("from the reader")


def _returns_none(*args, **kwargs):
    return None


ODD = {
    "a list": [[1.0, 2.0], [3.0, 4.0]],
    "numpy": np.ones((6, 6), dtype=np.float32),
    "a string": "15",
    "None": None,
    "nan": float("nan"),
    "a NaN tensor": torch.full((6, 6), float("nan")),
    "a big tensor": torch.zeros(10_000, 10_000),
    "a bad repr": _BadRepr(),
    "a function that raises BaseException": _raises,
    "a function that returns None": _returns_none,
    "a class": type("Answer", (), {}),
}


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("what", ODD)
def test_an_odd_answer_gets_a_verdict_that_is_not_correct(name: str, what: str) -> None:
    answer = ODD[what]
    if len(EXERCISES[name].answer_names) > 1:
        answer = dict.fromkeys(EXERCISES[name].answer_names, answer)
    verdict = check(name, answer)
    assert verdict.status in ("wrong", "refused", "mistake"), (what, verdict.message)
    assert verdict.message.startswith("Not quite"), verdict.message
    assert "\n" not in verdict.message and len(verdict.message) < 600


@pytest.mark.parametrize("name", ALL)
def test_a_check_run_before_its_exercise_says_so(name: str) -> None:
    namespace: dict = {"check": check}
    exec(f"verdict = check({name!r})", namespace)
    first = EXERCISES[name].answer_names[0]
    assert repr(namespace["verdict"]) == f"{NOT_RUN}: `{first}` is not defined yet."


def test_a_failure_of_the_checker_is_the_course_s_fault(monkeypatch) -> None:
    exercise = EXERCISES["01.dot"]

    def broken(answer):
        raise KeyError("inside")

    monkeypatch.setattr(type(exercise), "judge", lambda self, answer: broken(answer))
    verdict = check("01.dot", lambda a, b: (a * b).sum())
    assert verdict.status == "course fault"
    assert "the course's fault, not your answer's" in verdict.message
    assert "your code raised" not in verdict.message


# Right answers written another way than the folded solution: each must be Correct.
RIGHT = {
    "01.dot": [
        "def dot(a, b):\n    return float((a * b).sum())",
        "def dot(a, b):\n    return (a * b).sum().numpy()",
        "def dot(a, b):\n    total = 0.0\n    for p, q in zip(a, b):\n        total += p * q\n"
        "    return total",
    ],
    "01.loop_body": [
        "def attention_scores_loop(inputs):\n    n = len(inputs)\n    s = torch.zeros(n, n)\n"
        "    for i in range(n):\n        for j in range(n):\n"
        "            s[i][j] = (inputs[i] * inputs[j]).sum()\n    return s",
    ],
    "02.matmul": [
        "def attention_scores(inputs):\n    return torch.matmul(inputs, inputs.T)",
        "def attention_scores(inputs):\n    return torch.einsum('id,jd->ij', inputs, inputs)",
        "def attention_scores(inputs):\n    return inputs @ inputs.transpose(0, 1)",
        "def attention_scores(inputs):\n    return torch.mm(inputs, inputs.t())",
    ],
    "02.first_rows": [
        "def first_three_rows(inputs):\n    return torch.matmul(inputs[:3], inputs.T)",
        "def first_three_rows(inputs):\n    return inputs[0:3] @ inputs.transpose(-2, -1)",
    ],
    "03.softmax_naive": [
        "def softmax_naive(x):\n    e = x.exp()\n    return e / e.sum(-1, keepdim=True)",
        "def softmax_naive(x):\n    return torch.exp(x) / torch.exp(x).sum(dim=1).unsqueeze(1)",
    ],
    "03.softmax_stable": [
        "def softmax_stable(x):\n    s = x - x.amax(dim=-1, keepdim=True)\n"
        "    return s.exp() / s.exp().sum(dim=-1, keepdim=True)",
        "def softmax_stable(x):\n    m, _ = x.max(dim=1, keepdim=True)\n"
        "    return torch.exp(x - m) / torch.exp(x - m).sum(dim=1, keepdim=True)",
    ],
    "04.all_context": [
        "def all_context_vectors(attn_weights, inputs):\n"
        "    return torch.matmul(attn_weights, inputs)",
        "def all_context_vectors(attn_weights, inputs):\n"
        "    return torch.einsum('qk,kd->qd', attn_weights, inputs)",
        "def all_context_vectors(attn_weights, inputs):\n"
        "    return torch.stack([sum(w * x for w, x in zip(row, inputs)) for row in attn_weights])",
    ],
    "04.from_scratch": [
        "def context_from_scratch(inputs, query_index):\n"
        "    return torch.softmax(inputs @ inputs[query_index], dim=0) @ inputs",
        "def context_from_scratch(inputs, query_index):\n    z = torch.zeros(inputs.shape[1])\n"
        "    w = torch.exp(inputs @ inputs[query_index])\n"
        "    for x_i, w_i in zip(inputs, w / w.sum()):\n"
        "        z += w_i * x_i\n    return z",
        "def context_from_scratch(inputs, query_index):\n"
        "    return F.softmax(inputs[query_index] @ inputs.T, dim=-1) @ inputs",
    ],
    "08.hot_limit": [
        "def hot_limit(num_tokens):\n    return num_tokens ** -1",
        "def hot_limit(num_tokens):\n    return torch.softmax(torch.zeros(num_tokens), dim=-1)[0]",
        "def hot_limit(num_tokens):\n    return 1.0 / float(num_tokens)",
    ],
    "09.grid_bytes": [
        "def grid_bytes(num_tokens):\n    return torch.ones(1).element_size() * num_tokens ** 2",
        "def grid_bytes(num_tokens):\n"
        "    return torch.zeros(num_tokens, num_tokens).element_size() * num_tokens * num_tokens",
        "def grid_bytes(num_tokens):\n    return 32 * num_tokens * num_tokens // 8",
        "def grid_bytes(num_tokens):\n    return float(4 * num_tokens * num_tokens)",
    ],
    "09.rescale": [
        "def rescale_and_add(running_sum, context, rescale, exps, block_values):\n"
        "    return (rescale * running_sum + exps.sum(-1, keepdim=True),\n"
        "            rescale * context + torch.matmul(exps, block_values))",
        "def rescale_and_add(running_sum, context, rescale, exps, block_values):\n"
        "    running_sum = running_sum * rescale\n    context = context * rescale\n"
        "    running_sum += exps.sum(dim=1)[:, None]\n    context += exps @ block_values\n"
        "    return running_sum, context",
    ],
}
NAMESPACE = "import torch\nimport torch.nn.functional as F\n"


@pytest.mark.parametrize(
    ("name", "code"), [(name, code) for name, codes in RIGHT.items() for code in codes]
)
def test_a_right_answer_written_another_way_is_correct(name: str, code: str) -> None:
    namespace: dict = {}
    exec(NAMESPACE + code, namespace)
    answer = namespace[EXERCISES[name].answer_names[0]]
    verdict = check(name, answer)
    assert verdict.correct, verdict.message


@pytest.mark.parametrize(
    ("name", "answer"),
    [("01.highest", "starts"), ("01.highest", "Starts"), ("01.highest", 2),
     ("01.highest", torch.tensor(2)), ("01.highest", 2.0), ("01.repeats", 15),
     ("01.repeats", np.int64(15)), ("01.repeats", torch.tensor(15)), ("01.repeats", 15.0),
     ("02.calls_growth", 4), ("02.calls_growth", 4.0), ("02.transposed_shape", (3, 3)),
     ("02.transposed_shape", torch.Size([3, 3])), ("03.dim0_sums", "columns"),
     ("03.dim0_sums", " Columns "), ("03.dim0_sums", "column"), ("03.shift", True),
     ("03.times_ten", "sharper"),
     ("04.column_total", "more"), ("04.column_total", " More "), ("08.first_self", 1),
     ("08.first_self", 1.0), ("08.first_self", torch.tensor(1.0)), ("08.head_size", 2),
     ("08.head_size", 2.0), ("08.head_size", np.int64(2)),
     ("08.repeated_word", {"same_without_mask": True, "same_with_mask": False}),
     ("08.repeated_word", (np.bool_(True), torch.tensor(False))), ("09.slope", 2),
     ("09.slope", 2.0), ("09.grid_growth", 16_384), ("09.grid_growth", 16384.0),
     ("09.grid_growth", 2**14), ("09.grid_growth", (1_048_576 // 8192) ** 2),
     ("09.block_growth", 2), ("09.block_growth", torch.tensor(2)),
     ("06.unchanged_row", -1), ("06.unchanged_row", 5), ("06.unchanged_row", " Step ")],
)  # fmt: skip
def test_right_values_in_every_accepted_type_are_correct(name: str, answer) -> None:
    assert check(name, answer).correct


@pytest.mark.parametrize(
    ("name", "answer", "says"),
    [("01.repeats", "15", "without quotes"), ("01.repeats", True, "write a number"),
     ("06.unchanged_row", "5", "without quotes"), ("06.unchanged_row", 6, "counted from 1"),
     ("08.repeated_word", {"same_without_mask": 1, "same_with_mask": 0}, "not 1 or 0"),
     ("07.d_out", {"features_per_head": 2, "out_features": 2},
      "features_per_head = 2, out_features = 2"),
     ("07.d_out", {"features_per_head": 2, "out_features": 2}, "which one does d_out = 2 size"),
     ("05.weights_shape", (3, 4), "the shape of W_query"), ("09.slope", 64, "64 is d"),
     ("07.d_out", {"features_per_head": 1, "out_features": ...}, "`out_features` is still"),
     ("01.repeats", 16, "16 is too large"), ("02.calls_growth", "4", "without quotes"),
     ("03.shift", "True", "without quotes"), ("03.dim0_sums", "cols", "'cols'"),
     ("01.highest", "journeys", "'journeys'"), ("01.repeats", 15.5, "15.5"),
     ("09.grid_growth", 16_000, "16000 is near, but the sizes are powers of 2"),
     ("09.grid_growth", 15_625, "1M and 8k taken as 1,000,000 and 8,000"),
     ("09.grid_growth", 16_383, "16383 is near"), ("09.grid_growth", "16,384", "without quotes"),
     # its explanation states the slope asked for, so a first try gets the mistake's name only
     ("09.slope", 2.3, "a measured slope given for"), ("09.slope", "2", "without quotes"),
     ("08.first_self", 0.99, "0.99 is too small"),
     ("08.repeated_word", {"same_without_mask": True, "same_with_mask": ...},
      "`same_with_mask` is still `...`"),
     ("08.repeated_word", {"same_without_mask": "True", "same_with_mask": False},
      "`same_without_mask`: expected True or False")],
)  # fmt: skip
def test_a_refused_or_wrong_value_is_echoed_as_typed(name: str, answer, says: str) -> None:
    verdict = check(name, answer)
    assert not verdict.correct and says in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("name", "code", "says"),
    [("02.matmul",
      "def attention_scores(inputs):\n"
      "    return torch.stack([torch.stack([a @ b for b in inputs]) for a in inputs])",
      "36 products"),
     ("01.dot", "def dot(a, b):\n    return torch.dot(a, b)", "without torch.dot"),
     ("01.dot", "def dot(a, b):\n    return torch.inner(a, b)", "from `torch.inner`"),
     ("01.dot", "def dot(a, b):\n    return a @ b", "Correct"),
     ("01.dot", "def dot(a, b):\n    return torch.einsum('i,i->', a, b)", "Correct"),
     ("02.first_rows",
      "def first_three_rows(inputs):\n    return torch.stack([inputs[i] @ inputs.T for i in "
      "range(3)])", "from 3 products"),
     ("02.first_rows", "def first_three_rows(inputs):\n    return (inputs @ inputs.T)[:3]",
      "cut from the whole (6, 6) grid"),
     ("02.first_rows", "def first_three_rows(inputs):\n    return (inputs @ inputs[:3].T).T",
      "Correct"),
     ("04.from_scratch",
      "all_context_vecs = torch.softmax(attnlib.example_inputs() @ attnlib.example_inputs().T,"
      " dim=-1) @ attnlib.example_inputs()\n"
      "def context_from_scratch(inputs, query_index):\n    return all_context_vecs[5]",
      "the notebook's context vector of \"step\" returned"),
     ("04.from_scratch",
      "attn_scores = attnlib.example_inputs() @ attnlib.example_inputs().T\n"
      "def context_from_scratch(inputs, query_index):\n"
      "    return torch.softmax(attn_scores[query_index], dim=-1) @ inputs",
      "right for query 5 of the book's 6 tokens, wrong for query 1 of 4 random tokens"),
     ("04.from_scratch",
      "def context_from_scratch(inputs, query_index):\n"
      "    return (torch.softmax(inputs @ inputs.T, dim=-1) @ inputs)[query_index]",
      "from the whole (6, 6) grid"),
     ("04.from_scratch",
      "def context_from_scratch(inputs, query_index):\n"
      "    return torch.softmax(inputs[query_index] @ inputs.T, dim=-1) @ inputs",
      "Correct")],
)  # fmt: skip
def test_a_rule_the_exercise_states_is_enforced(name: str, code: str, says: str) -> None:
    namespace: dict = {}
    exec("import attnlib\n" + NAMESPACE + code, namespace)
    verdict = check(name, namespace[EXERCISES[name].answer_names[0]])
    assert says in verdict.message, verdict.message


# Kinds of wrong answers a learner found called Correct or told badly (issue 18's report on
# 01-04): an argument changed in place, values rounded, an ignored argument, a stub called.
@pytest.mark.parametrize(
    ("name", "code", "says"),
    [("01.dot", "def dot(a, b):\n    a = a.clone()\n    a *= b\n    return a.sum()", "Correct"),
     ("01.dot", "def dot(a, b):\n    a *= b\n    return a.sum()",
      "changed its argument `a` in place"),
     ("02.matmul", "def attention_scores(inputs):\n    inputs.mul_(2)\n"
      "    return inputs @ inputs.T / 4", "changed its argument `inputs` in place"),
     ("03.softmax_stable", "def softmax_stable(x):\n"
      "    x -= x.max(dim=-1, keepdim=True).values\n"
      "    return torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)",
      "changed its argument `x` in place"),
     ("04.all_context", "def all_context_vectors(attn_weights, inputs):\n"
      "    attn_weights *= 2\n    return attn_weights @ inputs / 2",
      "changed its argument `attn_weights` in place"),
     ("02.matmul",
      "def attention_scores(inputs):\n    return (inputs @ inputs.T).round(decimals=4)",
      "agree to 4 decimals only"),
     ("04.all_context", "def all_context_vectors(attn_weights, inputs):\n"
      "    return torch.softmax(inputs @ inputs.T, dim=-1) @ inputs", "wrong for 4 random tokens"),
     ("04.all_context", "def all_context_vectors(attn_weights, inputs):\n"
      "    return attn_weights @ inputs.T", "A @ B needs A's columns to equal B's rows"),
     ("03.softmax_stable", "def softmax_naive(x):\n    return ...\n"
      "def softmax_stable(x):\n"
      "    return softmax_naive(x - x.max(dim=-1, keepdim=True).values)",
      "the stub `softmax_naive` it calls"),
     ("01.dot", "def dot(a):\n    return (a * a).sum()", "does its `def` line take exactly"),
     ("04.from_scratch", "def context_from_scratch(inputs, query_index):\n"
      "    weights = torch.softmax(inputs @ inputs[query_index], dim=-1)\n    context = ...\n"
      "    return context", "a line of it is still the stub's `...`"),
     ("02.matmul", "def attention_scores(inputs):\n    return torch.dot(inputs, inputs)",
      "torch.dot multiplies two vectors"),
     ("04.from_scratch", "def context_from_scratch(inputs, query_index):\n"
      "    s = inputs.double() @ inputs[query_index].double()\n"
      "    return torch.softmax(s, dim=-1) @ inputs.double()", "Correct"),
     ("04.from_scratch", "def context_from_scratch(inputs, query_index):\n"
      "    return torch.tensor([0.4177, 0.6503, 0.5645])", "the result does not change"),
     ("01.dot", "def dot(a, b):\n    return (a * b).sum() / 0 * 0", "0 / 0"),
     ("01.dot", "def dot(a, b):\n    return (a * b).sum() / 0 * 0", "never set"),
     # a stub that unpacks sizes before its `return ...` is still untouched
     ("07.split_heads", "def split_heads(x, num_heads):\n    b, num_tokens, d_out = x.shape\n"
      "    return ...", "Not attempted yet"),
     ("07.merge_heads", "def merge_heads(context_vec):\n"
      "    b, num_heads, num_tokens, head_dim = context_vec.shape\n    return ...",
      "Not attempted yet"),
     # a view to sizes that do not fit, a float size: not a matrix product
     ("07.split_heads", "def split_heads(x, num_heads):\n    b, num_tokens, d_out = x.shape\n"
      "    return x.view(b, num_tokens, num_heads, 4).transpose(1, 2)",
      "a view or reshape to sizes whose product"),
     ("07.split_heads", "def split_heads(x, num_heads):\n    b, num_tokens, d_out = x.shape\n"
      "    return x.view(b, num_tokens, num_heads, d_out / num_heads).transpose(1, 2)",
      "a size given as a float"),
     ("07.two_features", "from attnlib.modules import MultiHeadAttentionWrapper\n"
      "def two_feature_wrapper(d_in, context_length, dropout):\n"
      "    layer = MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)",
      "a missing `return`"),
     ("07.two_features", "from attnlib.modules import MultiHeadAttentionWrapper\n"
      "def two_feature_wrapper(d_in, context_length, dropout):\n"
      "    return MultiHeadAttentionWrapper", "returned the class MultiHeadAttentionWrapper"),
     ("08.hot_limit", "def hot_limit(num_tokens):\n    return 1 // num_tokens", "1 // num_tokens"),
     ("05.scale", "d_out = 2\ndef scaled_weights(attn_scores, keys):\n"
      "    return torch.softmax(attn_scores / d_out ** 0.5, dim=-1)", "a name of the notebook")],
)  # fmt: skip
def test_a_learner_s_kind_of_wrong_answer_is_told(name: str, code: str, says: str) -> None:
    namespace: dict = {}
    exec(NAMESPACE + code, namespace)
    verdict = check(name, namespace[EXERCISES[name].answer_names[0]])
    assert says in verdict.message and "exp overflow" not in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("name", "answer", "says"),
    [("01.highest", 3, "counted from 1"), ("01.highest", torch.tensor(3), "tensor(3)"),
     ("02.calls_growth", 144, "the number of calls for 12 tokens"),
     ("02.transposed_shape", (3, 6), "the shape of inputs.T"),
     ("02.transposed_shape", (6, 3), "the shape of inputs taken"),
     ("04.column_total", "equal", "the column taken to sum to 1"),
     ("01.repeats", 36, "every cell of the grid"),
     ("04.running_sum", "from inputs[1] without .clone()", "did not start from zeros"),
     ("04.running_sum", torch.tensor([0.4419, 0.6515, 0.5683]), "agree to 4 decimals only")],
)  # fmt: skip
def test_a_wrong_value_is_described_with_its_likely_mistake(name: str, answer, says: str) -> None:
    if answer == "from inputs[1] without .clone()":  # as a reader's cell does it
        inputs = attnlib.example_inputs()
        weights = torch.softmax(inputs @ inputs[1], dim=-1)
        answer = inputs[1]
        for i, x_i in enumerate(inputs):
            answer += weights[i] * x_i
    verdict = check(name, answer)
    assert not verdict.correct and says in verdict.message, verdict.message


# --- what a learner meets, told in the learner's terms ------------------------------------------

# dim=0 written every way a learner writes it: right on the 1-D row of "journey" (one axis,
# as notebook 04 teaches), wrong on the grids the exercise says it also feeds.
DIM0 = [
    "torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=0)",
    "torch.softmax(attn_scores / math.sqrt(keys.shape[-1]), 0)",
    "F.softmax(attn_scores / keys.size(-1) ** 0.5, dim=0)",
    "(attn_scores / keys.shape[1] ** 0.5).softmax(dim=0)",
    "torch.exp(attn_scores / keys.shape[-1] ** 0.5) / "
    "torch.exp(attn_scores / keys.shape[-1] ** 0.5).sum(dim=0)",
]


@pytest.mark.parametrize("body", DIM0)
def test_dim0_on_05_scale_is_told_right_on_the_row_and_wrong_on_the_grids(body: str) -> None:
    namespace: dict = {}
    exec(f"{NAMESPACE}import math\ndef scaled_weights(attn_scores, keys):\n    return {body}",
         namespace)  # fmt: skip
    verdict = check("05.scale", namespace["scaled_weights"])
    assert verdict.mistake == "softmax_dim0", verdict.message
    assert "on the row of 'journey' alone it was right" in verdict.message
    assert "the check also feeds whole grids of scores" in verdict.message


def _broadcast_failures(seed: int, count: int):
    """Pairs of shapes (rank 1 to 3, sizes 1 to 5) that do not broadcast, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        a = tuple(int(n) for n in rng.integers(1, 6, rng.integers(1, 4)))
        b = tuple(int(n) for n in rng.integers(1, 6, rng.integers(1, 4)))
        rank = max(len(a), len(b))
        wide_a, wide_b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
        clashes = {i for i in range(rank) if 1 not in (wide_a[i], wide_b[i])
                   and wide_a[i] != wide_b[i]}  # fmt: skip
        if clashes:
            found.append((a, b, wide_a, wide_b, clashes))
    return found


@pytest.mark.parametrize(("a", "b", "wide_a", "wide_b", "clashes"), _broadcast_failures(32, 12))
def test_a_broadcast_error_is_explained_by_the_sizes_that_met(a, b, wide_a, wide_b, clashes):
    from attnlib.exercises._raised import meaning

    for op in ("+", "*", "/"):
        try:
            eval(f"x {op} y", {"x": torch.ones(a), "y": torch.ones(b)})
        except RuntimeError as err:
            said = meaning(f"RuntimeError: {err}")
        else:
            raise AssertionError(f"{a} {op} {b} broadcast")
        axis = next(i for i in clashes if f" at axis {i} " in said)
        assert f"met {wide_a[axis]} entries against {wide_b[axis]} at axis {axis}" in said, said
        assert "keepdim" not in said and "`*` written for `@`" not in said


def test_a_broadcast_error_in_an_answer_names_the_sizes_in_the_verdict():
    def all_context_vectors(attn_weights, inputs):
        return (attn_weights * inputs).sum(dim=0)  # (6, 6) * (6, 3): a product of entries

    verdict = check("04.all_context", all_context_vectors)
    assert "met 6 entries against 3 at axis 1" in verdict.message, verdict.message


def _step(zero: bool = True, rate: float | None = None, loss_factor: float = 1.0):
    def training_step(model, optimizer, inputs, targets):
        if zero:
            optimizer.zero_grad()
        logits = model(inputs)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        loss.backward()
        if rate is None:
            optimizer.step()
        else:  # a hand-written update with another learning rate
            with torch.no_grad():
                for p in model.parameters():
                    p -= rate * p.grad
        return loss.item() * loss_factor

    return training_step


@pytest.mark.parametrize(
    ("step", "says", "not_said"),
    [
        # the losses are right at step 1 only; the parameters move by another amount
        (_step(rate=0.4), ["the losses at steps 2, 3 (of 3)", "parameters ", "(of 15,041)"],
         ["entries "]),
        # every loss doubled, the parameters right
        (_step(loss_factor=2.0), ["the losses at steps 1, 2, 3 (of 3) differ",
                                  "at the loss at step 1: expected 7.2973, got 14.5946"],
         ["parameters", "entries "]),
    ],
)  # fmt: skip
def test_a_training_step_s_difference_names_losses_and_parameters(step, says, not_said):
    vocab = 1157  # the notebook's model: Embedding(vocab, 6) and Linear(6, vocab)
    assert vocab * 6 + 6 * vocab + vocab == 15_041
    verdict = check("10.training_step", step)
    for text in says:
        assert text in verdict.message, verdict.message
    for text in not_said:
        assert text not in verdict.message, verdict.message
