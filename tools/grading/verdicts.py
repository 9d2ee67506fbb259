"""From what a run left (the runner's report, the verdict log) to one row of the gradebook.

Which exercises a submission is graded on comes from the course (the registry, by the number
of the assignment's folder, whatever the notebook's file is called), so a student who renames
the notebook, strips the cell metadata or deletes a check cell is still graded on every
exercise; a notebook whose checks are another assignment's is flagged ``wrong notebook``.

A status is read from what a cell raised: code that catches its own failure (a file deletion
the sandbox refused, inside the student's ``try``/``except``) raised nothing, so its row shows
no ``files`` or ``network``; the sandbox refused the attempt all the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.grading.sandbox import Outcome

CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\d\d\.\w+)["']""")

#: A submission's status, most serious first; ``ok`` when none applies.
STATUSES = {
    "grader error": "the grader itself failed on this submission (the grader's fault)",
    "unreadable": "the file is empty or not a notebook: nothing in it could run",
    "not a notebook": "the file is JSON but not a notebook: nothing in it could run",
    "no release": "the folder names no assignment of the course: nothing was run",
    "sandbox": "the sandbox could not be set up (the grader's fault, not the student's)",
    "wrong notebook": "the notebook's checks are another assignment's",
    "killed": "the kernel died or was killed before the end",
    "timeout": "a cell or the whole notebook ran over its time limit",
    "memory": "a cell asked for more memory than the cap",
    "network": "a cell tried to reach the network",
    "files": "a cell tried to change or read files outside its folder",
    "error": "a cell raised an error",
}
#: What an exercise's cell shows when the check gave no verdict of its own.
NO_VERDICT = {
    "not reached": "the run stopped before this check",
    "no check": "the check cell was removed from the notebook",
    "no verdict": "the check cell ran but left no verdict",
}
SHOWN = {  # the engine's verdict status -> the gradebook's word (a mistake shows its name)
    "correct": "correct",
    "not attempted": "not attempted",
    "wrong": "wrong",
    "refused": "refused",
    "course fault": "course fault",
    "not run": "not run",
}

#: The most characters of a verdict's message kept (the log is written inside the sandbox).
MESSAGE_CAP = 500

_MEMORY = ("can't allocate memory", "cannot allocate memory", "not enough memory", "bad_alloc")
_NETWORK = ("network is unreachable", "name resolution", "name or service not known")
_FILES = ("read-only file system", "permission denied", "operation not permitted")


def error_kind(ename: str, evalue: str, timed_out: bool) -> str:
    """``timeout``, ``memory``, ``network``, ``files`` or ``error`` for one cell's error."""
    text = evalue.lower()
    if timed_out:
        return "timeout"
    if ename == "MemoryError" or any(m in text for m in _MEMORY):
        return "memory"
    if ename in ("gaierror", "ConnectionError") or any(m in text for m in _NETWORK):
        return "network"
    if ename == "PermissionError" or any(m in text for m in _FILES):
        return "files"
    return "error"


@dataclass
class Row:
    status: str
    verdicts: dict[str, str]  # exercise -> the gradebook's word
    messages: dict[str, str]  # exercise -> the course's text for the student
    notes: list[str]  # for the feedback page: what happened to the run


def checks_in(notebook: dict) -> list[tuple[int, str]]:
    """(cell index, exercise) of every check call in a notebook's code cells; in a notebook
    built from the release (``assemble``), only the check cells its metadata names (a check()
    typed in an answer's cell is not the exercise's check)."""
    cells = notebook.get("cells", [])
    cells = cells if isinstance(cells, list) else []
    marked = [
        (index, cell["metadata"]["attnlib"]["exercise"])
        for index, cell in enumerate(cells)
        if isinstance(cell, dict)
        and isinstance(cell.get("metadata"), dict)
        and isinstance(cell["metadata"].get("nbgrader"), dict)
        and cell["metadata"]["nbgrader"].get("grade")
        and isinstance(cell["metadata"].get("attnlib"), dict)
        and isinstance(cell["metadata"]["attnlib"].get("exercise"), str)
    ]
    if marked:
        return marked
    found = []
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            found += [(index, name) for name in CHECK_CALL.findall(source)]
    return found


def _cell_kinds(report: dict) -> dict[int, str]:
    timeouts = set(report.get("timeouts", []))
    kinds = {}
    for error in report.get("errors", []):
        kind = error_kind(error["ename"], error["evalue"], error["cell"] in timeouts)
        kinds.setdefault(error["cell"], kind)
    return kinds


def _status(outcome: Outcome, kinds: dict[int, str]) -> list[str]:
    report = outcome.report
    if report is None:
        found = {"timeout" if outcome.overtime else "killed"}
    elif "unreadable" in report:
        return ["unreadable"]
    elif "sandbox_failed" in report:
        return ["sandbox"]
    else:
        found = set(kinds.values())
        if report.get("dead") or report.get("gave_up"):
            found.add("killed")
    return [s for s in STATUSES if s in found] or ["ok"]


def _word(record: dict) -> str:
    """The gradebook's word for a verdict log's line: a mistake only by a name the course
    knows (the log is written from inside the sandbox, so a forged name is just ``wrong``)."""
    from attnlib.mistakes import MISTAKES

    mistake, status = record.get("mistake"), record.get("status")
    if mistake:
        return mistake if isinstance(mistake, str) and mistake in MISTAKES else "wrong"
    return SHOWN.get(status, "unknown") if isinstance(status, str) else "unknown"


#: What the cell before a check did, when it failed, in the words of its feedback.
FAILED_CELL = {
    "timeout": "cell {cell} ran over its time limit and was interrupted",
    "memory": "cell {cell} ran out of memory (it asked for more than the cap)",
    "network": "cell {cell} tried to reach the network, which the grader has not",
    "files": "cell {cell} tried to change or read files outside its folder",
    "error": "cell {cell} raised {ename}",
}
MISSING_CELL = (
    "the exercise cell before this check is missing, or it did not set the answer: "
    "the check found nothing to check"
)


def _number(index: int) -> int:
    """A cell's number as a reader counts it in the notebook (from 1, every cell)."""
    return index + 1


def _not_run(name, checks, check_cell, kinds, enames) -> tuple[str, str]:
    """The word and message of a check that found its answer missing: the exercise's cell,
    between the previous check and this one, failed (its kind, named with its cell), or there
    is no such cell."""
    here = check_cell.get(name, 0)
    start = max((i for i, _ in checks if i < here), default=-1)
    failed = [i for i in sorted(kinds) if start < i < here]
    if not failed:
        return "not run", MISSING_CELL
    cell = failed[-1]
    said = FAILED_CELL[kinds[cell]].format(cell=_number(cell), ename=enames.get(cell, "an error"))
    return kinds[cell], f"{said[0].upper()}{said[1:]}, so the answer was never set."


def _stopped(report: dict, outcome: Outcome) -> str:
    """Why the run never reached a check, with the cell it stopped in when known."""
    if outcome.report is None:
        return "the whole notebook ran over its time limit" if outcome.overtime else "the run died"
    cell = _number(report.get("reached", -1) + 1)
    if report.get("dead"):
        return f"the kernel died in cell {cell} (out of memory, or killed)"
    return f"the run stopped in cell {cell}"


def grade_row(
    exercises: list[str], notebook: dict | None, outcome: Outcome, foreign: list[str] = ()
) -> Row:
    """The row of one submission: its status and each exercise's verdict, and words for the
    student on each. ``foreign``: the checks the notebook calls that belong to another
    assignment (then it is not this one's notebook)."""
    report = outcome.report or {}
    kinds = _cell_kinds(report)
    enames = {e["cell"]: e["ename"] for e in reversed(report.get("errors", []))}
    status = _status(outcome, kinds)
    if foreign and status != ["unreadable"]:
        status = ["wrong notebook", *(s for s in status if s != "ok")]
    checks = checks_in(notebook or {})
    check_cell = {name: index for index, name in reversed(checks)}
    last = {r["exercise"]: r for r in outcome.verdicts}
    reached = report.get("reached", -1)
    verdicts, messages = {}, {}
    for name in exercises:
        record = last.get(name)
        if status == ["unreadable"]:  # said once, in the notes, not once per exercise
            verdicts[name], messages[name] = "no check", ""
        elif record is None:
            word = (
                "no check"
                if name not in check_cell
                else "not reached"
                if check_cell[name] > reached
                else "no verdict"
            )
            said = NO_VERDICT[word]
            if word == "not reached":
                said = f"{_stopped(report, outcome)}, before this check"
            verdicts[name], messages[name] = word, said
        elif (word := _word(record)) == "not run":
            verdicts[name], messages[name] = _not_run(name, checks, check_cell, kinds, enames)
        else:
            said = str(record.get("message", ""))
            said = said if len(said) <= MESSAGE_CAP else said[: MESSAGE_CAP - 3] + "..."
            verdicts[name], messages[name] = str(word), said
    return Row("+".join(status), verdicts, messages, _notes(status, kinds, foreign))


def unrun_row(exercises: list[str], status: str, reason: str) -> Row:
    """The row of a submission nothing of which ran: ``status`` (a key of STATUSES) and why."""
    said = f"{status}: {STATUSES.get(status, '')}" + (f" ({reason})" if reason else "")
    return Row(status, dict.fromkeys(exercises, "no check"), dict.fromkeys(exercises, ""), [said])


def _notes(status: list[str], kinds: dict[int, str], foreign: list[str]) -> list[str]:
    """What happened to the run, each status with the cells that gave it."""
    notes = []
    for s in (s for s in status if s in STATUSES):
        cells = [_number(i) for i, kind in sorted(kinds.items()) if kind == s]
        where = f" (cell {', '.join(map(str, cells))})" if cells else ""
        notes.append(f"{s}: {STATUSES[s]}{where}")
    if foreign:
        notes.append(f"checks of another assignment, not graded here: {', '.join(foreign)}")
    return notes


def course_exercises(assignment: str) -> list[str]:
    """The exercises of an assignment (its folder, ``NN_name``), in the course's order."""
    from attnlib.exercises import EXERCISES

    return [name for name in EXERCISES if name.startswith(f"{assignment[:2]}.")]


def foreign_checks(assignment: str, notebook: dict | None) -> list[str]:
    """The course's checks a notebook calls that belong to an assignment other than its own."""
    from attnlib.exercises import EXERCISES

    own = set(course_exercises(assignment))
    called = dict.fromkeys(name for _, name in checks_in(notebook or {}))
    return [name for name in called if name in EXERCISES and name not in own]
