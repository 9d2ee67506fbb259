"""One submission, one sandbox: bubblewrap (``bwrap``), an allow-list of files, limits per run.

Why bubblewrap: it is the sandbox Flatpak runs every desktop application in, packaged by
every distribution (Debian's ``bubblewrap``), a few hundred lines of C that sets up
namespaces and mounts and then gets out of the way. A teaching repository should not own
mount choreography of its own; it says *what* a run may see, bwrap does it.

What a run sees (``bwrap_command``): an empty root of its own, onto which are mounted,
read-only, ``/usr`` (and the ``/bin``, ``/lib`` links into it, a few files of ``/etc`` the
dynamic linker and fonts read), the interpreter and the environment (their real paths: a
``.venv`` that is a link is resolved), the course's package ``attnlib`` and
``notebooks/data`` (beside the notebook, as ``data``), and the runner script. Its working
folder and ``HOME`` is a private ``tmpfs`` of ``Limits.scratch_bytes``, and so are its
``/tmp``, ``/var/tmp`` and ``/dev/shm`` (each capped, all counted in its memory). Nothing
else of the host: not its ``/tmp``, not ``/work``, not the submissions, the gradebook or
the grader's sockets. New IPC, PID, network, UTS and cgroup namespaces: no network at all
(the kernel talks to nbclient over Unix sockets in the scratch folder), System V shared memory that
dies with the run, no process of the host in sight. ``--die-with-parent``,
``--new-session``, no capabilities, ``no_new_privs`` (set by bwrap: a setuid binary gains
nothing), an environment of a few variables (``--clearenv``).

Who a run is: as root, bwrap needs no user namespace; it keeps only ``CAP_SETUID``,
``CAP_SETGID`` and ``CAP_SETPCAP`` for ``setpriv``, which makes the run the host's
unprivileged ``nobody`` (``RUN_UID``), no groups, an empty bounding set, before the runner
starts. Not as root, bwrap makes a user namespace (``--unshare-user --disable-userns``)
whose one user (``--uid``/``--gid``) is the grader's own, with no capabilities; if the
system forbids user namespaces there is no sandbox and grading refuses (``require``).

Limits for the run as a whole (``RunGroup``): a cgroup of its own (v2 ``memory.max`` and
``pids.max``, or v1 ``memory.limit_in_bytes`` and ``pids.max``) counts every process of
the run, shared memory (System V, ``memfd``, tmpfs pages) included; without a cgroup the
grader falls back to ``RLIMIT_AS`` and ``RLIMIT_NPROC`` (``prlimit``), which count per
process and per user, and says so (``Isolation.limits``). Always: ``RLIMIT_AS`` per process
as well (so that one huge allocation is a ``MemoryError`` in the student's cell, not a kill),
``RLIMIT_FSIZE``, no core files, a time limit per cell (the cell is interrupted, the run
goes on) and per notebook (the whole run is killed: its cgroup, its process group, and the
PID namespace with its first process).

No ``preexec_fn``: the runs start from thread-pool workers, so everything is done by
``subprocess``'s own options (``start_new_session``, ``pass_fds``), a ``sh`` that joins the
cgroup and ``exec``s ``prlimit`` and ``bwrap``, and bwrap's options.

What a run cannot be kept from: forging its own verdicts. The check runs in the student's
kernel, which may write any verdict it likes into its own log; keep ``executed/``.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("runner.py")
HOME = "/home/student"  # the run's scratch folder, working folder and HOME
RUNNER_IN = "/opt/grader/runner.py"  # where the runner is shown, read-only
RUN_UID = 65534  # as root: the host's "nobody"; the run's user outside the sandbox
INSIDE_UID = 1000  # not as root: the one user of the run's user namespace
RECORD_BYTES = 1 << 20  # the most read back of a run's verdict log
EXECUTED_BYTES = 64 << 20  # the most read back of a run's executed notebook
REPORT_BYTES = EXECUTED_BYTES + RECORD_BYTES + (1 << 20)
FLAG = "--unsandboxed-i-trust-every-submission"
NAMESPACES = (
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
)
# What of /etc a run reads: the dynamic linker's cache, the time zone, fonts, alternatives.
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "fonts", "alternatives")
# The course's libraries, imported by each kernel before the first cell (binding no name a
# student sees), so that a slow `import torch` is not counted against a student's cell.
PRELOAD = ("numpy", "torch", "matplotlib.pyplot", "attnlib", "attnlib.exercises")
_LIVE: set = set()  # runs under way, ended by stop_all() on an interrupt
_LIVE_LOCK = threading.Lock()
_COUNTER = iter(range(1 << 62))


@dataclass(frozen=True)
class Limits:
    """One run's limits. ``memory_bytes``: resident memory of the whole run (cgroup), shared
    memory included; ``processes``: tasks (threads count) of the whole run; ``scratch_bytes``:
    the size of its scratch folder, and of each of its /tmp, /var/tmp and /dev/shm."""

    cell_seconds: float = 60.0
    notebook_seconds: float = 600.0
    memory_bytes: int = 2 << 30
    file_bytes: int = 256 << 20
    processes: int = 256
    scratch_bytes: int = 256 << 20


class Unavailable(RuntimeError):
    """No sandbox here, and the instructor did not say to grade without one."""


@dataclass(frozen=True)
class Isolation:
    """How runs are confined here. ``kind``: ``"bubblewrap (root, uid 65534)"``,
    ``"bubblewrap (user namespace)"`` or ``"none"``; ``limits``: ``"cgroup v2"``,
    ``"cgroup v1"`` or ``"rlimits"``; ``why``: what is missing when ``kind`` is ``"none"``."""

    kind: str
    limits: str
    why: str = ""

    @property
    def sandboxed(self) -> bool:
        return self.kind != "none"


@dataclass
class Outcome:
    """What a run left: the runner's report (None if it never gave one), the verdict log's
    lines, whether the grader stopped it at the notebook's limit, its exit code, the executed
    notebook, and the run's peak memory and processes the memory cap killed (cgroup only)."""

    report: dict | None
    verdicts: list[dict]
    overtime: bool
    returncode: int
    executed: bytes | None
    peak_memory: int = 0
    oom_kills: int = 0
    notes: list[str] = field(default_factory=list)


# ---- cgroups: the limits of a run as a whole ------------------------------------------


def _own_cgroups() -> dict[str, str]:
    """controller ("memory", "pids", or "" for v2) -> this process's cgroup path."""
    found = {}
    with open("/proc/self/cgroup", encoding="utf-8") as file:
        for line in file:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    return found


def _cgroup_parents() -> tuple[str, dict[str, Path]] | None:
    """("cgroup v2" | "cgroup v1", {controller: the folder runs' cgroups go in}), or None."""
    base, own = Path("/sys/fs/cgroup"), _own_cgroups()
    v2 = base / "cgroup.controllers"
    if v2.is_file() and {"memory", "pids"} <= set(v2.read_text().split()):
        parent = base / own.get("", "/").lstrip("/")
        return "cgroup v2", {"": parent}
    if (base / "memory").is_dir() and (base / "pids").is_dir() and "memory" in own:
        parents = {c: base / c / own.get(c, "/").lstrip("/") for c in ("memory", "pids")}
        return "cgroup v1", parents
    return None


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


class RunGroup:
    """A cgroup (v2, or v1's memory and pids) for one run: its memory and process caps, every
    process of the run in it, killed as a whole, removed after."""

    def __init__(self, version: str, parents: dict[str, Path], limits: Limits) -> None:
        name = f"attn-grade-{os.getpid()}-{next(_COUNTER)}"
        self.version, self.dirs = version, {c: p / name for c, p in parents.items()}
        for folder in self.dirs.values():
            folder.mkdir()
        try:
            if version == "cgroup v2":
                self._write("", "memory.max", limits.memory_bytes)
                self._write("", "memory.swap.max", 0, optional=True)
                self._write("", "pids.max", limits.processes)
            else:
                self._write("memory", "memory.limit_in_bytes", limits.memory_bytes)
                self._write("memory", "memory.memsw.limit_in_bytes", limits.memory_bytes, True)
                self._write("pids", "pids.max", limits.processes)
        except OSError:
            self.remove()
            raise

    def _write(self, controller: str, name: str, value: int, optional: bool = False) -> None:
        try:
            (self.dirs[controller] / name).write_text(str(value))
        except OSError:
            if not optional:
                raise

    def _read(self, controller: str, name: str) -> str:
        return _text(self.dirs[controller] / name)

    @property
    def procs_files(self) -> list[Path]:
        return [folder / "cgroup.procs" for folder in self.dirs.values()]

    def pids(self) -> list[int]:
        found = set()
        for folder in self.dirs.values():
            found.update(int(p) for p in _text(folder / "cgroup.procs").split())
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, until none is left (a fork between reading
        and killing is caught by the next round; pids.max bounds how many there can be)."""
        if self.version == "cgroup v2" and (self.dirs[""] / "cgroup.kill").exists():
            self._write("", "cgroup.kill", 1, optional=True)
        # A killed process leaves the cgroup only once it has exited, which under memory
        # pressure (a run at its cap) can take seconds: wait for that, not a fixed count.
        deadline = time.monotonic() + KILL_SECONDS
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def peak_memory(self) -> int:
        name = "memory.peak" if self.version == "cgroup v2" else "memory.max_usage_in_bytes"
        text = self._read("" if self.version == "cgroup v2" else "memory", name).strip()
        return int(text) if text.isdigit() else 0

    def oom_kills(self) -> int:
        if self.version == "cgroup v2":
            text = self._read("", "memory.events")
        else:
            text = self._read("memory", "memory.oom_control")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def remove(self) -> None:
        """Remove the cgroup once its processes are gone (killing any left first)."""
        self.kill()
        for folder in self.dirs.values():
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # a process still leaving
                    time.sleep(0.02)


def _sweep_stale(parents: dict[str, Path]) -> None:
    """Remove the runs' cgroups a grader killed outright (SIGKILL) left behind, empty: their
    processes died with it (``--die-with-parent``)."""
    for parent in parents.values():
        for folder in parent.glob("attn-grade-*-*"):
            pid = folder.name.split("-")[2]
            if pid.isdigit() and not Path("/proc", pid).exists():
                try:
                    folder.rmdir()
                except OSError:
                    pass


def _try_cgroups() -> tuple[str, dict[str, Path]] | None:
    """The cgroup version runs can have here, tried by making and removing one."""
    try:
        found = _cgroup_parents()
        if found is None:
            return None
        _sweep_stale(found[1])
        RunGroup(*found, Limits()).remove()
        return found
    except OSError:
        return None


# ---- the command ------------------------------------------------------------------------


def _python_paths() -> tuple[Path, Path, list[tuple[Path, str]]]:
    """The interpreter's installation, the environment (a venv's real folder), and any other
    folder of packages the interpreter imports from (a ``.pth`` may add one), as (its real
    folder, the path it is imported by: the one a ``.pth`` names)."""
    base, env = Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()
    extra = []
    for entry in sys.path:
        path = Path(entry).resolve() if entry else None
        if path is None or not path.is_dir() or path.name not in ("site-packages", "dist-packages"):
            continue
        if not (path.is_relative_to(base) or path.is_relative_to(env)):
            extra.append((path, os.path.abspath(entry)))
    return base, env, extra


def run_env() -> dict[str, str]:
    """The run's whole environment: nothing of the grader's."""
    _, env, _ = _python_paths()
    return {
        "PATH": f"{env / 'bin'}:/usr/bin:/bin",
        "HOME": HOME,
        "USER": "student",
        "LOGNAME": "student",
        "LANG": "C.UTF-8",
        "TMPDIR": f"{HOME}/tmp",
        "JUPYTER_RUNTIME_DIR": f"{HOME}/.jupyter/runtime",
        "JUPYTER_DATA_DIR": f"{HOME}/.jupyter/data",
        "JUPYTER_CONFIG_DIR": f"{HOME}/.jupyter/config",
        "IPYTHONDIR": f"{HOME}/.ipython",
        "MPLCONFIGDIR": f"{HOME}/.matplotlib",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(ROOT),
        "ATTNLIB_VERDICT_LOG": f"{HOME}/verdicts.jsonl",
    }


def _ancestors(path: Path) -> list[str]:
    return [str(p) for p in reversed(path.parents) if str(p) != "/"]


def _mounts(binds: list[tuple[Path, str]]) -> list[str]:
    """Read-only binds, each folder on the way made first with mode 755 (bwrap would make
    them 700: the run's user could not get past them to what is bound)."""
    args, made = [], {"/tmp", "/var", "/var/tmp", "/dev", "/dev/shm"}  # made by _scratch
    for source, target in binds:
        for folder in _ancestors(Path(target)):
            if folder not in made:
                made.add(folder)
                args += ["--perms", "0755", "--dir", folder]
        args += ["--ro-bind", str(source), target]
        made.add(target)
    return args


def _system() -> list[str]:
    """/usr, the links into it (/bin, /lib...) and the few files of /etc a run reads."""
    args = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/", name)
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    return args


def _binds() -> list[tuple[Path, str]]:
    """(host path, path in the sandbox) of everything shown read-only: /usr and some of /etc,
    the interpreter and the environment, the course's package, the runner."""
    base, env, extra = _python_paths()
    binds = [(Path("/usr"), "/usr")]
    binds += [(Path("/etc", n), f"/etc/{n}") for n in ETC if Path("/etc", n).exists()]
    for path in sorted({base, env}):
        if not (path != base and path.is_relative_to(base)):
            binds.append((path, str(path)))
    binds += sorted(set(extra))
    binds.append((ROOT / "attnlib", str(ROOT / "attnlib")))
    binds.append((RUNNER, RUNNER_IN))
    return binds


def _scratch(limits: Limits) -> list[str]:
    """/proc, /dev, and the run's private, size-capped tmpfs folders: /tmp, /var/tmp and
    /dev/shm (made first, so that a course cloned under /tmp is bound on top of its /tmp)."""
    args = ["--proc", "/proc", "--dev", "/dev", "--perms", "0755", "--dir", "/var"]
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        args += ["--size", str(limits.scratch_bytes), "--perms", "1777", "--tmpfs", folder]
    return args


def _home(limits: Limits) -> list[str]:
    """HOME, the working folder: a tmpfs of its own; the course's data beside the notebook."""
    args = ["--size", str(limits.scratch_bytes), "--perms", "0777", "--tmpfs", HOME]
    args += ["--perms", "1777", "--dir", f"{HOME}/tmp"]
    data = ROOT / "notebooks" / "data"
    if data.is_dir():  # what a notebook reads beside itself (10 reads data/the-verdict.txt)
        args += ["--ro-bind", str(data), f"{HOME}/data"]
    return args


def _user(root: bool) -> tuple[list[str], list[str]]:
    """(bwrap's options, the command before the run's own) that make the run unprivileged."""
    if root:
        args = ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            args += ["--cap-add", cap]
        drop = [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={RUN_UID}"]
        drop += [f"--regid={RUN_UID}", "--clear-groups", "--inh-caps=-all"]
        return args, [*drop, "--bounding-set=-all", "--"]
    args = ["--unshare-user", "--disable-userns", "--uid", str(INSIDE_UID)]
    return [*args, "--gid", str(INSIDE_UID), "--cap-drop", "ALL"], []


def bwrap_command(limits: Limits, inner: list[str], root: bool | None = None) -> list[str]:
    """The bwrap command that runs ``inner`` (a command inside the sandbox) in a run's
    sandbox. ``root``: whether the grader is root (default: it is asked)."""
    root = os.geteuid() == 0 if root is None else root
    args = [shutil.which("bwrap") or "bwrap", *NAMESPACES, "--die-with-parent", "--new-session"]
    args += ["--hostname", "sandbox", *_system(), *_scratch(limits), *_mounts(_binds())]
    args += _home(limits)
    args += ["--chdir", HOME, "--clearenv"]
    for key, value in run_env().items():
        args += ["--setenv", key, value]
    options, before = _user(root)
    return [*args, *options, *before, *inner]


@cache
def course_address_space() -> int:
    """Bytes of address space a kernel maps just to import the course (a CUDA build of torch
    maps gigabytes it never touches): ``RLIMIT_AS`` is counted on top of it."""
    code = (
        f"import ipykernel.kernelapp, {', '.join(PRELOAD)}\n"
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmSize')))"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    ).stdout.split()
    return int(printed[-1]) * 1024 if printed and printed[-1].isdigit() else 0


def _launcher(limits: Limits, group: RunGroup | None, command: list[str]) -> list[str]:
    """``sh`` joins the run's cgroup (before anything of the run exists, so all of it is in
    it), then ``exec``s ``prlimit`` with the per-process limits, which ``exec``s ``command``."""
    address = limits.memory_bytes + course_address_space()
    rlimits = [f"--as={address}", f"--fsize={limits.file_bytes}", "--core=0"]
    if group is None:  # no cgroup: processes counted per user, as a fallback
        rlimits.append(f"--nproc={limits.processes}")
    prlimit = [shutil.which("prlimit") or "/usr/bin/prlimit", *rlimits, "--", *command]
    if group is None:
        return prlimit
    join = "; ".join(f"echo $$ > {shlex.quote(str(p))}" for p in group.procs_files)
    return ["/bin/sh", "-c", f'{join} && exec "$@"', "sh", *prlimit]


def inner_command(spec: dict) -> list[str]:
    """What runs inside: the environment's python on the runner, with the run's spec."""
    _, env, _ = _python_paths()
    return [str(env / "bin" / "python"), "-I", RUNNER_IN, json.dumps(spec)]


# ---- is there a sandbox here ------------------------------------------------------------


def _probe(root: bool) -> str:
    """Run ``true`` in a sandbox as runs get it: "" if it works, else what went wrong."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    if root and shutil.which("setpriv") is None:
        return "setpriv is not installed (util-linux)"
    command = bwrap_command(Limits(), ["/bin/sh", "-c", "test -r /usr && echo sandboxed"], root)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env={})
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bwrap could not run: {err}"
    if done.returncode != 0 or "sandboxed" not in done.stdout:
        return f"bwrap could not make a sandbox here: {done.stderr.strip()[:300]}"
    return ""


@cache
def isolation() -> Isolation:
    """What confines runs on this machine, found once by trying it."""
    if not sys.platform.startswith("linux"):
        return Isolation("none", "none", "sandboxes are Linux namespaces: not on " + sys.platform)
    cgroups = _try_cgroups()
    limits = cgroups[0] if cgroups else "rlimits"
    root = os.geteuid() == 0
    why = _probe(root)
    if why:
        return Isolation("none", limits, why)
    kind = f"bubblewrap (root, uid {RUN_UID})" if root else "bubblewrap (user namespace)"
    return Isolation(kind, limits)


def require(unsandboxed: bool = False) -> Isolation:
    """The isolation here; raises ``Unavailable`` when there is none and ``unsandboxed`` (the
    instructor's ``--unsandboxed-i-trust-every-submission``) is not given."""
    found = isolation()
    if not found.sandboxed and not unsandboxed:
        raise Unavailable(
            f"no sandbox for the submissions' code: {found.why}. Every submission would run "
            f"as you, with your files and network. Install bubblewrap, or pass {FLAG} "
            f"(make grade UNSANDBOXED=1) if you trust every submission."
        )
    course_address_space()  # measured once, before the runs start from their threads
    return found


@cache
def _cgroups() -> tuple[str, dict[str, Path]] | None:
    return _try_cgroups()


# ---- one run ----------------------------------------------------------------------------


def _verdicts(raw: str) -> list[dict]:
    records = []
    for line in raw.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("exercise"), str):
            records.append(record)
    return records


def _collect(read_end: int, seconds: float) -> tuple[bytes, bool]:
    """What the runner sends, read until the pipe closes or the notebook's time is up;
    (bytes, whether the time ran out)."""
    chunks, size, deadline = [], 0, time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(read_end, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if selector.select(timeout=left):
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    return b"".join(chunks), False
                if size < REPORT_BYTES:
                    chunks.append(chunk)
                    size += len(chunk)
    return b"".join(chunks), True


def _run_pids(proc: subprocess.Popen, group: RunGroup | None) -> list[int]:
    if group is not None:
        return group.pids()
    try:
        return [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
    except psutil.Error:
        return []


def _read_log(path: str) -> str | None:
    """A verdict log, a regular file only (never followed through a planted link), at most
    RECORD_BYTES; None if there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not os.path.isfile(f"/proc/self/fd/{fd}"):
            return None
        return file.read(RECORD_BYTES).decode("utf-8", "replace")


def _salvaged_log(pids: list[int]) -> str:
    """The verdict log of a sandboxed run about to be killed, read through one of its
    processes (``/proc/PID/root``: the sandbox's own file system)."""
    own = os.stat("/proc/self/ns/mnt").st_ino
    for pid in pids:
        try:
            if os.stat(f"/proc/{pid}/ns/mnt").st_ino == own:
                continue  # the launcher or bwrap's outer process: the host's files
        except OSError:
            continue
        log = _read_log(f"/proc/{pid}/root{HOME}/verdicts.jsonl")
        if log is not None:
            return log
    return ""


def _overtime(proc: subprocess.Popen, group: RunGroup | None, scratch: Path | None) -> bytes:
    """Kill a run over the notebook's limit; what it sends instead of its runner (which never
    got to: a cell that swallows every interrupt): the verdict log, read first, so that the
    verdicts of the cells before the one that hung stand."""
    if scratch is None:
        log = _salvaged_log(_run_pids(proc, group))
    else:  # unsandboxed: the scratch folder is the host's
        log = _read_log(str(scratch / "verdicts.jsonl")) or ""
    _kill(proc, group)
    return json.dumps({"verdicts": log}).encode()


#: How long ending a run may wait for its killed processes to exit.
KILL_SECONDS = 60.0


def _kill(proc: subprocess.Popen, group: RunGroup | None) -> None:
    """The whole run: its cgroup, and its process group (the launcher, bwrap, and with
    bwrap's first process the PID namespace and all in it)."""
    if group is not None:
        group.kill()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    """Kill every run under way."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc, group in live:
        _kill(proc, group)


def _unsandboxed_command(limits: Limits, spec: dict, scratch: Path) -> tuple[list[str], dict]:
    """Without a sandbox (the instructor's flag): the runner as the grader, in a scratch folder
    of the host's /tmp, with the same environment pointed there; limits only."""
    env = {k: v.replace(HOME, str(scratch)) for k, v in run_env().items()}
    (scratch / "tmp").mkdir()
    data = ROOT / "notebooks" / "data"
    if data.is_dir():
        (scratch / "data").symlink_to(data)
    spec = {**spec, "home": str(scratch)}
    inner = [sys.executable, "-I", str(RUNNER), json.dumps(spec)]
    return inner, env


def _command(limits: Limits, spec: dict, sandboxed: bool) -> tuple[list, dict, Path | None]:
    """(the command, its environment, a host scratch folder to remove) for one run."""
    if sandboxed:
        return bwrap_command(limits, inner_command(spec)), {}, None
    scratch = Path(tempfile.mkdtemp(prefix="attn-unsandboxed-"))
    command, env = _unsandboxed_command(limits, spec, scratch)
    return command, env, scratch


def _memfd(data: bytes) -> int:
    """A file descriptor to read ``data`` from: a memory file, no file of the host's."""
    fd = os.memfd_create("submission.ipynb")
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def run_notebook(
    notebook: bytes,
    limits: Limits,
    unsandboxed: bool = False,
    preload: tuple[str, ...] = PRELOAD,
) -> Outcome:
    """Execute the notebook ``notebook`` (its bytes) in a sandbox of its own: the runner's
    report, the verdicts the course's checks logged, the executed notebook. ``preload``: the
    modules the kernel imports before the first cell. Raises ``Unavailable`` if there is no
    sandbox here and ``unsandboxed`` is not given."""
    confined = require(unsandboxed)
    found = _cgroups() if confined.limits != "rlimits" else None
    group = RunGroup(*found, limits) if found else None
    notebook_fd = _memfd(notebook)
    read_end, write_end = os.pipe()
    spec = {
        "home": HOME,
        "report_fd": write_end,
        "notebook_fd": notebook_fd,
        "cell_seconds": limits.cell_seconds,
        "notebook_seconds": limits.notebook_seconds,
        "preload": list(preload),
    }
    command, env, scratch = _command(limits, spec, confined.sandboxed)
    proc = None
    try:
        proc = subprocess.Popen(
            _launcher(limits, group, command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end, notebook_fd),
            start_new_session=True,
            env=env,
            cwd=scratch or "/",
        )
        os.close(write_end)
        write_end = -1
        with _LIVE_LOCK:
            _LIVE.add((proc, group))
        raw, overtime = _collect(read_end, limits.notebook_seconds)
        if overtime:
            raw = _overtime(proc, group, scratch)
        proc.wait()
        return _outcome(raw, overtime, proc.returncode, group, limits)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard((proc, group))
        for fd in (read_end, write_end, notebook_fd):
            if fd >= 0:
                os.close(fd)
        if group is not None:
            group.remove()  # kills what is left first (nothing: the PID namespace is gone)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _outcome(
    raw: bytes, overtime: bool, returncode: int, group: RunGroup | None, limits: Limits
) -> Outcome:
    try:
        sent = json.loads(raw) if raw else None
    except ValueError:
        sent = None
    sent = sent if isinstance(sent, dict) else {}
    report = sent.get("report") if isinstance(sent.get("report"), dict) else None
    verdicts = _verdicts(str(sent.get("verdicts", ""))[:RECORD_BYTES])
    executed = sent.get("executed")
    executed = executed.encode()[:EXECUTED_BYTES] if isinstance(executed, str) else None
    outcome = Outcome(report, verdicts, overtime, returncode, executed)
    if group is not None:
        outcome.peak_memory, outcome.oom_kills = group.peak_memory(), group.oom_kills()
    if outcome.oom_kills and report is not None:
        # The cap killed a process of the run (the kernel, most likely): said as the cell's
        # memory error, which the gradebook reads as the ``memory`` status.
        cell = report.get("reached", -1) + 1
        mb = limits.memory_bytes >> 20
        text = f"the run's memory cap ({mb} MB, shared memory included) was reached"
        report.setdefault("errors", []).append(
            {"cell": cell, "ename": "MemoryError", "evalue": text}
        )
        outcome.notes.append(text)
    return outcome


# ---- what the sandbox costs -------------------------------------------------------------


def overhead_seconds(repeats: int = 7) -> float:
    """The sandbox's own cost per run: the median time of ``python -c pass`` in a run's
    sandbox (cgroup made and removed, limits, bwrap, the user dropped) less that of the bare
    command, measured in turn in this process."""
    confined = require()
    _, env, _ = _python_paths()
    bare = [str(env / "bin" / "python"), "-I", "-c", "pass"]
    limits = Limits()
    course_address_space()  # measured once, not counted

    def timed(sandboxed: bool) -> float:
        found = _cgroups() if sandboxed and confined.limits != "rlimits" else None
        started = time.perf_counter()
        group = RunGroup(*found, limits) if found else None
        command = bwrap_command(limits, bare) if sandboxed else bare
        if sandboxed:
            command = _launcher(limits, group, command)
        subprocess.run(command, env={}, check=True, start_new_session=True)
        if group is not None:
            group.remove()
        return time.perf_counter() - started

    with_sandbox, without = [], []
    for _ in range(repeats):
        with_sandbox.append(timed(True))
        without.append(timed(False))
    return statistics.median(with_sandbox) - statistics.median(without)


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
