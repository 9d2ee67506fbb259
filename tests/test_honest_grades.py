"""Honest grades (issue 31): only the student's work counts, no submission stops the class, and
nothing a student controls reaches the instructor's spreadsheet or terminal as code.

The expected values come from how each case is made (the release as the student edition makes
it, the edits the test itself applies, the counts it writes), never from the grader.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import types
import unicodedata
from pathlib import Path
from unittest import mock

import pytest
import submissions
from course import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT))

from attnlib import attention, modules  # noqa: E402
from attnlib.exercises import EXERCISES, check, checkpoint  # noqa: E402
from tools.grading import assemble, classroom, report, sandbox, verdicts  # noqa: E402

STEM = "01_scores_loops"
STEMS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FAST = sandbox.Limits(cell_seconds=30, notebook_seconds=400, memory_bytes=3 << 30)
isolated = pytest.mark.skipif(
    sandbox.isolation().kind == "none",
    reason="no namespaces here: the network and the files are open to submissions",
)
#: Sandboxed runs one test worker at a time (sandbox_turn.py).
pytestmark = pytest.mark.usefixtures("sandbox_turn")

#: The course's own object for an exercise that asks the reader to write that very thing.
COURSE_ANSWERS = {
    "01.loop_body": attention.attention_scores_loop,
    "07.wrapper_forward": modules.MultiHeadAttentionWrapper,
    "09.rescale": attention.blockwise_attention,
}


def _exercises_of(stem: str) -> list[str]:
    return [name for name in EXERCISES if name.startswith(stem[:3].replace("_", "."))]


# ---- checkpoint() and check() ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(COURSE_ANSWERS))
def test_the_course_s_own_object_passes_its_checkpoint_but_is_not_a_reader_s_answer(name):
    own = COURSE_ANSWERS[name]
    passed = checkpoint(name, own, f"the notebook's {own.__name__}")
    assert passed.status == "checkpoint", passed.message
    assert repr(passed).startswith("✓ checkpoint passed: the notebook's ")
    typed = check(name, own)  # a reader typing the course's class into check()
    assert not typed.correct
    assert f".{own.__name__}, the course's own answer" in typed.message


def test_a_checkpoint_that_fails_says_so_and_names_the_exercise_s_finding():
    failed = checkpoint("01.repeats", 30, "the count")
    assert failed.status == "checkpoint failed"
    assert repr(failed).startswith("✗ checkpoint failed: the count (judged as exercise 01.repeats)")
    assert "Likely mistake" in failed.message  # what the exercise found, for the author


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.one_of(st.sampled_from(sorted(EXERCISES)), st.text(max_size=12), st.integers()),
    own=st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=8), st.just(...)),
    what=st.one_of(st.text(max_size=30), st.none(), st.integers()),
)
def test_a_checkpoint_never_raises_never_logs_and_never_says_a_bare_correct(name, own, what):
    # as under nbgrader's autograder, with a verdict log: a check would raise there, and log
    log = Path(LOGS) / "verdicts.jsonl"
    env = {"ATTNLIB_VERDICT_LOG": str(log), "NBGRADER_EXECUTION": "autograde"}
    with mock.patch.dict(os.environ, env):
        verdict = checkpoint(name, own, what)
        again = checkpoint(name, own, what)
    line = repr(verdict)
    assert verdict.status in ("checkpoint", "checkpoint failed")
    assert line.startswith(("✓ checkpoint passed: ", "✗ checkpoint failed: "))
    assert not line.startswith("Correct") and (
        verdict.status != "checkpoint" or "Correct" not in line
    )
    assert not log.exists()
    assert repr(again) == line  # the saved output nbval compares


LOGS = __import__("tempfile").mkdtemp(prefix="checkpoint-log-")


def test_a_check_logs_the_number_of_the_cell_it_ran_in(tmp_path, monkeypatch):
    # IPython 9 has counted the shell on already: the running cell's result holds its number
    running = types.SimpleNamespace(execution_count=41)
    shell = types.SimpleNamespace(
        execution_count=42, displayhook=types.SimpleNamespace(exec_result=running)
    )
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setenv("ATTNLIB_VERDICT_LOG", str(tmp_path / "verdicts.jsonl"))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    check("01.repeats", 15)
    checkpoint("01.repeats", 15)
    lines = Path(os.environ["ATTNLIB_VERDICT_LOG"]).read_text().splitlines()
    assert [json.loads(line)["execution_count"] for line in lines] == [41]  # the check only


def test_a_long_message_is_capped_in_the_gradebook():
    long = "x" * 5000
    row = verdicts.grade_row(
        ["01.dot"],
        {"cells": []},
        sandbox.Outcome(
            {"cells": 1, "reached": 9, "errors": [], "timeouts": []},
            [{"exercise": "01.dot", "status": "wrong", "message": long}],
            False,
            0,
            None,
        ),
    )
    assert 0 < len(row.messages["01.dot"]) <= 500


# ---- the run is the release with the student's exercise cells ----------------------------


def _release(stem: str) -> dict:
    return json.loads(json.dumps(assemble.release_of(stem)))


def _answer_ids(release: dict) -> dict[str, str]:
    """exercise -> the id of its exercise cell, read from the student edition's metadata."""
    return {
        c["metadata"]["attnlib"]["exercise"]: c["id"]
        for c in release["cells"]
        if c["metadata"].get("nbgrader", {}).get("solution")
    }


@pytest.mark.parametrize("stem", [STEM, "07_multi_head_attention"])
def test_an_untouched_release_assembles_to_itself_with_every_exercise_s_check_cell(stem):
    release = _release(stem)
    built = assemble.submission(stem, json.dumps(release).encode())
    assert built.ignored_cells == ()
    assert sorted(built.check_cells) == sorted(_exercises_of(stem))
    sources = ["".join(c["source"]) for c in release["cells"]]
    assert ["".join(c["source"]) for c in built.notebook["cells"]] == sources


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_edits_outside_the_exercise_cells_are_ignored_and_named(data):
    release = _release(STEM)
    answers = _answer_ids(release)
    submitted = json.loads(json.dumps(release))
    cells = submitted["cells"]
    edited = data.draw(st.sets(st.integers(0, len(cells) - 1), max_size=6))
    text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)
    expected_ignored, expected_answers = set(), {}
    for index in sorted(edited):
        new = data.draw(text).strip() + " # edited"
        cells[index]["source"] = new
        if cells[index]["id"] in answers.values():
            expected_answers[cells[index]["id"]] = new
        else:
            expected_ignored.add(cells[index]["id"])
    added = {"cell_type": "code", "id": "mine", "metadata": {}, "outputs": [], "source": "1"}
    cells.insert(data.draw(st.integers(0, len(cells))), added)
    built = assemble.submission(STEM, json.dumps(submitted).encode())
    assert set(built.ignored_cells) == expected_ignored | {"mine"}
    ran = {c["id"]: "".join(c["source"]) for c in built.notebook["cells"]}
    for cell in release["cells"]:
        want = expected_answers.get(cell["id"], "".join(cell["source"]))
        assert ran[cell["id"]] == want
    assert "mine" not in ran


def test_an_exercise_cell_deleted_keeps_the_release_s_and_a_cell_of_another_exercise_is_refused():
    release = _release(STEM)
    answers = _answer_ids(release)
    submitted = json.loads(json.dumps(release))
    submitted["cells"] = [c for c in submitted["cells"] if c["id"] != answers["01.dot"]]
    impostor = next(c for c in submitted["cells"] if c["id"] == answers["01.query"])
    impostor["metadata"]["attnlib"] = {"exercise": "01.repeats"}
    impostor["source"] = "query = 'mine'"
    built = assemble.submission(STEM, json.dumps(submitted).encode())
    ran = {c["id"]: "".join(c["source"]) for c in built.notebook["cells"]}
    starters = {c["id"]: "".join(c["source"]) for c in release["cells"]}
    assert ran[answers["01.dot"]] == starters[answers["01.dot"]]
    assert ran[answers["01.query"]] == starters[answers["01.query"]]
    assert answers["01.query"] in built.ignored_cells


def test_only_the_verdict_of_an_exercise_s_own_check_cell_counts():
    release = _release(STEM)
    built = assemble.submission(STEM, json.dumps(release).encode())
    # The run's numbers, made up here: cell k ran as In [100 + k].
    executed = json.loads(json.dumps(built.notebook))
    for k, cell in enumerate(executed["cells"]):
        if cell["cell_type"] == "code":
            cell["execution_count"] = 100 + k
    count = {c["id"]: c.get("execution_count") for c in executed["cells"]}
    dot_check = count[built.check_cells["01.dot"]]
    answer_cell = count[_answer_ids(release)["01.repeats"]]
    logged = [
        {"exercise": "01.dot", "status": "not attempted", "execution_count": dot_check},
        # a check() of another exercise typed in an answer's cell, and one with no cell
        {"exercise": "01.repeats", "status": "correct", "execution_count": answer_cell},
        {"exercise": "01.repeats", "status": "correct"},
        {"exercise": "01.query", "status": "correct", "execution_count": dot_check},
    ]
    outcome = sandbox.Outcome({}, logged, False, 0, json.dumps(executed).encode())
    kept = assemble.own_verdicts(built, outcome).verdicts
    assert kept == logged[:1]


# ---- no submission stops the class -------------------------------------------------------

MALFORMED = {
    "broken_json": (b"{ not json", "unreadable"),
    "cells_not_a_list": (b'{"cells": 5}', "not a notebook"),
    "a_list": (b"[1, 2, 3]", "not a notebook"),
    "deep": (b"[" * 200_000 + b"]" * 200_000, "unreadable"),
    "empty": (b"", "unreadable"),
    "latin1": ('{"cells": ["é"]}'.encode("latin-1"), "unreadable"),
}


def _nb_bytes(nb: dict) -> bytes:
    return json.dumps(nb).encode()


def _hostile_class(root: Path) -> dict[str, str]:
    """student -> the status its submission must give; only a few of them run."""
    release = _release(STEM)
    want = {}
    for student, (raw, status) in MALFORMED.items():
        path = root / student / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_bytes(raw)
        want[student] = status
    (root / "folder" / STEM / f"{STEM}.ipynb").mkdir(parents=True)
    want["folder"] = "unreadable"
    big = root / "big" / STEM / f"{STEM}.ipynb"
    big.parent.mkdir(parents=True)
    big.write_bytes(b" " * (assemble.MAX_BYTES + 1))
    want["big"] = "unreadable"
    untouched = root / "untouched" / STEM / f"{STEM}.ipynb"
    untouched.parent.mkdir(parents=True)
    untouched.write_bytes(_nb_bytes(release))
    want["untouched"] = "ok"
    # links: to another's notebook, to another's assignment folder, a whole student folder
    (root / "link_file" / STEM).mkdir(parents=True)
    (root / "link_file" / STEM / f"{STEM}.ipynb").symlink_to(untouched)
    (root / "link_folder").mkdir()
    (root / "link_folder" / STEM).symlink_to(untouched.parent, target_is_directory=True)
    (root / "link_student").symlink_to(root / "untouched", target_is_directory=True)
    want.update(dict.fromkeys(("link_file", "link_folder", "link_student"), "unreadable"))
    # a forger: prints Correct!, checks another exercise, edits a locked cell to set an answer
    forged = json.loads(json.dumps(release))
    answers = _answer_ids(release)
    for cell in forged["cells"]:
        if cell["id"] == answers["01.dot"]:
            cell["source"] = (
                'print("Correct!")\nfrom attnlib.exercises import check\n'
                'check("01.repeats", 15)\ncheck("01.dot", lambda a, b: (a * b).sum())'
            )
        elif cell["metadata"].get("nbgrader", {}).get("grade"):
            cell["source"] += "\nrepeats = 15"  # a check cell edited: never run
    (root / "forger" / STEM).mkdir(parents=True)
    (root / "forger" / STEM / f"{STEM}.ipynb").write_bytes(_nb_bytes(forged))
    want["forger"] = "ok"
    (root / "nowhere" / "99_nothing").mkdir(parents=True)
    (root / "nowhere" / "99_nothing" / "99_nothing.ipynb").write_bytes(_nb_bytes(release))
    want["nowhere"] = "no release"
    (root / "boom" / STEM).mkdir(parents=True)
    (root / "boom" / STEM / f"{STEM}.ipynb").write_bytes(b'{"cells": [], "BOOM": 1}')
    want["boom"] = "grader error"
    return want


@isolated
def test_every_hostile_submission_is_one_row_and_untouched_work_earns_nothing(
    tmp_path, monkeypatch
):
    root, out = tmp_path / "submitted", tmp_path / "grading"
    want = _hostile_class(root)
    real = assemble.submission

    def failing(assignment, raw):  # the grader's own failure, on one submission
        if isinstance(raw, bytes) and b"BOOM" in raw:
            raise RecursionError("the grader's own bug")
        return real(assignment, raw)

    monkeypatch.setattr(assemble, "submission", failing)
    classroom.grade_all(root, out, FAST, jobs=2)
    with (out / "gradebook.csv").open(newline="") as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    assert {s: rows[s]["status"] for s in want} == want
    exercises = _exercises_of(STEM)
    assert {rows["untouched"][n] for n in exercises} == {"not attempted"}
    assert rows["untouched"]["ignored cells"] == ""
    forger = {n: rows["forger"][n] for n in exercises}
    assert forger["01.repeats"] == "not attempted" and "correct" not in forger.values()
    assert len(rows["forger"]["ignored cells"].split()) == len(exercises)  # the check cells
    result = json.loads((out / "results" / "forger" / STEM / f"{STEM}.json").read_text())
    assert any("not graded" in note for note in result["notes"])
    boom = json.loads((out / "results" / "boom" / STEM / f"{STEM}.json").read_text())
    assert any("RecursionError" in note for note in boom["notes"])


@pytest.mark.check_all
@isolated
@pytest.mark.parametrize("stem", STEMS)
def test_an_untouched_release_of_every_notebook_earns_nothing(tmp_path, stem):
    root, out = tmp_path / "submitted", tmp_path / "grading"
    submissions.write(root, "untouched", stem, _release(stem))
    limits = sandbox.Limits(cell_seconds=300, notebook_seconds=1800, memory_bytes=3 << 30)
    classroom.grade_all(root, out, limits, jobs=1)
    with (out / "gradebook.csv").open(newline="") as file:
        (row,) = list(csv.DictReader(file))
    words = {name: row[name] for name in _exercises_of(stem)}
    assert "correct" not in words.values(), words


# ---- output hygiene -----------------------------------------------------------------------

# any text a file name may hold (no NUL, no lone surrogate)
ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)


@given(st.text(" \t", max_size=3), st.sampled_from(report.FORMULA_STARTS), ANY_TEXT)
def test_no_csv_cell_starts_a_formula_even_after_spaces(spaces, start, rest):
    cell = spaces + start + rest
    assert report.inert(cell).lstrip(" ")[:1] not in report.FORMULA_STARTS


@settings(max_examples=40, deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_the_gradebook_of_generated_names_reads_back_with_no_formula(tmp_path_factory, names):
    path = tmp_path_factory.mktemp("book") / "gradebook.csv"
    results = [
        {
            "student": name,
            "assignment": STEM,
            "notebook": " " + name,
            "status": "ok",
            "ignored": [name],
            "ignored_cells": [name],
            "exercises": ["01.dot"],
            "verdicts": {"01.dot": name},
        }
        for name in names
    ]
    report.write_gradebook(path, results)
    with path.open(newline="", encoding="utf-8") as file:
        cells = [cell for row in csv.reader(file) for cell in row]
    assert not [c for c in cells if c.lstrip(" ")[:1] in report.FORMULA_STARTS]


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@given(ANY_TEXT)
def test_nothing_printed_for_the_terminal_holds_a_control_character(text):
    shown = report.printable(text)
    assert len(shown) == len(text)
    assert not [c for c in shown if unicodedata.category(c) == "Cc" or c in BIDI]
    if not [c for c in text if unicodedata.category(c) in ("Cc", "Cf")]:
        assert shown == text  # nothing else is touched
    key = Path(text or "x", STEM, STEM)
    line = classroom.progress_line(0, 1, 0, {key: 1.0})
    assert not [c for c in line if unicodedata.category(c) == "Cc" or c in BIDI]
