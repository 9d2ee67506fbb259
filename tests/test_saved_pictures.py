"""Where no widget code runs (GitHub, `jupyter nbconvert --to html` without scripts), each
explorer shows its picture: the state it was saved in, its title and labels whole.

The notebooks keep no widget state (nbconvert and GitHub would prefer the widget's empty
view to its picture); `make notebooks` saves it beside them, in notebooks/.widget-state/,
for `make site`. The browser's side (JupyterLab opening a committed notebook) is in
tests/browser/test_lab.py.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import io
import json
import re
import weakref
from itertools import combinations
from types import ModuleType
from typing import Any

import nbformat
import pytest
import torch
from course import NOTEBOOKS, ROOT
from nbconvert import HTMLExporter
from pictures import drawn_texts as _texts
from PIL import Image

from attnlib import widgets
from attnlib.widgets import base, figures

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_notebooks = _tool("run_notebooks")


def _explorer_outputs(nb: nbformat.NotebookNode) -> list[dict]:
    return [
        output["data"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if WIDGET_VIEW in output.get("data", {})
    ]


WITH_EXPLORERS = [p for p in NOTEBOOKS if _explorer_outputs(nbformat.read(p, as_version=4))]


# ----------------------------------------------------------------------------- the notebooks


def test_the_notebooks_with_explorers_are_found():
    names = {p.name[:2] for p in WITH_EXPLORERS}
    assert {"01", "03", "04", "06", "07", "08", "10"} <= names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_keeps_no_widget_state_and_its_state_file_covers_its_explorers(path):
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata, f"{path.name}: run make notebooks"
    assert "_esm" not in path.read_text(), path.name  # no front-end code in a notebook
    state_file = run_notebooks.widget_state_path(path)
    shown = {data[WIDGET_VIEW]["model_id"] for data in _explorer_outputs(nb)}
    if not shown:
        assert not state_file.exists(), f"{state_file.name} left for a notebook with no explorer"
        return
    saved = json.loads(state_file.read_text())
    assert shown <= set(saved["state"]), f"{state_file.name}: run make notebooks"
    # No front-end code saved: `make site` puts in the current one.
    assert not [k for m in saved["state"].values() for k in m["state"] if k in ("_esm", "_css")]


@pytest.mark.parametrize("path", WITH_EXPLORERS, ids=lambda p: p.name)
def test_nbconvert_html_without_scripts_shows_a_picture_per_explorer(path):
    nb = nbformat.read(path, as_version=4)
    shown = _explorer_outputs(nb)
    body, _ = HTMLExporter().from_notebook_node(nb)
    without_scripts = re.sub(r"<script\b.*?</script>", "", body, flags=re.S)
    pictures = set(re.findall(r'<img\b[^>]*\bsrc="data:image/png;base64,([^"]+)"', without_scripts))
    assert WIDGET_VIEW not in body, f"{path.name}: nbconvert chose a widget view"
    missing = [k for k, data in enumerate(shown) if data["image/png"].strip() not in pictures]
    assert not missing, f"{path.name}: explorers {missing} show no picture"


def _png(data: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(data["image/png"])))


@pytest.mark.parametrize("path", WITH_EXPLORERS, ids=lambda p: p.name)
def test_each_explorer_picture_is_at_twice_the_screens_density(path):
    from attnlib.widgets import TrainingExplorer

    for data in _explorer_outputs(nbformat.read(path, as_version=4)):
        picture = _png(data)
        if data["text/plain"].startswith("TrainingExplorer:"):
            # Lighter, to stay within notebook 10's memory: 1.4 times a screen's pixels, a
            # grid of colours (no numbers to read) about 670 px wide.
            assert TrainingExplorer._picture_dpi == 100
            assert picture.info.get("dpi", (0,))[0] == pytest.approx(100, abs=1)
            assert picture.width >= 650, (path.name, picture.size)
            continue
        # 144 dpi, and wide enough that its 10 pt title is about 20 px tall.
        assert picture.info.get("dpi", (0,))[0] == pytest.approx(figures.PNG_DPI, abs=1)
        assert picture.width >= 1000, (path.name, picture.size)


def test_08s_pictures_show_the_state_the_notebook_left():
    """The cells after `dogs` move its query to 4: the picture is of query 4, not of 1."""
    import matplotlib

    lock = (ROOT / "requirements-lock.txt").read_text()
    locked = re.search(r"^matplotlib==(\S+)$", lock, re.M).group(1)
    if matplotlib.__version__ != locked:  # the committed PNG's bytes are matplotlib's
        pytest.skip(f"PNG bytes are pinned to matplotlib {locked}, here {matplotlib.__version__}")
    nb = nbformat.read(ROOT / "notebooks" / "08_explorer.ipynb", as_version=4)
    dogs = _explorer_outputs(nb)[1]
    explorer = widgets.AttentionExplorer("the dog saw the dog", query=1)
    first = explorer._still()
    explorer.query.value = 4
    assert dogs["image/png"].strip() == explorer._still() != first


# ----------------------------------------------------------------------------- the mechanism


@pytest.fixture
def none_shown(monkeypatch):
    """No explorer shown yet in this process: saved_pictures() draws every explorer shown so
    far, and the other tests of a pytest worker show dozens (half a minute of drawing)."""
    monkeypatch.setattr(base, "_SHOWN", weakref.WeakValueDictionary())


def test_the_saved_picture_follows_the_explorer_after_it_is_shown(none_shown):
    explorer = widgets.QueryExplorer()
    shown = explorer._repr_mimebundle_()
    model_id = shown[WIDGET_VIEW]["model_id"]
    explorer.query.value = 4
    pictures = base.saved_pictures()
    assert pictures[model_id] == explorer._still() != shown["image/png"]


def test_an_explorer_never_shown_has_no_saved_picture(none_shown):
    explorer = widgets.QueryExplorer()
    assert explorer.widget.model_id not in base.saved_pictures()


def test_make_notebooks_puts_each_picture_in_its_explorers_output():
    view = {WIDGET_VIEW: {"model_id": "a"}, "image/png": "old", "text/plain": "x"}
    other = {WIDGET_VIEW: {"model_id": "b"}, "image/png": "kept"}
    figure = {"image/png": "a figure's own"}
    outputs = [nbformat.v4.new_output("display_data", data=d) for d in (view, other, figure)]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=outputs)])
    run_notebooks.with_saved_pictures(nb, {"a": "new", "c": "nobody's"})
    pictures = [o["data"]["image/png"] for o in nb.cells[0].outputs]
    assert pictures == ["new", "kept", "a figure's own"]


def test_the_widget_state_moves_beside_the_notebook(tmp_path):
    path = tmp_path / "01_x.ipynb"
    state = {"version_major": 2, "version_minor": 0, "state": {"m": {"state": {"v": 1}}}}
    nb = nbformat.v4.new_notebook(metadata={"widgets": {WIDGET_STATE: state}})
    run_notebooks.save_widget_state(nb, path)
    assert "widgets" not in nb.metadata
    assert json.loads(run_notebooks.widget_state_path(path).read_text()) == state
    # Run again without explorers: no stale state is left behind.
    run_notebooks.save_widget_state(nbformat.v4.new_notebook(), path)
    assert not run_notebooks.widget_state_path(path).exists()


# ----------------------------------------------------------------------------- legible pictures


EXPLORERS = {
    "06 causal": lambda: widgets.AttentionExplorer(causal=True),
    "07 two heads": lambda: widgets.AttentionExplorer(num_heads=2, d_out=4, query=2),
    "08 sentence": lambda: widgets.AttentionExplorer("Time flies like an arrow.", query=0),
    "04 query": lambda: widgets.QueryExplorer(),
    "03 softmax": lambda: widgets.SoftmaxAxisExplorer(),
    "01 loop": lambda: widgets.LoopStepper(),
}


@functools.cache
def _drawn(name: str) -> tuple[list, Any]:
    """The texts of explorer ``name``'s picture with their boxes, and the picture's own box:
    drawn once for the two tests below, which read different things in it."""
    fig = EXPLORERS[name]().figure()
    return _texts(fig), fig.bbox.frozen()


@pytest.mark.parametrize("name", EXPLORERS)
def test_no_text_of_a_picture_is_clipped_or_overlaps_another(name):
    boxes, page = _drawn(name)
    outside = [text for text, box in boxes if box.x0 < page.x0 - 1 or box.x1 > page.x1 + 1]
    outside += [text for text, box in boxes if box.y0 < page.y0 - 1 or box.y1 > page.y1 + 1]
    assert not outside, f"clipped by the picture's edge: {outside}"
    crossing = [(a, b) for (a, p), (b, q) in combinations(boxes, 2) if p.overlaps(q)]
    assert not crossing, f"texts drawn over each other: {crossing}"


@pytest.mark.parametrize("name", EXPLORERS)
def test_each_axis_name_is_written_once(name):
    axis_names = ("attention weight", "attention score")
    names = [text for text, _ in _drawn(name)[0] if text in axis_names]
    assert len(names) == len(set(names)), names


def test_a_long_sum_breaks_before_its_result():
    # Ten terms (x⁽¹⁾ ... x⁽¹⁰⁾) do not fit the figure's width on one line.
    explorer = widgets.AttentionExplorer("a b c d e f g h i j", causal=True, query=9)
    lines = explorer.figure()._suptitle.get_text().splitlines()
    context = "[" + ", ".join(f"{v:.4f}" for v in explorer.view.context.tolist()) + "]"
    assert len(lines) >= 2 and lines[-1] == context, lines


def test_a_long_sentences_picture_keeps_its_numbers_apart():
    """16 tokens (notebook 10's): heatmap above the bars, no number over another."""
    sentence = "I HAD always thought Jack Gisburn rather a cheap genius -- though a good fellow"
    explorer = widgets.AttentionExplorer(sentence, causal=True, query=3)
    boxes = _texts(explorer.figure())
    crossing = [(a, b) for (a, p), (b, q) in combinations(boxes, 2) if p.overlaps(q)]
    assert not crossing, f"texts drawn over each other: {crossing[:5]}"


def test_the_still_picture_says_how_to_bring_the_explorer_to_life():
    """The picture a page without widgets shows is the view with a line under it: run the
    cell. Its strip makes it taller than the view's own figure by the strip's height."""
    explorer = widgets.QueryExplorer()
    plain = Image.open(io.BytesIO(base64.b64decode(figures.png(explorer.figure()))))
    still = Image.open(io.BytesIO(base64.b64decode(explorer._still())))
    assert still.width == plain.width
    assert still.height == plain.height + round(figures.HINT_INCHES * figures.PNG_DPI)
    fig = figures.with_hint(explorer.figure())
    assert any("run this cell" in t.get_text() for t in fig.texts)


def _savefig_pixels(fig, dpi: int) -> Image.Image:
    """``fig`` as matplotlib's own PNG draws it, to the palette the still pictures use."""
    rendered = io.BytesIO()
    fig.savefig(rendered, format="png", dpi=dpi)
    image = Image.open(rendered).convert("RGB")
    return image.quantize(64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


STILLS = {
    "query, layout engine": lambda: widgets.QueryExplorer(),
    "loop, long tokens": lambda: widgets.LoopStepper(
        torch.rand(6, 3, generator=torch.Generator().manual_seed(0)), ["w" * 15, *"bcdef"]
    ),
    "training, fixed margins": lambda: widgets.TrainingExplorer(
        torch.full((2, 1, 2, 4, 4), 0.25), ["a", "b", "c", "d"], [0, 10]
    ),
}


@pytest.mark.parametrize("name", STILLS)
def test_a_still_picture_has_the_pixels_savefig_draws(name):
    """png() lays out and draws its own way (cheaper): the pixels are matplotlib's PNG's."""
    explorer = STILLS[name]()
    ours = figures.with_hint(explorer.figure())
    dpi = explorer._picture_dpi
    still = Image.open(io.BytesIO(base64.b64decode(figures.png(ours, dpi))))
    theirs = _savefig_pixels(figures.with_hint(explorer.figure()), dpi)
    assert still.size == theirs.size
    assert still.convert("RGB").tobytes() == theirs.convert("RGB").tobytes()
    # The figure is left as it was: its resolution, and its layout engine for a next drawing.
    assert ours.dpi == explorer.figure().dpi
    assert type(ours.get_layout_engine()) is type(explorer.figure().get_layout_engine())
