"""The student edition: every notebook as an nbgrader assignment, its solutions removed.

`make student` calls this. It writes nbgrader's course layout, one assignment per notebook
named by the notebook's file stem::

    student/source/<assignment>/<notebook>.ipynb    the instructor version: as committed,
                                                    with nbgrader cell metadata
    student/release/<assignment>/<notebook>.ipynb   what students receive: no solutions,
                                                    every check "Not attempted yet"

and beside each notebook the figures and data files it uses. ``student/nbgrader_config.py``
(from tools/) and a copy of this module let ``nbgrader generate_assignment`` make the same
release from ``source/``. Links between notebooks become ``../<assignment>/<notebook>.ipynb``,
which holds in ``release/`` and in a student's home after ``nbgrader fetch_assignment`` alike
(assignments sit side by side there).

The release drops the solution cells (markdown tagged ``solution``, after their check) and the
solutions folded into a question's own markdown cell (the questions answered without code).

Every exercise cell (tagged ``exercise``) is an nbgrader solution cell and every check cell
(one ``check("NN.name")`` call, the first code cell after its exercise) a grade cell; both
carry ``{"attnlib": {"exercise": "NN.name"}}``, the id the gradebook goes by. nbgrader's
``grade_id`` allows letters, digits, ``_`` and ``-`` only, so ``"01.dot"`` is written
``"01_dot"`` there. All other cells are nbgrader's read-only cells (``locked``), named by
their cell id. The same notebooks give the same bytes.

Usage: python tools/student_edition.py [--out student] [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
from pathlib import Path

import nbformat

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from attnlib.exercises import EXERCISES, check

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

EXERCISE_TAG = "exercise"
SOLUTION_TAG = "solution"
SCHEMA_VERSION = 3  # nbgrader's cell metadata schema
# A check cell calls check() on its exercise's name and nothing else (a comment may follow).
CHECK_CELL = re.compile(r'check\("(\d\d\.\w+)"\)\s*(#[^\n]*)?')
# Files a notebook reads or shows, named relative to it.
USED_FILE = re.compile(r"\b((?:figures|data)/[\w.-]+\.\w+)")
NOTEBOOK_LINK = re.compile(r"\]\((\d\d_\w+)\.ipynb(#[^)]*)?\)")
COURSE_MAP_LINK = "](../README.md)"
# A solution folded into the question's own cell (the questions answered without code).
FOLDED_SOLUTION = re.compile(r"\s*<details><summary>Solution</summary>.*?</details>", re.DOTALL)


def grade_id(exercise: str) -> str:
    """nbgrader's id of an exercise cell: ``"01.dot"`` -> ``"01_dot"`` (no dots allowed)."""
    return exercise.replace(".", "_")


def exercises(nb: nbformat.NotebookNode) -> list[tuple[int, int, str]]:
    """``(exercise cell, check cell, exercise name)`` for every exercise of ``nb``, in order.

    The check cell is the first code cell after the exercise cell; it must be a lone
    ``check("NN.name")`` naming an exercise of the registry, else ValueError.
    """
    found = []
    for index, cell in enumerate(nb.cells):
        if EXERCISE_TAG not in cell.metadata.get("tags", []):
            continue
        after = next(
            (k for k in range(index + 1, len(nb.cells)) if nb.cells[k].cell_type == "code"),
            None,
        )
        match = after is not None and CHECK_CELL.fullmatch(nb.cells[after].source.strip())
        if not match or match.group(1) not in EXERCISES:
            got = nb.cells[after].source[:60] if after is not None else "no code cell"
            raise ValueError(
                f'expected a check("NN.name") cell of a known exercise after exercise cell '
                f"{cell.get('id', index)}, got {got!r}"
            )
        found.append((index, after, match.group(1)))
    return found


def _solutions(nb: nbformat.NotebookNode, found: list[tuple[int, int, str]]) -> dict[int, str]:
    """The solution cells (markdown tagged ``solution``) by index, each with its exercise:
    the last exercise whose check cell comes before it."""
    named = {}
    for index, cell in enumerate(nb.cells):
        if SOLUTION_TAG in cell.metadata.get("tags", []):
            before = [name for _, at, name in found if at < index]
            if cell.cell_type != "markdown" or not before:
                raise ValueError(
                    f"expected a markdown solution cell after a check cell, got cell "
                    f"{cell.get('id', index)} ({cell.cell_type})"
                )
            named[index] = before[-1]
    return named


def _nbgrader(**fields) -> dict:
    return (
        {"grade": False, "solution": False, "locked": False, "task": False}
        | fields
        | {"schema_version": SCHEMA_VERSION}
    )


def _repository() -> str:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["urls"]["Repository"]


def _relink(source: str) -> str:
    """Links to another notebook point into its assignment folder; the course map (the
    README, outside every assignment) to the repository's copy."""
    source = NOTEBOOK_LINK.sub(lambda m: f"](../{m[1]}/{m[1]}.ipynb{m[2] or ''})", source)
    if COURSE_MAP_LINK not in source:  # (the repository is read only where it is needed)
        return source
    return source.replace(COURSE_MAP_LINK, f"]({_repository()}/blob/main/README.md#the-course)")


def instructor_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` as committed, with nbgrader's cell metadata and links that hold in the layout.

    Exercise cells: solution cells; check cells: grade cells of 1 point; solution cells
    (markdown, kept here) carry ``{"attnlib": {"solution": name}}``; every other cell is
    read-only. ValueError if an exercise has no check cell of a known exercise.
    """
    nb = copy.deepcopy(nb)
    found = exercises(nb)
    solutions = _solutions(nb, found)
    for cell in nb.cells:
        cell.metadata["nbgrader"] = _nbgrader(locked=True, grade_id=cell.id)
        if cell.cell_type == "markdown":
            cell.source = _relink(cell.source)
    for at, check_at, name in found:
        nb.cells[at].metadata["nbgrader"] = _nbgrader(solution=True, grade_id=grade_id(name))
        nb.cells[check_at].metadata["nbgrader"] = _nbgrader(
            grade=True, locked=True, points=1, grade_id=f"{grade_id(name)}-check"
        )
        for index in (at, check_at):
            nb.cells[index].metadata["attnlib"] = {"exercise": name}
    for index, name in solutions.items():
        nb.cells[index].metadata["attnlib"] = {"solution": name}
    return nb


def release_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """What a student receives: :func:`instructor_version` without its solution cells and
    the solutions folded into a question's cell, every check cell's output the engine's
    verdict on an unattempted exercise.

    The exercise cells keep their ``...`` starters, the explorers, figures and other
    outputs stay as committed.
    """
    nb = instructor_version(nb)
    for _, check_at, name in exercises(nb):
        cell = nb.cells[check_at]
        # The verdict check() gives a starter's `...`, as the cell shows it when run: its card
        # and its text.
        shown = nbformat.v4.new_output(
            "execute_result",
            data=check(name, ...)._repr_mimebundle_(),
            execution_count=cell.execution_count,
        )
        cell.outputs = [shown]
    nb.cells = [c for c in nb.cells if "solution" not in c.metadata.get("attnlib", {})]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = FOLDED_SOLUTION.sub("", cell.source)
        # As nbgrader's LockCells: no cell can be deleted, only the answers edited.
        cell.metadata["deletable"] = False
        if not cell.metadata["nbgrader"]["solution"]:
            cell.metadata["editable"] = False
    return nb


def nbgrader_step(nb: nbformat.NotebookNode, resources: dict) -> tuple:
    """:func:`release_version` as a step of ``nbgrader generate_assignment`` (an nbconvert
    preprocessor), in place of its ClearSolutions and ClearOutput: see nbgrader_config.py."""
    return release_version(nb), resources


def used_files(nb: nbformat.NotebookNode, folder: Path) -> list[str]:
    """The files under ``folder`` that ``nb`` names (``figures/...``, ``data/...``), sorted;
    a data file brings its folder's README (where it comes from) along."""
    named = set()
    for cell in nb.cells:
        named.update(USED_FILE.findall(cell.source))
    named = {name for name in named if (folder / name).is_file()}
    named |= {
        f"{Path(name).parent}/README.md"
        for name in named
        if (folder / Path(name).parent / "README.md").is_file()
    }
    return sorted(named)


def build(out: Path, paths: list[Path]) -> list[str]:
    """Write ``out/source`` and ``out/release`` for the notebooks ``paths``, and nbgrader's
    configuration with this module beside them; return the assignments written. Those
    assignments' folders are emptied first; nothing is written if a notebook is refused."""
    if not paths:
        raise ValueError("expected at least one notebook, got none")
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            raise ValueError(f"expected a notebook file, got {path}")
    editions = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        editions.append((path, {"source": instructor_version(nb), "release": release_version(nb)}))
    for path, versions in editions:
        for kind, version in versions.items():
            folder = out / kind / path.stem
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            nbformat.write(version, folder / path.name)
            for name in used_files(version, path.parent):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path.parent / name, folder / name)
    for tool in ("student_edition.py", "nbgrader_config.py"):
        shutil.copyfile(Path(__file__).resolve().parent / tool, out / tool)
    return [path.stem for path, _ in editions]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "student")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for assignment in build(args.out, paths):
        print(f"{args.out / 'release' / assignment} (and source/)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
