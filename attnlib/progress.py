"""A reader's own progress: the latest verdict of every exercise they checked, kept on disk.

:func:`record` is called by :func:`attnlib.exercises.check` with the verdict on the reader's
own answer; :func:`progress` shows the course (or one notebook) as a table. The record is a
SQLite file, ``progress.sqlite``, in ``$ATTNLIB_PROGRESS_DIR`` or else in ``attnlib/`` under
Jupyter's data directory (``jupyter --data-dir``), so it outlives kernels and is shared by
the notebooks. Two kernels may write at once (WAL journal, a busy timeout); a damaged file is
set aside under a dated name with one line said and a new one started. Nothing here raises
into the reader's cell: a record that cannot be written is skipped.

Nothing is recorded while grading (``$ATTNLIB_VERDICT_LOG`` or ``$NBGRADER_EXECUTION`` set:
the grader keeps its own log), with ``ATTNLIB_PROGRESS=off``, or after :func:`progress_off`.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

DIR_VARIABLE = "ATTNLIB_PROGRESS_DIR"
SWITCH_VARIABLE = "ATTNLIB_PROGRESS"
FILE_NAME = "progress.sqlite"
# The grader's own switches (attnlib/exercises/_core.py: VERDICT_LOG, NBGRADER).
GRADING_VARIABLES = ("ATTNLIB_VERDICT_LOG", "NBGRADER_EXECUTION")
#: Verdicts that are an attempt: "not attempted", "not run" and the course's faults are not.
ATTEMPTS = ("correct", "mistake", "wrong", "refused")
BUSY_TIMEOUT_S = 10.0

_SCHEMA = """CREATE TABLE IF NOT EXISTS verdicts (
    exercise TEXT PRIMARY KEY,
    correct INTEGER NOT NULL,
    status TEXT NOT NULL,
    mistake TEXT,
    last_mistake TEXT,
    at TEXT NOT NULL
)"""
_UPSERT = """INSERT INTO verdicts (exercise, correct, status, mistake, last_mistake, at)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(exercise) DO UPDATE SET correct = excluded.correct, status = excluded.status,
    mistake = excluded.mistake, at = excluded.at,
    last_mistake = COALESCE(excluded.last_mistake, verdicts.last_mistake)"""

_switched_off = False
_told: set[str] = set()  # one-line messages already said in this kernel


def progress_off() -> None:
    """Record no verdict in this kernel from now on (``ATTNLIB_PROGRESS=off`` for every one)."""
    global _switched_off
    _switched_off = True


def progress_on() -> None:
    """Record verdicts again in this kernel (unless ``ATTNLIB_PROGRESS=off`` or grading)."""
    global _switched_off
    _switched_off = False


def recording() -> bool:
    """Whether :func:`record` keeps verdicts now."""
    if _switched_off or any(os.environ.get(v) for v in GRADING_VARIABLES):
        return False
    return os.environ.get(SWITCH_VARIABLE, "").strip().lower() not in ("off", "0", "false", "no")


def record_path() -> Path:
    """Where the record lives: ``$ATTNLIB_PROGRESS_DIR/progress.sqlite``, or
    ``<jupyter data dir>/attnlib/progress.sqlite``."""
    folder = os.environ.get(DIR_VARIABLE)
    if folder:
        return Path(folder) / FILE_NAME
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "attnlib" / FILE_NAME


def record(verdict: Any) -> None:
    """Keep ``verdict`` (an exercise's :class:`~attnlib.exercises.Verdict`) as the latest of
    its exercise, if it is an attempt and recording is on. Never raises."""
    try:
        if not recording() or getattr(verdict, "status", None) not in ATTEMPTS:
            return
        mistake = verdict.mistake if verdict.status == "mistake" else None
        row = (verdict.exercise, int(verdict.correct), verdict.status, mistake, mistake, _now())
        with _database() as db:
            if db is not None:
                db.execute(_UPSERT, row)
    except Exception as err:  # the reader's check comes first: say it once and go on
        _tell("write", f"attnlib: your progress was not recorded ({type(err).__name__}: {err}).")


@dataclass(frozen=True)
class Entry:
    """The latest verdict on one exercise: ``status`` as the verdict's, ``at`` in UTC."""

    exercise: str
    correct: bool
    status: str
    mistake: str | None
    last_mistake: str | None
    at: str


def entries() -> dict[str, Entry]:
    """Every recorded exercise's latest verdict, by exercise name (empty if none can be read)."""
    try:
        with _database(create=False) as db:
            if db is None:
                return {}
            rows = db.execute(
                "SELECT exercise, correct, status, mistake, last_mistake, at FROM verdicts"
            ).fetchall()
    except Exception as err:
        _tell("read", f"attnlib: your progress could not be read ({type(err).__name__}: {err}).")
        return {}
    return {r[0]: Entry(r[0], bool(r[1]), r[2], r[3], r[4], r[5]) for r in rows}


def forget(notebook: str | None = None) -> list[str]:
    """Delete the record of ``notebook``'s exercises (all if None); the names forgotten."""
    names = sorted(n for n in entries() if notebook is None or n.startswith(f"{notebook}."))
    if names:
        try:
            with _database(create=False) as db:
                if db is not None:
                    db.executemany("DELETE FROM verdicts WHERE exercise = ?", [(n,) for n in names])
        except Exception as err:
            _tell("forget", f"attnlib: the record could not be changed ({type(err).__name__}).")
            return []
    return names


@contextmanager
def _database(create: bool = True) -> Iterator[sqlite3.Connection | None]:
    """A connection in one transaction, committed on leaving; None if there is no record yet
    and ``create`` is false. A file that is not a database is set aside and started anew."""
    path = record_path()
    if not create and not path.exists():
        yield None
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = _open(path)
    except sqlite3.DatabaseError as err:
        if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
            raise
        moved = _set_aside(path)
        _tell(
            f"damaged {moved}",
            f"attnlib: your progress record was damaged; it is kept as {moved.name} and a new "
            "one is started.",
        )
        db = _open(path)
    with closing(db):
        with db:
            yield db


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        # WAL: readers never wait for a writer, and writers of two kernels queue on the lock.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(_SCHEMA)
        db.execute("SELECT count(*) FROM verdicts").fetchone()  # a damaged page shows here
        return db
    except BaseException:
        db.close()
        raise


def _set_aside(path: Path) -> Path:
    """Rename the damaged ``path`` (and its journal files) with a timestamp; the new name."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    moved = path.with_name(f"{path.stem}.damaged-{stamp}-{os.getpid()}{path.suffix}")
    for suffix in ("", "-wal", "-shm"):
        old = Path(f"{path}{suffix}")
        if old.exists():
            old.replace(Path(f"{moved}{suffix}"))
    return moved


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _tell(key: str, line: str) -> None:
    """Say ``line`` once per kernel (on stderr, one line)."""
    if key not in _told:
        _told.add(key)
        print(line, file=sys.stderr)


# --- the table -------------------------------------------------------------------------------

_NUMBER = re.compile(r"^\d{1,2}$")


def progress(notebook: str | int | None = None, *, reset: bool = False) -> Any:
    """The course's exercises (or notebook ``notebook``'s, e.g. ``"04"``) with the reader's
    latest verdict on each: a table in Jupyter (HTML and text). ``reset=True`` forgets those
    verdicts first and says which."""
    from attnlib.progress_table import ProgressTable, notebooks

    known = notebooks()
    if notebook is not None:
        text = str(notebook).strip() if isinstance(notebook, (str, int)) else None
        if isinstance(notebook, bool) or text is None or not _NUMBER.match(text):
            raise ValueError(
                f"progress: expected a notebook number such as '04', got {_said(notebook)}"
            )
        notebook = text.zfill(2)
        if notebook not in known:
            raise ValueError(
                f"progress: expected one of the notebooks {sorted(known)}, got {_said(notebook)}"
            )
    if not isinstance(reset, bool):
        raise ValueError(f"progress: expected reset=True or False, got {_said(reset)}")
    forgotten = forget(notebook) if reset else None
    return ProgressTable.now(notebook, forgotten)


def _said(value: Any) -> str:
    """``value`` in an error message: a short repr of a str or a number, else its type."""
    if isinstance(value, (str, int)):
        return repr(value[:20] if isinstance(value, str) else value)
    return f"a {type(value).__name__}"


__all__ = [
    "progress",
    "progress_off",
    "progress_on",
    "record",
    "record_path",
    "recording",
    "entries",
    "forget",
    "Entry",
]
