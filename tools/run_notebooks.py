"""Re-execute every notebook in notebooks/ in place, top to bottom, in course order.

`make notebooks` calls this. Run twice, it writes the same bytes: timings are not
stored, and the widget state that keeps the explorers alive on exported pages is
pruned to the widgets shown and given ids numbered in order (see ``normalise``).
The explorers' front-end code (``_esm``, ``_css``) is not stored: `make site` puts
the current one back, so an edit to the JS changes no saved file.

The widget state is not kept in the notebook but beside it, in
``.widget-state/NN_name.json`` (see ``save_widget_state``): with no state in the notebook,
renderers that run no widget code (GitHub, ``jupyter nbconvert --to html``) show each
explorer's picture, and `make site` reads the state from there.

Usage: python tools/run_notebooks.py [NOTEBOOK ...]
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from attnlib.widgets.frontend import without_module

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # also when a test loads this file by its path
from lifetime import kernel_options  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# Outputs of cells with this tag change from run to run (timings); readers see their own.
VOLATILE_TAG = "volatile-output"
PROGRESS_DIR = "ATTNLIB_PROGRESS_DIR"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]{32})")
# Run after the last cell, in the same kernel: each shown explorer's picture of its state
# then, by model id (nothing if no explorer was imported). Its cell is not saved.
ASK_PICTURES = (
    "import json as _json, sys as _sys\n"
    "_base = _sys.modules.get('attnlib.widgets.base')\n"
    "print(_json.dumps(_base.saved_pictures() if _base else {}))\n"
)


def _references(value: Any) -> list[str]:
    """The model ids that a widget's state refers to ("IPY_MODEL_<id>"), in order."""
    return REFERENCE.findall(json.dumps(value, sort_keys=True))


def _shown_ids(nb: nbformat.NotebookNode) -> list[str]:
    """The model ids of the widget views in the outputs, in cell order."""
    return [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if WIDGET_VIEW in output.get("data", {})
    ]


def _kept_in_order(state: dict[str, Any], shown: list[str]) -> list[str]:
    """The widgets to keep, in a run-independent order.

    First every widget reachable from a shown one (depth first, in the order of
    their references), then the widgets that refer only to kept ones (the links
    between controls and views, which nothing refers to), and so on.
    """
    order: list[str] = []

    def visit(model_id: str) -> None:
        if model_id in state and model_id not in order:
            order.append(model_id)
            for ref in _references(state[model_id]):
                visit(ref)

    for model_id in shown:
        visit(model_id)
    grown = True
    while grown:
        extra = [
            model_id
            for model_id in state
            if model_id not in order
            and _references(state[model_id])
            and set(_references(state[model_id])) <= set(order)
        ]
        for model_id in extra:
            visit(model_id)
        grown = bool(extra)
    return order


def stable_widget_ids(nb: nbformat.NotebookNode) -> None:
    """Keep the widget state of the widgets shown only, with ids numbered in order.

    nbclient stores every widget ever created, under random ids. The ids become
    uuids derived from the notebook's order, so the same run gives the same bytes.
    """
    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if not widgets:
        return
    state = widgets["state"]
    kept = _kept_in_order(state, _shown_ids(nb))
    new_ids = {old: uuid.UUID(int=k + 1).hex for k, old in enumerate(kept)}

    def renamed(value: Any) -> Any:
        text = REFERENCE.sub(
            lambda m: f"IPY_MODEL_{new_ids.get(m.group(1), m.group(1))}", json.dumps(value)
        )
        return json.loads(text)

    widgets["state"] = without_module({new_ids[old]: renamed(state[old]) for old in kept})
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                view["model_id"] = new_ids[view["model_id"]]


def with_saved_pictures(nb: nbformat.NotebookNode, pictures: dict[str, str]) -> None:
    """Each explorer's ``image/png`` replaced by ``pictures[model_id]``, its state at the end.

    An explorer's display carries the picture taken when it was first shown; cells after it
    may move it (08 does), and the saved widget state is the state at the end of the run.
    """
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            view = data.get(WIDGET_VIEW)
            if view is not None and view["model_id"] in pictures and "image/png" in data:
                data["image/png"] = pictures[view["model_id"]]


def normalise(nb: nbformat.NotebookNode) -> None:
    """Drop what differs between identical runs, so `make notebooks` is repeatable."""
    widgets = nb.metadata.get("widgets")
    nb.metadata = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python", "pygments_lexer": "ipython3"},
    }
    if widgets:
        nb.metadata["widgets"] = widgets
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        if VOLATILE_TAG in cell.metadata.get("tags", []):
            cell.outputs = []
    stable_widget_ids(nb)


def widget_state_path(notebook: Path) -> Path:
    """Where the widget state of ``notebook`` is saved: ``.widget-state/<stem>.json`` beside it."""
    return notebook.parent / ".widget-state" / f"{notebook.stem}.json"


def save_widget_state(nb: nbformat.NotebookNode, path: Path) -> None:
    """Move ``nb``'s widget state out of it, into :func:`widget_state_path` of ``path``.

    nbconvert's HTML and GitHub prefer a widget's view to its picture when the notebook
    holds the widget's state, and without JavaScript that view is an empty box. A
    notebook without explorers leaves no file (and removes a stale one).
    """
    target = widget_state_path(path)
    widgets = nb.metadata.pop("widgets", {}).get(WIDGET_STATE)
    if not widgets or not widgets.get("state"):
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(widgets, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def run(path: Path, cwd: Path | None = None) -> None:
    """Execute ``path`` in place (working directory ``cwd``, default its folder), then normalise."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd or path.parent)}},
        record_timing=False,
        # One print can reach the client in several chunks, split differently from run to
        # run; merging consecutive stream outputs keeps the saved notebook repeatable.
        coalesce_streams=True,
        # The explorers' state, so that exported pages (make site) keep them alive.
        store_widget_state=True,
    )
    nb.cells.append(nbformat.v4.new_code_cell(ASK_PICTURES))
    # Each notebook's progress cell shows an empty record (attnlib/progress.py): its own, fresh.
    with tempfile.TemporaryDirectory(prefix="attnlib-progress-") as record:
        previous = os.environ.get(PROGRESS_DIR)
        os.environ[PROGRESS_DIR] = record
        try:
            client.execute(**kernel_options())  # the kernel ends with this process, even if killed
        finally:
            if previous is None:
                os.environ.pop(PROGRESS_DIR, None)
            else:
                os.environ[PROGRESS_DIR] = previous
    asked = nb.cells.pop()
    printed = "".join(o.get("text", "") for o in asked.outputs if o.output_type == "stream")
    with_saved_pictures(nb, json.loads(printed))
    normalise(nb)
    save_widget_state(nb, path)
    nbformat.write(nb, path)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"executing {path.relative_to(ROOT)}", flush=True)
        run(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
