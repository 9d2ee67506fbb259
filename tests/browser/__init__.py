"""The browser layer: JupyterLab and Voila in headless Chromium, driven by Playwright.

What the fixtures (``conftest.py``) and the tests share lives here, so test modules
import it instead of importing ``conftest``:

- :func:`browser_gate`, the one decision whether the layer runs, skips or fails;
- :class:`ServerProcess`, a Jupyter or Voila server in its own process group;
- :class:`ExplorerCase`, an explorer's expected views after keyboard moves, and
  :func:`check_explorer`, which drives it in a page and compares what is drawn;
- the expected views of the explorers of notebooks 01, 03, 04, 06 and 08, computed
  here with plain torch from the book's embeddings, never through ``attnlib``.

Controls are found by their CSS class ``attnlib-control-<attribute>`` (see
:func:`control`), not by their label text.
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

import book  # tests/book.py: pytest puts tests/ on sys.path
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
    list, None for a blank. ``part``: the values need only appear as one unbroken
    run among the numbers shown (a formula that shows more numbers than are checked).
    """

    selector: str
    values: tuple[float | None, ...]
    part: bool = False


@dataclass(frozen=True)
class Typed:
    """Text typed with the keyboard, one key per character, into the focused control."""

    text: str


@dataclass(frozen=True)
class Step:
    """One move of an explorer's control, and what it must show afterwards.

    ``focus``: the control inside the explorer to focus (None: no move, the
    initial view); ``keys``: pressed one after the other on the focused control
    (a :class:`Typed` is typed); ``expect``: the numbers to see; ``texts``:
    (selector, substring) pairs, the first match containing the substring;
    ``lists``: (selector, texts) pairs, the text of every match in order, exactly;
    ``same``: pairs of selectors showing the same numbers (none blank);
    ``absent``: selectors that must match nothing. Texts are whitespace-normalised.
    """

    label: str
    expect: tuple[Expect, ...]
    focus: str | None = None
    keys: tuple[str | Typed, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()
    same: tuple[tuple[str, str], ...] = ()
    absent: tuple[str, ...] = ()

    def view(self) -> tuple[Any, ...]:
        """Everything the step expects to see (two steps alike expect the same view)."""
        numbers = tuple((e.selector, e.values, e.part) for e in self.expect)
        return numbers, self.texts, self.lists, self.same, self.absent


@dataclass(frozen=True)
class ExplorerCase:
    """A notebook with a live explorer, and the views expected as it is moved.

    ``root``: CSS selector of the explorer's root container; ``steps``: the
    initial view first, then the keyboard moves; ``nth``: which of the page's
    ``count`` roots is the explorer driven (0: the first in the page).
    """

    notebook: str
    root: str
    steps: tuple[Step, ...]
    nth: int = 0
    count: int = 1

    @property
    def stem(self) -> str:
        return Path(self.notebook).stem


def control(name: str, inner: str = "") -> str:
    """The explorer control held in attribute ``name`` (class ``attnlib-control-<name>``).

    ``inner``: a selector for the element inside it that takes the keyboard.
    """
    return f".attnlib-control-{name} {inner}".strip()


def slider(name: str) -> str:
    """The handle of the slider ``name``: noUiSlider's focusable element, moved by arrows."""
    return control(name, ".noUi-handle")


def toggle(name: str, option: str) -> str:
    """The button of ToggleButtons ``name`` whose label contains ``option``."""
    return control(name, f'.widget-toggle-button:has-text("{option}")')


def checkbox(name: str) -> str:
    """The box of Checkbox ``name``: Space ticks or unticks it."""
    return control(name, 'input[type="checkbox"]')


def text_box(name: str) -> str:
    """The input of Text ``name``."""
    return control(name, "input")


# Values are shown with 4 decimals: half a unit in the last place, and a little slack
# for the book's own rounding.
TOLERANCE = 1.01e-4
POLL_S = 0.1

# What the nth root shows for each kind of check of a Step (see Step and Expect).
_SHOWN = """([root, nth, q]) => {
    const el = document.querySelectorAll(root)[nth];
    if (!el) return null;
    const all = (sel) => Array.from(el.querySelectorAll(sel));
    const text = (node) => node.textContent.replace(/\\s+/g, " ").trim();
    const numbers = (sel) => all(sel).flatMap((node) => {
        const found = node.textContent.match(/NUMBER/g);
        return found ? found.map(Number) : [null];
    });
    return {
        numbers: q.numbers.map(numbers),
        texts: q.texts.map((sel) => all(sel).slice(0, 1).map(text)),
        lists: q.lists.map((sel) => all(sel).map(text)),
        same: q.same.map((pair) => pair.map(numbers)),
        absent: q.absent.map((sel) => all(sel).length),
    };
}""".replace("NUMBER", NUMBER)


def read_shown(page: Page, case: ExplorerCase, step: Step) -> dict[str, list] | None:
    """What the explorer shows now for each check of ``step`` (None: no explorer)."""
    query = {
        "numbers": [e.selector for e in step.expect],
        "texts": [sel for sel, _ in step.texts],
        "lists": [sel for sel, _ in step.lists],
        "same": [list(pair) for pair in step.same],
        "absent": list(step.absent),
    }
    return page.evaluate(_SHOWN, [case.root, case.nth, query])


def _close(got: Sequence[float | None], want: Sequence[float | None]) -> bool:
    return len(got) == len(want) and all(
        g is None if w is None else g is not None and abs(g - w) <= TOLERANCE
        for g, w in zip(got, want, strict=True)
    )


def _contains_run(got: Sequence[float | None], want: Sequence[float | None]) -> bool:
    return any(_close(got[k : k + len(want)], want) for k in range(len(got) - len(want) + 1))


def _normal(text: str) -> str:
    return " ".join(text.split())


def mismatches(step: Step, shown: Mapping[str, list] | None) -> list[str]:
    """How ``shown`` (from :func:`read_shown`) differs from ``step``'s view; [] if it does not."""
    if shown is None:
        return ["the explorer is not in the page"]
    found = []
    for e, got in zip(step.expect, shown["numbers"], strict=True):
        if not (_contains_run(got, e.values) if e.part else _close(got, e.values)):
            how = "a run of" if e.part else "exactly"
            want = [None if v is None else round(v, 4) for v in e.values]
            found.append(f"{e.selector}: expected {how} {want}, shown {got}")
    for (sel, want), got in zip(step.texts, shown["texts"], strict=True):
        if not got or _normal(want) not in got[0]:
            found.append(f"{sel}: expected text containing {want!r}, shown {got}")
    for (sel, want), got in zip(step.lists, shown["lists"], strict=True):
        if got != [_normal(t) for t in want]:
            found.append(f"{sel}: expected texts {list(want)}, shown {got}")
    for (a, b), (got_a, got_b) in zip(step.same, shown["same"], strict=True):
        if not got_a or None in got_a or got_a != got_b:
            found.append(f"{a} and {b}: expected the same numbers, shown {got_a} and {got_b}")
    for sel, n in zip(step.absent, shown["absent"], strict=True):
        if n:
            found.append(f"{sel}: expected none, found {n}")
    return found


def wait_for_step(page: Page, case: ExplorerCase, step: Step, timeout_ms: float) -> None:
    """Wait until the explorer shows ``step``'s view; else say how it differs."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        found = mismatches(step, read_shown(page, case, step))
        if not found:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{case.notebook}, {step.label}: the explorer does not show the expected view "
                f"within {timeout_ms / 1000:.0f} s:\n" + "\n".join(found)
            )
        time.sleep(POLL_S)


def check_explorer(page: Page, case: ExplorerCase, timeout_ms: float = 20_000) -> None:
    """Check the initial view, then move the controls with the keyboard step by step."""
    roots = page.locator(case.root)
    roots.first.wait_for(state="visible", timeout=timeout_ms)
    count = roots.count()
    assert count == case.count, f"{case.notebook}: expected {case.count} {case.root}, found {count}"
    root = roots.nth(case.nth)
    root.scroll_into_view_if_needed(timeout=timeout_ms)
    for step in case.steps:
        if step.focus is not None:
            target = root.locator(step.focus).first
            target.focus(timeout=timeout_ms)
            focused = target.evaluate("(el) => el === document.activeElement")
            assert focused, f"{case.notebook}, {step.label}: {step.focus} did not take focus"
            for key in step.keys:
                if isinstance(key, Typed):
                    page.keyboard.type(key.text)
                else:
                    page.keyboard.press(key)
        wait_for_step(page, case, step, timeout_ms)


# ----------------------------------------------------------------------------- expected views

# The book's embeddings and printed figures come from tests/book.py (typed in once for
# every test module), so that the expectations do not come from the code under test.
BOOK_SENTENCE = " ".join(book.TOKENS)
TOKENS = tuple(book.TOKENS)
INPUTS = torch.tensor(book.BOOK_INPUTS)
SCORES = INPUTS @ INPUTS.T
# True above the diagonal: the keys after each query, hidden by the causal mask.
ABOVE = torch.triu(torch.ones(len(TOKENS), len(TOKENS), dtype=torch.bool), diagonal=1)
WEIGHTS = torch.softmax(SCORES, dim=-1)
CAUSAL_WEIGHTS = torch.softmax(SCORES.masked_fill(ABOVE, float("-inf")), dim=-1)

# The book's printed values (chapter 3) for three queries of the QueryExplorer: their
# weights (those of queries 0 and 2 are printed in the book's attention matrix) and
# context vectors.
BOOK_QUERIES: dict[int, tuple[tuple[float, ...], tuple[float, ...]]] = {
    0: ((0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452), tuple(book.ALL_CONTEXT_VECS[0])),
    1: (tuple(book.JOURNEY_WEIGHTS), tuple(book.JOURNEY_CONTEXT)),
    2: ((0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565), tuple(book.ALL_CONTEXT_VECS[2])),
}
BOOK_SCORE_0_1 = book.SCORE_0_1
# Causal weights of "journey": it sees "Your" and itself only.
CAUSAL_ROW_1 = (0.3680, 0.6320, 0.0, 0.0, 0.0, 0.0)

HEATMAP = "table.attnlib-heatmap"
GRID = f'{HEATMAP} td[data-row][data-col]:not([data-row="sum"]):not([data-col="sum"])'
ROW_SUMS = f'{HEATMAP} td[data-col="sum"]'
# The column labels: the header row's cells, without its corner and its "row sum".
COLUMN_TOKENS = f"{HEATMAP} tr:first-of-type th:not(:first-child):not(.attnlib-total)"
MASKED = f"{HEATMAP} td.attnlib-masked"
BARS = ".attnlib-bars div[data-col] > span:last-child"
ERROR = ".attnlib-status .attnlib-error"


def row_cells(i: int) -> str:
    """The weights of row ``i`` (not its sum)."""
    return f'{HEATMAP} td[data-row="{i}"][data-col]:not([data-col="sum"])'


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
            Expect(ROW_SUMS, _floats(weights.sum(dim=1))),
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
            Expect(BARS, weights),
            # The formula lists the weights, then the context vector they give.
            Expect(".attnlib-formula", weights + context),
        ),
        focus,
        keys,
        ((".attnlib-token", f"x({query}) = {TOKENS[query]!r}"),),
    )


def attention_step(
    query: int,
    causal: bool,
    focus: str | None = None,
    keys: tuple[str | Typed, ...] = (),
    label: str = "",
) -> Step:
    """AttentionExplorer on the book's sentence (no heads, dim=-1, temperature 1).

    The whole weights grid, every row summing to 1, the query's highlighted row,
    bars and context vector; with ``causal``, exactly the cells above the diagonal
    masked, each showing a weight of 0; without, no masked cell.
    """
    weights = CAUSAL_WEIGHTS if causal else WEIGHTS
    row, context = weights[query], weights[query] @ INPUTS
    n = len(TOKENS)
    expect = [
        Expect(GRID, _floats(weights)),
        Expect(ROW_SUMS, (1.0,) * n),
        Expect(f'{HEATMAP} tr.attnlib-highlight-row[data-row="{query}"] td', _floats(row) + (1.0,)),
        Expect(BARS, _floats(row)),
        # "z(token) = w0·x(Your) + ... = [context]": the weights, then the context vector.
        Expect(".attnlib-formula", _floats(row) + _floats(context), part=True),
    ]
    absent = [ERROR]
    if causal:
        upper = ", ".join(
            f'{MASKED}[data-row="{i}"][data-col="{j}"]' for i, j in ABOVE.nonzero().tolist()
        )
        hidden = (0.0,) * int(ABOVE.sum())
        expect += [Expect(MASKED, hidden), Expect(upper, hidden)]
    else:
        absent.append(MASKED)
    return Step(
        label or f"query {query} ({TOKENS[query]!r}), causal {'on' if causal else 'off'}",
        tuple(expect),
        focus,
        keys,
        texts=((".attnlib-token", f"x({query}) = {TOKENS[query]!r}"),),
        lists=((COLUMN_TOKENS, TOKENS),),
        absent=tuple(absent),
    )


def sentence_step(
    label: str,
    tokens: tuple[str, ...],
    query: int,
    twins: tuple[int, int],
    focus: str | None = None,
    keys: tuple[str | Typed, ...] = (),
    error: str = "",
) -> Step:
    """AttentionExplorer on a sentence of random embeddings, causal mask off.

    Its values come from ``attnlib.embed``, so they are not computed here: the
    columns are ``tokens``, there is one row per token and each sums to 1, and the
    rows of ``twins``, two tokens of one word, are identical (same vector, same
    scores). ``error``: a substring of the error shown (none when "").
    """
    a, b = twins
    return Step(
        label,
        (Expect(ROW_SUMS, (1.0,) * len(tokens)),),
        focus,
        keys,
        texts=((".attnlib-token", f"x({query}) = {tokens[query]!r}"),)
        + (((ERROR, error),) if error else ()),
        lists=((COLUMN_TOKENS, tokens), (control("query", ".widget-readout"), (str(query),))),
        same=((row_cells(a), row_cells(b)),),
        absent=(MASKED,) + (() if error else (ERROR,)),
    )


def _replace(text: str) -> tuple[str | Typed, ...]:
    """Keys that replace a text box's content with ``text`` and apply it (Enter)."""
    typed: tuple[str | Typed, ...] = (Typed(text),) if text else ()
    return ("ControlOrMeta+a", "Delete", *typed, "Enter")


LOOP_STEPPER_01 = ExplorerCase(
    "01_scores_loops.ipynb",
    ".attnlib-explorer.attnlib-loop-stepper",
    (
        loop_step(0),
        loop_step(1, slider("step"), ("ArrowRight",)),
        loop_step(7, slider("step"), ("ArrowRight",) * 6),
        loop_step(35, slider("step"), ("End",)),
    ),
)
SOFTMAX_AXIS_03 = ExplorerCase(
    "03_softmax_weights.ipynb",
    ".attnlib-explorer.attnlib-softmax-explorer",
    (
        softmax_step(-1),
        # A toggle button is pressed from the keyboard with Space (or Enter).
        softmax_step(0, toggle("dim", "dim=0"), ("Space",)),
        softmax_step(-1, toggle("dim", "dim=-1"), ("Enter",)),
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
# AttentionExplorer(causal=True): the book's sentence, simplified attention, query 1.
CAUSAL_EXPLORER_06 = ExplorerCase(
    "06_causal_attention.ipynb",
    ".attnlib-explorer.attnlib-attention-explorer",
    (
        attention_step(1, causal=True),
        attention_step(3, causal=True, focus=slider("query"), keys=("ArrowRight",) * 2),
        # A checkbox is ticked or unticked from the keyboard with Space.
        attention_step(3, causal=False, focus=checkbox("causal"), keys=("Space",)),
        attention_step(1, causal=False, focus=slider("query"), keys=("Home", "ArrowRight")),
    ),
)
# The notebook's first explorer, `explorer`, as its last code cells leave it: the
# sentence "The cat sat on the mat.", query 4 (the second "the"), causal off, dim=-1,
# temperature 1. (08 also shows `two_heads`, a two-head explorer, after it.)
THE_CAT = ("The", "cat", "sat", "on", "the", "mat", ".")
THE_DOG = ("The", "dog", "saw", "the", "cat", ".")
SENTENCE_EXPLORER_08 = ExplorerCase(
    "08_explorer.ipynb",
    ".attnlib-explorer.attnlib-attention-explorer",
    (
        sentence_step("as the notebook leaves it", THE_CAT, 4, (0, 4)),
        # A shorter sentence: the query stays 4, now "cat"; "The"/"the" are rows 0 and 3.
        sentence_step(
            "typed 'The dog saw the cat.'",
            THE_DOG,
            4,
            (0, 3),
            text_box("sentence"),
            _replace("The dog saw the cat."),
        ),
        sentence_step(
            "typed an empty sentence",
            THE_DOG,
            4,
            (0, 3),
            text_box("sentence"),
            _replace(""),
            error="expected at least one word",
        ),
        # The book's sentence, typed, brings back the book's embeddings: exact numbers again.
        attention_step(
            4,
            causal=False,
            focus=text_box("sentence"),
            keys=_replace(BOOK_SENTENCE),
            label=f"typed {BOOK_SENTENCE!r}",
        ),
    ),
    nth=0,
    count=2,
)
