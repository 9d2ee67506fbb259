"""A class's worth: every submission graded in parallel, each result saved as it finishes.

Submissions are laid out as nbgrader lays them out, ``<dir>/<student>/<assignment>/*.ipynb``.
One notebook is graded per student and assignment: the one with the release's file name
(``<assignment>.ipynb``) if present, else the only one, else the newest; the others (a
``-Copy1``, an ``Untitled``) are named in the row and on the feedback page, not graded.
A result is saved (``results/<student>/<assignment>/<notebook>.json``, written whole or not
at all) with the hash of the notebook it graded, so a rerun skips what is done and regrades
what changed; an interrupted run loses only the runs it stopped.

What runs is not the file as handed in but the release with the student's exercise cells put
in (``assemble``; the one hook is :func:`run_assembled`). No submission stops the class: one
that cannot be read, is not a notebook, or makes the grader itself fail is a row with its
status (``unreadable``, ``not a notebook``, ``grader error``) and the others are graded.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

from tools.grading import assemble, report, sandbox
from tools.grading.verdicts import course_exercises, foreign_checks, grade_row, unrun_row

STOPPING = threading.Event()  # set on an interrupt: results of stopped runs are not saved
_RUNNING: dict[Path, float] = {}  # each run under way: its key -> when it started (monotonic)
_RUNNING_LOCK = threading.Lock()
TICK = 5.0  # seconds between two progress lines while nothing finishes


@dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    path: Path
    ignored: tuple[str, ...] = ()  # the other notebooks in the folder, by file name

    @property
    def key(self) -> Path:
        return Path(self.student, self.assignment, self.path.stem)


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0


def chosen(assignment: Path, notebooks: list[Path]) -> Path:
    """The notebook graded in an assignment's folder: the release's file, the only one, or
    the newest (the name breaks a tie, so that a rerun chooses the same)."""
    release = assignment / f"{assignment.name}.ipynb"
    if release in notebooks:
        return release
    return max(notebooks, key=lambda p: (_mtime(p), p.name))


LINKED = "(a link)"  # the assignment of a student's folder that is a link, not followed


def _folders(folder: Path) -> list[Path]:
    """The folders in ``folder`` and the links in it (reported, never followed), by name."""
    return sorted(
        p for p in folder.iterdir() if p.name[0] != "." and (p.is_symlink() or p.is_dir())
    )


def find_submissions(root: Path) -> list[Submission]:
    found = []
    for student in _folders(root):
        if student.is_symlink():  # maybe another student's folder: one row, nothing read
            found.append(Submission(student.name, LINKED, student))
            continue
        for assignment in _folders(student):
            if assignment.is_symlink():
                path = assignment / f"{assignment.name}.ipynb"
                found.append(Submission(student.name, assignment.name, path))
                continue
            notebooks = sorted(assignment.glob("*.ipynb"))
            if not notebooks:
                continue
            graded = chosen(assignment, notebooks)
            others = tuple(p.name for p in notebooks if p != graded)
            found.append(Submission(student.name, assignment.name, graded, others))
    return found


def _raw(sub: Submission) -> bytes | str:
    """The submitted bytes, or why there are none: a link anywhere below the submissions'
    folder is not followed (it may lead to another student's work); a folder; a file too large."""
    top = sub.path.parents[1 if sub.assignment == LINKED else 2]
    return assemble.read(sub.path, top)


def _sha(raw: bytes | str) -> str:
    return hashlib.sha256(
        raw.encode("utf-8", "backslashreplace") if isinstance(raw, str) else raw
    ).hexdigest()


def _write_whole(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    # a name with bytes that are not UTF-8 (surrogates) is written escaped, not refused
    tmp.write_bytes(text.encode("utf-8", "backslashreplace") if isinstance(text, str) else text)
    os.replace(tmp, path)


def run_assembled(
    sub: Submission, raw: bytes | str, limits: sandbox.Limits, unsandboxed: bool = False
) -> tuple[assemble.Assembled, sandbox.Outcome | None]:
    """The hook: what ``sub`` runs (the release with its exercise cells, ``assemble``), run in
    its sandbox; the outcome keeps only the verdicts of each exercise's own check cell. No
    outcome when there is nothing to run (the assembled says why)."""
    assembled = assemble.submission(sub.assignment, raw)
    if assembled.notebook is None:
        return assembled, None
    with _RUNNING_LOCK:
        _RUNNING[sub.key] = time.monotonic()
    try:
        # The sandbox's whole input: the bytes of the notebook to run.
        outcome = sandbox.run_notebook(assembled.to_run(), limits, unsandboxed)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.pop(sub.key, None)
    return assembled, assemble.own_verdicts(assembled, outcome)


def grade_one(
    sub: Submission, out: Path, limits: sandbox.Limits, unsandboxed: bool = False
) -> dict | None:
    """Run and grade one submission; save its result, feedback page and executed notebook.
    Whatever goes wrong, in the submission or in the grader, it is one row (``grader error``
    when the grader failed), never the end of the class."""
    raw: bytes | str = b""
    try:
        raw = _raw(sub)
        return _graded(sub, raw, out, limits, unsandboxed)
    except Exception as err:  # the grader's fault on this one submission: said in its row
        if STOPPING.is_set():
            return None
        exercises = course_exercises(sub.assignment)
        said = f"{type(err).__name__}: {str(err)[:300]}"
        return _save(sub, raw, out, exercises, unrun_row(exercises, "grader error", said), None)


def _graded(sub, raw, out, limits, unsandboxed) -> dict | None:
    assembled, outcome = run_assembled(sub, raw, limits, unsandboxed)
    if STOPPING.is_set():
        return None
    exercises = course_exercises(sub.assignment)
    if outcome is None:
        row = unrun_row(exercises, assembled.status, assembled.reason)
    else:
        foreign = foreign_checks(sub.assignment, assembled.submitted)
        row = grade_row(exercises, assembled.notebook, outcome, foreign)
    if assembled.ignored_cells:
        row.notes.append(
            "edits outside the exercise cells are not graded (the release's cells ran): "
            + ", ".join(assembled.ignored_cells[:20])
            + (" ..." if len(assembled.ignored_cells) > 20 else "")
        )
    return _save(sub, raw, out, exercises, row, outcome, assembled.ignored_cells)


def _save(sub, raw, out, exercises, row, outcome, ignored_cells=()) -> dict:
    if sub.ignored:
        row.notes.append(f"not graded, as {sub.path.name} was: {', '.join(sub.ignored)}")
    result = {
        "student": sub.student,
        "assignment": sub.assignment,
        "notebook": sub.path.stem,
        "ignored": list(sub.ignored),
        "ignored_cells": list(ignored_cells),
        "sha256": _sha(raw),
        "exercises": exercises,
        **asdict(row),
    }
    if outcome is not None and outcome.executed:
        _write_whole(out / "executed" / sub.key.with_suffix(".ipynb"), outcome.executed)
    _write_whole(out / "feedback" / sub.key.with_suffix(".html"), report.feedback_page(result))
    _write_whole(out / "results" / sub.key.with_suffix(".json"), json.dumps(result, indent=1))
    return result


def _saved(out: Path, sub: Submission) -> dict | None:
    path = out / "results" / sub.key.with_suffix(".json")
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = isinstance(result, dict) and result.get("sha256") == _sha(_raw(sub))
    same = same and result.get("ignored") == list(sub.ignored)
    same = same and result.get("status") != "grader error"  # the grader's fault: try again
    return result if same else None


def progress_line(done: int, total: int, skipped: int, running: dict[Path, float]) -> str:
    """The progress line: what is done, and each run under way (``running``: its key ->
    seconds it has run), longest first, so a run that hangs shows which one it is."""
    line = f"graded {done}/{total} (skipped {skipped} already graded)"
    if running:
        under_way = sorted(running.items(), key=lambda item: -item[1])
        shown = [
            f"{'/'.join(key.parts[:2])} {int(t) // 60}m{int(t) % 60:02d}s" for key, t in under_way
        ]
        line += f"; running: {', '.join(shown[:4])}" + (" ..." if len(shown) > 4 else "")
    return report.printable(line)


def _progress(done: int, total: int, skipped: int) -> None:
    with _RUNNING_LOCK:
        now = time.monotonic()
        running = {key: now - started for key, started in _RUNNING.items()}
    # Clear the line's end: the one before may have been longer.
    print(f"\r{progress_line(done, total, skipped, running)}\033[K", end="", file=sys.stderr)


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def _grade_in_parallel(todo, results, out, limits, jobs, unsandboxed, gradebook) -> None:
    """Grade ``todo`` on ``jobs`` workers into ``results``, saving ``gradebook`` after each."""
    skipped = sum(r is not None for r in results.values())
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(grade_one, sub, out, limits, unsandboxed): sub for sub in todo}
        pending, done = set(futures), 0
        _progress(0, len(todo), skipped)
        while pending:
            finished, pending = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
            for future in finished:
                results[futures[future].key] = future.result()
                done += 1
            if finished:
                report.write_gradebook(gradebook, [r for r in results.values() if r])
            _progress(done, len(todo), skipped)
    except KeyboardInterrupt:
        STOPPING.set()
        sandbox.stop_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        print(file=sys.stderr)


def _import_everything(assignments: set[str]) -> None:
    """Import, before the first run, all that the grader uses after one: a run may have left
    something behind (the course is read-only to it, but this is no place to find out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401

    import attnlib.exercises  # noqa: F401
    import attnlib.mistakes  # noqa: F401

    for assignment in sorted(assignments):
        try:
            assemble.release_of(assignment)
        except Exception:  # said in each of its rows, as a grader error
            pass


def shard_of(subs: list[Submission], shard: tuple[int, int] | None) -> list[Submission]:
    """The submissions of shard ``(i, n)`` (1 <= i <= n): those whose student and assignment
    hash to it, so that a submission keeps its shard whatever else is handed in."""
    if shard is None:
        return subs
    i, n = shard
    if not 1 <= i <= n:
        raise ValueError(f"expected a shard i/n with 1 <= i <= n, got {i}/{n}")
    digest = lambda sub: hashlib.sha256(f"{sub.student}/{sub.assignment}".encode()).digest()  # noqa: E731
    return [sub for sub in subs if int.from_bytes(digest(sub)[:8], "big") % n == i - 1]


def _shard_name(shard: tuple[int, int]) -> str:
    return f"shard-{shard[0]}-of-{shard[1]}"


def grade_all(
    root: Path,
    out: Path,
    limits: sandbox.Limits,
    jobs: int,
    shard: tuple[int, int] | None = None,
    unsandboxed: bool = False,
) -> list[dict]:
    """Grade every submission under ``root`` (or shard ``(i, n)`` of them) into ``out``; the
    results, in submission order. A shard writes its results and ``shards/<shard>.csv``;
    ``merge`` writes the gradebook and the summary of all. Raises ``sandbox.Unavailable``
    when there is no sandbox here and ``unsandboxed`` is not given."""
    confined = sandbox.require(unsandboxed)
    if confined.kind.startswith("bubblewrap (root") and (closed := sandbox.unreadable()):
        listed = ", ".join(map(str, closed))
        raise PermissionError(
            f"expected the course readable by other users (runs have users of their own), "
            f"got {listed} closed to them: chmod -R o+rX the clone, or clone under umask 022"
        )
    subs = shard_of(find_submissions(root), shard)
    out.mkdir(parents=True, exist_ok=True)
    results = {sub.key: _saved(out, sub) for sub in subs}
    todo = [sub for sub in subs if results[sub.key] is None]
    STOPPING.clear()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)  # stop as on Ctrl-C: saved results stay
    _import_everything({sub.assignment for sub in todo})
    gradebook = out / "gradebook.csv"
    if shard is not None:
        gradebook = out / "shards" / f"{_shard_name(shard)}.csv"
        gradebook.parent.mkdir(exist_ok=True)
    _grade_in_parallel(todo, results, out, limits, max(1, jobs), unsandboxed, gradebook)
    graded = [r for r in results.values() if r]
    report.write_gradebook(gradebook, graded)
    if shard is None:
        report.write_summary(out, graded, confined.kind)
    else:
        _write_whole(gradebook.with_suffix(".json"), json.dumps({"sandbox": confined.kind}))
    return graded


class MissingResults(RuntimeError):
    """A merge found submissions no shard has graded (yet)."""


def merge(root: Path, out: Path) -> list[dict]:
    """The one gradebook and summary of a class graded in shards into ``out`` (or into folders
    copied together there): every submission under ``root`` must have its saved result, of
    the notebook as it is now; raises ``MissingResults`` naming those that do not."""
    subs = find_submissions(root)
    results = {sub.key: _saved(out, sub) for sub in subs}
    missing = [str(key) for key, result in results.items() if result is None]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise MissingResults(
            f"expected a result for each of {len(subs)} submissions, got none for "
            f"{len(missing)}: {shown} (a shard not run or not finished: run it, then merge)"
        )
    kinds = set()
    for path in sorted((out / "shards").glob("*.json")):
        try:
            kinds.add(json.loads(path.read_text(encoding="utf-8"))["sandbox"])
        except (OSError, ValueError, KeyError, TypeError):
            kinds.add("unknown")
    graded = [results[sub.key] for sub in subs]
    report.write_gradebook(out / "gradebook.csv", graded)
    report.write_summary(out, graded, " + ".join(sorted(kinds)) or "unknown")
    return graded
