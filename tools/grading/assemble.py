"""What a submission runs: the release's cells with the student's answers put in, as nbgrader does.

A student's work is their exercise cells (nbgrader's solution cells, ``{"attnlib":
{"exercise": name}}``) and nothing else. Each run is built from the release of the assignment
(``student_edition.release_version`` of the course's notebook: every locked cell, text, setup,
check and checkpoint, as the student received it) with the source of each exercise cell taken
from the submission's cell of the same id. An edit to any other cell, or a cell added, is
ignored and named in the result (``ignored_cells``); an exercise cell missing from the
submission keeps the release's unanswered one.

Only each exercise's own check cell gives its verdict: the verdict log notes the number of the
cell that wrote each line (IPython's execution count), and :func:`own_verdicts` keeps a line
only if that is the number of the exercise's check cell in this run. So a "Correct!" printed, or
a check() of another exercise called in an answer's cell, counts for nothing.

A submission that cannot be read (a link, a folder, a file over :data:`MAX_BYTES`, bytes that
are not JSON, JSON nested too deep) or is not a notebook becomes an :class:`Assembled` with a
status and nothing to run; nothing here raises on what a student handed in.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from tools.grading.sandbox import Outcome
from tools.student_edition import release_version

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
MAX_BYTES = 20 << 20  # a notebook of the course is well under 2 MB with its outputs
UNREADABLE, NOT_A_NOTEBOOK, NO_RELEASE = "unreadable", "not a notebook", "no release"


@dataclass(frozen=True)
class Assembled:
    """One submission made ready to run.

    ``notebook``: what runs (None: nothing runs, ``status`` says why: ``"unreadable"``,
    ``"not a notebook"`` or ``"no release"``, ``reason`` in words); ``submitted``: the
    student's notebook as handed in (None when unreadable); ``check_cells``: exercise -> the
    id of its own check cell; ``answered``: the exercises whose cell is the student's;
    ``ignored_cells``: ids of the student's cells outside the exercise cells that differ from
    the release (edited or added), whose edits were not run."""

    notebook: dict | None
    status: str = ""
    reason: str = ""
    submitted: dict | None = None
    check_cells: Mapping[str, str] = field(default_factory=dict)
    answered: tuple[str, ...] = ()
    ignored_cells: tuple[str, ...] = ()

    def to_run(self) -> bytes:
        """The notebook's bytes, to run."""
        return json.dumps(self.notebook, ensure_ascii=True).encode()


def read(path: Path, top: Path | None = None) -> bytes | str:
    """The bytes of the submission at ``path``, or why they are not read: a link anywhere on
    the way from ``top`` (not followed: it may point at another student's work), not a regular
    file, or more than :data:`MAX_BYTES`."""
    path = Path(path)
    on_the_way = [path]
    if top is not None and path.is_relative_to(top):
        below = path.relative_to(top).parts
        on_the_way = [top.joinpath(*below[: k + 1]) for k in range(len(below))]
    mode = 0
    for part in on_the_way:
        try:
            mode = os.lstat(part).st_mode
        except OSError as err:
            return f"cannot be read ({type(err).__name__})"
        if stat.S_ISLNK(mode):
            return f"{part.name} is a link, not followed"
    if not stat.S_ISREG(mode):
        return "not a file (a folder, or a device)"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        return f"cannot be read ({type(err).__name__})"
    with os.fdopen(fd, "rb") as file:
        raw = file.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        return f"larger than {MAX_BYTES >> 20} MB"
    return raw


def parse(raw: bytes) -> tuple[dict | None, str, str]:
    """(notebook, status, reason): the notebook if ``raw`` is one, else a status and why."""
    try:
        data = json.loads(raw)
    except RecursionError:
        return None, UNREADABLE, "its JSON is nested too deep to read"
    except (ValueError, UnicodeDecodeError):
        return None, UNREADABLE, "empty, or not JSON"
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None, NOT_A_NOTEBOOK, "JSON, but not a notebook (no list of cells)"
    return data, "", ""


def _source(cell: dict) -> str | None:
    """A cell's source as one str, None if it is neither a str nor a list of str."""
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _exercise(cell: dict) -> str | None:
    """The exercise a cell says it belongs to (its attnlib metadata), if any."""
    meta = cell.get("metadata")
    named = meta.get("attnlib") if isinstance(meta, dict) else None
    name = named.get("exercise") if isinstance(named, dict) else None
    return name if isinstance(name, str) else None


def _is_answer(cell: dict) -> bool:
    """A release cell the student writes in: nbgrader's solution cell."""
    grader = cell.get("metadata", {}).get("nbgrader", {})
    return bool(grader.get("solution")) and _exercise(cell) is not None


def _is_check(cell: dict) -> bool:
    grader = cell.get("metadata", {}).get("nbgrader", {})
    return bool(grader.get("grade")) and _exercise(cell) is not None


def assemble(release: dict, submitted: dict) -> Assembled:
    """The release's cells, each exercise cell's source taken from ``submitted``'s cell of
    the same id (unless that cell says it is another exercise's); see :class:`Assembled`."""
    theirs: dict[str, dict] = {}
    for cell in submitted["cells"]:
        cell_id = cell.get("id") if isinstance(cell, dict) else None
        if isinstance(cell_id, str) and cell_id not in theirs:
            theirs[cell_id] = cell
    nb = copy.deepcopy(release)
    answered, ignored, used = [], [], set()
    for cell in nb["cells"]:
        mine = theirs.get(cell.get("id"))
        if mine is None:
            continue
        used.add(cell["id"])
        source = _source(mine)
        if _is_answer(cell):
            claimed = _exercise(mine)
            if source is not None and claimed in (None, _exercise(cell)):
                cell["source"] = source
                cell["outputs"], cell["execution_count"] = [], None
                answered.append(_exercise(cell))
            else:
                ignored.append(cell["id"])
        elif source is None or source.strip() != _source(cell).strip():
            ignored.append(cell["id"])
    added = [
        c.get("id") for c in submitted["cells"] if isinstance(c, dict) and c.get("id") not in used
    ]
    # a cell with no id (or one the release lacks) is added: named by its id, or its place
    ignored += [i if isinstance(i, str) else f"(cell {n + 1})" for n, i in enumerate(added)]
    for cell in nb["cells"]:  # the release's outputs are not the run's
        if cell.get("cell_type") == "code" and not _is_answer(cell):
            cell["outputs"], cell["execution_count"] = [], None
    checks = {_exercise(c): c["id"] for c in nb["cells"] if _is_check(c)}
    return Assembled(
        nb,
        submitted=submitted,
        check_cells=checks,
        answered=tuple(answered),
        ignored_cells=tuple(dict.fromkeys(map(str, ignored))),
    )


_RELEASES: dict[str, dict | None] = {}
_RELEASES_LOCK = threading.Lock()


def release_of(assignment: str) -> dict | None:
    """The release of ``assignment`` (its folder: ``NN_name``, by its number), as the student
    edition makes it from the course's notebook; None if the course has no such notebook."""
    number = assignment[:2]
    with _RELEASES_LOCK:
        if number not in _RELEASES:
            found = sorted(NOTEBOOKS.glob(f"{number}_*.ipynb")) if number.isdigit() else []
            release = None
            if len(found) == 1:
                nb = release_version(nbformat.read(found[0], as_version=4))
                release = json.loads(nbformat.writes(nb))
            _RELEASES[number] = release
        return _RELEASES[number]


def submission(assignment: str, raw: bytes | str) -> Assembled:
    """What one submission runs: ``raw`` (its bytes, or why they were not read) assembled
    into the release of ``assignment``."""
    if isinstance(raw, str):
        return Assembled(None, UNREADABLE, raw)
    submitted, status, reason = parse(raw)
    if submitted is None:
        return Assembled(None, status, reason)
    release = release_of(assignment)
    if release is None:
        return Assembled(
            None, NO_RELEASE, f"the course has no assignment {assignment[:2]!r}", submitted
        )
    return assemble(release, submitted)


def _counts(notebook: dict, executed: bytes | None) -> dict[str, int]:
    """Cell id -> the execution count it ran with: from the executed notebook when there is
    one, else counted as nbclient runs them (every code cell with code, from 1)."""
    try:
        ran = json.loads(executed) if executed else None
        cells = ran["cells"] if isinstance(ran, dict) else None
    except (ValueError, RecursionError, KeyError, TypeError):
        cells = None
    if isinstance(cells, list):
        return {
            c["id"]: c["execution_count"]
            for c in cells
            if isinstance(c, dict)
            and isinstance(c.get("id"), str)
            and isinstance(c.get("execution_count"), int)
        }
    counts, number = {}, 0
    for cell in notebook["cells"]:
        if cell.get("cell_type") == "code" and (_source(cell) or "").strip():
            if "skip-execution" not in cell.get("metadata", {}).get("tags", []):
                number += 1
                counts[cell["id"]] = number
    return counts


def own_verdicts(assembled: Assembled, outcome: Outcome) -> Outcome:
    """``outcome`` with only the verdicts each exercise's own check cell wrote."""
    counts = _counts(assembled.notebook or {"cells": []}, outcome.executed)
    own = {name: counts.get(cell_id) for name, cell_id in assembled.check_cells.items()}
    kept = [
        record
        for record in outcome.verdicts
        if isinstance(record.get("execution_count"), int)
        and own.get(record.get("exercise")) == record["execution_count"]
    ]
    return dataclasses.replace(outcome, verdicts=kept)
