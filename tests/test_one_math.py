"""One call graph for the math: attention.py is the one place that computes attention.

Every Python line of attnlib (and of the tools that draw the course's figures) outside
``attention.py`` and ``modules.py`` (the book's forward passes, tested equal to attention.py in
test_modules.py) calls attention.py instead of computing a softmax, a causal mask, scores as a
product with a transpose, or a blend of values by weights. ``attnlib/mistakes`` is left out:
a wrong-answer variant computes one step wrongly on purpose. The scan reads the source (ast),
so it sees what a line writes, not what it happens to compute.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where the math lives, and where wrong math is the point.
ALLOWED = {"attnlib/attention.py", "attnlib/modules.py"}
WRONG_ON_PURPOSE = "attnlib/mistakes/"

_SOFTMAX = {"softmax", "log_softmax", "Softmax"}
_MASK_BUILDERS = {"triu", "tril", "triu_", "tril_"}
_TURNS = {"T", "mT", "H", "mH"}
_TURNING_CALLS = {"transpose", "permute", "t", "swapaxes", "swapdims"}
_PRODUCTS = {"matmul", "bmm", "mm"}
#: Names attention.py's functions are reached by (``attnlib.softmax``, ``attention.softmax``).
_OURS = {"attnlib", "attention"}


def _word(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _turned(node: ast.AST) -> bool:
    """Whether ``node`` holds a transpose: ``.T``, ``.mT``, ``.transpose(...)``, ``.permute``."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _TURNS:
            return True
        if isinstance(sub, ast.Call) and _word(sub.func) in _TURNING_CALLS:
            return True
    return False


def _weights(node: ast.AST) -> bool:
    """Whether ``node`` names attention weights (``attn_weights``, ``weights[q]``, ``w``)."""
    return any(
        (w := _word(sub)) in ("w", "row") or (w or "").find("weights") >= 0
        for sub in ast.walk(node)
    )


def _minus_inf(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _word(node.operand) == "inf" or (
            isinstance(node.operand, ast.Call) and _word(node.operand.func) == "float"
        )
    if isinstance(node, ast.Call) and _word(node.func) == "float" and node.args:
        arg = node.args[0]
        return isinstance(arg, ast.Constant) and str(arg.value).strip().lower() == "-inf"
    return False


def attention_steps(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` for every step of attention that ``source`` computes itself."""
    tree = ast.parse(source)
    ours = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "attnlib.attention"
        for alias in node.names
    }
    found = set()
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Call):
            f, name = node.func, _word(node.func)
            mine = (isinstance(f, ast.Name) and name in ours) or (
                isinstance(f, ast.Attribute) and _word(f.value) in _OURS
            )
            if name in _SOFTMAX and not mine:
                what = "a softmax"
            elif name in _MASK_BUILDERS:
                what = "a causal mask (triu / tril)"
            elif name in ("masked_fill", "masked_fill_") and any(map(_minus_inf, node.args[1:2])):
                what = "a mask filled with -inf"
            elif name == "einsum":
                what = "an einsum"
            elif name in _PRODUCTS and any(map(_turned, node.args)):
                what = "scores as a product with a transpose"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            if _turned(node.left) or _turned(node.right):
                what = "scores as a product with a transpose"
            elif _weights(node.left):
                what = "a context vector (weights @ ...)"
        if what:
            found.add((node.lineno, what))
    return sorted(found)


def _scanned() -> list[Path]:
    files = sorted((ROOT / "attnlib").rglob("*.py")) + sorted((ROOT / "tools").glob("figures*.py"))
    return [
        path
        for path in files
        if (rel := path.relative_to(ROOT).as_posix()) not in ALLOWED
        and not rel.startswith(WRONG_ON_PURPOSE)
    ]


def test_no_attention_math_outside_attention_py():
    files = _scanned()
    assert len(files) > 40, "the scan found too few files to mean anything"
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {what}"
        for path in files
        for line, what in attention_steps(path.read_text(encoding="utf-8"))
    ]
    assert not found, "call attnlib.attention instead:\n" + "\n".join(found)


SAMPLE = """
import torch
from attnlib.attention import softmax, context_vectors
import attnlib

a = torch.softmax(x, dim=-1)
b = x.softmax(-1)
c = torch.ones(3, 3).triu(diagonal=1)
d = x.masked_fill(mask, -torch.inf)
e = queries @ keys.T
f = queries @ keys.transpose(-2, -1)
g = torch.einsum("qd,kd->qk", queries, keys)
h = attn_weights @ values
i = torch.matmul(q, k.mT)
j = x.masked_fill_(mask, float("-inf"))
k = torch.nn.Softmax(dim=-1)
fine_1 = softmax(x)
fine_2 = attnlib.softmax(x)
fine_3 = context_vectors(attn_weights, values)
fine_4 = inputs @ W_query
fine_5 = x.masked_fill(mask, 0.0)
"""


def test_the_scan_names_each_kind_of_step_by_its_line():
    found = attention_steps(SAMPLE)
    lines = [line for line, _ in found]
    assert lines == list(range(6, 17)), found
    kinds = {what for _, what in found}
    assert kinds == {
        "a softmax",
        "a causal mask (triu / tril)",
        "a mask filled with -inf",
        "scores as a product with a transpose",
        "an einsum",
        "a context vector (weights @ ...)",
    }


def test_a_local_softmax_named_like_attention_s_is_still_found():
    """``softmax`` imported from elsewhere (torch.nn.functional) is not attention.py's."""
    source = "from torch.nn.functional import softmax\ny = softmax(x, dim=-1)\n"
    assert attention_steps(source) == [(2, "a softmax")]


@pytest.mark.parametrize("allowed", sorted(ALLOWED))
def test_the_allowed_files_do_compute_attention(allowed):
    """The scan sees attention.py's and modules.py's own steps: a blind scan would pass too."""
    assert attention_steps((ROOT / allowed).read_text(encoding="utf-8"))
