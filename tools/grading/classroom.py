"""A class's worth: every submission graded in parallel, each result saved as it finishes.

Submissions are laid out as nbgrader lays them out, ``<dir>/<student>/<assignment>/*.ipynb``.
One notebook is graded per student and assignment: the one with the release's file name
(``<assignment>.ipynb``) if present, else the only one, else the newest; the others (a
``-Copy1``, an ``Untitled``) are named in the row and on the feedback page, not graded.
A result is saved (``results/<student>/<assignment>/<notebook>.json``, written whole or not
at all) with the hash of the notebook it graded, so a rerun skips what is done and regrades
what changed; an interrupted run loses only the runs it stopped.
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

from tools.grading import report, sandbox
from tools.grading.verdicts import course_exercises, foreign_checks, grade_row

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


def find_submissions(root: Path) -> list[Submission]:
    found = []
    for student in sorted(p for p in root.iterdir() if p.is_dir() and p.name[0] != "."):
        for assignment in sorted(p for p in student.iterdir() if p.is_dir() and p.name[0] != "."):
            notebooks = sorted(assignment.glob("*.ipynb"))
            if not notebooks:
                continue
            graded = chosen(assignment, notebooks)
            others = tuple(p.name for p in notebooks if p != graded)
            found.append(Submission(student.name, assignment.name, graded, others))
    return found


def _raw(sub: Submission) -> bytes:
    """The submitted bytes; a link (to a file outside the submission, maybe) counts as none."""
    return b"" if sub.path.is_symlink() else sub.path.read_bytes()


def _write_whole(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(text.encode() if isinstance(text, str) else text)
    os.replace(tmp, path)


def _notebook(raw: bytes) -> dict | None:
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def grade_one(
    sub: Submission, out: Path, limits: sandbox.Limits, unsandboxed: bool = False
) -> dict | None:
    """Run and grade one submission; save its result, feedback page and executed notebook."""
    raw = _raw(sub)
    notebook = _notebook(raw)
    if notebook is None:
        outcome = sandbox.Outcome({"unreadable": "not a notebook"}, [], False, 0, None)
    else:
        with _RUNNING_LOCK:
            _RUNNING[sub.key] = time.monotonic()
        try:
            # The sandbox's whole input: the bytes of the notebook to run.
            outcome = sandbox.run_notebook(raw, limits, unsandboxed)
        finally:
            with _RUNNING_LOCK:
                _RUNNING.pop(sub.key, None)
    if STOPPING.is_set():
        return None
    exercises = course_exercises(sub.assignment)
    row = grade_row(exercises, notebook, outcome, foreign_checks(sub.assignment, notebook))
    if sub.ignored:
        row.notes.append(f"not graded, as {sub.path.name} was: {', '.join(sub.ignored)}")
    result = {
        "student": sub.student,
        "assignment": sub.assignment,
        "notebook": sub.path.stem,
        "ignored": list(sub.ignored),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "exercises": exercises,
        **asdict(row),
    }
    if outcome.executed:
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
    same = result.get("sha256") == hashlib.sha256(_raw(sub)).hexdigest()
    same = same and result.get("ignored") == list(sub.ignored)
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
    return line


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
