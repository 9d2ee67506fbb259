"""Run one submitted notebook inside its sandbox and send back what happened, on a pipe.

Started by :mod:`tools.grading.sandbox` inside bubblewrap, as the run's unprivileged user,
with the run's environment only; the sandbox is already in place (the files, the
namespaces, the limits), so this script only runs the notebook:

1. the notebook's bytes come on a file descriptor (``notebook_fd``): no file of the host;
2. the kernel imports the course's libraries (``preload``) before the first cell, silently
   and binding no name, so that their import time is not counted against a student's cell;
3. nbclient runs every cell, as given, each under a time limit; a cell that runs too long
   is interrupted and the run goes on.

What it sends, as one JSON document on ``report_fd`` (a pipe the kernel does not inherit):
``report`` (cells reached, each cell's error, the cells that timed out, whether the kernel
died), ``verdicts`` (the verdict log the course's checks wrote, as text) and ``executed``
(the notebook as it ran). This file imports nothing from the course: it runs as a script.

Usage: python runner.py SPEC_JSON   (see ``sandbox.run_notebook`` for the keys)
"""

from __future__ import annotations

import json
import os
import signal
import sys

RECORD_BYTES = 1 << 20  # the most of the verdict log sent back
EXECUTED_BYTES = 64 << 20  # the most of the executed notebook sent back


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
    # nbformat's validator imports jsonschema, which takes the optional IRI format checker
    # if installed: rfc3987_syntax builds a grammar at import, a second of every run, for a
    # format nbformat's schema never names. Marked absent, jsonschema goes without it.
    sys.modules.setdefault("rfc3987_syntax", None)
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    scratch = spec["home"]
    report = {"cells": 0, "reached": -1, "errors": [], "timeouts": [], "dead": False}
    try:
        with os.fdopen(spec["notebook_fd"], "rb") as file:
            nb = nbformat.reads(file.read().decode("utf-8"), as_version=4)
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
    report["executed"] = nb
    return report


def _verdict_log(path: str) -> str:
    """The verdict log the kernel wrote (a regular file only: a link or a FIFO planted in its
    place gives nothing), at most RECORD_BYTES of it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as file:
        if not os.path.isfile(f"/proc/self/fd/{fd}"):
            return ""
        return file.read(RECORD_BYTES).decode("utf-8", "replace")


def _written(nb) -> str | None:
    """The executed notebook as text, if nbformat can write it and it is not too big."""
    if nb is None:
        return None
    import nbformat

    try:
        text = nbformat.writes(nb)
    except Exception:  # an output nbformat cannot write: the report still goes out
        return None
    return text if len(text) <= EXECUTED_BYTES else None


def main() -> None:
    # A shell's background job may start us with SIGINT ignored, which the kernel would
    # inherit: then no cell could be interrupted at its time limit.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)
    spec = json.loads(sys.argv[1])
    out = os.fdopen(spec["report_fd"], "w")
    os.set_inheritable(out.fileno(), False)
    os.set_inheritable(spec["notebook_fd"], False)
    home = spec["home"]
    os.chdir(home)
    for folder in (
        ".jupyter/runtime",
        ".jupyter/data",
        ".jupyter/config",
        ".ipython",
        ".matplotlib",
        "tmp",
    ):
        os.makedirs(os.path.join(home, folder), exist_ok=True)
    try:
        report = run(spec)
    except Exception as err:  # nbclient or nbformat missing, say: grade nothing, say so
        report = {"sandbox_failed": f"{type(err).__name__}: {err}"}
    executed = _written(report.pop("executed", None))
    log = os.environ.get("ATTNLIB_VERDICT_LOG", "")
    sent = {"report": report, "verdicts": _verdict_log(log) if log else "", "executed": executed}
    out.write(json.dumps(sent))
    out.close()


if __name__ == "__main__":
    main()
