"""The student edition (`make student`, tools/student_edition.py), built from a copy of the
course: no solution left in what students receive, nbgrader's metadata on every exercise and
check, every check "Not attempted yet", working links, the same bytes twice, and a release
notebook that runs top to bottom as it is (one short one here, all ten in `make check-all`).
"""

from __future__ import annotations

import copy
import importlib.util
import re
import shutil
from pathlib import Path

import jsonschema
import nbformat
import pytest
from course import NOTEBOOKS, ROOT
from nbclient import NotebookClient

from attnlib.exercises import EXERCISES, NOT_ATTEMPTED

spec = importlib.util.spec_from_file_location(
    "student_edition", ROOT / "tools" / "student_edition.py"
)
student_edition = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student_edition)

ids = [p.stem for p in NOTEBOOKS]
SOLUTION_CODE = re.compile(r"```python\n(.*?)```", re.DOTALL)
SOLUTION_PROSE = re.compile(r"<details><summary>Solution</summary>(.*?)</details>", re.DOTALL)
LINK = re.compile(r"\]\(([^)#]+)(#[^)]*)?\)|src=\"([^\"]+)\"")
# nbgrader's cell metadata, schema version 3, as its documentation and validator state it:
# these keys only, grade_id of letters, digits, "_" and "-", points when graded.
NBGRADER_CELL = {
    "type": "object",
    "properties": {
        "schema_version": {"const": 3},
        "grade": {"type": "boolean"},
        "solution": {"type": "boolean"},
        "locked": {"type": "boolean"},
        "task": {"type": "boolean"},
        "grade_id": {"type": "string", "pattern": "^[a-zA-Z0-9_\\-]+$"},
        "points": {"type": "number", "minimum": 0},
    },
    "required": ["schema_version", "grade", "solution", "locked"],
    "additionalProperties": False,
    "if": {"properties": {"grade": {"const": True}}},
    "then": {"required": ["points"]},
}
NBGRADER = jsonschema.Draft202012Validator(NBGRADER_CELL)


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    """The edition of a copy of notebooks/ (figures and data included)."""
    course = tmp_path_factory.mktemp("course") / "notebooks"
    shutil.copytree(ROOT / "notebooks", course)
    out = tmp_path_factory.mktemp("student")
    student_edition.build(out, sorted(course.glob("[0-9][0-9]_*.ipynb")))
    return out


def _read(edition: Path, kind: str, path: Path) -> nbformat.NotebookNode:
    return nbformat.read(edition / kind / path.stem / path.name, as_version=4)


def _text(nb: nbformat.NotebookNode) -> str:
    """Everything a reader of ``nb`` sees as text: sources and text outputs."""
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.append(str(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def _tagged(nb: nbformat.NotebookNode, tag: str) -> list:
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def test_one_assignment_per_notebook_in_nbgrader_layout(edition):
    for kind in ("source", "release"):
        folders = sorted(p.name for p in (edition / kind).iterdir())
        assert folders == ids
        for path in NOTEBOOKS:
            assert (edition / kind / path.stem / path.name).is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_no_solution_text_survives_in_the_release(edition, path):
    committed = nbformat.read(path, as_version=4)
    solutions = _tagged(committed, "solution")
    assert solutions, "a notebook without solutions proves nothing here"
    release = _read(edition, "release", path)
    raw = (edition / "release" / path.stem / path.name).read_text()
    seen = _text(release)
    assert "<summary>Solution" not in raw and "Solution</summary>" not in raw
    assert not _tagged(release, "solution")
    # What the course shows outside its solutions may repeat a line of one; no more than that.
    course = _text(
        nbformat.v4.new_notebook(cells=[c for c in committed.cells if c not in solutions])
    )
    folded = [c for c in committed.cells if c not in solutions and SOLUTION_PROSE.search(c.source)]
    for cell in folded:  # a question answered without code, its solution in its own cell
        assert cell.source.split("<details>")[0].strip() in seen  # the question stays
        for answer in SOLUTION_PROSE.findall(cell.source):
            for paragraph in filter(None, (p.strip() for p in answer.split("\n\n"))):
                assert paragraph not in seen
    for cell in solutions:
        blocks = SOLUTION_CODE.findall(cell.source)
        assert blocks, f"no code in the solution {cell.source[:80]!r}"
        for block in blocks:
            assert block.strip() not in seen
            for line in filter(None, (x.strip() for x in block.splitlines())):
                assert seen.count(line) <= course.count(line), line


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_the_release_keeps_every_other_cell_and_output(edition, path):
    committed = nbformat.read(path, as_version=4)
    kept = [c for c in committed.cells if "solution" not in c.metadata.get("tags", [])]
    release = _read(edition, "release", path)
    assert [c.id for c in release.cells] == [c.id for c in kept]
    for mine, theirs in zip(release.cells, kept, strict=True):
        assert mine.metadata.get("tags") == theirs.metadata.get("tags")
        assert mine.get("outputs") == theirs.get("outputs")  # explorers and figures too
        if mine.cell_type == "code":
            assert mine.source == theirs.source  # the starters' `...` among them
    assert release.metadata == committed.metadata  # the explorers' saved state


def test_every_exercise_has_nbgrader_metadata_and_its_registry_name(edition):
    named = []
    for path in NOTEBOOKS:
        for kind in ("source", "release"):
            nb = _read(edition, kind, path)
            exercises = _tagged(nb, "exercise")
            assert exercises
            checks = [c for c in nb.cells if c.metadata["nbgrader"]["grade"]]
            assert len(checks) == len(exercises)
            for exercise, check in zip(exercises, checks, strict=True):
                name = exercise.metadata["attnlib"]["exercise"]
                assert name.startswith(path.name[:3].replace("_", "."))
                assert check.source.strip().startswith(f'check("{name}")')
                assert check.metadata["attnlib"] == {"exercise": name}
                flat = name.replace(".", "_")
                assert exercise.metadata["nbgrader"] == {
                    "grade": False, "solution": True, "locked": False, "task": False,
                    "grade_id": flat, "schema_version": 3,
                }  # fmt: skip
                assert check.metadata["nbgrader"] == {
                    "grade": True, "solution": False, "locked": True, "task": False,
                    "points": 1, "grade_id": f"{flat}-check", "schema_version": 3,
                }  # fmt: skip
                if kind == "release":
                    named.append(name)
    assert sorted(named) == sorted(EXERCISES)  # each exercise of the registry once


@pytest.mark.parametrize("kind", ["source", "release"])
def test_nbgrader_metadata_follows_its_schema_with_unique_ids(edition, kind):
    for path in NOTEBOOKS:
        nb = _read(edition, kind, path)
        seen = set()
        for cell in nb.cells:
            meta = cell.metadata["nbgrader"]
            NBGRADER.validate(meta)
            assert meta["grade_id"] not in seen
            seen.add(meta["grade_id"])
            if cell.cell_type == "markdown":  # nbgrader: a markdown answer is graded
                assert not meta["grade"] and not meta["solution"]
            if "exercise" not in cell.metadata.get("tags", []):
                assert meta["locked"], cell.id  # read-only, as nbgrader's lock cells
            if kind == "release":  # what nbgrader's LockCells writes for Jupyter
                assert cell.metadata["deletable"] is False
                assert cell.metadata.get("editable", True) is meta["solution"], cell.id


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_every_check_reads_not_attempted_as_the_committed_run_printed(edition, path):
    committed = {c.id: c for c in nbformat.read(path, as_version=4).cells}
    release = _read(edition, "release", path)
    checks = [c for c in release.cells if c.metadata["nbgrader"]["grade"]]
    for cell in checks:
        (output,) = cell.outputs
        assert output.output_type == "execute_result"
        assert output.data["text/plain"].startswith(f"{NOT_ATTEMPTED}: ")
        # `make notebooks` ran this cell after the starter: the same output.
        assert output == committed[cell.id].outputs[0]


def test_a_check_answered_in_the_course_is_reset_in_the_release(tmp_path):
    # A course notebook saved after answering: its check printed "Correct!" and more.
    path = tmp_path / "01_scores_loops.ipynb"
    nb = nbformat.read(ROOT / "notebooks" / path.name, as_version=4)
    check_cell = next(c for c in nb.cells if c.source == 'check("01.dot")')
    starter_output = copy.deepcopy(check_cell.outputs)
    check_cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="answered\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "Correct!"}),
    ]
    nbformat.write(nb, path)
    student_edition.build(tmp_path / "student", [path])
    release = nbformat.read(tmp_path / "student" / "release" / path.stem / path.name, 4)
    (reset,) = [c for c in release.cells if c.id == check_cell.id]
    assert reset.outputs == starter_output  # what `make notebooks` printed for the starter


@pytest.mark.parametrize("kind", ["source", "release"])
def test_links_and_files_resolve_inside_the_edition(edition, kind):
    for path in NOTEBOOKS:
        folder = edition / kind / path.stem
        nb = _read(edition, kind, path)
        for cell in nb.cells:
            named = re.findall(r"\b(?:figures|data)/[\w.-]+\.\w+", cell.source)
            if cell.cell_type == "markdown":
                named += [m[0] or m[2] for m in LINK.findall(cell.source)]
            for target in named:
                if target.startswith("https://"):
                    assert target.startswith(student_edition._repository()), target
                    continue
                assert (folder / target).resolve().is_file(), (path.name, target)
    assert (edition / kind / "10_attention_that_learns" / "data" / "the-verdict.txt").is_file()
    assert (edition / kind / "10_attention_that_learns" / "data" / "README.md").is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_nbgrader_step_on_the_source_gives_the_release(edition, path):
    # What `nbgrader generate_assignment` does with student/nbgrader_config.py: the release
    # step applied to source/ (not to the committed notebook) gives the release as written.
    source = _read(edition, "source", path)
    released, resources = student_edition.nbgrader_step(source, {"language": "python"})
    assert resources == {"language": "python"}
    assert nbformat.writes(released) == nbformat.writes(_read(edition, "release", path))


def test_nbgrader_config_and_its_module_sit_beside_the_assignments(edition):
    config = (edition / "nbgrader_config.py").read_text()
    assert "nbgrader_step" in config and "c.GenerateAssignment.preprocessors" in config
    assert (edition / "student_edition.py").read_bytes() == (
        ROOT / "tools" / "student_edition.py"
    ).read_bytes()


def test_the_same_course_gives_the_same_bytes(edition, tmp_path):
    paths = [ROOT / "notebooks" / p.name for p in NOTEBOOKS]
    student_edition.build(tmp_path, paths)
    again = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    first = sorted(p.relative_to(edition) for p in edition.rglob("*") if p.is_file())
    assert again == first
    for name in first:
        assert (tmp_path / name).read_bytes() == (edition / name).read_bytes(), name


def test_the_command_writes_the_notebooks_it_is_given(tmp_path, capsys):
    # `make student` runs this with --out student and no notebook (all of them).
    notebook = ROOT / "notebooks" / "02_scores_matmul.ipynb"
    assert student_edition.main(["--out", str(tmp_path), str(notebook)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'release' / notebook.stem} (and source/)\n"
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.ipynb"))
    assert written == [f"{kind}/{notebook.stem}/{notebook.name}" for kind in ("release", "source")]


def test_bad_input_is_refused_in_words(tmp_path):
    with pytest.raises(ValueError, match="expected at least one notebook, got none"):
        student_edition.build(tmp_path, [])
    with pytest.raises(ValueError, match="expected a notebook file, got"):
        student_edition.build(tmp_path, [ROOT / "README.md"])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = ...")])
    nb.cells[0].metadata["tags"] = ["exercise"]
    with pytest.raises(ValueError, match="got 'no code cell'"):
        student_edition.release_version(nb)
    nb.cells.append(nbformat.v4.new_code_cell('check("01.nothing")'))
    with pytest.raises(ValueError, match="known exercise"):
        student_edition.release_version(nb)
    assert not list(tmp_path.iterdir())  # refused before writing


def _run(edition: Path, path: Path) -> None:
    """Run the release of ``path`` top to bottom in its folder; every check unchanged."""
    release = _read(edition, "release", path)
    client = NotebookClient(
        release,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(edition / "release" / path.stem)}},
    )
    client.execute()  # raises CellExecutionError on the first error
    stored = {c.id: c for c in _read(edition, "release", path).cells}
    for cell in release.cells:
        if cell.metadata["nbgrader"]["grade"]:
            text = cell.outputs[-1].data["text/plain"]
            assert text == stored[cell.id].outputs[0].data["text/plain"], cell.id
            assert text.startswith(NOT_ATTEMPTED)


SHORT = "02_scores_matmul"  # the quickest notebook to run


def test_a_release_notebook_runs_top_to_bottom_as_it_is(edition):
    _run(edition, next(p for p in NOTEBOOKS if p.stem == SHORT))


@pytest.mark.check_all
@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem != SHORT], ids=lambda p: p.stem)
def test_every_release_notebook_runs_top_to_bottom_as_it_is(edition, path):
    _run(edition, path)
