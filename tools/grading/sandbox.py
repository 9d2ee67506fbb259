"""One submission, one sandbox: a scratch folder, fresh namespaces, a user of its own, limits.

What is enforced depends on what this machine lets the grader do (``isolation()``):

- **as root**: ``unshare`` gives the run new network, mount and process namespaces (no
  network at all, not even loopback; the course's folder read-only, the submissions and
  output folders hidden, /tmp showing only the run's own scratch folder, /dev/shm and
  /var/tmp its own; when the run's first process ends, the kernel and anything it
  started end too) and the run drops to a user id of its own, so it cannot write the course's
  files or read another submission's scratch folder; a folder that user could not get past on
  the way to the interpreter or the course (/root, a clone in a folder ``mktemp -d`` made) is
  covered by one that shows only what the run needs (``private_folders``);
- **not root, user namespaces allowed**: the same namespaces inside a user namespace, but
  one user for every run (the grader's), so the course's files are protected by the read-only
  view only (not tried on this project's machines, where the grader runs as root);
- **neither**: limits only (time, memory, file size); the network and the files are open,
  and the gradebook's summary says so.

In every case: a memory cap (``RLIMIT_AS``, counted in address space, not resident memory),
a time limit per cell (interrupted, the run goes on) and per notebook (the run is killed),
and the children die with the grader (``PR_SET_PDEATHSIG`` and the namespace's first process).
"""

from __future__ import annotations

import ctypes
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("runner.py")
# What a notebook reads beside itself (notebook 10 reads data/the-verdict.txt).
COURSE_FILES = ("data",)
# Users of the sandboxes: far above the ids of real accounts, one per run under way, and a
# block of its own for each grader process, so that two graders at once share no user.
FIRST_UID = 1_000_000
SLOTS = 1000  # the most runs one grader has under way at once


def users_of(grader_pid: int) -> range:
    """The user ids the grader of process id ``grader_pid`` gives its runs."""
    first = FIRST_UID + (grader_pid % 100_000) * SLOTS
    return range(first, first + SLOTS)


NAMESPACES = ["--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc"]
RECORD_BYTES = 1 << 20  # the most read back from a scratch folder's verdict log
PR_SET_PDEATHSIG = 1
_LIVE: set[subprocess.Popen] = set()  # runs under way, ended by stop_all() on an interrupt
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Limits:
    cell_seconds: float = 60.0
    notebook_seconds: float = 600.0
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    processes: int = 512


# The course's libraries, imported by each kernel before the first cell (binding no name a
# student sees), so that a slow `import torch` on a loaded machine is not counted against a
# student's cell time.
PRELOAD = ("numpy", "torch", "matplotlib.pyplot", "attnlib", "attnlib.exercises")
# What a kernel maps just to run the course: its own imports, before any student code.
_COURSE_IMPORTS = (
    f"import ipykernel.kernelapp, {', '.join(PRELOAD)}\n"
    "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmSize')))"
)


@cache
def course_address_space() -> int:
    """Bytes of address space a kernel holds once the course's libraries are imported (a CUDA
    build of torch maps gigabytes it never touches). The memory cap is counted on top of it, so
    that ``--memory-gb`` is what a student's own code may take, whatever build is installed."""
    if not sys.platform.startswith("linux"):
        return 0
    printed = subprocess.run(
        [sys.executable, "-c", _COURSE_IMPORTS], capture_output=True, text=True, timeout=120
    ).stdout.split()
    return int(printed[-1]) * 1024 if printed and printed[-1].isdigit() else 0


@dataclass(frozen=True)
class Isolation:
    """How runs are confined here: ``kind`` is ``"root"``, ``"user namespace"`` or ``"none"``."""

    kind: str
    command: tuple[str, ...]

    @property
    def own_user(self) -> bool:
        return self.kind == "root"

    @property
    def mounts(self) -> bool:
        return self.kind != "none"


@cache
def isolation() -> Isolation:
    unshare = shutil.which("unshare")
    if unshare and os.geteuid() == 0:
        return Isolation("root", (unshare, *NAMESPACES))
    if unshare:
        command = (unshare, "--user", "--map-root-user", *NAMESPACES)
        probe = subprocess.run([*command, "true"], capture_output=True, check=False)
        if probe.returncode == 0:
            return Isolation("user namespace", command)
    return Isolation("none", ())


@dataclass
class Outcome:
    """What a run left: the runner's report (None if it never gave one), the verdict log's
    lines, whether the grader stopped it at the notebook's limit, and its exit code."""

    report: dict | None
    verdicts: list[dict]
    overtime: bool
    returncode: int
    executed: bytes | None


def _die_with_parent() -> None:
    os.setsid()
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _scratch(notebook: Path, base: Path, uid: int | None) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="s", dir=base))
    shutil.copyfile(notebook, scratch / "submission.ipynb")
    for name in COURSE_FILES:
        if (ROOT / "notebooks" / name).is_dir():
            shutil.copytree(ROOT / "notebooks" / name, scratch / name)
    for sub in ("tmp", "runtime", "ipython", "matplotlib"):
        (scratch / sub).mkdir()
    if uid is not None:
        for path in [scratch, *scratch.rglob("*")]:
            os.chown(path, uid, uid, follow_symlinks=False)
    scratch.chmod(0o700)
    return scratch


def _reached() -> set[Path]:
    """What a run must reach: the interpreter, the environment, the course, and any other
    folder Python imports from (a ``.pth`` file may add one: packages of a venv elsewhere)."""
    imported = {Path(p) for p in sys.path if p and Path(p).is_dir()}
    return {p.resolve() for p in {Path(sys.base_prefix), Path(sys.prefix), ROOT, *imported}}


def _needed() -> list[Path]:
    """What a run must reach, a folder inside another (the course's .venv) not named twice."""
    paths = _reached()
    return sorted(p for p in paths if not any(p != q and p.is_relative_to(q) for q in paths))


def private_folders(whole: list[Path], through: list[Path]) -> list[tuple[str, list[str]]]:
    """(folder, [child]) for each folder a run's user could not get past, outermost first: on
    the way to ``whole`` and ``through``, any folder others may not enter (/root, the mode-700
    folder ``mktemp -d`` makes, holding a clone), with the child on the way; and a folder of
    ``whole`` that others may not read and enter (a clone made by ``mktemp -d`` itself), with
    every entry in it. The runner covers each with a folder showing only those children."""
    found: dict[Path, set[str]] = {}
    for path, needs_all in [(p, True) for p in whole] + [(p, False) for p in through]:
        parts = path.resolve().parts
        for depth in range(1, len(parts)):
            folder = Path(*parts[:depth])
            if not folder.stat().st_mode & 0o001:
                found.setdefault(folder, set()).add(parts[depth])
        if needs_all and path.is_dir() and path.stat().st_mode & 0o005 != 0o005:
            found.setdefault(path.resolve(), set()).update(os.listdir(path))
    ordered = sorted(found.items(), key=lambda item: (len(item[0].parts), str(item[0])))
    return [(str(folder), sorted(children)) for folder, children in ordered]


def unreadable() -> list[Path]:
    """What every run needs that a user of its own could not read (a clone made under umask
    077): the runner, the course's package, the environment's packages and the interpreter."""
    needs = [RUNNER, ROOT / "attnlib", Path(sysconfig.get_paths()["purelib"]), Path(sys.executable)]
    found = []
    for path in needs:
        wanted = 0o005 if path.resolve().is_dir() else 0o004
        if path.exists() and path.resolve().stat().st_mode & wanted != wanted:
            found.append(path)
    return found


def shared_folder(scratch: Path) -> tuple[str, list[str]]:
    """The folder of every scratch folder (/tmp), to show the run only its own scratch folder
    and whatever else a run needs there (a course cloned into /tmp, say)."""
    shared = scratch.parents[1]
    keep = [scratch, *(p for p in _needed() if p.is_relative_to(shared))]
    return str(shared), sorted({str(p.relative_to(shared)) for p in keep})


def runner_spec(
    scratch: Path, limits: Limits, uid: int | None, hidden: list[Path], report_fd: int
) -> dict:
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        "HOME": str(scratch),
        "TMPDIR": str(scratch / "tmp"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        "JUPYTER_DATA_DIR": str(scratch / "runtime"),
        "JUPYTER_CONFIG_DIR": str(scratch / "runtime"),
        "IPYTHONDIR": str(scratch / "ipython"),
        "MPLCONFIGDIR": str(scratch / "matplotlib"),
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # the course's own attnlib (ROOT), wherever the environment's install points
        "PYTHONPATH": str(ROOT),
        "ATTNLIB_VERDICT_LOG": str(scratch / "verdicts.jsonl"),
    }
    return {
        "scratch": str(scratch),
        "notebook": "submission.ipynb",
        "env": env,
        "uid": uid,
        "mounts": isolation().mounts,
        "read_only": [str(ROOT)],
        "expose": (private_folders(sorted(_reached()), [scratch]) if uid is not None else [])
        + ([shared_folder(scratch)] if isolation().mounts else []),
        "hidden": [str(p) for p in hidden],
        "cell_seconds": limits.cell_seconds,
        "notebook_seconds": limits.notebook_seconds,
        "preload": list(PRELOAD),
        "memory_bytes": limits.memory_bytes + course_address_space(),
        "file_bytes": limits.file_bytes,
        "processes": limits.processes,
        "report_fd": report_fd,
    }


def _read_back(path: Path, limit: int) -> bytes | None:
    """A file the sandbox wrote, never followed through a link it may have planted."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not os.path.isfile(f"/proc/self/fd/{fd}"):
            return None
        return file.read(limit)


def _verdicts(raw: bytes | None) -> list[dict]:
    records = []
    for line in (raw or b"").decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("exercise"), str):
            records.append(record)
    return records


def _sweep(scratch: Path) -> None:
    """Without a process namespace, end whatever still runs in the scratch folder."""
    for proc in psutil.process_iter(["cwd"]):
        cwd = proc.info.get("cwd") or ""
        if cwd == str(scratch) or cwd.startswith(f"{scratch}/"):
            try:
                proc.kill()
            except psutil.Error:
                pass


def _collect(proc: subprocess.Popen, read_end: int, seconds: float) -> tuple[bytes, bool]:
    """The runner's report, read until the pipe closes or the notebook's time is up."""
    chunks, deadline = [], time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(read_end, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if selector.select(timeout=left):
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            os.killpg(proc.pid, signal.SIGKILL)  # unshare, then the namespace's first process
    proc.wait()
    return b"".join(chunks), not left > 0


def stop_all() -> None:
    """Kill every run under way (each one's process group; namespaces take the rest)."""
    with _LIVE_LOCK:
        for proc in _LIVE:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def run_submission(
    notebook: Path, base: Path, limits: Limits, slot: int, hidden: list[Path]
) -> Outcome:
    """Run ``notebook`` in a fresh scratch folder under ``base``; ``slot`` (below ``SLOTS``,
    not used by another run under way) picks its user."""
    confined = isolation()
    uid = users_of(os.getpid())[slot] if confined.own_user else None
    scratch = _scratch(notebook, base, uid)
    read_end, write_end = os.pipe()
    spec = runner_spec(scratch, limits, uid, hidden, write_end)
    command = [*confined.command, sys.executable, str(RUNNER), json.dumps(spec)]
    proc = None
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            preexec_fn=_die_with_parent,
            cwd=scratch,
        )
        os.close(write_end)
        with _LIVE_LOCK:
            _LIVE.add(proc)
        raw, overtime = _collect(proc, read_end, limits.notebook_seconds)
        if not confined.mounts:
            _sweep(scratch)
        try:
            report = json.loads(raw) if raw else None
        except ValueError:
            report = None
        verdicts = _verdicts(_read_back(scratch / "verdicts.jsonl", RECORD_BYTES))
        executed = _read_back(scratch / "executed.ipynb", 64 << 20)
        return Outcome(report, verdicts, overtime, proc.returncode, executed)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
        if proc is None:
            os.close(write_end)
        os.close(read_end)
        shutil.rmtree(scratch, ignore_errors=True)
