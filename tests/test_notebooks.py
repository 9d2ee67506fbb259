"""Notebook hygiene, and proof that the nbval layer can fail.

nbval itself (``pytest --nbval``) re-runs every notebook and compares every stored output
not tagged ``nbval-ignore-output``; these tests check that what it compares is worth it.
They read the committed files only: nbval's run is the one execution of each notebook in
`make test`. What needs a run of its own (a notebook re-executed by `make notebooks`, nbval
run on a changed copy of notebook 01) is marked ``check_all`` and runs in `make check-all`.
"""

from __future__ import annotations

import getpass
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from course import MIN_EXERCISES_PER_NOTEBOOK, NOTEBOOKS, ROOT

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


def test_the_course_is_numbered_from_01_without_gaps_and_mapped_in_the_readme():
    assert NOTEBOOKS, "no notebooks found"
    # A notebook named otherwise would be left out of every test without a word.
    assert sorted((ROOT / "notebooks").glob("*.ipynb")) == NOTEBOOKS
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers == list(range(1, len(NOTEBOOKS) + 1)), numbers
    for path in NOTEBOOKS:
        assert re.fullmatch(r"[0-9]{2}_[a-z0-9_]+\.ipynb", path.name), path.name
    readme = (ROOT / "README.md").read_text()
    for path in NOTEBOOKS:  # the course map has a row per notebook
        assert f"(notebooks/{path.name})" in readme, path.name


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
    assert tags.count("exercise") >= MIN_EXERCISES_PER_NOTEBOOK
    assert tags.count("solution") == tags.count("exercise")
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


def _nbval(*paths: Path) -> subprocess.CompletedProcess:
    """pytest --nbval over ``paths`` with the project's settings, in a process of its own, and
    an empty progress record of its own (the notebooks were saved with an empty one; this
    session's record holds what other tests' kernels checked)."""
    record = tempfile.mkdtemp(prefix="attnlib-progress-")
    try:
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
                *map(str, paths),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "ATTNLIB_PROGRESS_DIR": record},
        )
    finally:
        shutil.rmtree(record, ignore_errors=True)


def _printing_notebook(path: Path, compared: str, ignored: str) -> Path:
    """A two-cell notebook whose stored outputs say ``compared`` and ``ignored``.

    The first cell prints the book's score; the second prints the time, tagged so nbval
    does not compare it.
    """
    stream = nbformat.v4.new_output
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": run_notebooks.KERNELSPEC})
    nb.cells = [
        nbformat.v4.new_code_cell(
            "print('[0, 1] =', round(0.5 + 0.4544, 4))",
            execution_count=1,
            outputs=[stream("stream", name="stdout", text=compared)],
        ),
        nbformat.v4.new_code_cell(
            "import time\nprint(time.time())",
            execution_count=2,
            metadata={"tags": [IGNORE]},
            outputs=[stream("stream", name="stdout", text=ignored)],
        ),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_nbval_with_the_projects_settings_fails_on_a_changed_digit_only(tmp_path):
    # A notebook without torch, so that the proof costs one short kernel, not a notebook's run.
    same = _printing_notebook(tmp_path / "same" / "same.ipynb", "[0, 1] = 0.9544\n", "0.0\n")
    changed = _printing_notebook(
        tmp_path / "changed" / "changed.ipynb", "[0, 1] = 0.9545\n", "0.0\n"
    )
    result = _nbval(same, changed)
    assert result.returncode == 1, result.stdout[-2000:]
    # In order: both cells of the copy pass; of the changed one, the digit fails its cell and
    # the time, stored as 0.0 in both, fails neither.
    assert result.stdout.startswith("..F."), result.stdout[-2000:]
    assert re.search(r"\b1 failed, 3 passed\b", result.stdout), result.stdout[-2000:]


def test_the_books_score_is_a_compared_printed_value_of_notebook_01(tmp_path):
    # nbval compares every cell not tagged to be ignored: the checkpoint's value is in one.
    source = ROOT / "notebooks" / "01_scores_loops.ipynb"
    _changed_copy(tmp_path, source, "[0, 1] = tensor(0.9544)", "[0, 1] = tensor(0.9545)")


@pytest.mark.check_all
def test_nbval_fails_when_a_printed_value_of_notebook_01_changes(tmp_path):
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
def test_committed_notebook_is_in_the_form_make_notebooks_writes(path):
    # Without running it: what `make notebooks` does after the run (metadata, widget ids in
    # order, volatile outputs dropped, nbformat's layout) leaves the committed file as it is.
    nb = nbformat.read(path, as_version=4)
    run_notebooks.normalise(nb)
    written = nbformat.writes(nb)
    assert written + ("" if written.endswith("\n") else "\n") == path.read_text()


# The libraries whose versions decide a figure's PNG bytes, and their versions in the lock.
PNG_LIBRARIES = ("matplotlib", "pillow", "numpy")
LOCKED = dict(
    line.lower().split("==")
    for line in (ROOT / "requirements-lock.txt").read_text().splitlines()
    if "==" in line and not line.startswith("#")
)
PNG = re.compile(r'"image/png": "[^"]*"')


def _without_png(text: str) -> str:
    return PNG.sub('"image/png": "<PNG>"', text)


# Run in a notebook kernel of the copy below: attnlib from the copy, not the editable install.
_FROM_THE_COPY = """import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
"""
JS_EDIT = "// a comment edit\n"


def _tracked() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    return [name for name in listed if name and (ROOT / name).is_file()]


@pytest.fixture(scope="session")
def js_edited_copy(tmp_path_factory) -> tuple[Path, str, dict[str, bytes]]:
    """A copy of the repo's tracked files with a comment added to every JS file (sources and
    bundle), the PYTHONPATH whose kernels import attnlib from it, and the copy's other files
    as copied (path -> bytes)."""
    base = tmp_path_factory.mktemp("js-edited")
    copy = base / "repo"
    tracked = _tracked()
    for name in tracked:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    edited = sorted((copy / "attnlib/widgets/static").rglob("*.js"))
    assert edited, "no JS file to edit"
    for path in edited:
        path.write_text(path.read_text() + JS_EDIT)
    (base / "hooks").mkdir()
    (base / "hooks" / "sitecustomize.py").write_text(_FROM_THE_COPY)
    pythonpath = os.pathsep.join([str(base / "hooks"), str(copy)])
    env = {**os.environ, "PYTHONPATH": pythonpath}
    source = subprocess.run(
        [
            sys.executable,
            "-c",
            "from attnlib.widgets import frontend; print(frontend.module_source())",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert JS_EDIT.strip() in source, "the notebooks would not run with the edited copy"
    kept = {str(p.relative_to(copy)) for p in edited}
    return copy, pythonpath, {n: (copy / n).read_bytes() for n in tracked if n not in kept}


@pytest.mark.check_all
@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_make_notebooks_reproduces_the_committed_notebook(path, js_edited_copy, monkeypatch):
    """What `make notebooks` (tools/run_notebooks.py) writes, compared byte for byte with what
    is committed: the notebook and the widget state saved beside it. It runs in a copy of the
    repo whose every JS file has a comment added: an edit of the front end's code changes no
    notebook, no widget state, nor any other file (one edit, one diff; once a test of its own,
    which ran every notebook a second time)."""
    copy, pythonpath, copied = js_edited_copy
    fresh = copy / path.relative_to(ROOT)
    # Its kernel imports attnlib from the copy; the tool's own Python reads no JS file.
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    state, saved = (run_notebooks.widget_state_path(p) for p in (fresh, path))
    try:
        run_notebooks.run(fresh)
        written = fresh.read_text()
        written_state = state.read_text() if state.exists() else None
        # No other file of the copy differs from what was copied (the JS edited aside).
        ours = {str(p.relative_to(copy)) for p in (fresh, state)}
        changed = [
            name
            for name, before in copied.items()
            if name not in ours and (copy / name).read_bytes() != before
        ]
    finally:  # the copy as it was, for the next notebook's run
        shutil.copy2(path, fresh)
        if saved.exists():
            shutil.copy2(saved, state)
    assert not changed, f"running {path.name} with the JS edited changed {changed}"
    # The widget state saved beside it too (none for a notebook without explorers).
    assert (written_state is not None) == saved.exists(), path.name
    if saved.exists():
        assert written_state == saved.read_text(), f"{saved.name}: another widget state"
    committed = path.read_text()
    assert _without_png(written) == _without_png(committed)  # on any library versions
    other = [
        f"{name} {version(name)} (locked: {LOCKED[name]})"
        for name in PNG_LIBRARIES
        if version(name) != LOCKED[name]
    ]
    if other and PNG.search(committed):
        pytest.skip(f"figures' PNG bytes not compared: they depend on {', '.join(other)}")
    assert written == committed
