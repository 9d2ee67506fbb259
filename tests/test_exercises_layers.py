"""Notebooks 05-07 (the layers): odd answers never Correct, right answers written other ways
(the book's own code among them) Correct, and the rules the exercises state enforced."""

from __future__ import annotations

import pytest
from test_exercise_verdicts import ODD

from attnlib.exercises import EXERCISES, NOT_RUN, check

LAYERS = sorted(n for n in EXERCISES if n[:2] in ("05", "06", "07"))
NAMESPACE = """
import math
import torch
import torch.nn.functional as F
from torch import nn
from attnlib import modules
from attnlib.modules import MultiHeadAttentionWrapper
"""


@pytest.mark.parametrize("name", LAYERS)
@pytest.mark.parametrize("what", ODD)
def test_an_odd_answer_gets_a_verdict_that_is_not_correct(name: str, what: str) -> None:
    answer = ODD[what]
    if len(EXERCISES[name].answer_names) > 1:
        answer = dict.fromkeys(EXERCISES[name].answer_names, answer)
    verdict = check(name, answer)
    assert verdict.status in ("wrong", "refused", "mistake"), (what, verdict.message)
    assert "\n" not in verdict.message and len(verdict.message) < 600


#: Right answers to the three reasoning exercises, written other ways than the solutions.
_QUERY_SCALED = [
    "def rescaled_weights(attn_weights, c):\n"
    "    return torch.softmax(c * attn_weights.log(), dim=-1)",
    "def rescaled_weights(attn_weights, c):\n"
    "    return F.normalize(attn_weights.pow(c), p=1, dim=-1)",
]
_LAST_ROW = [
    "def last_row(ca, x):\n"
    "    q, k, v = ca.W_query(x), ca.W_key(x), ca.W_value(x)\n"
    "    return F.softmax(q[-1:] @ k.T / math.sqrt(k.size(-1)), dim=-1)[0] @ v",
]
_ONE_HEAD = [
    "def one_head_weights(mha, x, h):\n"
    "    q = mha.W_query(x).view(len(x), mha.num_heads, mha.head_dim)[:, h]\n"
    "    k = mha.W_key(x).view(len(x), mha.num_heads, mha.head_dim)[:, h]\n"
    "    scores = q @ k.T / math.sqrt(mha.head_dim)\n"
    "    keep = torch.tril(torch.ones_like(scores)).bool()\n"
    "    return scores.masked_fill(~keep, float('-inf')).softmax(-1)",
]

RIGHT = {
    "05.projections": [
        "def project(inputs, W_query, W_key, W_value):\n"
        "    return [torch.matmul(inputs, W) for W in (W_query, W_key, W_value)]",
        "def project(inputs, W_query, W_key, W_value):\n"
        "    return tuple(torch.einsum('td,de->te', inputs, W) for W in (W_query, W_key, W_value))",
    ],
    "05.scale": [
        "def scaled_weights(attn_scores, keys):\n"
        "    return torch.softmax(attn_scores / math.sqrt(keys.shape[1]), dim=-1)",
        "def scaled_weights(attn_scores, keys):\n"
        "    return F.softmax(attn_scores * keys.size(-1) ** -0.5, dim=attn_scores.dim() - 1)",
    ],
    "05.query_scaled": _QUERY_SCALED,
    "06.mask": [
        "def causal_weights(attn_scores, d_k):\n"
        "    mask = torch.ones_like(attn_scores, dtype=torch.bool).triu(1)\n"
        "    scaled = attn_scores.masked_fill(mask, float('-inf')) / math.sqrt(d_k)\n"
        "    return scaled.softmax(dim=-1)",
        "def causal_weights(attn_scores, d_k):\n"
        "    n = len(attn_scores)\n"
        "    visible = torch.tril(torch.ones(n, n))\n"
        "    masked = attn_scores.masked_fill(visible == 0, -torch.inf)\n"
        "    return torch.softmax(masked / d_k**0.5, dim=1)",
    ],
    "06.dropout": [
        "def dropout_with(attn_weights, keep, p):\n"
        "    return torch.where(keep, attn_weights / (1 - p), 0.0)",
        "def dropout_with(attn_weights, keep, p):\n"
        "    return attn_weights * keep.float() * (1 / (1 - p))",
    ],
    "06.last_row": _LAST_ROW,
    "06.first_row": [
        "def first_row(ca, inputs):\n    return ca.W_value.weight @ inputs[0]",
        "def first_row(ca, inputs):\n    with torch.no_grad():\n"
        "        return ca.W_value(inputs[:1])[0]",
    ],
    "07.wrapper_forward": [
        "class MyWrapper(modules.MultiHeadAttentionWrapper):\n    def forward(self, x):\n"
        "        return torch.cat(tuple(h(x) for h in self.heads), dim=2)",
    ],
    "07.two_features": [
        "def two_feature_wrapper(d_in, context_length, dropout):\n"
        "    return MultiHeadAttentionWrapper(d_in=d_in, d_out=1, context_length=context_length,"
        " dropout=dropout, num_heads=2)",
    ],
    "07.split_heads": [
        "def split_heads(x, num_heads):\n    b, num_tokens, d_out = x.shape\n"
        "    return x.reshape(b, num_tokens, num_heads, -1).permute(0, 2, 1, 3)",
    ],
    "07.merge_heads": [
        "def merge_heads(context_vec):\n"
        "    b, num_heads, num_tokens, head_dim = context_vec.shape\n"
        "    return context_vec.transpose(1, 2).reshape(b, num_tokens, -1)",
        "def merge_heads(context_vec):\n    return context_vec.permute(0, 2, 1, 3).flatten(2)",
    ],
    "07.one_head": _ONE_HEAD,
}


@pytest.mark.parametrize(
    ("name", "code"), [(name, code) for name, codes in RIGHT.items() for code in codes]
)
def test_a_right_answer_written_another_way_is_correct(name: str, code: str) -> None:
    namespace: dict = {}
    exec(NAMESPACE + code, namespace)
    verdict = check(name, namespace[EXERCISES[name].answer_names[0]])
    assert verdict.correct, verdict.message


@pytest.mark.parametrize(
    ("name", "answer", "correct"),
    [("05.weights_shape", (6, 6), True), ("05.weights_shape", [6, 6], True),
     ("05.weights_shape", "(6, 6)", False), ("06.unchanged_row", "Step", True),
     ("06.unchanged_row", 5, True), ("06.unchanged_row", "5", False),
     ("07.d_out", (1, 2), True), ("07.d_out", {"features_per_head": 1.0, "out_features": 2},
                                  True), ("07.d_out", ("1", "2"), False),
     ("07.head_dim_one", 2, True), ("07.head_dim_one", 2.5, False)],
)  # fmt: skip
def test_values_follow_the_one_answer_policy(name: str, answer, correct: bool) -> None:
    assert check(name, answer).correct is correct


def test_06_first_row_s_rule_no_attention_is_enforced() -> None:
    namespace: dict = {}
    exec(NAMESPACE + "def first_row(ca, inputs):\n    return ca(inputs[None])[0, 0]", namespace)
    verdict = check("06.first_row", namespace["first_row"])
    assert "one call of one of ca's projection layers" in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("name", "code", "words"),
    [
        (
            "06.last_row",
            "def last_row(ca, x):\n    return ca(x[None])[0, -1]",
            "the last row alone",
        ),
        (
            "07.one_head",
            "def one_head_weights(mha, x, h):\n    mha(x[None])\n"
            "    return mha.last_attn_weights[0, h]",
            "head h alone",
        ),
    ],
)
def test_running_the_whole_layer_is_refused_where_one_row_or_head_is_asked(
    name: str, code: str, words: str
) -> None:
    namespace: dict = {}
    exec(NAMESPACE + code, namespace)
    verdict = check(name, namespace[EXERCISES[name].answer_names[0]])
    assert not verdict.correct and words in verdict.message, verdict.message


@pytest.mark.parametrize(
    ("name", "answer"), [("07.d_out", {"features_per_head": ..., "out_features": ...})]
)
def test_a_pair_still_at_its_stub_is_not_attempted(name: str, answer) -> None:
    assert check(name, answer).status == "not attempted"


@pytest.mark.parametrize("name", LAYERS)
def test_a_check_run_before_its_exercise_says_so(name: str) -> None:
    namespace: dict = {"check": check}
    exec(f"verdict = check({name!r})", namespace)
    first = EXERCISES[name].answer_names[0]
    assert repr(namespace["verdict"]) == f"{NOT_RUN}: `{first}` is not defined yet."
