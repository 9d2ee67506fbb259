"""From what a run left (the runner's report, the verdict log) to one row of the gradebook.

Which exercises a submission is graded on comes from the course (the registry, by the number
of the assignment's folder, whatever the notebook's file is called), so a student who renames
the notebook, strips the cell metadata or deletes a check cell is still graded on every
exercise; a notebook whose checks are another assignment's is flagged ``wrong notebook``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.grading.sandbox import Outcome

CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\d\d\.\w+)["']""")

#: A submission's status, most serious first; ``ok`` when none applies.
STATUSES = {
    "unreadable": "the file is not a notebook",
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
    """(cell index, exercise) of every check call in a notebook's code cells."""
    found = []
    for index, cell in enumerate(notebook.get("cells", [])):
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


def grade_row(
    exercises: list[str], notebook: dict | None, outcome: Outcome, foreign: list[str] = ()
) -> Row:
    """The row of one submission: its status and each exercise's verdict. ``foreign``: the
    checks the notebook calls that belong to another assignment (it is not this one's)."""
    report = outcome.report or {}
    kinds = _cell_kinds(report)
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
        if record is None:
            word = (
                "no check"
                if name not in check_cell
                else "not reached"
                if check_cell[name] > reached
                else "no verdict"
            )
            verdicts[name], messages[name] = word, NO_VERDICT[word]
            continue
        word = _word(record)
        if (
            word == "not run"
        ):  # the exercise's cell, between the previous check and this one, failed
            here = check_cell.get(name, 0)
            start = max((i for i, _ in checks if i < here), default=-1)
            failed = [kinds[i] for i in sorted(kinds) if start < i < here]
            word = failed[-1] if failed else word
        verdicts[name], messages[name] = str(word), str(record.get("message", ""))
    notes = [f"{s}: {STATUSES[s]}" for s in status if s in STATUSES]
    if foreign:
        notes.append(f"checks of another assignment, not graded here: {', '.join(foreign)}")
    return Row("+".join(status), verdicts, messages, notes)


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
