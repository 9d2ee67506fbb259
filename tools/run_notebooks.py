"""Re-execute every notebook in notebooks/ in place, top to bottom, in course order.

`make notebooks` calls this. Run twice, it writes the same bytes: timings and live
widget handles, which differ on every run, are not stored (see ``normalise``).

Usage: python tools/run_notebooks.py [NOTEBOOK ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# Outputs of cells with this tag change from run to run (timings); readers see their own.
VOLATILE_TAG = "volatile-output"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def normalise(nb: nbformat.NotebookNode) -> None:
    """Drop what differs between identical runs, so `make notebooks` is repeatable."""
    nb.metadata = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python", "pygments_lexer": "ipython3"},
    }
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        if VOLATILE_TAG in cell.metadata.get("tags", []):
            cell.outputs = []
            continue
        for output in cell.outputs:
            # A widget view points at a comm id that is new on every run, and is dead
            # once the kernel stops; the text/plain beside it says how to bring it back.
            output.get("data", {}).pop(WIDGET_VIEW, None)


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
        store_widget_state=False,
    )
    client.execute()
    normalise(nb)
    nbformat.write(nb, path)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"executing {path.relative_to(ROOT)}", flush=True)
        run(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
