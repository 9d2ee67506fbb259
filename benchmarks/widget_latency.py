"""Key press to painted numbers, for every control of every explorer, in headless Chromium.

    python benchmarks/widget_latency.py [--presses N]

JupyterLab runs a notebook that shows each explorer twice: drawn in the browser
(as shipped: the controls reach the drawing through ``jsdlink``) and through the
kernel (``kernel_round_trip`` of ``benchmarks/round_trip.py``: each move goes to the kernel,
which sends the new value back to the drawing, as the explorers worked before).
For each control, ``N`` key presses are timed from the key event that acts (the
``keydown`` of an arrow or of Enter on a toggle button; the ``keyup`` of Space on
the checkbox, which browsers tick when Space is released) to the frame that shows
the first change of the explorer's drawing (a MutationObserver, then one animation
frame) painted: a task posted from that frame's animation callback, which runs once
the frame's style, layout and paint are done and committed to the compositor. (Until
2026-12-02 the time stopped at the animation callback, before that frame's style,
layout and paint; each line still gives it, as "frame".) Presses are 250 ms apart,
each after the previous one is drawn. Both
ways are measured with no added delay and
with every kernel message delayed by 100 ms each way (a Binder-like link,
through Playwright's ``route_web_socket``).

Not timed: ``play`` (it steps on a 500 ms timer), ``sentence`` (a new
sentence is computed by the kernel in both ways) and the TrainingExplorer's head
(a drop-down, whose keys are the platform's; it redraws as its snapshot slider does).

Full size: the same notebook also shows every explorer at its largest (32 tokens,
64 dimensions, 16 heads where it has heads; the TrainingExplorer with 16 heads), drawn
in the browser; its controls are timed the same way, with and without the delay.

The floor: the same notebook shows, first, a slider that moves one number drawn as text
by an anywidget of a few lines, through ``jsdlink``: the explorers' path from a key to
their drawing with nothing of theirs to draw. It is timed the same way, a few presses
(``FLOOR_BURST``) after each control of each explorer, so that the floor meets the same
moments of the run as the controls do (Lab's own work, the machine's load). Timed in one block
after the explorers, as until 2026-12-03, its p95 moved between 14.3 and 18.6 ms over five
runs on 2026-12-03 (its own code unchanged), more than the explorers' changes it was to judge.
It is
what a control costs here (Lab's frame, the slider, the link, waiting for the display's
next frame) before an explorer draws anything.

Prints one line per control and way, then, last:
``median_ms= p95_ms= roundtrip_median_ms= roundtrip_100ms_median_ms= speedup_100ms=
full_size_median_ms= full_size_p95_ms= floor_median_ms= floor_p95_ms=
full_size_p95_over_floor=``: the in-browser median and 95th percentile
over all presses with and without the delay (the course's sentence), the kernel round
trip's medians, the round trip's median with the delay over the in-browser median with
it, the full-size explorers' median and 95th percentile (with and without the
delay), the floor's, and the full-size p95 over the floor's. Targets: median <= 8 ms,
p95 <= 16 ms, speedup >= 10, full-size p95 <= 16.7 ms (one frame).

Note (where a full-size move's time goes, Chromium without a GPU, a 32 x 32 grid whose
every number changes: softmax axis, mask, head, temperature). When each cell was an
element with its number and a colour class: script 3-6 ms, style 5-8 ms (1,036
elements), layout 8-14 ms (2,173 objects: a table lays out all its cells again), paint
5-6 ms, layerize 4-5 ms, commit 1-3 ms. Now (from 128 cells) the fills and numbers are
pixels of a canvas beneath the grid, as wide as the box in sight (``underlay.js``), and
nothing a move changes is inside a table's layout: captions are boxes before their
tables, labels that change with the query are stacked texts of which one is visible,
bars are a fixed track scaled. Traced in JupyterLab (2026-12-02): style under 1 ms, layout
2-5 ms (the bars' values and the formula's numbers; 150 objects), paint 1-3 ms,
layerize 2-4 ms and commit 1-3 ms (Lab's page, every frame), the key's handler 3-10 ms
(the slider, the link, the drawing). The p95 of this benchmark on a two-core machine
moves by more than any of these phases between runs: compare runs back to back, and
more than one pair, and read the floor's line of the same run.
Traced again (2026-12-03, CDP tracing of 8 presses, the trace's own cost included): a query
move of the 32-token QueryExplorer took the key's handler 6.6 ms (the slider, the link, the
drawing; 4 ms of it the blend's canvas: 600 numbers, the cells in its box, 1,000-1,700 px
under the window here, as the timed slider sits at the window's foot), then its frame:
style 0.3-1 ms, layout 1.6-2 ms, prepaint 1-2 ms, paint 3-4 ms (the explorer's layer walked
again, 2 ms, the grid's scroller 1 ms of it: the query's row label), layerize 2.3-2.6 ms,
commit 1.5-3.5 ms (0.4 ms per canvas near sight, in every frame). A box with
``content-visibility: auto`` 1,600 px under a 1,000 px window is still rendered by Chromium:
that does not skip the panels. A canvas over half a window out of sight is not drawn now
(``underlay.js``): the query move's handler 4.3 ms, the AttentionExplorer's axis flip's
drawing 6.4 -> 3.4 ms (profiled). Chromium also handed every 2D canvas on the page to the
compositor again in every frame that changed anything (0.4 ms each, 3-4 canvases near sight:
7-9 ms per press over its 2-3 frames, traced); the numbers are now drawn off the page and
shown as an ImageBitmap in a "bitmaprenderer" canvas, handed over only when it changes
(per press, the commit's layer updates 8.2 ms -> under 1 ms). What is left is the frame's
fixed part (layerize, commit) and the paint of a layer as tall as the explorer.
Traced again (2026-12-03 evening, 12 presses, medians, before -> after): the 32-token
AttentionExplorer's dim flip took the key's handler 9-10 ms (the grid's canvas 4-5 ms of it,
3 ms the raster of its cells: drawing them straight onto the bitmap handed over, not on a
paper then copied, was no faster and was dropped), style 1.7 -> 1.2 ms, layout 3.7 -> 2.7,
prepaint 1, paint 2.6-2.9, layerize 2.2-2.5, commit 1.2; its causal toggle style 1.3 -> 0.7,
layout 2.7 -> 1.8. Before, a flip rebuilt the whole formula (its weight line changes form:
the sum runs over the other index), and wrote the 64 sums' titles (each restyled its cell);
now only a line of a new form is drawn anew, and a sum's title is written once the pointer
is on it. Row labels not sticky, or marks not composited, moved layerize by less than
the noise.
Explorers out of sight are not rendered (``content-visibility: auto``): each control is
scrolled into view before it is timed, so the explorer timed is always one in sight.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the browser layer's server and Chromium settings

from browser import servers  # noqa: E402
from browser.gate import browser_gate  # noqa: E402
from browser.pages import CACHE, CHROMIUM_ARGS, chromium_env  # noqa: E402

DELAY_S = 0.1
TIMEOUT_MS = 5_000
# Between presses, after the previous one is drawn: about four a second, a reader's pace.
# (Presses a few frames apart land while Lab still draws the previous one's kernel traffic,
# and then wait for the frame cadence, 16.7 ms, whatever draws them.)
GAP_MS = 250
NOTEBOOK = "latency.ipynb"
KINDS = ("loop-stepper", "softmax-explorer", "query-explorer", "attention-explorer")
WAYS = ("browser", "kernel")
# The explorers at their largest, drawn in the browser: root class "bench-full".
FULL = "full"
FULL_KINDS = KINDS + ("training-explorer",)

# One explorer of each kind per way; the root of each carries the class "bench-<way>".
CELLS = [
    (Path(__file__).resolve().parent / "round_trip.py").read_text(),  # defines kernel_round_trip
    "from attnlib.widgets import AttentionExplorer, LoopStepper, QueryExplorer, "
    "SoftmaxAxisExplorer",
    """def explorers(way):
    made = [LoopStepper(), SoftmaxAxisExplorer(), QueryExplorer(), AttentionExplorer(num_heads=2)]
    for explorer in made:
        explorer.widget.add_class(f"bench-{way}")
        if way == "kernel":
            kernel_round_trip(explorer)
    return made""",
    """def full_size():
    import torch
    from attnlib.attention import causal_mask
    from attnlib.data import embed
    from attnlib.widgets import TrainingExplorer
    # 32 distinct tokens, the most an explorer accepts; 64 dimensions, the widest it writes out.
    sentence = " ".join(f"w{k}" for k in range(32))
    tokens, inputs = embed(sentence, d=64)
    torch.manual_seed(0)
    scores = torch.randn(21, 2, 8, 32, 32) * 3
    snapshots = torch.softmax(scores.masked_fill(causal_mask(32), -torch.inf), dim=-1)
    made = [
        LoopStepper(inputs, tokens),
        SoftmaxAxisExplorer(inputs @ inputs.T / 8, tokens),
        QueryExplorer(inputs / 4, tokens),
        AttentionExplorer(sentence, num_heads=16, d_out=64),
        TrainingExplorer(snapshots, tokens, [10 * k for k in range(21)]),
    ]
    for explorer in made:
        explorer.widget.add_class("bench-full")
    return made""",
    """import anywidget
import ipywidgets
import traitlets


class Floor(anywidget.AnyWidget):
    # One number written as text, nothing of the explorers': what any control costs here.
    _esm = '''export default { render({ model, el }) {
        const view = document.createElement("div");
        view.className = "bench-floor-view";
        view.append(document.createTextNode(""));
        const draw = () => { view.firstChild.data = String(model.get("value")); };
        draw();
        model.on("change:value", draw);
        el.append(view);
    } };'''
    value = traitlets.Int(0).tag(sync=True)


def floor():
    # The explorers' path from a key to their drawing: an ipywidgets slider, jsdlink, an
    # anywidget's model and view.
    slider = ipywidgets.IntSlider(value=0, min=0, max=31)
    slider.add_class("attnlib-control-value")
    shown = Floor()
    ipywidgets.jsdlink((slider, "value"), (shown, "value"))
    box = ipywidgets.VBox([slider, shown])
    box.add_class("bench-floor")
    box.add_class("attnlib-floor")
    return box""",
    "for explorer in [floor()] + explorers('browser') + explorers('kernel') + full_size():\n"
    "    display(explorer)",
]


@dataclass(frozen=True)
class Control:
    """A control of explorer ``kind`` and the keys that move it back and forth.

    ``focus``: the element taking the keys; ``keys``: pressed in turn, each one a
    change; ``start``: pressed first, untimed, to leave the ends of a slider;
    ``acts_on``: the key event that moves the control; ``view``: the drawing watched.
    """

    kind: str
    name: str
    focus: str
    keys: tuple[str, ...]
    start: tuple[str, ...] = ()
    acts_on: str = "keydown"
    view: str = ".attnlib-view"


def _slider(kind: str, name: str) -> Control:
    return Control(
        kind, name, f".attnlib-control-{name} .noUi-handle", ("ArrowRight", "ArrowLeft"), ("Home",)
    )


CONTROLS = (
    _slider("loop-stepper", "step"),
    Control("softmax-explorer", "dim", ".attnlib-control-dim .widget-toggle-button", ("Enter",)),
    _slider("query-explorer", "query"),
    _slider("attention-explorer", "query"),
    Control("attention-explorer", "dim", ".attnlib-control-dim .widget-toggle-button", ("Enter",)),
    Control(
        "attention-explorer", "causal", ".attnlib-control-causal input", ("Space",), (), "keyup"
    ),
    _slider("attention-explorer", "temperature"),
)
FULL_CONTROLS = CONTROLS + (
    _slider("training-explorer", "snapshot"),
    _slider("training-explorer", "query"),
)
# The floor (root class "bench-floor"): a slider moving one number, timed as the controls are,
# this many presses after each control (23 a round: 92 presses, as many as the 4 N presses
# it had in one block, so that its p95 is not its largest time).
FLOOR = "floor"
FLOOR_BURST = 4
FLOOR_CONTROL = Control(
    "floor",
    "value",
    ".attnlib-control-value .noUi-handle",
    ("ArrowRight", "ArrowLeft"),
    ("Home",),
    view=".bench-floor-view",
)

# Resolves with [ms to the frame, ms to painted] from the next key event `acts`: the frame is
# the first animation frame after the drawing changed, whose callbacks run before that frame's
# style, layout and paint; painted is a task posted from that callback, which runs once the
# frame is laid out, painted and committed to the compositor.
_ARM = """([selector, watched, acts, timeout]) => {
    const view = document.querySelector(selector).querySelector(watched);
    window.__latency = new Promise((resolve) => {
        let start = null;
        const started = (e) => { start = e.timeStamp; };
        document.addEventListener(acts, started, {capture: true, once: true});
        const seen = new MutationObserver(() => {
            seen.disconnect();
            requestAnimationFrame(() => {
                const frame = performance.now();
                const after = new MessageChannel();
                after.port1.onmessage = () => resolve(
                    start === null ? null : [frame - start, performance.now() - start]);
                after.port2.postMessage(null);
            });
        });
        seen.observe(view, {subtree: true, childList: true, characterData: true, attributes: true});
        setTimeout(() => { seen.disconnect(); resolve(null); }, timeout);
    });
}"""


class Link:
    """The kernel's websockets, each message held back ``delay`` seconds (0: passed at once)."""

    def __init__(self) -> None:
        self.delay = 0.0

    def later(self, send):
        loop = asyncio.get_running_loop()

        def forward(message) -> None:
            if self.delay:
                loop.call_later(self.delay, send, message)
            else:
                send(message)

        return forward

    async def route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(self.later(server.send))
        server.on_message(self.later(ws.send))


def write_notebook(folder: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, folder / NOTEBOOK)


async def run_all(page, lab) -> None:
    """Open the notebook, wait for its kernel, Run All, wait for every explorer drawn."""
    await page.goto(f"{lab.url}lab/tree/{NOTEBOOK}?reset&token={lab.token}")
    await page.wait_for_selector(
        '.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=90_000
    )
    await page.wait_for_timeout(1_000)  # a Run All issued before the kernel settles is dropped
    await page.evaluate(
        "() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
    )
    await page.wait_for_function(
        "(n) => document.querySelectorAll('.attnlib-view table.attnlib-heatmap').length === n",
        arg=2 * len(KINDS) + len(FULL_KINDS),
        timeout=120_000,
    )


async def time_control(page, control: Control, way: str, presses: int) -> list[tuple[float, float]]:
    """``presses`` key presses on ``control`` of the ``way`` explorer, each timed (ms): to the
    frame that shows the change, and to that frame painted."""
    root = f".bench-{way}.attnlib-{control.kind}"
    buttons = page.locator(f"{root} {control.focus}")
    await buttons.first.scroll_into_view_if_needed()
    await buttons.first.focus()
    for key in control.start:
        await page.keyboard.press(key)
    await page.wait_for_timeout(300 if way == "kernel" else 50)
    times = []
    for k in range(presses):
        if control.name == "dim":  # a toggle: press the button not selected
            await buttons.nth(1 - k % 2).focus()
        await page.evaluate(_ARM, [root, control.view, control.acts_on, TIMEOUT_MS])
        await page.keyboard.press(control.keys[k % len(control.keys)])
        took = await page.evaluate("() => window.__latency")
        if took is None:
            raise RuntimeError(f"{root}: {control.name} drew nothing within {TIMEOUT_MS} ms")
        times.append(tuple(took))
        await page.wait_for_timeout(GAP_MS)
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


Times = dict[tuple[str, float], list[tuple[float, float]]]


def line(label: str, times: list[tuple[float, float]]) -> str:
    frame, painted = ([t[k] for t in times] for k in (0, 1))
    return (
        f"{label}: painted median {statistics.median(painted):6.1f} ms, p95 {p95(painted):6.1f} ms"
        f" (frame {statistics.median(frame):5.1f}, {p95(frame):5.1f})"
    )


def summary(results: Times, k: int) -> dict[str, float]:
    """The last line's figures, from each press's time to the frame (k=0) or to painted (k=1)."""
    of = {key: [t[k] for t in times] for key, times in results.items()}
    browser = of[("browser", 0.0)] + of[("browser", DELAY_S)]
    browser_delayed = statistics.median(of[("browser", DELAY_S)])
    roundtrip_delayed = statistics.median(of[("kernel", DELAY_S)])
    full = of[(FULL, 0.0)] + of[(FULL, DELAY_S)]
    floor = of[(FLOOR, 0.0)] + of[(FLOOR, DELAY_S)]
    return {
        "median_ms": statistics.median(browser),
        "p95_ms": p95(browser),
        "roundtrip_median_ms": statistics.median(of[("kernel", 0.0)]),
        "roundtrip_100ms_median_ms": roundtrip_delayed,
        "speedup_100ms": roundtrip_delayed / browser_delayed,
        "full_size_median_ms": statistics.median(full),
        "full_size_p95_ms": p95(full),
        "floor_median_ms": statistics.median(floor),
        "floor_p95_ms": p95(floor),
        "full_size_p95_over_floor": p95(full) / p95(floor),
    }


async def measure(presses: int, run_dir: Path) -> Times:
    from playwright.async_api import async_playwright

    gate = browser_gate(os.environ)
    if gate.chromium is None:
        sys.exit(gate.reason)
    folder = run_dir / "notebooks"
    folder.mkdir()
    write_notebook(folder)
    link, results = Link(), {}
    with servers.jupyterlab(folder, run_dir) as lab:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=gate.chromium,
                args=CHROMIUM_ARGS,
                env=chromium_env(os.environ, run_dir / "chromium-home"),
            )
            page = await browser.new_page(viewport={"width": 1400, "height": 1000})
            await page.route_web_socket(re.compile(r"/api/kernels/"), link.route)
            await run_all(page, lab)
            for delay in (0.0, DELAY_S):
                link.delay = delay
                floor = results.setdefault((FLOOR, delay), [])
                for way in (*WAYS, FULL):
                    for control in FULL_CONTROLS if way == FULL else CONTROLS:
                        times = await time_control(page, control, way, presses)
                        results[(way, delay)] = results.get((way, delay), []) + times
                        where = f"{way:7s} delay={delay * 1000:3.0f}ms {control.kind}"
                        print(line(f"{where}.{control.name}", times), flush=True)
                        floor += await time_control(page, FLOOR_CONTROL, FLOOR, FLOOR_BURST)
                where = f"{FLOOR:7s} delay={delay * 1000:3.0f}ms {FLOOR_CONTROL.kind}"
                print(line(f"{where}.{FLOOR_CONTROL.name}", floor), flush=True)
            await browser.close()
    return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=20, help="key presses per control")
    args = parser.parse_args(argv)
    (CACHE / "bench").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE / "bench") as tmp:
        results = asyncio.run(measure(args.presses, Path(tmp)))
    for (way, delay), times in sorted(results.items()):
        print(line(f"{way:7s} delay={delay * 1000:3.0f}ms every control", times))
    frame = summary(results, 0)
    print("to the frame: " + " ".join(f"{k}={v:.1f}" for k, v in frame.items()))
    print(" ".join(f"{k}={v:.1f}" for k, v in summary(results, 1).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
