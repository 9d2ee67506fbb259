"""What an error raised by a reader's code likely means, in the course's words."""

from __future__ import annotations

import importlib.util
import re
import sys

#: What an error's first line likely means: a regular expression (its lines joined as they
#: are), then its meaning on indented lines.
_TABLE = r"""
mat1 and mat2 shapes cannot be multiplied|size mismatch, got|inconsistent size|
Expected size for first two dimensions of batch2
    a matrix product A @ B needs A's columns to equal B's rows: is an operand transposed (`.T`
    on a batch, a missing `.transpose`), or are the operands swapped?
is invalid for input of size
    a view or reshape to sizes whose product is not the tensor's number of entries: is a size
    written as the book's number, read from a name of the notebook, or is num_heads * head_dim
    not d_out?
argument '(size|shape)'.*(float|must be tuple of ints)
    a size given as a float: `/` gives a float even when it divides evenly; sizes are whole
    numbers, written with `//`
Dimension out of range
    an axis the tensor does not have: dim=1 or .T on a tensor with fewer axes than expected?
index \d+ is out of bounds|out of range
    an index past the end of a tensor: a size or an index written as the book's number?
inconsistent tensor size
    a product of two vectors of different lengths: is one operand a single row where the whole
    matrix was meant, or the other way round?
1D tensors expected
    torch.dot multiplies two vectors (1-D) only: for every pair of rows of a matrix at once,
    write a matrix product, A @ B
takes \d+ positional arguments? but \d+ (were|was) given|
missing \d+ required positional argument|unexpected keyword argument
    the check calls your function with the arguments the exercise names: does its `def` line
    take exactly those, in that order?
both arguments to matmul need to be at least 1D|0D or 1D tensors expected
    a matrix product of a single number or of a vector that needs a matrix: is a row taken where
    the whole tensor was meant?
must be Tensor, not|expected Tensor as element|Expected all tensors
    a torch function was given something that is not a tensor: which argument holds what?
^(ZeroDivisionError|OverflowError)
    a division by zero or a number too large: is a sum or a size 0 where it should not be?
^(NameError|UnboundLocalError)
    a name the function does not have: use its arguments, not a name from the notebook
view size is not compatible
    view on a tensor that is not contiguous: call .contiguous() first, or use .reshape
has no attribute 'shape'|object has no attribute
    a method called on something that is not a tensor: which argument holds what?
masked_fill.*(bool|Bool)|expected.*mask.*bool
    masked_fill wants a boolean mask: compare (`== 1`) or call .bool() on a 0/1 mask
^TypeError
    a value of an unexpected type: is an argument missing, or a number where a tensor goes?
"""


def _entries(table: str) -> tuple[tuple[str, str], ...]:
    """The ``(pattern, meaning)`` pairs of a table written as :data:`_TABLE` is."""
    entries: list[tuple[str, list[str]]] = []
    for line in table.strip("\n").splitlines():
        if line.startswith(" "):
            entries[-1][1].append(line.strip())
        elif entries and not entries[-1][1]:  # the pattern goes on
            entries[-1] = (entries[-1][0] + line, [])
        else:
            entries.append((line, []))
    return tuple((pattern, " ".join(words)) for pattern, words in entries)


#: (pattern of the error's first line, what it likely means): the first match is used.
MEANINGS = _entries(_TABLE)


#: torch's words when two shapes do not broadcast: the sizes that met and the axis, counted in
#: the shape of the result (the shapes lined up from the right).
BROADCAST = (
    r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


#: The short names a notebook imports under, and the line that imports each.
IMPORTS = {
    "np": "import numpy as np",
    "F": "import torch.nn.functional as F",
    "nn": "from torch import nn",
    "plt": "import matplotlib.pyplot as plt",
    "pd": "import pandas as pd",
    "modules": "from attnlib import modules",
}
#: Standard-library modules a reader's cell may use. Others are left out: a name such as
#: `token` or `test` is more likely a variable of the notebook than a module.
STANDARD = frozenset(
    {"math", "random", "itertools", "functools", "collections", "copy", "time", "statistics"}
)


def import_line(name: str) -> str | None:
    """How a cell imports ``name``: a short name of :data:`IMPORTS`, a public name of
    attnlib or attnlib.modules (e.g. MultiHeadAttention), a module of :data:`STANDARD` or an
    installed package (torch, numpy...); else ``None``."""
    if name in IMPORTS:
        return IMPORTS[name]
    for module in ("attnlib", "attnlib.modules"):
        found = sys.modules.get(module)  # attnlib.modules: once loaded, as from notebook 05 on
        if found is None:
            continue
        public = getattr(found, "__all__", None) or [
            n for n, v in vars(found).items() if getattr(v, "__module__", "") == module
        ]
        if name in public and not name.startswith("_"):
            return f"from {module} import {name}"
    if name in STANDARD:
        return f"import {name}"
    if not name.isidentifier() or name.startswith("_"):
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    # site-packages, or dist-packages of a system Python: installed, not the standard library
    installed = spec is not None and "-packages" in str(
        spec.origin or spec.submodule_search_locations
    )
    return f"import {name}" if installed else None


def meaning(text: str) -> str:
    """``"; likely ..."`` for an error's first line ``text`` ("Kind: message"), or ``""``."""
    unknown = re.match(r"NameError: name '(\w+)' is not defined", text)
    if unknown and (line := import_line(unknown.group(1))):
        return f": import it in your cell ({line})"
    if met := re.search(BROADCAST, text):  # what met, in the reader's words
        size_a, size_b, axis = met.groups()
        return (
            f": an elementwise operation (+, -, *, /) met {size_a} entries against {size_b} at "
            f"axis {axis} of the shape they broadcast to (shapes line up from the right; two "
            "sizes that meet must be equal, or one of them 1): print each operand's .shape"
        )
    for pattern, what in MEANINGS:
        if re.search(pattern, text):
            return f": {what}"
    return ""
