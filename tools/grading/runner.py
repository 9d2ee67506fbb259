"""Run one submitted notebook inside its sandbox and report what happened, as JSON on a pipe.

Started by :mod:`tools.grading.sandbox`, usually as the first process of fresh network,
mount and process namespaces (``unshare``), so the kernel it starts has no network, the
whole tree dies with it, and, as root, it can still mount before giving root up:

1. the course's folder is made read-only, and the submissions and output folders are
   covered by empty read-only file systems, so no submission sees or changes another;
2. it becomes the unprivileged user given (one per submission), with the memory cap;
3. the kernel imports the course's libraries (``preload``) before the first cell, silently
   and binding no name, so that their import time is not counted against a student's cell;
4. nbclient runs every cell, as the student left them, each under a time limit; a cell
   that runs too long is interrupted and the run goes on.

The report (cells reached, each cell's error, the cells that timed out, whether the kernel
died) goes to a pipe the kernel does not inherit, so the student's code cannot write it.
This file imports nothing from the course: it runs as a script.

Usage: python runner.py SPEC_JSON   (see ``sandbox.runner_spec`` for the keys)
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import signal
import sys
import tempfile

PR_SET_PDEATHSIG = 1
STASH = "/mnt"  # covered by an empty file system while mounts are moved through it
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = (
    1,
    2,
    4,
    32,
    4096,
    8192,
    16384,
)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    args = [source.encode(), target.encode(), fstype.encode() if fstype else None, flags]
    if libc.mount(*args, data.encode() or None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _expose(private: str, children: list[str]) -> None:
    """Cover the folder ``private`` with an empty read-only one that shows only ``children``
    (relative paths): /root shows the interpreter it holds, /tmp the run's own scratch folder,
    a course folder others may not enter its own entries, and the run's user sees nothing
    else there. A link is copied as a link; a file is shown on a file, a folder on a folder."""
    stashed, links = [], []
    for child in children:  # set aside, on an empty file or folder outside ``private``
        source = os.path.join(private, child)
        if os.path.islink(source):
            links.append((os.readlink(source), child))
            continue
        if os.path.isdir(source):
            stash = tempfile.mkdtemp(dir=STASH)
        elif os.path.isfile(source):
            fd, stash = tempfile.mkstemp(dir=STASH)
            os.close(fd)
        else:  # a socket or a pipe: nothing a run needs
            continue
        _mount(source, stash, None, MS_BIND | MS_REC)
        stashed.append((stash, child))
    _mount("tmpfs", private, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
    for target, child in links:
        os.makedirs(os.path.dirname(os.path.join(private, child)), 0o755, exist_ok=True)
        os.symlink(target, os.path.join(private, child))
    for stash, child in stashed:
        place = os.path.join(private, child)
        if os.path.isdir(stash):
            os.makedirs(place, 0o755)
        else:
            os.makedirs(os.path.dirname(place), 0o755, exist_ok=True)
            open(place, "x").close()
        _mount(stash, place, None, MS_MOVE)
    _mount("none", private, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _mount_points(path: str) -> list[str]:
    """Every mount point at or under ``path``, as this mount namespace sees them."""
    with open("/proc/self/mountinfo", encoding="utf-8") as file:
        points = [re.sub(r"\\([0-7]{3})", _octal, line.split()[4]) for line in file]
    return sorted({p for p in points if p == path or p.startswith(path.rstrip("/") + "/")})


def _octal(match: re.Match) -> str:
    return chr(int(match[1], 8))


def _read_only(path: str, scratch: str) -> None:
    """``path`` and every mount under it read-only (a folder covered by ``_expose`` holds its
    children as mounts of their own, which a remount of ``path`` alone leaves writable), all
    but the run's own scratch folder."""
    _mount(path, path, None, MS_BIND | MS_REC)
    for point in _mount_points(path):
        if point != scratch and not point.startswith(scratch + "/"):
            _mount("none", point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def confine(spec: dict) -> None:
    """Mounts (in a mount namespace only), then the user and the limits, in that order."""
    if spec["mounts"]:
        _mount("tmpfs", STASH, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=700")
        for private, children in spec["expose"]:
            _expose(private, children)
        for path in ("/dev/shm", "/var/tmp"):  # other folders anyone may write
            if os.path.isdir(path):
                _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=1777")
        for path in spec["read_only"]:
            _read_only(path, spec["scratch"])
        for path in spec["hidden"]:
            if os.path.isdir(path):
                _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=555")
    if spec["uid"] is not None:
        os.setgroups([])
        os.setgid(spec["uid"])
        os.setuid(spec["uid"])
        # A change of user clears the signal asked for on the parent's death (unshare's
        # --kill-child): ask again, so that this run still ends when the grader does.
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    limits = {
        resource.RLIMIT_AS: spec["memory_bytes"],
        resource.RLIMIT_FSIZE: spec["file_bytes"],
        resource.RLIMIT_CORE: 0,
    }
    if spec["uid"] is not None:  # counted per user: only a user of its own makes it fair
        limits[resource.RLIMIT_NPROC] = spec["processes"]
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))


def _errors(nb) -> list[dict]:
    """Each error a cell printed: its cell, name and (the start of) its value, 50 at most."""
    errors = [
        {"cell": index, "ename": output["ename"], "evalue": output["evalue"][:300]}
        for index, cell in enumerate(nb.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    return errors[:50]


def run(spec: dict) -> dict:
    """Execute the notebook; the report of every cell that raised or ran out of time."""
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    scratch = spec["scratch"]
    report = {"cells": 0, "reached": -1, "errors": [], "timeouts": [], "dead": False}
    try:
        nb = nbformat.read(os.path.join(scratch, spec["notebook"]), as_version=4)
    except Exception as err:  # not a notebook: nothing to run
        report["unreadable"] = f"{type(err).__name__}: {str(err)[:200]}"
        return report
    report["cells"] = len(nb.cells)

    # An expression whose value is None: nothing displayed, no name bound (not even `_`).
    preload = f"[__import__(name) for name in {spec.get('preload', [])!r}] and None"

    class Client(NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            msg_id = kc.execute(preload, silent=True, store_history=False)
            while True:  # its reply on the shell channel
                try:
                    reply = await kc.get_shell_msg(timeout=spec.get("notebook_seconds", 600))
                except Exception:  # no reply (the kernel died): the first cell will tell
                    return kc
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    return kc

        async def _async_handle_timeout(self, timeout, cell=None):
            if cell is not None:
                report["timeouts"].append(nb.cells.index(cell))
            return await super()._async_handle_timeout(timeout, cell)

    def reached(cell, cell_index, **_):
        report["reached"] = cell_index

    # ZMQ over unix sockets: the kernel needs no network interface, not even loopback.
    km = AsyncKernelManager(kernel_name="python3", transport="ipc")
    client = Client(
        nb,
        km=km,
        timeout=spec["cell_seconds"],
        allow_errors=True,
        interrupt_on_timeout=True,
        record_timing=False,
        resources={"metadata": {"path": scratch}},
        on_cell_complete=reached,
    )
    try:
        client.execute(cwd=scratch)
    except DeadKernelError:
        report["dead"] = True
    except Exception as err:  # nbclient gave up on the kernel (e.g. an interrupt unanswered)
        report["gave_up"] = f"{type(err).__name__}: {str(err)[:200]}"
    report["errors"] = _errors(nb)
    try:
        nbformat.write(nb, os.path.join(scratch, "executed.ipynb"))
    except Exception:  # a full or removed scratch: the report still goes out
        pass
    return report


def main() -> None:
    # A shell's background job may start us with SIGINT ignored, which the kernel would
    # inherit: then no cell could be interrupted at its time limit.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)
    spec = json.loads(sys.argv[1])
    out = os.fdopen(spec["report_fd"], "w")
    os.set_inheritable(out.fileno(), False)
    os.chdir(spec["scratch"])
    os.environ.clear()
    os.environ.update(spec["env"])
    try:
        confine(spec)
        report = run(spec)
    except Exception as err:  # the sandbox could not be set up: say so, grade nothing
        report = {"sandbox_failed": f"{type(err).__name__}: {err}"}
    out.write(json.dumps(report))
    out.close()


if __name__ == "__main__":
    main()
