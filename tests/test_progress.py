"""The reader's progress record (attnlib/progress.py, attnlib/progress_table.py), in a
temporary data folder: kept across processes, safe with two writers, a damaged file set
aside, off when asked and while grading, and a table of the registry's exercises.

A new Python process costs seconds (torch's import): one is started only where a second
process is the point (a record read by another process, two writers at once). A reader's
answer is otherwise run here as a kernel runs a cell: defined at the top level of a module
named __main__, whose check() reads it from there; the environment is read at each check,
so setting it here, after attnlib's import, is no weaker than a kernel started with it."""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from course import ROOT

import attnlib
from attnlib.exercises import EXERCISES, Verdict, check
from attnlib.mistakes import MISTAKES
from attnlib.progress import entries, progress_off, progress_on, record, record_path
from attnlib.progress_table import NOT_ATTEMPTED, notebook_link

sys.path.insert(0, str(Path(__file__).parent))
from exercise_answers.nb02 import MISTAKES as TYPED_02  # noqa: E402

GRADING = ("ATTNLIB_VERDICT_LOG", "NBGRADER_EXECUTION")


@pytest.fixture(autouse=True)
def _record(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNLIB_PROGRESS_DIR", str(tmp_path / "data"))
    for variable in (*GRADING, "ATTNLIB_PROGRESS"):
        monkeypatch.delenv(variable, raising=False)
    progress_on()
    yield tmp_path / "data"
    progress_on()


def _python(code: str):
    """Run ``code`` in a new Python process (a new kernel's view), with this environment."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT / "notebooks",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finished(process) -> str:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return out


def _as_a_kernel(code: str) -> str:
    """Run ``code`` as a notebook cell runs (top level, module ``__main__``); what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(textwrap.dedent(code), "<cell>", "exec"), {"__name__": "__main__"})
    return printed.getvalue()


def _line(text: str, exercise: str) -> str:
    return next(line for line in text.splitlines() if line.split()[:1] == [exercise])


def test_done_when_a_right_and_a_wrong_answer_are_seen_by_a_new_process(monkeypatch):
    mistake, typed = next(iter(TYPED_02["02.matmul"].items()))
    reader = f"""
        import torch
        from attnlib.exercises import check

        def dot(a, b):
            return (a * b).sum()

        print(check("01.dot"))
        {textwrap.indent(textwrap.dedent(typed), " " * 8).strip()}
        print(check("02.matmul"))
    """
    printed = _finished(_python(reader))
    assert printed.startswith("Correct") and MISTAKES[mistake].label in printed

    monkeypatch.chdir(ROOT / "notebooks")  # where the reader's next kernel runs
    shown = repr(attnlib.progress())  # another process than the one that wrote
    total = len(EXERCISES)
    assert shown.splitlines()[0] == f"Your progress: 1 of {total} exercises of the course done."
    assert "✓ done" in _line(shown, "01.dot")
    assert f"not yet: {MISTAKES[mistake].label}" in _line(shown, "02.matmul")
    lines = [_line(shown, name) for name in EXERCISES]
    assert sum(line.endswith(NOT_ATTEMPTED) for line in lines) == total - 2
    # every notebook of the registry, linked beside the notebook that asks
    for number in sorted({name[:2] for name in EXERCISES}):
        assert any(line.startswith(f"{number}_") for line in shown.splitlines()), number


def test_one_notebook_and_a_reset_that_says_what_it_forgets(monkeypatch):
    monkeypatch.chdir(ROOT / "notebooks")  # where a notebook's kernel runs
    for status in ("not attempted", "not run", "course fault"):  # not attempts
        record(Verdict("01.dot", status, "..."))
    assert entries() == {}
    record(Verdict("01.dot", "correct", "Correct!"))
    record(Verdict("01.repeats", "mistake", "Not quite.", "repeats_all", "h"))
    record(Verdict("02.matmul", "wrong", "Not quite: ..."))
    one = attnlib.progress("01")
    text = repr(one)
    assert text.startswith("Your progress: 1 of 5 exercises of notebook 01 done.")
    assert "02.matmul" not in text and one._repr_mimebundle_()["text/plain"] == text
    html = one._repr_mimebundle_()["text/html"]
    assert 'href="01_scores_loops.ipynb"' in html and MISTAKES["repeats_all"].label in html
    forgotten = repr(attnlib.progress(1, reset=True))
    assert "Forgot your verdicts on 2 exercises: 01.dot, 01.repeats." in forgotten
    assert set(entries()) == {"02.matmul"}
    assert "Nothing to forget" in repr(attnlib.progress("01", reset=True))


@pytest.mark.parametrize("bad", ["4a", "11", "", 3.0, True, ["01"]])
def test_a_notebook_that_is_not_one_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="progress: expected"):
        attnlib.progress(bad)


def test_a_right_answer_after_a_mistake_keeps_the_mistake_met():
    record(Verdict("01.repeats", "mistake", "Not quite.", "repeats_all", "h"))
    record(Verdict("01.repeats", "correct", "Correct!"))
    line = _line(repr(attnlib.progress("01")), "01.repeats")
    assert "✓ done" in line and MISTAKES["repeats_all"].label in line


ROUNDS = 5  # the last one even: every exercise's latest verdict is wrong


def _write_rounds(names: list[str]) -> None:
    for round in range(ROUNDS):
        for name in names:
            record(Verdict(name, "correct" if round % 2 else "wrong", "m"))


def test_two_processes_writing_at_once_lose_nothing(capfd):
    """This process and a new one write at once: the other waits, imported, for a word to
    start, so that their writes overlap however long its import takes."""
    names = sorted(EXERCISES)
    mine, theirs = names[::2], names[1::2]
    writer = f"""
        import sys
        from attnlib.exercises import Verdict
        from attnlib.progress import record
        names = sys.argv[1].split(",")
        print("ready", flush=True)
        sys.stdin.readline()
        for round in range({ROUNDS}):
            for name in names:
                record(Verdict(name, "correct" if round % 2 else "wrong", "m"))
    """
    other = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(writer), ",".join(theirs)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout.readline() == "ready\n", other.stderr.read()
        other.stdin.write("go\n")
        other.stdin.flush()
        _write_rounds(mine)
        out, err = other.communicate(timeout=300)
    finally:
        other.kill()
        other.wait()
    assert other.returncode == 0 and err == "", err  # no "not recorded" line
    assert "not recorded" not in capfd.readouterr().err
    kept = entries()
    assert set(kept) == set(names)
    assert all(e.status == "wrong" and not e.correct for e in kept.values())


def test_a_damaged_file_is_set_aside_with_one_line_and_a_new_one_started(capfd):
    path = record_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database, " * 200)
    assert entries() == {}  # read first: the damaged file is set aside here, nothing raised
    record(Verdict("01.dot", "correct", "Correct!"))
    said = capfd.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "damaged" in said[0] and ".damaged-" in said[0], said
    aside = list(path.parent.glob("progress.damaged-*.sqlite"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    assert set(entries()) == {"01.dot"}
    with sqlite3.connect(path) as db:  # the new file is a database of its own
        assert db.execute("SELECT exercise FROM verdicts").fetchall() == [("01.dot",)]


def test_a_record_that_cannot_be_written_is_skipped_without_raising(monkeypatch, tmp_path, capfd):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("ATTNLIB_PROGRESS_DIR", str(blocker / "below"))  # a folder under a file
    verdict = check("01.dot", lambda a, b: (a * b).sum())
    assert verdict.correct
    record(verdict)
    assert "not recorded" in capfd.readouterr().err
    assert "0 of" in repr(attnlib.progress("01"))


def _right_answer(before: str = "") -> str:
    return _as_a_kernel(
        f"""
        import attnlib
        from attnlib.exercises import check
        {before}
        def dot(a, b):
            return (a * b).sum()
        print(check("01.dot"))
        print(repr(attnlib.progress("01")))
        """
    )


def test_the_switch_off_records_nothing(monkeypatch):
    monkeypatch.setenv("ATTNLIB_PROGRESS", "off")
    shown = _right_answer()
    assert shown.startswith("Correct") and "Recording is off" in shown
    assert not record_path().exists()
    monkeypatch.delenv("ATTNLIB_PROGRESS")
    shown = _right_answer(before="attnlib.progress_off()")
    assert not record_path().exists() and "Recording is off" in shown
    shown = _right_answer(before="attnlib.progress_off(); attnlib.progress_on()")
    assert set(entries()) == {"01.dot"} and "1 of 5" in shown


def test_in_process_off_and_on():
    progress_off()
    record(Verdict("01.dot", "correct", "Correct!"))
    assert entries() == {}
    progress_on()
    record(Verdict("01.dot", "correct", "Correct!"))
    assert set(entries()) == {"01.dot"}


@pytest.mark.parametrize(
    "variable, value", [("ATTNLIB_VERDICT_LOG", "log"), ("NBGRADER_EXECUTION", "autograde")]
)
def test_the_grader_records_nothing(variable, value, tmp_path, monkeypatch):
    value = str(tmp_path / "verdicts.jsonl") if value == "log" else value
    monkeypatch.setenv(variable, value)
    shown = _right_answer()
    assert shown.startswith("Correct")
    assert not record_path().exists()
    if variable == "ATTNLIB_VERDICT_LOG":  # the grader's own log has the verdict
        assert '"exercise": "01.dot"' in Path(value).read_text()


def test_the_course_handing_its_own_object_over_is_not_the_readers_verdict():
    assert check("01.dot", lambda a, b: (a * b).sum()).correct
    assert entries() == {}


def test_in_the_student_edition_the_links_go_to_the_sibling_assignment(tmp_path, monkeypatch):
    """nbgrader's layout (tools/student_edition.py): release/<stem>/<stem>.ipynb."""
    release = tmp_path / "release"
    for stem in ("01_scores_loops", "02_scores_matmul"):
        (release / stem).mkdir(parents=True)
        (release / stem / f"{stem}.ipynb").write_text("{}")
    here = release / "01_scores_loops"
    assert notebook_link("01", here) == ("01_scores_loops.ipynb", "01_scores_loops.ipynb")
    assert notebook_link("02", here) == (
        "02_scores_matmul.ipynb",
        "../02_scores_matmul/02_scores_matmul.ipynb",
    )
    monkeypatch.chdir(here)  # where the assignment's kernel runs
    shown = _as_a_kernel(
        """
        from attnlib.exercises import check
        def dot(a, b):
            return (a * b).sum()
        check("01.dot")
        import attnlib
        print(attnlib.progress()._repr_mimebundle_()["text/html"])
        """
    )
    assert 'href="../02_scores_matmul/02_scores_matmul.ipynb"' in shown
    assert "Your progress: 1 of" in shown
