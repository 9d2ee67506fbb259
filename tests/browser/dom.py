"""Where things are in an explorer's DOM: CSS selectors of its controls, heatmap and text.

Controls are found by their CSS class ``attnlib-control-<attribute>`` (see
:func:`control`), not by their label text; the heatmap's cells by their
``data-row`` / ``data-col`` (see ``attnlib.widgets``).
"""

from __future__ import annotations

from typing import Any


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


HEATMAP = "table.attnlib-heatmap"
GRID = f'{HEATMAP} td[data-row][data-col]:not([data-row="sum"]):not([data-col="sum"])'
ROW_SUMS = f'{HEATMAP} td[data-col="sum"]'
COLUMN_SUMS = f'{HEATMAP} td[data-row="sum"]'
# The column labels: the header row's cells, without its corner and its "row sum".
COLUMN_TOKENS = f"{HEATMAP} tr:first-of-type th:not(:first-child):not(.attnlib-total)"
MASKED = f"{HEATMAP} td.attnlib-masked"
BARS = ".attnlib-bars div[data-col] > span:last-child"
ERROR = ".attnlib-status .attnlib-error, .attnlib-status-beside .attnlib-error"
FORMULA = ".attnlib-formula"
TOKEN = ".attnlib-token"


# A JS function: the text a node shows. The numbers of a heatmap's or a blend's cells are
# drawn on the canvas beneath the table (its underlay) and name their cell (aria-label): both
# must agree, else the text says what each holds (and so reads as two numbers, which no
# expected list matches).
SHOWN_TEXT = """(node) => {
    const layer = node.attnlibLayer;
    if (!layer || node.attnlibIndex === undefined) return node.textContent;
    const drawn = layer.texts[node.attnlibIndex];
    const named = node.getAttribute("aria-label") || "";
    return named.split(" ")[0] === drawn ? named : `drawn ${drawn}, named ${named}`;
}"""


def row_cells(i: int) -> str:
    """The weights of row ``i`` (not its sum)."""
    return f'{HEATMAP} td[data-row="{i}"][data-col]:not([data-col="sum"])'


def highlighted_row(i: int) -> str:
    """The cells of row ``i`` when it is the highlighted one (the query's), its sum included."""
    return f'{HEATMAP} tr.attnlib-highlight-row[data-row="{i}"] td'


def highlighted_cell(i: int, j: int) -> str:
    """Cell ``(i, j)`` when it is the highlighted one (the loop's current cell)."""
    return f'td.attnlib-highlight-cell[data-row="{i}"][data-col="{j}"]'


def masked_cells(cells: list[tuple[int, int]]) -> str:
    """Any of ``cells``, each ``(row, col)``, that is masked."""
    return ", ".join(f'{MASKED}[data-row="{i}"][data-col="{j}"]' for i, j in cells)


# A message is beside its control when its box starts under (or over) the control's columns
# and at most this far above or below it: in sight with the control, not under the drawing.
BESIDE_PX = 80


def assert_beside(control: Any, message: Any, where: str) -> None:
    """The visible ``message`` (a Playwright locator) is right beside ``control``: their boxes
    share some columns and the vertical gap between them is under :data:`BESIDE_PX`."""
    c, m = control.bounding_box(), message.bounding_box()
    assert c and m and m["height"] > 0, f"{where}: not shown ({c}, {m})"
    gap = max(m["y"] - (c["y"] + c["height"]), c["y"] - (m["y"] + m["height"]), 0)
    shared = min(c["x"] + c["width"], m["x"] + m["width"]) - max(c["x"], m["x"])
    assert gap < BESIDE_PX and shared > 0, f"{where}: {gap:.0f} px away, control {c}, message {m}"


# The explorers' sliders whose handle, at the start of its track, would cover the end of the
# slider's name: [name, pixels covered] each (ipywidgets leaves half a 16 px handle; the
# explorers' handles are 24 px).
HANDLES_OVER_NAMES = """() => [...document.querySelectorAll('.attnlib-explorer .widget-hslider')]
    .filter((s) => s.querySelector('.noUi-handle') && s.offsetParent)
    .map((s) => {
        const name = s.querySelector('.widget-label').getBoundingClientRect();
        const track = s.querySelector('.slider-container').getBoundingClientRect();
        const handle = s.querySelector('.noUi-handle').getBoundingClientRect();
        return [s.querySelector('.widget-label').textContent,
                name.right - (track.left - handle.width / 2)];
    })
    .filter(([, over]) => over > 0.5)"""
