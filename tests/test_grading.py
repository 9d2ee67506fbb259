"""The gradebook (tools/grading): every row checked against how its submission was made.

make test grades a small class of two-exercise notebooks (right, wrong, stubs, unreadable,
and each hostile kind that ends at a cell's limit), then reruns it to see nothing regraded;
make check-all grades whole copies of notebook 01 and interrupts a run to resume it.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import psutil
import pytest
import submissions
from course import ROOT
from sandbox_turn import SANDBOX_TURN

sys.path.insert(0, str(ROOT))

from attnlib.exercises import EXERCISES, check  # noqa: E402
from attnlib.mistakes import MISTAKES  # noqa: E402
from tools.grading import assemble, classroom, report, sandbox, verdicts  # noqa: E402

STEM = "01_scores_loops"
NB01 = json.loads((ROOT / "notebooks" / f"{STEM}.ipynb").read_text())
PLACES = submissions.exercises_of(NB01)
SOLUTIONS = {name: place["solution"] for name, place in PLACES.items()}
TYPED = submissions.mistakes_of(STEM)
COURSE = [name for name in EXERCISES if name.startswith("01.")]
# A right cell here takes well under a second once the kernel has imported the course's
# libraries (before the first cell, not counted); 15 s leaves room for a machine at load 18,
# and an infinite loop still ends at it. The notebook's limit only stops a run that hangs.
FAST = Limits = sandbox.Limits(cell_seconds=15, notebook_seconds=300, memory_bytes=3 << 30)
#: Sandboxed runs one test worker at a time (sandbox_turn.py).
pytestmark = pytest.mark.usefixtures("sandbox_turn")
# The first cell of a submission: the course's libraries are imported, and no name bound.
PRELOADED = (
    "import sys\n"
    "assert {'torch', 'attnlib', 'numpy', 'matplotlib.pyplot'} <= set(sys.modules)\n"
    "assert not {'torch', 'attnlib', 'numpy', 'matplotlib', 'np', 'plt', 'name'} & set(dir())"
)
isolated = pytest.mark.skipif(
    sandbox.isolation().kind == "none",
    reason="no namespaces here: the network and the files are open to submissions",
)


def _small(
    answers: dict[str, str], hostile: tuple[str, ...] = (), root: str = "", first: str = ""
) -> dict:
    """Two of notebook 01's exercises (01.dot, 01.repeats), hostile cells between them."""
    cells = NB01["cells"]
    code = [first] if first else []
    code += ["import torch\nfrom attnlib.exercises import check"]
    for name in ("01.dot", "01.repeats"):
        code += [answers.get(name, "".join(cells[PLACES[name]["cell"]]["source"]))]
        code += [f'check("{name}")']
        if name == "01.dot":
            code += [submissions.HOSTILE[kind].format(root=root) for kind in hostile]
    nb = submissions.blank(NB01)
    nb["cells"] = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"c{i}",
            "metadata": {},
            "outputs": [],
            "source": source,
        }
        for i, source in enumerate(code)
    ]
    return nb


def _locked(cell_id: str, source: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": cell_id,
        "metadata": {"nbgrader": {"locked": True, "grade": False, "solution": False}},
        "outputs": [],
        "source": source,
    }


@functools.cache
def _small_release() -> dict:
    """Notebook 01's release cut down to its exercises (each exercise's cell and check cell,
    as the student edition makes them), after a cell that checks the course's libraries were
    imported before it and bound no name, and the imports: a class graded in seconds."""
    release = assemble.release_of(STEM)
    kept = [c for c in release["cells"] if assemble._is_answer(c) or assemble._is_check(c)]
    setup = (
        "import torch\nfrom attnlib import example_inputs\nfrom attnlib.exercises import check\n"
    )
    imports = _locked("setup", setup + "inputs = example_inputs()")
    return {**release, "cells": [_locked("preloaded", PRELOADED), imports, *kept]}


# The small class's cell that never ends waits instead of spinning: the cell's limit (wall
# clock) ends both alike, and a spinning loop would take a core from the other pytest worker
# for the whole limit. check-all's whole notebooks keep submissions.HOSTILE's spinning one.
SMALL_HOSTILE = {**submissions.HOSTILE, "timeout": "import time\nwhile True:\n    time.sleep(0.05)"}


def _answered(answers: dict[str, str], hostile: dict[str, str] | None = None, root="") -> dict:
    """The small release with ``answers`` (exercise -> code) in its exercise cells and
    ``hostile`` code (exercise -> a kind of SMALL_HOSTILE) at the end of those cells,
    where a student's code runs."""
    nb = json.loads(json.dumps(_small_release()))
    for cell in nb["cells"]:
        name = assemble._exercise(cell)
        if assemble._is_answer(cell):
            code = answers.get(name, "".join(cell["source"]))
            if hostile and name in hostile:
                code += "\n" + SMALL_HOSTILE[hostile[name]].format(root=root)
            cell["source"] = code
    return nb


@contextlib.contextmanager
def _small_course():
    """Grade notebook 01's folder against the small release."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assemble, "release_of", lambda a: _small_release() if a == STEM else None)
        yield


def _rows(out: Path) -> list[dict]:
    with (out / "gradebook.csv").open(newline="") as file:
        return list(csv.DictReader(file))


def _sandbox_processes(grader_pid: int | None = None) -> list[int]:
    """Live processes of the runs of a grader (this process by default): in one of its runs'
    cgroups, or (as root) of the runs' user working in a run's scratch folder. A zombie is
    left out: it is dead, and its reaping is up to whoever adopted it."""
    mark, found = f"attn-grade-{grader_pid or os.getpid()}-", []
    for proc in psutil.process_iter(["uids", "status", "cwd"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            cgroup = Path(f"/proc/{proc.pid}/cgroup").read_text()
        except OSError:
            continue
        as_run = proc.info["uids"] and proc.info["uids"].real == sandbox.RUN_UID
        if mark in cgroup or (
            as_run
            and proc.info["cwd"] == sandbox.HOME
            and _not_others(proc, grader_pid or os.getpid())
        ):
            found.append(proc.pid)
    return found


def _not_others(proc: psutil.Process, grader: int) -> bool:
    """Whether a run's process is not another test worker's live run: its ancestors reach the
    grader, or (a leftover that escaped its run) no other pytest process."""
    try:
        for parent in proc.parents():
            if parent.pid == grader:
                return True
            if "pytest" in " ".join(parent.cmdline()):
                return False
    except psutil.Error:
        return False
    return True


# ---- the engine's record --------------------------------------------------------------


def test_check_appends_one_json_line_per_call_with_the_mistake_and_its_hint(tmp_path, monkeypatch):
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv("ATTNLIB_VERDICT_LOG", str(log))
    check("01.repeats", 30)
    check("01.repeats", 15)
    first, second = (json.loads(line) for line in log.read_text().splitlines())
    assert first["exercise"] == "01.repeats" and first["status"] == "mistake"
    assert first["mistake"] == "repeats_both_halves"
    assert first["hint"] and first["hint"] in first["message"]
    assert (second["status"], second["mistake"], second["hint"]) == ("correct", None, "")


def test_without_the_variable_nothing_is_written_and_an_unwritable_log_never_raises(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("ATTNLIB_VERDICT_LOG", raising=False)
    assert check("01.repeats", 15).correct
    monkeypatch.setenv("ATTNLIB_VERDICT_LOG", str(tmp_path / "missing" / "log.jsonl"))
    assert check("01.repeats", 30).mistake == "repeats_both_halves"


def test_a_name_that_is_not_a_str_is_logged_as_shown_and_never_raises(tmp_path, monkeypatch):
    class Odd:
        def __repr__(self):
            raise RuntimeError("no repr")

        __str__ = __repr__

    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv("ATTNLIB_VERDICT_LOG", str(log))
    assert check(Odd(), 1).status == "course fault"
    assert check(["01.loop_body"], 1).status == "course fault"
    logged = [json.loads(line)["exercise"] for line in log.read_text().splitlines()]
    assert len(logged) == 2 and "Odd" in logged[0] and logged[1] == "['01.loop_body']"


@pytest.mark.parametrize("mode", ["autograde", "validate"])
def test_under_nbgrader_a_check_that_is_not_correct_raises_with_its_verdict(monkeypatch, mode):
    monkeypatch.setenv("NBGRADER_EXECUTION", mode)
    assert check("01.repeats", 15).correct
    with pytest.raises(AssertionError, match="Likely mistake"):
        check("01.repeats", 30)
    with pytest.raises(AssertionError, match="Not attempted yet"):
        check("01.repeats", ...)


def test_outside_nbgrader_the_check_never_raises(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert check("01.repeats", 30).status == "mistake"


# ---- a small class, graded in sandboxes ---------------------------------------------


def _small_class(root: Path) -> dict[str, dict]:
    """Writes the class; returns student -> {"status": ..., exercise: expected word}."""
    first = {name: next(iter(TYPED[name])) for name in ("01.dot", "01.repeats")}
    stubs = dict.fromkeys(("01.query", "01.loop_body", "01.highest"), "not attempted")
    both = {"01.dot": "correct", "01.repeats": "correct"}
    right = {name: SOLUTIONS[name] for name in ("01.dot", "01.repeats")}
    made = {
        "right": (_answered(right), "ok", both),
        "wrong": (_answered({name: TYPED[name][m] for name, m in first.items()}), "ok", first),
        # A stub left, and an exercise cell that raises: its check finds no answer.
        "stub": (
            _answered({"01.repeats": "repeats = 1 / 0"}),
            "error",
            {"01.dot": "not attempted", "01.repeats": "error"},
        ),
    }
    # Hostile code the run survives, each at the end of an exercise cell (the only cells a
    # student's code runs in), shares one submission; each has a submission of its own in
    # check-all's whole-notebook test.
    survived = {"01.query": "timeout", "01.loop_body": "memory", "01.highest": "network"}
    survived["01.repeats"] = "files"
    status = "+".join(s for s in verdicts.STATUSES if s in survived.values())
    made["hostile"] = (_answered(right, survived, str(root)), status, both)
    lost = {name: "not reached" for name in COURSE if name != "01.dot"}
    killed = _answered(right, {"01.query": "killed"})
    made["hostile_killed"] = (killed, "killed", {**lost, "01.dot": "correct"})
    expected = {}
    for student, (nb, status, words) in made.items():
        submissions.write(root, student, STEM, nb)
        expected[student] = {"status": status, **stubs, **words}
    broken = root / "unreadable" / STEM / f"{STEM}.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text("{ not json")
    expected["unreadable"] = {"status": "unreadable", **dict.fromkeys(COURSE, "no check")}
    return expected


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("submitted")
    out = tmp_path_factory.mktemp("grading")
    expected = _small_class(root)
    before = {p: p.read_bytes() for p in root.rglob("*.ipynb")}
    started = time.monotonic()
    with SANDBOX_TURN, _small_course():  # a module's fixture: before its tests' own turn
        classroom.grade_all(root, out, FAST, jobs=2)
    return root, out, expected, before, time.monotonic() - started


@isolated
def test_every_row_of_the_gradebook_is_what_its_submission_was_made_to_give(graded_class):
    _, out, expected, _, _ = graded_class
    rows = _rows(out)
    assert sorted(r["student"] for r in rows) == sorted(expected)
    for row in rows:
        want = expected[row["student"]]
        got = {key: row[key] for key in want}
        assert got == want, row["student"]


@isolated
def test_a_hostile_submission_changes_no_other_submission_and_no_course_file(graded_class):
    root, _, _, before, _ = graded_class
    assert {p: p.read_bytes() for p in root.rglob("*.ipynb")} == before
    assert (ROOT / "attnlib" / "__init__.py").is_file()
    assert not (ROOT / "attnlib" / "attnlib_planted.py").exists()
    assert not Path("/tmp/attnlib_planted.py").exists()  # a run sees only its own /tmp folder
    assert _sandbox_processes() == []


def test_each_student_has_a_feedback_page_with_the_course_s_hint(graded_class):
    _, out, expected, _, _ = graded_class
    for student in expected:
        page = (out / "feedback" / student / STEM / f"{STEM}.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    wrong = (out / "feedback" / "wrong" / STEM / f"{STEM}.html").read_text()
    mistake = MISTAKES[expected["wrong"]["01.dot"]]
    assert mistake.label in wrong and "Hint:" in wrong


def test_the_summary_counts_each_verdict_per_exercise_and_embeds_its_chart(graded_class):
    _, out, expected, _, _ = graded_class
    with (out / "summary.csv").open(newline="") as file:
        counted = {
            (r["exercise"], r["verdict"]): int(r["submissions"]) for r in csv.DictReader(file)
        }
    want: dict[tuple[str, str], int] = {}
    for words in expected.values():
        for name in COURSE:
            want[(name, words[name])] = want.get((name, words[name]), 0) + 1
    if sandbox.isolation().kind != "none":
        assert counted == want
    assert sum(n for (name, _), n in counted.items() if name == "01.dot") == len(expected)
    assert 'src="data:image/png;base64,' in (out / "summary.html").read_text()


def test_a_rerun_regrades_nothing_and_a_changed_submission_is_regraded(graded_class, tmp_path):
    root, out, expected, _, _ = graded_class
    results = sorted((out / "results").rglob("*.json"))
    stamps = {p: p.stat().st_mtime_ns for p in results}
    rows = _rows(out)
    with _small_course():
        classroom.grade_all(root, out, FAST, jobs=2)
    assert {p: p.stat().st_mtime_ns for p in results} == stamps
    assert _rows(out) == rows
    changed = root / "unreadable" / STEM / f"{STEM}.ipynb"
    changed.write_text(json.dumps(_answered({"01.dot": SOLUTIONS["01.dot"]})))
    with _small_course():
        classroom.grade_all(root, out, FAST, jobs=1)
    regraded = {r["student"]: r for r in _rows(out)}
    assert (regraded["unreadable"]["status"], regraded["unreadable"]["01.dot"]) == ("ok", "correct")
    assert len(regraded) == len(rows)


# ---- a course inside folders others may not enter (mktemp -d, /root) -----------------


@pytest.mark.skipif(
    not sandbox.isolation().kind.startswith("bubblewrap (root"),
    reason="runs have a user of their own as root only",
)
def test_a_course_closed_to_other_users_is_refused_before_anything_is_graded(tmp_path, monkeypatch):
    course = tmp_path / "course"
    (course / "attnlib").mkdir(parents=True)
    (course / "attnlib").chmod(0o700)  # what a clone made under umask 077 holds
    monkeypatch.setattr(sandbox, "ROOT", course)
    root, out = tmp_path / "submitted", tmp_path / "grading"
    submissions.write(root, "someone", STEM, _small({}))
    with pytest.raises(PermissionError, match=re.escape(f"got {course / 'attnlib'} closed")):
        classroom.grade_all(root, out, FAST, jobs=1)
    assert not out.exists()


def _course_copy(tmp_path: Path) -> Path:
    """The course's code under two folders of mode 700, with an environment of its own there
    (a venv whose packages are this one's, the copy's attnlib first): what a clone made by
    ``mktemp -d`` holds, at the cost of a copy of attnlib and tools."""
    course = tmp_path / "private" / "course"
    skip = shutil.ignore_patterns("__pycache__")
    for name in ("attnlib", "tools", "notebooks/data"):
        shutil.copytree(ROOT / name, course / name, ignore=skip)
    # the release each run is built from (assemble), and the repository's address it links to
    for name in (f"notebooks/{STEM}.ipynb", "pyproject.toml"):
        shutil.copyfile(ROOT / name, course / name)
    venv = course / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    packages = sysconfig.get_paths()["purelib"]
    (venv / Path(packages).relative_to(sys.prefix) / "course.pth").write_text(
        f"{course}\nimport site; site.addsitedir({packages!r})\n"
    )
    for folder in (course, course.parent):
        folder.chmod(0o700)
    return course


@pytest.mark.check_all
@pytest.mark.skipif(
    not sandbox.isolation().kind.startswith("bubblewrap (root"),
    reason="runs have a user of their own as root only",
)
def test_a_course_cloned_into_a_folder_others_may_not_enter_grades_as_anywhere_else(tmp_path):
    course = _course_copy(tmp_path)
    root, out = tmp_path / "submitted", tmp_path / "grading"
    made = {
        "right": (submissions.make(STEM, SOLUTIONS), "ok"),
        "hostile": (submissions.make(STEM, SOLUTIONS, "files", str(root)), "files"),
    }
    for student, (nb, _) in made.items():
        submissions.write(root, student, STEM, nb)
    before = {p: p.read_bytes() for p in [*root.rglob("*.ipynb"), *course.rglob("*.py")]}
    python = course / ".venv" / "bin" / "python"
    command = [python, "-m", "tools.grading", root, "--out", out, "--jobs", "2"]
    command += ["--cell-seconds", "20", "--notebook-seconds", "120", "--memory-gb", "3"]
    grader = subprocess.Popen(command, cwd=course, stderr=subprocess.PIPE, text=True)
    _, stderr = grader.communicate(timeout=600)
    assert grader.returncode == 0, stderr
    rows = {row["student"]: row for row in _rows(out)}
    for student, (_, status) in made.items():
        got = (rows[student]["status"], rows[student]["01.dot"], rows[student]["01.repeats"])
        assert got == (status, "correct", "correct"), student
    assert {p: p.read_bytes() for p in before} == before
    assert not list(course.rglob("attnlib_planted.py"))
    assert _sandbox_processes(grader.pid) == []


# ---- check-all: whole notebooks, every hostile kind, an interrupted run -------------------

WHOLE = sandbox.Limits(cell_seconds=20, notebook_seconds=120, memory_bytes=3 << 30)


def _whole_class(root: Path) -> dict[str, dict]:
    """Copies of notebook 01: right, each typed mistake, stubs, and each hostile kind."""
    expected = {"right": (SOLUTIONS, None), "stub": ({}, None)}
    for k in range(max(len(m) for m in TYPED.values())):
        answers = {name: list(m.values())[k % len(m)] for name, m in TYPED.items()}
        expected[f"mistakes_{k}"] = (answers, None)
    for kind in submissions.HOSTILE:
        expected[f"hostile_{kind}"] = (SOLUTIONS, kind)
    table = {}
    for student, (answers, hostile) in expected.items():
        submissions.write(root, student, STEM, submissions.make(STEM, answers, hostile, str(root)))
        table[student] = submissions.expected_row(STEM, answers, hostile)
    return table


@pytest.mark.check_all
@isolated
def test_whole_notebooks_right_wrong_empty_and_hostile_are_each_graded_as_made(tmp_path):
    root, out = tmp_path / "submitted", tmp_path / "grading"
    expected = _whole_class(root)
    classroom.grade_all(root, out, WHOLE, jobs=2)
    rows = {row["student"]: row for row in _rows(out)}
    assert sorted(rows) == sorted(expected)
    for student, want in expected.items():
        assert {key: rows[student][key] for key in want} == want, student
    assert _sandbox_processes() == []


@pytest.mark.check_all
def test_a_run_killed_midway_leaves_no_process_and_resumes_losing_nothing(tmp_path):
    root, out = tmp_path / "submitted", tmp_path / "grading"
    for k in range(4):
        submissions.write(
            root, f"student{k}", STEM, submissions.make(STEM, SOLUTIONS if k % 2 else {})
        )
    command = [sys.executable, "-m", "tools.grading", str(root), "--out", str(out), "--jobs", "1"]
    grader = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list((out / "results").rglob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.kill(grader.pid, signal.SIGKILL)
    grader.wait()
    saved = {p: p.read_bytes() for p in (out / "results").rglob("*.json")}
    assert 1 <= len(saved) < 4
    # The sandboxes die with the grader (--die-with-parent); a kernel at work takes a moment
    # to exit on a busy machine: wait for it, within a bound.
    gone_by = time.monotonic() + 30
    while _sandbox_processes(grader.pid) and time.monotonic() < gone_by:
        time.sleep(0.2)
    assert _sandbox_processes(grader.pid) == []
    left = [
        p
        for p in psutil.process_iter(["cmdline"])
        if str(root) in " ".join(p.info["cmdline"] or [])
    ]
    assert left == []
    subprocess.run(command, cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    assert {p: p.read_bytes() for p in saved} == saved  # not regraded
    rows = _rows(out)
    assert sorted(r["student"] for r in rows) == [f"student{k}" for k in range(4)]
    for row in rows:
        want = "correct" if int(row["student"][-1]) % 2 else "not attempted"
        assert (row["status"], row["01.dot"], row["01.repeats"]) == ("ok", want, want)


@pytest.mark.check_all
@isolated
def test_the_benchmark_ends_with_its_figures_and_every_row_as_made():
    run = subprocess.run(
        [sys.executable, "benchmarks/grading.py", "--submissions", "3", "--jobs", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    last = dict(pair.split("=") for pair in run.stdout.strip().splitlines()[-1].split())
    assert last["rows_as_made"] == "3/3" and last["cores"] == "2"
    assert float(last["submissions_per_min"]) > 0 and int(last["peak_memory_mb"]) > 0
    assert 0 < float(last["sandbox_overhead_s"]) < 5


# ---- which notebook, which exercises: the assignment's folder decides --------------------

STEM02 = "02_scores_matmul"


def _nb_file(path: Path, nb: dict, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_one_notebook_is_graded_per_student_and_assignment_and_the_others_are_named(tmp_path):
    folder = tmp_path / "ana" / STEM
    _nb_file(folder / f"{STEM}-Copy1.ipynb", {}, mtime=2e9)  # newer, but not the release's
    _nb_file(folder / f"{STEM}.ipynb", {}, mtime=1e9)
    _nb_file(tmp_path / "bo" / STEM / "Untitled.ipynb", {})
    _nb_file(tmp_path / "cy" / STEM / "Untitled.ipynb", {}, mtime=1e9)
    _nb_file(tmp_path / "cy" / STEM / "Untitled1.ipynb", {}, mtime=2e9)
    (tmp_path / "dee" / STEM).mkdir(parents=True)  # an empty folder: nothing to grade
    found = {
        s.student: (s.assignment, s.path.name, s.ignored)
        for s in classroom.find_submissions(tmp_path)
    }
    assert found == {
        "ana": (STEM, f"{STEM}.ipynb", (f"{STEM}-Copy1.ipynb",)),
        "bo": (STEM, "Untitled.ipynb", ()),
        "cy": (STEM, "Untitled1.ipynb", ("Untitled.ipynb",)),
    }


def _ran_clean(verdicts: list[dict]) -> sandbox.Outcome:
    """What a run that raised nothing left, with these lines in its verdict log."""
    return sandbox.Outcome(
        {"cells": 9, "reached": 99, "errors": [], "timeouts": []}, verdicts, False, 0, None
    )


def test_the_exercises_come_from_the_assignment_s_folder_and_another_s_notebook_is_flagged():
    nb02 = submissions.blank(json.loads((ROOT / "notebooks" / f"{STEM02}.ipynb").read_text()))
    called = [name for _, name in verdicts.checks_in(nb02)]
    assert called and all(name.startswith("02.") for name in called)
    logged = [{"exercise": name, "status": "correct"} for name in called]
    exercises = verdicts.course_exercises(STEM)
    assert exercises == COURSE
    foreign = verdicts.foreign_checks(STEM, nb02)
    assert foreign == list(dict.fromkeys(called))
    row = verdicts.grade_row(exercises, nb02, _ran_clean(logged), foreign)
    assert row.status == "wrong notebook"
    assert row.verdicts == dict.fromkeys(COURSE, "no check")  # nothing of 02 filed under 01
    assert any(called[0] in note for note in row.notes)
    # 01's own notebook, its first check cell deleted: that exercise is `no check`.
    nb01 = submissions.blank(NB01)
    first = PLACES[COURSE[0]]["cell"]
    cell = next(i for i, n in verdicts.checks_in(nb01) if n == COURSE[0] and i > first)
    del nb01["cells"][cell]
    assert verdicts.foreign_checks(STEM, nb01) == []
    logged = [{"exercise": name, "status": "correct"} for name in COURSE[1:]]
    row = verdicts.grade_row(exercises, nb01, _ran_clean(logged))
    assert row.status == "ok"
    assert row.verdicts == {COURSE[0]: "no check", **dict.fromkeys(COURSE[1:], "correct")}


@pytest.mark.check_all
@isolated
def test_a_renamed_a_misplaced_and_a_copied_notebook_are_graded_by_their_folder(tmp_path):
    root, out = tmp_path / "submitted", tmp_path / "grading"
    first, second = COURSE[0], COURSE[1]
    mistake = next(iter(TYPED[second]))
    # Untitled.ipynb in 01's folder: the first check cell deleted (an edit outside the exercise
    # cells: ignored, the release's check runs, and the deletion is reported), a named mistake.
    untitled = submissions.make(STEM, {first: SOLUTIONS[first], second: TYPED[second][mistake]})
    check_cell = next(
        i for i, n in verdicts.checks_in(untitled) if n == first and i > PLACES[first]["cell"]
    )
    del untitled["cells"][check_cell]
    _nb_file(root / "renamed" / STEM / "Untitled.ipynb", untitled)
    # 02's notebook handed in as 01.
    _nb_file(root / "misplaced" / STEM / f"{STEM02}.ipynb", submissions.make(STEM02, {}))
    # The original, and a copy with every answer right that is newer: the original is graded.
    _nb_file(root / "copied" / STEM / f"{STEM}.ipynb", submissions.make(STEM, {}), 1e9)
    _nb_file(root / "copied" / STEM / f"{STEM}-Copy1.ipynb", submissions.make(STEM, SOLUTIONS), 2e9)
    classroom.grade_all(root, out, WHOLE, jobs=2)
    rows = {row["student"]: row for row in _rows(out)}
    assert sorted(rows) == ["copied", "misplaced", "renamed"]
    assert not any(name.startswith("02.") for name in rows["misplaced"])
    assert rows["renamed"]["status"] == "ok"
    assert (rows["renamed"][first], rows["renamed"][second]) == ("correct", mistake)
    assert rows["renamed"]["ignored cells"], "the deleted check cell is not reported"
    assert rows["misplaced"]["status"] == "wrong notebook"
    # 01's release ran, with none of 01's exercise cells handed in: nothing filed from 02's
    assert {rows["misplaced"][name] for name in COURSE} == {"not attempted"}
    assert (rows["copied"]["notebook"], rows["copied"]["ignored"]) == (STEM, f"{STEM}-Copy1.ipynb")
    assert {rows["copied"][name] for name in COURSE} == {"not attempted"}
    page = (out / "feedback" / "copied" / STEM / f"{STEM}.html").read_text()
    assert f"{STEM}-Copy1.ipynb" in page


# ---- what a submission writes cannot become a formula or a mistake's name ----------------

FORGED = '=HYPERLINK("http://example.invalid","click")'


def test_a_forged_mistake_name_is_wrong_and_no_cell_of_the_csv_starts_a_formula(tmp_path):
    real = next(iter(TYPED["01.repeats"]))
    logged = [
        {"exercise": "01.dot", "status": "mistake", "mistake": FORGED, "message": FORGED},
        {"exercise": "01.repeats", "status": "mistake", "mistake": real},
        {"exercise": "01.loop_body", "status": ["not", "a", "word"]},
    ]
    nb = _small({})
    row = verdicts.grade_row(COURSE, nb, _ran_clean(logged))
    assert (row.verdicts["01.dot"], row.verdicts["01.repeats"]) == ("wrong", real)
    assert row.verdicts["01.loop_body"] == "unknown"
    result = {
        "student": "@SUM(1+1)",
        "assignment": STEM,
        "notebook": "-2+3",
        "ignored": ["+1.ipynb", "\tx.ipynb"],
        "exercises": COURSE,
        "status": row.status,
        "verdicts": {**row.verdicts, "01.highest": "\r=1"},
        "messages": row.messages,
        "notes": row.notes,
    }
    report.write_gradebook(tmp_path / "gradebook.csv", [result])
    report.write_summary(tmp_path, [result], "test")
    for name in ("gradebook.csv", "summary.csv"):
        with (tmp_path / name).open(newline="") as file:
            cells = [cell for line in csv.reader(file) for cell in line]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], name
        assert FORGED not in cells
    with (tmp_path / "gradebook.csv").open(newline="") as file:
        written = list(csv.DictReader(file))[0]
    assert (written["student"], written["notebook"]) == ("'@SUM(1+1)", "'-2+3")
    assert written["ignored"] == "'+1.ipynb; \tx.ipynb"
    page = report.feedback_page(result)
    assert FORGED not in page  # the message the log carried is shown escaped, as text
    assert '<td class="other">wrong</td>' in page


# ---- the feedback's words: what happened, where, said once -------------------------------


def test_the_feedback_says_what_stopped_each_exercise_and_in_which_cell():
    nb = _small(SOLUTIONS)  # cells: 0 imports, 1 01.dot's answer, 2 its check, 3 and 4 01.repeats'
    empty = verdicts.grade_row(
        COURSE, None, sandbox.Outcome({"unreadable": "x"}, [], False, 0, None)
    )
    assert empty.status == "unreadable" and set(empty.messages.values()) == {""}
    assert len(empty.notes) == 1 and "empty" in empty.notes[0]
    # 01.dot's answer ran out of memory, its check found nothing; the kernel died in 01.repeats'.
    oom = {
        "cell": 1,
        "ename": "RuntimeError",
        "evalue": "DefaultCPUAllocator: can't allocate memory",
    }
    report = {"cells": 5, "reached": 2, "errors": [oom], "timeouts": [], "dead": True}
    logged = [
        {"exercise": "01.dot", "status": "not run", "message": "Run the exercise cell above first"}
    ]
    row = verdicts.grade_row(COURSE, nb, sandbox.Outcome(report, logged, False, -9, None))
    assert row.verdicts["01.dot"] == "memory"
    assert "cell 2 ran out of memory" in row.messages["01.dot"].lower()
    assert "Run the exercise cell" not in row.messages["01.dot"]
    assert row.verdicts["01.repeats"] == "not reached"
    assert "kernel died in cell 4" in row.messages["01.repeats"]
    assert any(n.startswith("memory:") and "(cell 2)" in n for n in row.notes)
    # 01.repeats' exercise cell deleted: its check ran and found no answer.
    del nb["cells"][3]
    timed_out = {"cell": 1, "ename": "KeyboardInterrupt", "evalue": ""}
    report = {"cells": 4, "reached": 3, "errors": [timed_out], "timeouts": [1]}
    logged = [{"exercise": name, "status": "not run"} for name in ("01.dot", "01.repeats")]
    row = verdicts.grade_row(COURSE, nb, sandbox.Outcome(report, logged, False, 0, None))
    assert row.verdicts == {
        **dict.fromkeys(COURSE, "no check"),
        "01.dot": "timeout",
        "01.repeats": "not run",
    }
    assert "cell 2 ran over its time limit" in row.messages["01.dot"].lower()
    assert row.messages["01.repeats"] == verdicts.MISSING_CELL
    assert row.notes == [f"timeout: {verdicts.STATUSES['timeout']} (cell 2)"]


# ---- the progress line and the summary's chart ------------------------------------------


def test_the_progress_line_names_each_run_under_way_and_for_how_long():
    running = {
        Path("ana", STEM, STEM): 612.4,
        Path("bo", STEM, "Untitled"): 3.0,
    }
    line = classroom.progress_line(18, 19, 2, running)
    assert line.startswith("graded 18/19 (skipped 2 already graded)")
    assert line.endswith(f"running: ana/{STEM} 10m12s, bo/{STEM} 0m03s")
    assert "running" not in classroom.progress_line(19, 19, 0, {})


def test_the_summary_chart_s_title_lies_within_the_figure():
    from collections import Counter

    counts = {name: Counter({"correct": 3, "not attempted": 1}) for name in COURSE}
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = report.chart_figure(counts)
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    title = fig.axes[0].title.get_window_extent(renderer)
    whole = fig.bbox
    assert whole.x0 <= title.x0 and title.x1 <= whole.x1 and title.y1 <= whole.y1
