"""The browser layer: JupyterLab and Voila in headless Chromium, driven by Playwright.

What the fixtures (``conftest.py``) and the tests share lives here, so test modules
import it instead of importing ``conftest``:

- :func:`browser_gate`, the one decision whether the layer runs, skips or fails;
- :class:`ServerProcess`, a Jupyter or Voila server in its own process group;
- :class:`ExplorerCase`, an explorer's expected views after keyboard moves, and
  :func:`check_explorer`, which drives it in a page and compares what is drawn;
- the expected views of the explorers of notebooks 01, 03 and 04, computed here
  with plain torch from the book's embeddings, never through ``attnlib``.
"""

from __future__ import annotations

import http.client
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:  # playwright is only imported once the gate says it is there
    from playwright.sync_api import ConsoleMessage, Page

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache"
SCREENSHOTS = CACHE / "screenshots"

# ----------------------------------------------------------------------------- the gate

# Set to a Chromium executable to use it instead of the one found on the system; set
# to a path that does not exist (e.g. /nonexistent) to see the layer skip (or fail in CI).
CHROMIUM_ENV = "ATTNLIB_CHROMIUM"
# Debian's package installs it here; PATH is searched first so a local build wins.
DEBIAN_CHROMIUM = "/usr/bin/chromium"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_chromium(env: Mapping[str, str]) -> tuple[str | None, str]:
    """The Chromium executable to drive, or None and why none was found.

    ``ATTNLIB_CHROMIUM`` in ``env``, when set and non-empty, is the only candidate.
    """
    override = env.get(CHROMIUM_ENV, "")
    if override:
        if _executable(override):
            return override, ""
        return None, f"{CHROMIUM_ENV}={override} is not an executable file"
    on_path = shutil.which("chromium", path=env.get("PATH", os.defpath))
    if on_path:
        return on_path, ""
    if _executable(DEBIAN_CHROMIUM):
        return DEBIAN_CHROMIUM, ""
    return None, f"no Chromium: {DEBIAN_CHROMIUM} is missing and `chromium` is not on PATH"


@dataclass(frozen=True)
class Gate:
    """Whether the browser layer runs.

    ``chromium``: the executable to launch, None when the layer cannot run;
    ``reason``: why it cannot ("" when it can); ``must_fail``: CI is set, so a
    missing browser fails the run instead of skipping it.
    """

    chromium: str | None
    reason: str
    must_fail: bool


def browser_gate(env: Mapping[str, str], playwright_installed: bool | None = None) -> Gate:
    """Decide from ``env`` (and whether Playwright is importable) if the layer can run.

    ``playwright_installed``: None looks it up; tests pass a bool.
    """
    if playwright_installed is None:
        playwright_installed = importlib.util.find_spec("playwright") is not None
    # CI must never pass green with the browser layer silently skipped.
    must_fail = bool(env.get("CI", ""))
    chromium, reason = find_chromium(env)
    if chromium is not None and not playwright_installed:
        chromium, reason = None, "playwright for Python is not installed (pip install playwright)"
    if chromium is None:
        hint = " (CI is set, so the browser layer is required)" if must_fail else ""
        return Gate(None, f"browser layer cannot run: {reason}{hint}", must_fail)
    return Gate(chromium, "", must_fail)


# ----------------------------------------------------------------------------- servers


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
        return f"http://127.0.0.1:{self.port}/"

    @classmethod
    def start(
        cls, name: str, args: Sequence[str], port: int, token: str, cwd: Path, log: Path
    ) -> ServerProcess:
        """Start ``args`` in ``cwd`` with stdout and stderr appended to ``log``."""
        log.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with log.open("ab") as out:
            # A new session: the server and its kernels form one group, stopped together.
            proc = subprocess.Popen(
                list(args),
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return cls(name, proc, port, token, log)

    def log_tail(self, lines: int = 40) -> str:
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

    def wait_ready(self, path: str, ok: Callable[[int], bool], timeout: float) -> None:
        """Poll ``path`` until ``ok(status)``; fail early, with the log, if the server exits."""
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with code {self.proc.returncode} before it was ready; "
                    f"log {self.log}:\n{self.log_tail()}"
                )
            try:
                status, _ = self.request("GET", path, timeout=2.0)
            except OSError as exc:  # not listening yet
                last = repr(exc)
            else:
                if ok(status):
                    return
                last = f"HTTP {status}"
            time.sleep(0.2)
        raise RuntimeError(
            f"{self.name} not ready after {timeout:.0f} s ({path}: {last}); "
            f"log {self.log}:\n{self.log_tail()}"
        )

    def stop(self, shutdown_path: str | None = None, timeout: float = 20.0) -> None:
        """Stop the server and everything it started, politely first.

        ``shutdown_path``: a POST that asks the server to shut its kernels down and
        exit, given ``timeout`` seconds; then SIGTERM, then SIGKILL, to the whole group.
        """
        plan: list[tuple[int | None, float]] = [(signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)]
        if self.proc.poll() is None and shutdown_path:
            try:
                self.request("POST", shutdown_path)
                plan.insert(0, (None, timeout))
            except OSError:
                pass  # not answering: the signals below do the job
        for sig, wait in plan:
            if sig is not None:
                self._signal_group(sig)
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        # Kernels are in the group too; one that outlived the server is ended here.
        self._signal_group(signal.SIGTERM)

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already empty


# ----------------------------------------------------------------------------- pages

# Console errors that are understood and harmless, each with the reason. A pattern is
# matched against "[type] text (url:line)".
HARMLESS_CONSOLE_ERRORS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"Failed to load resource: net::\S+ \(https://cdn\.jsdelivr\.net/npm/@fortawesome/"
        ),
        # Voila's lab template links Font Awesome's CSS from a CDN; offline (as in the
        # tests) it fails, and only icon glyphs are missing. Any other failed load counts.
        "Voila's Font Awesome stylesheet from the CDN, unreachable offline",
    ),
]


def _harmless(text: str) -> bool:
    return any(pattern.search(text) for pattern, _why in HARMLESS_CONSOLE_ERRORS)


@dataclass
class WatchedPage:
    """A page with its console errors and uncaught exceptions recorded."""

    page: Page
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        line = f"[{message.type}] {message.text}"
        location = message.location or {}
        if location.get("url"):
            line += f" ({location['url']}:{location.get('lineNumber')})"
        self.console.append(line)
        if message.type == "error" and not _harmless(line):
            self.errors.append(line)

    def on_page_error(self, error: Any) -> None:
        line = f"[pageerror] {error}"
        self.console.append(line)
        self.errors.append(line)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=path)
        return path


# ----------------------------------------------------------------------------- explorers

NUMBER = r"-?\d+\.\d+"  # decimals only, so labels like "x(2)" are not read as values


@dataclass(frozen=True)
class Expect:
    """Numbers shown by the elements matching ``selector`` (inside the explorer).

    Every matching element contributes the decimals in its text, in DOM order, or
    one None when it has none (a blank heatmap cell). ``values`` is the expected
    list, None for a blank.
    """

    selector: str
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class Step:
    """One move of an explorer's control, and what it must show afterwards.

    ``focus``: the control inside the explorer to focus (None: no move, the
    initial view); ``keys``: pressed one after the other on the focused control;
    ``expect``: the numbers to see; ``texts``: (selector, substring) pairs.
    """

    label: str
    expect: tuple[Expect, ...]
    focus: str | None = None
    keys: tuple[str, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ExplorerCase:
    """A notebook with a live explorer, and the views expected as it is moved.

    ``root``: CSS selector of the explorer's root container; ``steps``: the
    initial view first, then the keyboard moves.
    """

    notebook: str
    root: str
    steps: tuple[Step, ...]

    @property
    def stem(self) -> str:
        return Path(self.notebook).stem


def slider(description: str) -> str:
    """The handle of the slider labelled ``description`` (explorers may have several).

    The handle (noUiSlider's) is the focusable element that takes the arrow keys.
    """
    return f'.widget-slider:has(.widget-label:text-is("{description}")) .noUi-handle'


# Values are shown with 4 decimals: half a unit in the last place, and a little slack
# for the book's own rounding.
TOLERANCE = 1.01e-4

_READ = """([root, nth, selectors]) => {
    const el = document.querySelectorAll(root)[nth];
    if (!el) return null;
    return selectors.map((sel) => Array.from(el.querySelectorAll(sel)).flatMap((node) => {
        const found = node.textContent.match(/NUMBER/g);
        return found ? found.map(Number) : [null];
    }));
}""".replace("NUMBER", NUMBER)

_MATCHES = """([root, nth, expects, tol]) => {
    const got = (READ)([root, nth, expects.map((e) => e[0])]);
    if (!got) return false;
    return expects.every(([, want], k) => got[k].length === want.length && want.every(
        (v, i) => v === null ? got[k][i] === null : got[k][i] !== null
            && Math.abs(got[k][i] - v) <= tol));
}""".replace("READ", _READ)


def read_numbers(page: Page, root: str, selectors: Sequence[str], nth: int = 0) -> list | None:
    """For each selector, the numbers the explorer shows there (see :class:`Expect`)."""
    return page.evaluate(_READ, [root, nth, list(selectors)])


def wait_for_step(page: Page, case: ExplorerCase, step: Step, timeout_ms: float) -> None:
    """Wait until the explorer shows ``step``'s numbers and texts; else say what it shows."""
    expects = [[e.selector, list(e.values)] for e in step.expect]
    from playwright.sync_api import expect

    explorer = page.locator(case.root).first
    try:
        page.wait_for_function(_MATCHES, arg=[case.root, 0, expects, TOLERANCE], timeout=timeout_ms)
        for selector, text in step.texts:
            expect(explorer.locator(selector).first).to_contain_text(text, timeout=timeout_ms)
    except Exception as exc:
        selectors = [e.selector for e in step.expect]
        seen = dict(zip(selectors, read_numbers(page, case.root, selectors) or [], strict=False))
        texts = {sel: explorer.locator(sel).all_text_contents() for sel, _ in step.texts}
        wanted = {e.selector: e.values for e in step.expect}
        raise AssertionError(
            f"{case.notebook}, {step.label}: the explorer does not show the expected values "
            f"within {timeout_ms / 1000:.0f} s.\nexpected: {wanted}\nshown: {seen}\n"
            f"expected texts: {step.texts}\nshown texts: {texts}\n"
            f"({type(exc).__name__}: {str(exc).splitlines()[0]})"
        ) from None  # the message says it all; playwright's frames only add noise


def check_explorer(page: Page, case: ExplorerCase, timeout_ms: float = 20_000) -> None:
    """Check the initial view, then move the control with the keyboard step by step."""
    root = page.locator(case.root)
    root.first.wait_for(state="visible", timeout=timeout_ms)
    count = root.count()
    assert count == 1, f"{case.notebook}: expected one {case.root}, found {count}"
    root.first.scroll_into_view_if_needed(timeout=timeout_ms)
    for step in case.steps:
        if step.focus is not None:
            control = root.locator(step.focus).first
            control.focus(timeout=timeout_ms)
            focused = control.evaluate("(el) => el === document.activeElement")
            assert focused, f"{case.notebook}, {step.label}: {step.focus} did not take focus"
            for key in step.keys:
                page.keyboard.press(key)
        wait_for_step(page, case, step, timeout_ms)


# ----------------------------------------------------------------------------- expected views

# The book's six embeddings of "Your journey starts with one step", typed in again here
# so that the expectations do not come from the code under test.
TOKENS = ("Your", "journey", "starts", "with", "one", "step")
INPUTS = torch.tensor(
    [
        [0.43, 0.15, 0.89],
        [0.55, 0.87, 0.66],
        [0.57, 0.85, 0.64],
        [0.22, 0.58, 0.33],
        [0.77, 0.25, 0.10],
        [0.05, 0.80, 0.55],
    ]
)
SCORES = INPUTS @ INPUTS.T

# The book's printed values (chapter 3) for three queries of the QueryExplorer.
BOOK_QUERIES: dict[int, tuple[tuple[float, ...], tuple[float, ...]]] = {
    0: ((0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452), (0.4421, 0.5931, 0.5790)),
    1: ((0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581), (0.4419, 0.6515, 0.5683)),
    2: ((0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565), (0.4431, 0.6496, 0.5671)),
}
BOOK_SCORE_0_1 = 0.9544

HEATMAP = "table.attnlib-heatmap"
GRID = f'{HEATMAP} td[data-row][data-col]:not([data-row="sum"]):not([data-col="sum"])'


def _floats(t: torch.Tensor) -> tuple[float, ...]:
    return tuple(float(v) for v in t.flatten())


def loop_step(step: int, focus: str | None = None, keys: tuple[str, ...] = ()) -> Step:
    """LoopStepper after iteration ``step``: cells 0..step filled row by row, the rest blank."""
    n = len(TOKENS)
    i, j = divmod(step, n)
    grid = _floats(SCORES)
    cells = grid[: step + 1] + (None,) * (n * n - step - 1)
    # The formula interleaves x_i and x_j's coordinates, then gives their dot product.
    factors = _floats(torch.stack([INPUTS[i], INPUTS[j]], dim=1))
    return Step(
        f"iteration {step}",
        (
            Expect(GRID, cells),
            Expect(f'td.attnlib-highlight-cell[data-row="{i}"][data-col="{j}"]', (grid[step],)),
            Expect(".attnlib-formula", factors + (grid[step],)),
        ),
        focus,
        keys,
        ((".attnlib-code", f"attn_scores[{i}, {j}]"),),
    )


def softmax_step(dim: int, focus: str | None = None, keys: tuple[str, ...] = ()) -> Step:
    """SoftmaxAxisExplorer with ``dim``: the weights grid, its row sums and column sums."""
    weights = torch.softmax(SCORES, dim=dim)
    along = "every row sums to 1" if dim == -1 else "every column sums to 1"
    return Step(
        f"dim={dim}",
        (
            Expect(GRID, _floats(weights)),
            Expect(f'{HEATMAP} td[data-col="sum"]', _floats(weights.sum(dim=1))),
            Expect(f'{HEATMAP} td[data-row="sum"]', _floats(weights.sum(dim=0))),
        ),
        focus,
        keys,
        ((".attnlib-explanation", along),),
    )


def query_step(query: int, focus: str | None = None, keys: tuple[str, ...] = ()) -> Step:
    """QueryExplorer on ``query``: the highlighted row, the bars and the context vector."""
    weights, context = BOOK_QUERIES[query]
    return Step(
        f"query {query} ({TOKENS[query]!r})",
        (
            Expect(f'{HEATMAP} tr.attnlib-highlight-row[data-row="{query}"] td', weights),
            Expect(".attnlib-bars div[data-col] > span:last-child", weights),
            # The formula lists the weights, then the context vector they give.
            Expect(".attnlib-formula", weights + context),
        ),
        focus,
        keys,
        ((".attnlib-token", f"x({query}) = {TOKENS[query]!r}"),),
    )


def _toggle(label: str) -> str:
    return f'.widget-toggle-button:has-text("{label}")'


LOOP_STEPPER_01 = ExplorerCase(
    "01_scores_loops.ipynb",
    ".attnlib-explorer.attnlib-loop-stepper",
    (
        loop_step(0),
        loop_step(1, slider("iteration"), ("ArrowRight",)),
        loop_step(7, slider("iteration"), ("ArrowRight",) * 6),
        loop_step(35, slider("iteration"), ("End",)),
    ),
)
SOFTMAX_AXIS_03 = ExplorerCase(
    "03_softmax_weights.ipynb",
    ".attnlib-explorer.attnlib-softmax-explorer",
    (
        softmax_step(-1),
        # A toggle button is pressed from the keyboard with Space (or Enter).
        softmax_step(0, _toggle("dim=0"), ("Space",)),
        softmax_step(-1, _toggle("dim=-1"), ("Enter",)),
    ),
)
QUERY_EXPLORER_04 = ExplorerCase(
    "04_context_vectors.ipynb",
    ".attnlib-explorer.attnlib-query-explorer",
    (
        query_step(1),
        query_step(2, slider("query"), ("ArrowRight",)),
        query_step(0, slider("query"), ("ArrowLeft", "ArrowLeft")),
    ),
)
