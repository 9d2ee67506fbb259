"""The grader's sandbox (bubblewrap) holds hostile submissions, written as notebook cells.

Each run here is a real sandboxed run of a notebook (tools/grading/sandbox.run_notebook),
mostly without the course's preloaded imports to keep it short; each cell prints one JSON
line saying what the attack got, and the test reads those lines from the executed notebook.
Held means: another submission, the gradebook, the grader's environment, the host's /tmp,
sockets and /work cannot be read or reached; the course cannot be written or unmounted; a
setuid binary gains nothing; the run's memory (shared memory included), processes and
scratch space are capped for the run as a whole; nothing of it is left afterwards.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from course import ROOT

sys.path.insert(0, str(ROOT))
from tools.grading import __main__ as cli  # noqa: E402
from tools.grading import classroom, sandbox  # noqa: E402

HERE = sandbox.isolation()
# With CI set (.ci/run and the workflow install bubblewrap), a missing sandbox fails these.
bwrapped = pytest.mark.skipif(
    not HERE.sandboxed and not os.environ.get("CI"),
    reason=f"no sandbox on this machine: {HERE.why}",
)
cgrouped = pytest.mark.skipif(
    HERE.limits == "rlimits", reason="no cgroup here: limits per process and per user only"
)
QUICK = sandbox.Limits(cell_seconds=20, notebook_seconds=90, memory_bytes=1536 << 20)
SECRET = "attn-grader-secret-7f3a"
#: Sandboxed runs one test worker at a time (sandbox_turn.py).
pytestmark = pytest.mark.usefixtures("sandbox_turn")


def _notebook(cells: list[str]) -> bytes:
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"c{i}",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb).encode()


def _printed(outcome: sandbox.Outcome) -> list[dict]:
    """Each JSON line the cells printed, in order."""
    assert outcome.executed, outcome.report
    lines = []
    for cell in json.loads(outcome.executed)["cells"]:
        for output in cell.get("outputs", []):
            for line in "".join(output.get("text", "")).splitlines():
                if line.startswith("{"):
                    lines.append(json.loads(line))
    return lines


def _left_behind() -> list[int]:
    """Host processes of a run still alive: in a cgroup of this grader's runs, or working in
    a run's scratch folder (as the host sees it through /proc)."""
    mark, found = f"attn-grade-{os.getpid()}-", []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cgroup = Path("/proc", entry, "cgroup").read_text()
            cwd = os.readlink(f"/proc/{entry}/cwd")
            status = Path("/proc", entry, "status").read_text()
        except OSError:
            continue
        if "State:\tZ" in status:
            continue  # dead, waiting to be reaped by whoever adopted it
        if "attn-grade-" in cgroup and mark not in cgroup:
            continue  # another grader's run: another test worker grading beside this one
        if mark in cgroup or cwd == sandbox.HOME:
            found.append(int(entry))
    return found


# Attempts: each prints {"what": ..., "got": ...}; "got" is what the attempt reached.
TRY = """
import errno, json, os
def attempt(what, action):
    try:
        got = action()
    except OSError as err:
        got = "refused: " + (errno.errorcode.get(err.errno) or type(err).__name__)
    print(json.dumps({"what": what, "got": got}))
"""


def _probes(other: Path, gradebook: Path, host_tmp: Path, sock: Path) -> list[str]:
    attnlib = ROOT / "attnlib"
    return [
        TRY,
        f"attempt('other submission', lambda: open({str(other)!r}).read())",
        f"attempt('gradebook', lambda: open({str(gradebook)!r}).read())",
        f"attempt('host tmp', lambda: open({str(host_tmp)!r}).read())",
        f"attempt('course readme', lambda: open({str(ROOT / 'README.md')!r}).read()[:20])",
        "attempt('grader environment', lambda: [open(f'/proc/{p}/environ', 'rb').read().decode("
        "'latin-1') for p in os.listdir('/proc') if p.isdigit()] + [dict(os.environ)])",
        f"attempt('append to the course', lambda: open({str(attnlib / '__init__.py')!r}, 'a')"
        ".write('planted = 1'))",
        f"attempt('plant in the course', lambda: open({str(attnlib / 'planted.py')!r}, 'w')"
        ".write('x'))",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def unmount(path):\n"
        "    if libc.umount2(path.encode(), 2) != 0:\n"
        "        raise OSError(ctypes.get_errno(), 'umount2')\n"
        "    return 'unmounted'\n"
        f"attempt('unmount the course', lambda: unmount({str(attnlib)!r}))",
        # A user namespace of its own (allowed as root: no --disable-userns there) gives
        # capabilities over new namespaces only; bwrap's mounts stay locked under it.
        "def nested():\n"
        "    if libc.unshare(0x10000000 | 0x00020000) != 0:\n"
        "        raise OSError(ctypes.get_errno(), 'unshare')\n"
        f"    return unmount({str(attnlib)!r})\n"
        "attempt('unmount from a user namespace of its own', nested)",
        "import socket\n"
        "def reach(address, family=socket.AF_UNIX):\n"
        "    with socket.socket(family) as s:\n"
        "        s.settimeout(3)\n"
        "        s.connect(address)\n"
        "        return 'connected'\n"
        f"attempt('host unix socket', lambda: reach({str(sock)!r}))",
        f"attempt('host abstract socket', lambda: reach('\\0' + {sock.name!r}))",
        "attempt('network', lambda: reach(('1.1.1.1', 80), socket.AF_INET))",
        "import subprocess\n"
        "def setuid_mount():\n"
        "    done = subprocess.run(['/usr/bin/mount', '--bind', '/home/student/tmp', "
        f"{str(attnlib)!r}], capture_output=True, text=True)\n"
        "    return done.returncode\n"
        "attempt('setuid mount', setuid_mount)",
        "status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines()"
        " if ':\\t' in l)\n"
        "print(json.dumps({'what': 'who', 'got': [os.getuid(), os.geteuid(), "
        "status['CapEff'].strip(), status['CapBnd'].strip(), status['NoNewPrivs'].strip()]}))",
        "attempt('processes in sight', lambda: sorted(open(f'/proc/{p}/comm').read().strip() "
        "for p in os.listdir('/proc') if p.isdigit()))",
        "attempt('root folder', lambda: sorted(os.listdir('/')))",
        "import torch\nfrom attnlib.exercises import check\n"
        "attempt('the course runs', lambda: [float(torch.ones(3).sum()), "
        "check('01.dot', 1).status])",
    ]


@bwrapped
def test_a_run_reads_and_reaches_nothing_of_the_host_and_changes_no_course_file(
    tmp_path, monkeypatch
):
    other = tmp_path / "submitted" / "someone" / "01_scores_loops" / "01_scores_loops.ipynb"
    other.parent.mkdir(parents=True)
    other.write_text("another student's work")
    gradebook = tmp_path / "grading" / "gradebook.csv"
    gradebook.parent.mkdir()
    gradebook.write_text("student,status\n")
    host_tmp = tmp_path / "host-file.txt"  # tmp_path is under the host's /tmp
    host_tmp.write_text("the host's")
    sock = tmp_path / f"attn-test-{os.getpid()}.sock"
    listening = [socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)]
    listening[0].bind(str(sock))
    listening[1].bind("\0" + sock.name)
    for s in listening:
        s.listen()
    monkeypatch.setenv("ATTN_SECRET", SECRET)
    course = {p: p.read_bytes() for p in (ROOT / "attnlib").rglob("*.py")}
    try:
        cells = _probes(other, gradebook, host_tmp, sock)
        outcome = sandbox.run_notebook(_notebook(cells), QUICK)
    finally:
        for s in listening:
            s.close()
    got = {line["what"]: line["got"] for line in _printed(outcome)}
    for what in ("other submission", "gradebook", "host tmp", "course readme"):
        assert got[what] == "refused: ENOENT", what
    assert SECRET not in json.dumps(got["grader environment"])
    # Not the files' owner (EACCES), and a read-only mount (EROFS) for an owner.
    for what in ("append to the course", "plant in the course"):
        assert got[what] in ("refused: EACCES", "refused: EROFS"), what
    assert got["unmount the course"] == "refused: EPERM"
    assert got["unmount from a user namespace of its own"].startswith("refused: ")
    assert got["host unix socket"] == "refused: ENOENT"
    assert got["host abstract socket"] == "refused: ECONNREFUSED"  # another network namespace
    assert got["network"] == "refused: ENETUNREACH"
    assert got["setuid mount"] != 0  # mount is setuid root on the host: here it is not
    uid, euid, effective, bounding, no_new_privs = got["who"]
    assert uid != 0 and euid != 0
    assert int(effective, 16) == int(bounding, 16) == 0 and no_new_privs == "1"
    assert len(got["processes in sight"]) <= 8, got["processes in sight"]
    system = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "dev", "etc", "home", "opt"}
    bound = {Path(target).parts[1] for _, target in sandbox._binds()}
    assert set(got["root folder"]) <= system | bound | {"proc", "tmp", "usr", "var"}
    assert got["the course runs"] == [3.0, "refused"]
    assert {p: p.read_bytes() for p in (ROOT / "attnlib").rglob("*.py")} == course
    assert _left_behind() == []


MEMFD_AND_SHM = (
    TRY
    + """
import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
def segment(key, size):
    shmid = libc.shmget(key, size, 0o1600)  # IPC_CREAT | 0600
    if shmid < 0:
        raise OSError(ctypes.get_errno(), 'shmget')
    address = libc.shmat(shmid, None, 0)
    ctypes.memset(address, 1, size)  # touched: resident
    return shmid
def memfd(size):
    fd = os.memfd_create('hog')
    os.ftruncate(fd, size)
    view = mmap.mmap(fd, size)
    for offset in range(0, size, 4096):
        view[offset] = 1
    return fd
"""
)


@bwrapped
@cgrouped
def test_shared_memory_and_memfd_count_against_the_run_and_are_gone_after_it():
    limits = sandbox.Limits(cell_seconds=30, notebook_seconds=90, memory_bytes=512 << 20)
    cells = [
        MEMFD_AND_SHM,
        "attempt('segment', lambda: segment(0x5EED, 64 << 20) >= 0)",
        "kept = []\n"
        "attempt('memfd beyond the cap', lambda: [kept.append(memfd(128 << 20)) "
        "for _ in range(8)] and 'all kept')",
    ]
    first = sandbox.run_notebook(_notebook(cells), limits, preload=())
    assert first.oom_kills >= 1
    assert first.peak_memory <= limits.memory_bytes
    assert first.report is None or first.report["dead"] or first.report["errors"]
    # Another run looks for the segment by its key: the IPC namespace died with the first.
    cells = [MEMFD_AND_SHM, "attempt('segment left', lambda: libc.shmget(0x5EED, 0, 0))"]
    later = sandbox.run_notebook(_notebook(cells), limits, preload=())
    assert _printed(later) == [{"what": "segment left", "got": -1}]
    assert _left_behind() == []


@pytest.mark.check_all
@bwrapped
@cgrouped
def test_four_processes_of_800_mb_are_held_to_the_run_s_memory_cap():
    limits = sandbox.Limits(cell_seconds=40, notebook_seconds=90, memory_bytes=1536 << 20)
    hog = (
        "import time\nx = bytearray(800 << 20)\nfor i in range(0, len(x), 4096):\n"
        "    x[i] = 1\ntime.sleep(3)"
    )
    cells = [
        "import subprocess, sys, json\n"
        f"hogs = [subprocess.Popen([sys.executable, '-c', {hog!r}]) for _ in range(4)]\n"
        "codes = [h.wait() for h in hogs]\n"
        "print(json.dumps({'what': 'codes', 'got': codes}))",
    ]
    outcome = sandbox.run_notebook(_notebook(cells), limits, preload=())
    assert outcome.oom_kills >= 1
    assert outcome.peak_memory <= limits.memory_bytes
    printed = _printed(outcome) if outcome.executed else []
    if printed:  # the kernel lived: at least one hog was killed (SIGKILL: -9)
        assert -9 in printed[0]["got"]
    assert _left_behind() == []


@bwrapped
def test_a_fork_bomb_and_a_daemon_end_with_the_run_and_leave_nothing():
    limits = sandbox.Limits(cell_seconds=4, notebook_seconds=12, processes=64)
    cells = [
        # A daemon: forked twice, its own session, asleep long after the run.
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(600)\n"
        "    os._exit(0)\n"
        "print('daemon started')",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
    ]
    started = time.monotonic()
    outcome = sandbox.run_notebook(_notebook(cells), limits, preload=())
    took = time.monotonic() - started
    assert took < limits.notebook_seconds + 20, took
    assert outcome.report is None or outcome.report["timeouts"] or outcome.overtime
    time.sleep(0.5)
    assert _left_behind() == []


@bwrapped
def test_a_file_beyond_the_scratch_folder_s_size_is_refused_and_the_host_s_disk_is_untouched():
    limits = sandbox.Limits(scratch_bytes=32 << 20, file_bytes=1 << 30)
    cells = [
        TRY,
        "def fill(path):\n"
        "    with open(path, 'wb') as f:\n"
        "        for _ in range(64):\n"
        "            f.write(b'x' * (1 << 20))\n"
        "    return 'written'",
        "attempt('home', lambda: fill('big'))",
        "attempt('tmp', lambda: fill('/tmp/big'))",
        "attempt('shm', lambda: fill('/dev/shm/big'))",
    ]
    outcome = sandbox.run_notebook(_notebook(cells), limits, preload=())
    got = {line["what"]: line["got"] for line in _printed(outcome)}
    assert got == dict.fromkeys(("home", "tmp", "shm"), "refused: ENOSPC")
    # The scratch folder is a tmpfs of the run's own: nothing of it is on the host.
    assert not Path("/tmp/big").exists() and not Path("/dev/shm/big").exists()


# ---- fails closed ---------------------------------------------------------------------


def test_without_bwrap_grading_refuses_naming_the_flag_and_grades_nothing(
    tmp_path, monkeypatch, capsys
):
    real = sandbox.shutil.which
    monkeypatch.setattr(
        sandbox.shutil, "which", lambda name: None if name == "bwrap" else real(name)
    )
    sandbox.isolation.cache_clear()
    try:
        assert not sandbox.isolation().sandboxed
        assert "bubblewrap" in sandbox.isolation().why
        with pytest.raises(sandbox.Unavailable, match=sandbox.FLAG):
            sandbox.run_notebook(_notebook(["1"]), QUICK, preload=())
        submitted = tmp_path / "submitted" / "ana" / "01_scores_loops"
        submitted.mkdir(parents=True)
        (submitted / "01_scores_loops.ipynb").write_bytes(_notebook(["1"]))
        out = tmp_path / "grading"
        assert cli.main([str(tmp_path / "submitted"), "--out", str(out)]) == 3
        assert sandbox.FLAG in capsys.readouterr().err
        assert not out.exists()
        with pytest.raises(sandbox.Unavailable):
            classroom.grade_all(tmp_path / "submitted", out, QUICK, jobs=1)
        # Told to, it runs unconfined: the instructor's choice, named by the flag.
        cells = [TRY, "attempt('where', lambda: os.getcwd())"]
        outcome = sandbox.run_notebook(_notebook(cells), QUICK, unsandboxed=True, preload=())
        assert _printed(outcome)[0]["got"].startswith("/tmp/attn-unsandboxed-")
    finally:
        sandbox.isolation.cache_clear()


def test_make_grade_passes_the_shard_and_the_risk_flag_only_when_asked():
    def planned(*variables: str) -> str:
        command = ["make", "-n", "-W", ".venv/.installed", "grade", "SUBMISSIONS=s", *variables]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout

    plain = planned()
    assert "--shard" not in plain and sandbox.FLAG not in plain
    asked = planned("SHARD=2/3", "UNSANDBOXED=1")
    assert "--shard 2/3" in asked and sandbox.FLAG in asked
    merge = subprocess.run(
        ["make", "-n", "-W", ".venv/.installed", "grade-merge", "SUBMISSIONS=s"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    assert "--merge" in merge


def test_the_sandbox_shows_only_its_allow_list():
    command = sandbox.bwrap_command(QUICK, ["true"], root=True)
    shown = {command[i + 2] for i, arg in enumerate(command) if arg == "--ro-bind"}
    assert "/work" not in shown and "/tmp" not in shown and "/" not in shown
    assert str(ROOT) not in shown  # only the course's package and data, not the repository
    assert str(ROOT / "attnlib") in shown
    assert {"--unshare-net", "--unshare-pid", "--unshare-ipc"} <= set(command)
    assert {"--die-with-parent", "--new-session", "--clearenv"} <= set(command)
    assert command[command.index("--cap-drop") + 1] == "ALL"
    env = {command[i + 1] for i, arg in enumerate(command) if arg == "--setenv"}
    assert env == set(sandbox.run_env())
    unprivileged = sandbox.bwrap_command(QUICK, ["true"], root=False)
    assert {"--unshare-user", "--disable-userns"} <= set(unprivileged)
    assert "--cap-add" not in unprivileged and "setpriv" not in " ".join(unprivileged)


# ---- shards -----------------------------------------------------------------------------


def _class_of_three(root: Path) -> None:
    """Three students with 01 (right, wrong, empty) and one with 02: four small notebooks."""
    import submissions

    nb01 = json.loads((ROOT / "notebooks" / "01_scores_loops.ipynb").read_text())
    solutions = {n: p["solution"] for n, p in submissions.exercises_of(nb01).items()}
    typed = submissions.mistakes_of("01_scores_loops")
    wrong = {n: next(iter(m.values())) for n, m in typed.items()}
    for student, answers in (("ana", solutions), ("ben", wrong), ("cy", {})):
        nb = submissions.make("01_scores_loops", answers, None, str(root))
        nb["cells"] = nb["cells"][:12]  # the first exercises only: a short run
        submissions.write(root, student, "01_scores_loops", nb)
    nb02 = json.loads((ROOT / "notebooks" / "02_scores_matmul.ipynb").read_text())
    blank = submissions.blank(nb02)
    blank["cells"] = blank["cells"][:8]
    submissions.write(root, "ana", "02_scores_matmul", blank)


@pytest.mark.check_all
@bwrapped
def test_three_shards_then_a_merge_give_the_gradebook_of_one_run(tmp_path):
    root = tmp_path / "submitted"
    _class_of_three(root)
    subs = classroom.find_submissions(root)
    slices = [classroom.shard_of(subs, (i, 3)) for i in (1, 2, 3)]
    assert sorted(s.key for part in slices for s in part) == sorted(s.key for s in subs)
    assert classroom.shard_of(subs, (2, 3)) == slices[1]  # the same slice every time
    one, sharded = tmp_path / "one", tmp_path / "sharded"
    classroom.grade_all(root, one, QUICK, jobs=2)
    with pytest.raises(classroom.MissingResults, match="not run or not finished"):
        classroom.merge(root, sharded)
    for i in (1, 2, 3):
        classroom.grade_all(root, sharded, QUICK, jobs=2, shard=(i, 3))
    assert not (sharded / "gradebook.csv").exists()
    classroom.merge(root, sharded)
    gradebook = (one / "gradebook.csv").read_text()
    assert (sharded / "gradebook.csv").read_text() == gradebook
    assert gradebook.count("\n") == 1 + len(subs)
    assert (sharded / "summary.csv").read_text() == (one / "summary.csv").read_text()


def test_a_merge_writes_every_saved_result_in_submission_order_and_names_the_missing(tmp_path):
    import hashlib

    root, out = tmp_path / "submitted", tmp_path / "grading"
    for student in ("cy", "ana", "ben"):
        folder = root / student / "01_scores_loops"
        folder.mkdir(parents=True)
        (folder / "01_scores_loops.ipynb").write_bytes(_notebook([student]))
    subs = classroom.find_submissions(root)

    def save(sub: classroom.Submission) -> None:
        result = {
            "student": sub.student,
            "assignment": sub.assignment,
            "notebook": sub.path.stem,
            "ignored": [],
            "sha256": hashlib.sha256(sub.path.read_bytes()).hexdigest(),
            "exercises": ["01.dot"],
            "status": "ok",
            "verdicts": {"01.dot": "correct" if sub.student != "ben" else "not attempted"},
            "messages": {},
            "notes": [],
        }
        path = out / "results" / sub.key.with_suffix(".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result))

    for sub in subs[:2]:
        save(sub)
    with pytest.raises(classroom.MissingResults, match="got none for 1: cy/01_scores_loops"):
        classroom.merge(root, out)
    save(subs[2])
    (subs[0].path).write_bytes(_notebook(["changed since"]))  # its result is stale now
    with pytest.raises(classroom.MissingResults, match="ana/01_scores_loops"):
        classroom.merge(root, out)
    save(subs[0])
    classroom.merge(root, out)
    lines = (out / "gradebook.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == ["ana", "ben", "cy"]
    assert (out / "summary.csv").exists()
