"""A server in its own process group: started, polled until ready, stopped with its kernels.

:class:`ServerProcess` knows nothing of Jupyter; ``servers.py`` gives it the
command lines of JupyterLab and Voila.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from lifetime import guarded, popen_options  # noqa: E402

POLL_S = 0.2
# A server that got SIGTERM has this long to shut its kernels down and exit before its group
# gets SIGKILL (its kernels then end by themselves: ipykernel watches its parent).
GRACE_S = 10.0
# A server left alone this long after SIGTERM, with nothing it started still running (its
# kernels shut down), is done with its shutdown: Voila, its kernels shut down, was seen to
# linger the whole GRACE_S before SIGKILL (its threads), at the end of every test run.
ALONE_S = 1.0


@dataclass
class ServerProcess:
    """A server started by :meth:`start`: its own process group, its log in a file."""

    name: str
    proc: subprocess.Popen[bytes]
    port: int
    token: str
    log: Path

    @property
    def url(self) -> str:
        """The server's root URL, on 127.0.0.1."""
        return f"http://127.0.0.1:{self.port}/"

    @classmethod
    def start(
        cls,
        name: str,
        args: Sequence[str],
        port: int,
        token: str,
        cwd: Path,
        log: Path,
        env: Mapping[str, str] | None = None,
    ) -> ServerProcess:
        """Start ``args`` in ``cwd`` with stdout and stderr appended to ``log``.

        ``env``: variables added to this process's environment for the server.
        """
        log.parent.mkdir(parents=True, exist_ok=True)
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        with log.open("ab") as out:
            # Its own group, stopped together, and SIGTERM when the test run dies (even by
            # SIGKILL): the server then shuts its kernels down, as on any SIGTERM. Under a
            # guard, since a loaded machine once saw JupyterLab still running 20 s after.
            proc = subprocess.Popen(
                guarded(list(args), GRACE_S),
                cwd=cwd,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                **popen_options(),
            )
        return cls(name, proc, port, token, log)

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the server's log (or why it cannot be read)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError as exc:
            return f"(no log: {exc})"
        return "\n".join(text.splitlines()[-lines:])

    def request(self, method: str, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
        """``method path`` with the token; redirects are not followed."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, headers={"Authorization": f"token {self.token}"})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def _not_ready(self, what: str) -> RuntimeError:
        """The error raised when the server is not ready: ``what`` happened, and its log."""
        return RuntimeError(f"{self.name} {what}; log {self.log}:\n{self.log_tail()}")

    def _answer(self, path: str) -> str | int:
        """The HTTP status of ``GET path``, or why there was none (not listening yet)."""
        try:
            return self.request("GET", path, timeout=2.0)[0]
        except OSError as exc:
            return repr(exc)

    def wait_ready(self, path: str, ok: Callable[[int], bool], timeout: float) -> None:
        """Poll ``path`` until ``ok(status)``; fail early, with the log, if the server exits."""
        deadline = time.monotonic() + timeout
        last: str | int = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                raise self._not_ready(f"exited with code {code} before it was ready")
            last = self._answer(path)
            if isinstance(last, int) and ok(last):
                return
            time.sleep(POLL_S)
        shown = f"HTTP {last}" if isinstance(last, int) else last
        raise self._not_ready(f"not ready after {timeout:.0f} s ({path}: {shown})")

    def stop(self, shutdown_path: str | None = None, timeout: float = 20.0) -> None:
        """Stop the server and everything it started, politely first.

        ``shutdown_path``: a POST that asks the server to shut its kernels down and
        exit, given ``timeout`` seconds; then SIGTERM, then SIGKILL, to the whole group.
        """
        plan: list[tuple[int | None, float]] = [(signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)]
        if shutdown_path and self._ask_to_shut_down(shutdown_path):
            plan.insert(0, (None, timeout))
        for sig, wait in plan:
            if sig is not None:
                self._signal_group(sig)
            if self._exited_within(wait, done_when_alone=sig == signal.SIGTERM):
                break
        # Kernels are in the group too; one that outlived the server is ended here.
        self._signal_group(signal.SIGTERM)

    def _ask_to_shut_down(self, path: str) -> bool:
        """POST ``path`` if the server still runs; whether it took the request."""
        if self.proc.poll() is not None:
            return False
        try:
            self.request("POST", path)
        except OSError:
            return False  # not answering: the signals do the job
        return True

    def _exited_within(self, seconds: float, done_when_alone: bool = False) -> bool:
        """Wait up to ``seconds`` for the server to exit; whether it did. With
        ``done_when_alone``, the wait ends sooner (False) once the server has been alone for
        ALONE_S: the signals that follow then end nothing but the server."""
        deadline = time.monotonic() + seconds
        alone_since = None
        while True:
            try:
                self.proc.wait(timeout=min(POLL_S, max(deadline - time.monotonic(), 0)))
                return True
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if now >= deadline:
                return False
            if done_when_alone and self._alone():
                alone_since = alone_since or now
                if now - alone_since >= ALONE_S:
                    return False
            else:
                alone_since = None

    def _alone(self) -> bool:
        """Whether the server runs with nothing it started (``proc`` is its guard: the guard's
        one descendant is the server)."""
        try:
            return len(psutil.Process(self.proc.pid).children(recursive=True)) <= 1
        except psutil.Error:
            return False

    def _signal_group(self, sig: int) -> None:
        """Send ``sig`` to the server's process group, if anything is left in it."""
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already empty

    @contextmanager
    def running(
        self, ready: str, ok: Callable[[int], bool], timeout: float, shutdown: str | None = None
    ) -> Iterator[ServerProcess]:
        """The server once ``ready`` answers ``ok`` (see :meth:`wait_ready`); stopped after.

        It is stopped (see :meth:`stop`, with ``shutdown``) whether or not it got ready.
        """
        try:
            self.wait_ready(ready, ok, timeout)
            yield self
        finally:
            self.stop(shutdown_path=shutdown)
