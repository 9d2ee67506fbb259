"""Notebook hygiene, and proof that the nbval layer can fail.

nbval itself (``pytest --nbval``) re-runs every notebook and compares every stored output
not tagged ``nbval-ignore-output``; these tests check that what it compares is worth it.
"""

from __future__ import annotations

import getpass
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IGNORE = "nbval-ignore-output"
# What a figure or a live explorer leaves as text in a saved notebook, and timing calls.
LIVE_OR_FIGURE_TEXT = re.compile(r"^<Figure size |: a live explorer\. ")
TIMED = re.compile(r"\btimeit\.\w+\(|\btime\.(perf_counter|time)\(")


def _tool(name: str) -> ModuleType:
    """The script tools/<name>.py as a module (tools/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_notebooks = _tool("run_notebooks")

ids = [p.name for p in NOTEBOOKS]


def _code_cells(path: Path) -> list:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def _tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def test_course_has_its_notebooks():
    names = [p.name for p in NOTEBOOKS]
    assert names == [
        "01_scores_loops.ipynb",
        "02_scores_matmul.ipynb",
        "03_softmax_weights.ipynb",
        "04_context_vectors.ipynb",
        "05_trainable_attention.ipynb",
        "06_causal_attention.ipynb",
        "07_multi_head_attention.ipynb",
        "08_explorer.ipynb",
        "09_how_fast_is_attention.ipynb",
        "10_attention_that_learns.ipynb",
    ]
    readme = (ROOT / "README.md").read_text()
    for name in names:  # the course map has a row per notebook
        assert f"(notebooks/{name})" in readme, name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_executed_once_top_to_bottom_without_errors(path):
    cells = _code_cells(path)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    errors = [o for c in cells for o in c.outputs if o.output_type == "error"]
    assert not errors
    stderr = [o.text for c in cells for o in c.outputs if o.get("name") == "stderr"]
    assert not stderr, f"warnings or errors printed: {stderr}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_kernel_is_python3(path):
    assert nbformat.read(path, as_version=4).metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_no_absolute_paths_or_user_names(path):
    text = path.read_text()
    patterns = [
        r"/home/",
        r"/root\b",
        r"/work/",
        r"/tmp/",
        r"/Users/",
        r"[A-Z]:\\\\",
        r"site-packages",
    ]
    user = getpass.getuser()
    if len(user) > 3 and user != "root":
        patterns.append(re.escape(user))
    for pattern in patterns:
        assert not re.search(pattern, text), f"{pattern} found in {path.name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_enough_printed_values_are_compared(path):
    compared = [
        c
        for c in _code_cells(path)
        if IGNORE not in _tags(c)
        and any(o.output_type in ("stream", "execute_result") for o in c.outputs)
    ]
    assert len(compared) >= 5, f"only {len(compared)} compared cells with printed values"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_figures_and_widgets_are_in_ignored_cells(path):
    for cell in _code_cells(path):
        kinds = {k for o in cell.outputs for k in o.get("data", {})}
        texts = [o.get("data", {}).get("text/plain", "") for o in cell.outputs]
        shows_live_or_figure = bool(
            kinds & {"image/png", "application/vnd.jupyter.widget-view+json"}
        ) or any(LIVE_OR_FIGURE_TEXT.search(t) for t in texts)
        if shows_live_or_figure or TIMED.search(cell.source):
            assert IGNORE in _tags(cell), cell.source[:80]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_opens_with_aims_ends_with_a_checkpoint_and_gives_the_reader_turns(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert first.startswith("# ") and "**After this notebook you can**" in first
    assert "**Builds on:**" in first
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Checkpoint" in markdown
    tags = [tag for c in nb.cells for tag in c.metadata.get("tags", [])]
    assert tags.count("exercise") >= 3 and tags.count("solution") == tags.count("exercise")
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            # Folded away, so that it is read on purpose.
            assert cell.cell_type == "markdown" and cell.source.startswith("<details><summary>")


def _changed_copy(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    nb = json.loads(source.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or IGNORE in cell["metadata"].get("tags", []):
            continue
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", []))
            if old in text:
                output["text"] = text.replace(old, new, 1)
                target = tmp_path / source.name
                target.write_text(json.dumps(nb))
                return target
    raise AssertionError(f"{old!r} is not a compared printed value of {source.name}")


def _nbval(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "-q",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(ROOT),
            str(path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_nbval_fails_when_a_printed_value_changes(tmp_path):
    source = ROOT / "notebooks" / "01_scores_loops.ipynb"
    unchanged = tmp_path / "same" / source.name
    unchanged.parent.mkdir()
    unchanged.write_text(source.read_text())
    assert _nbval(unchanged).returncode == 0  # the copy itself passes...
    changed = _changed_copy(tmp_path, source, "[0, 1] = tensor(0.9544)", "[0, 1] = tensor(0.9545)")
    result = _nbval(changed)  # ...and one changed digit fails it
    assert result.returncode == 1, result.stdout[-2000:]
    assert "0.9545" in result.stdout and "failed" in result.stdout


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_make_notebooks_reproduces_the_committed_notebook(path, tmp_path):
    # What `make notebooks` would write, compared byte for byte with what is committed.
    fresh = tmp_path / path.name
    fresh.write_text(path.read_text())
    run_notebooks.run(fresh, cwd=path.parent)
    assert fresh.read_text() == path.read_text()
