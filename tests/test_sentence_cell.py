"""Notebook 08 run top to bottom with a sentence no explorer can use: one line says why, the
book's sentence is used instead, and no cell after it fails (before, every one raised
NameError). A full run of the notebook per sentence: in ``make check-all``; ``make test``
checks the function the cell calls (tests/test_embed.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest
from course import ROOT

pytestmark = pytest.mark.check_all

NOTEBOOK = ROOT / "notebooks" / "08_explorer.ipynb"
COMMITTED = 'my_sentence = "Time flies like an arrow."'

BAD = {
    "empty": ('""', "sentence: expected at least one word, got ''"),
    "blank": ('"   "', "sentence: expected at least one word, got '   '"),
    "33-words": ('"w " * 33', "sentence: expected at most 32 tokens, got 33"),
    "101-characters": ('"a" * 101', "sentence: expected a token of at most 20 characters"),
}


def _run_notebooks():
    spec = importlib.util.spec_from_file_location(
        "run_notebooks", ROOT / "tools" / "run_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", BAD)
def test_notebook_08_runs_through_with_a_sentence_it_cannot_use(name, tmp_path: Path):
    typed, why = BAD[name]
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(COMMITTED))
    cell.source = cell.source.replace(COMMITTED, f"my_sentence = {typed}", 1)
    copy = tmp_path / NOTEBOOK.name
    nbformat.write(nb, copy)
    _run_notebooks().run(copy, cwd=NOTEBOOK.parent)  # raises on the first cell that fails
    ran = nbformat.read(copy, as_version=4)
    cell = next(c for c in ran.cells if c.cell_type == "code" and "usable_sentence" in c.source)
    lines = "".join(o.get("text", "") for o in cell.outputs).splitlines()
    assert lines[0].startswith(f"This sentence cannot be used ({why}")
    assert lines[0].endswith("using 'Your journey starts with one step' instead.")
    assert lines[1:] == ["6 tokens: ['Your', 'journey', 'starts', 'with', 'one', 'step']"]
    errors = [
        o for c in ran.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == []
