"""Every "your turn": the solution prints Correct, each named mistake prints its name.

For each notebook one kernel runs the cells in order. At an exercise, before the
stub itself runs, the solution (from the folded ``solution`` cell) and then each
mistake of ``tests/exercise_answers/nbNN.py`` take the stub's place, and the
check cell after it must print ``Correct`` or the mistake's label.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import course
import nbformat
import pytest
from jupyter_client.manager import start_new_kernel

from attnlib.exercises import CORRECT, EXERCISES, NOT_ATTEMPTED
from attnlib.mistakes import MISTAKES

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHECK_CALL = re.compile(r"""check\(\s*["']([0-9]{2}\.\w+)["']""")
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def exercises(nb: nbformat.NotebookNode) -> list[dict]:
    """Each exercise: its cell index, its check's index, its name and its solution's code."""
    found = []
    for i, cell in enumerate(nb.cells):
        if "exercise" not in cell.metadata.get("tags", []):
            continue
        check_at = next(j for j in range(i + 1, len(nb.cells)) if nb.cells[j].cell_type == "code")
        solution = next(c for c in nb.cells[check_at:] if "solution" in c.metadata.get("tags", []))
        name = CHECK_CALL.search(nb.cells[check_at].source).group(1)
        code = FENCE.search(solution.source).group(1)
        found.append({"index": i, "check": check_at, "name": name, "solution": code})
    return found


def answers(path: Path) -> dict[str, dict[str, str]]:
    """The typed mistaken answers for ``path``'s exercises, by exercise and mistake name
    (none if the notebook has no file of them)."""
    try:
        module = importlib.import_module(f"exercise_answers.nb{path.name[:2]}")
    except ModuleNotFoundError:
        return {}
    return module.MISTAKES


class Kernel:
    """A kernel that runs code in the notebooks' folder and returns what it printed."""

    def __init__(self) -> None:
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(NOTEBOOKS))

    def run(self, code: str) -> str:
        texts, errors = [], []

        def collect(msg: dict) -> None:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                texts.append(content["text"])
            elif msg["msg_type"] in ("execute_result", "display_data"):
                texts.append(content["data"].get("text/plain", ""))
            elif msg["msg_type"] == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")

        self.client.execute_interactive(code, output_hook=collect, timeout=120)
        assert not errors, f"cell raised {errors}:\n{code}"
        return "".join(texts)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


NOTEBOOK_PATHS = course.NOTEBOOKS
WITH_EXERCISES = [p for p in NOTEBOOK_PATHS if exercises(nbformat.read(p, as_version=4))]


# A full run of each notebook in a kernel, as nbval does once already: `make check-all`.
# tests/test_exercise_variants.py keeps the same promise in-process in `make test`.
@pytest.mark.check_all
@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda p: p.stem)
def test_solutions_are_correct_and_mistakes_are_named(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    wrong_answers = answers(path)
    by_index = {e["index"]: e for e in exercises(nb)}
    kernel = Kernel()
    try:
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or "solution" in cell.metadata.get("tags", []):
                continue
            if i in by_index:
                _try_answers(kernel, nb, by_index[i], wrong_answers.get(by_index[i]["name"], {}))
            kernel.run(cell.source)
    finally:
        kernel.close()


def _try_answers(kernel: Kernel, nb, exercise: dict, mistakes: dict[str, str]) -> None:
    name, check = exercise["name"], nb.cells[exercise["check"]].source
    declared = EXERCISES[name]
    known = {*declared.mistakes, *getattr(declared, "searched", ()), *getattr(declared, "near", ())}
    assert set(mistakes) <= known, f"{name}: typed answers for mistakes it does not name"
    kernel.run(exercise["solution"])
    shown = kernel.run(check)
    assert shown.startswith(CORRECT), f"{name}: the solution printed {shown!r}"
    for mistake, code in mistakes.items():
        kernel.run(code)
        shown = kernel.run(check)
        assert MISTAKES[mistake].label in shown, f"{name}/{mistake} printed {shown!r}"


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=lambda p: p.stem)
def test_every_exercise_has_a_check_a_solution_and_starts_unattempted(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for exercise in exercises(nb):
        assert exercise["name"] in EXERCISES, f"{exercise['name']} is not registered"
        assert exercise["name"].startswith(path.name[:2]), "exercises are named by notebook"
        check = nb.cells[exercise["check"]]
        shown = "".join(
            o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in check.outputs
        )
        assert shown.startswith(NOT_ATTEMPTED), f"{exercise['name']}: committed {shown!r}"


def test_every_notebook_has_its_minimum_of_exercises_and_all_are_used() -> None:
    names = [e["name"] for p in NOTEBOOK_PATHS for e in exercises(nbformat.read(p, 4))]
    numbers = [p.name[:2] for p in NOTEBOOK_PATHS]
    per_notebook = {k: sum(n.startswith(k) for n in names) for k in numbers}
    assert min(per_notebook.values()) >= course.MIN_EXERCISES_PER_NOTEBOOK, per_notebook
    assert sorted(names) == sorted(EXERCISES), "every registered exercise is in a notebook, once"


def _bound_names(source: str) -> set[str]:
    """The names a cell binds at its top level: assignments, loops, defs, classes, imports."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=lambda p: p.stem)
def test_no_later_cell_rebinds_a_name_the_reader_wrote(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for exercise in exercises(nb):
        mine = set(EXERCISES[exercise["name"]].answer_names)
        for cell in nb.cells[exercise["index"] + 1 :]:
            tags = cell.metadata.get("tags", [])
            if cell.cell_type != "code" or "exercise" in tags or "solution" in tags:
                continue
            source = "\n".join(
                line
                for line in cell.source.splitlines()
                if not line.lstrip().startswith(("%", "!"))
            )
            clash = mine & _bound_names(source)
            assert not clash, f"{exercise['name']}: a later cell rebinds {clash}:\n{cell.source}"
