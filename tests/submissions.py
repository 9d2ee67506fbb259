"""Submissions made for the gradebook's tests and benchmark: a committed notebook, its
exercise cells filled with the course's solutions, with the named mistakes of
tests/exercise_answers, left as stubs, or with hostile code added.

The expected verdict of each submission is known from how it was made, never from the grader.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
from pathlib import Path

from course import ROOT

SOLUTION_CODE = re.compile(r"```python\n(.*?)```", re.S)
CHECK = re.compile(r"""check\(\s*["'](\d\d\.\w+)["']""")

#: Hostile cells, each with the status the gradebook must give its submission.
HOSTILE = {
    "timeout": "while True:\n    pass",
    "memory": "import torch\nhoard = torch.ones(5_000_000_000)",
    # {root}: the folder of every submission, which the sandbox hides.
    "files": (
        "import os, shutil, attnlib\n"
        "shutil.rmtree({root!r}, ignore_errors=True)\n"
        "shutil.rmtree(attnlib.__path__[0], ignore_errors=True)\n"
        "for folder in ('/tmp', attnlib.__path__[0]):\n"
        "    try:\n"
        "        open(os.path.join(folder, 'attnlib_planted.py'), 'w').close()\n"
        "    except OSError as err:\n"
        "        refused = err\n"
        "raise refused"
    ),
    "network": ("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)"),
    "killed": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    # Swallows the interrupt of the cell's limit: only the notebook's limit ends it.
    "stubborn": (
        "while True:\n    try:\n        while True:\n            pass\n"
        "    except KeyboardInterrupt:\n        pass"
    ),
}
#: The status each hostile cell gives its submission, and whether the cells after it run.
HOSTILE_STATUS = {
    "timeout": ("timeout", True),
    "memory": ("memory", True),
    "files": ("files", True),
    "network": ("network", True),
    "killed": ("killed", False),
    "stubborn": ("timeout", False),
}


def _source(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def exercises_of(notebook: dict) -> dict[str, dict]:
    """exercise -> {"cell": index of its exercise cell, "solution": the solution's code}."""
    found, cells = {}, notebook["cells"]
    for index, cell in enumerate(cells):
        if "exercise" not in cell.get("metadata", {}).get("tags", []):
            continue
        after = cells[index + 1 :]
        name = next(m.group(1) for c in after if (m := CHECK.search(_source(c))))
        solution = next(c for c in after if "solution" in c.get("metadata", {}).get("tags", []))
        found[name] = {"cell": index, "solution": SOLUTION_CODE.search(_source(solution))[1]}
    return found


def mistakes_of(stem: str) -> dict[str, dict[str, str]]:
    """The typed mistakes of tests/exercise_answers for notebook ``stem``: name -> code."""
    module = importlib.import_module(f"exercise_answers.nb{stem[:2]}")
    return module.MISTAKES


def blank(notebook: dict) -> dict:
    """The notebook as a student receives it: outputs cleared, stubs in place."""
    nb = copy.deepcopy(notebook)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return nb


def make(stem: str, answers: dict[str, str], hostile: str | None = None, root: str = "") -> dict:
    """Notebook ``stem`` with ``answers`` (exercise -> code) in place of the stubs and, if
    given, hostile code (a key of HOSTILE) at the end of the second exercise's cell: a
    student's code runs only in the exercise cells (the grader runs the release's others),
    and there the answer is set before the hostile code runs."""
    nb = blank(json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text()))
    places = exercises_of(nb)
    for name, code in answers.items():
        nb["cells"][places[name]["cell"]]["source"] = code
    if hostile is not None:
        second = sorted(p["cell"] for p in places.values())[1]
        cell = nb["cells"][second]
        cell["source"] = f"{_source(cell)}\n{HOSTILE[hostile].format(root=root)}"
    return nb


def write(root: Path, student: str, stem: str, nb: dict) -> Path:
    path = root / student / stem / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1))
    return path


def expected_row(stem: str, answers: dict[str, str], hostile: str | None = None) -> dict:
    """The gradebook row (status and each exercise's word) of ``make(stem, answers, hostile)``,
    known from how it was made: a solution is correct, a typed mistake gives its own name, a
    stub is not attempted, and the exercises after a hostile cell that ends the run are not
    reached (the hostile code is in the second exercise's cell, after its answer)."""
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    places, typed = exercises_of(nb), mistakes_of(stem)
    words = {}
    for name, place in places.items():
        if name not in answers:
            words[name] = "not attempted"
        elif answers[name] == place["solution"]:
            words[name] = "correct"
        else:
            words[name] = next(m for m, code in typed[name].items() if code == answers[name])
    status = "ok"
    if hostile:
        status, goes_on = HOSTILE_STATUS[hostile]
        first = min(places, key=lambda name: places[name]["cell"])
        if not goes_on:
            words.update({name: "not reached" for name in places if name != first})
    return {"status": status, **words}
