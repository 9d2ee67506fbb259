"""Peak resident memory (RSS) of the Jupyter kernel while each course notebook runs.

    python benchmarks/kernel_memory.py [NOTEBOOK ...] [--cells] [--imports]

Each notebook (default: every ``notebooks/NN_*.ipynb``) is executed with nbclient in a
fresh ``python3`` kernel, from a copy of its folder in a temporary directory (the kernel
starts there); the notebooks in ``notebooks/`` are never written. The figure is the
kernel process's ``VmHWM`` from ``/proc/<pid>/status``, read after its last cell: the
kernel's peak resident set size over its whole life (start, imports, every cell), kept
by Linux itself, so no sampling can miss a short spike. 1 MB here is 2**20 bytes.

Prints one line per notebook, ``NN_name.ipynb peak_mb=<x>``, then
``max_mb=<x> notebook=<name>``. The target is every notebook <= 350 MB.

``--cells`` adds, under each notebook, one line per code cell: its peak (``VmHWM``
during that cell alone: the peak is reset before each cell by writing 5 to
``/proc/<pid>/clear_refs``), the ``VmRSS`` left after it, what the cell added to the
resident set, and its first line (the notebook's figure is then the largest cell
peak). ``--imports`` first runs the imports the notebooks share, one per cell, in a
fresh kernel and prints the same per-cell lines: the floor under every notebook.

Jupyter, IPython and matplotlib keep their state under ``.cache/test-home`` (the
Makefile's folders) unless the environment already names other folders. Linux only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
STATE = ROOT / ".cache" / "test-home"
# The same folders as the Makefile's ISOLATED: nothing is written into $HOME.
ISOLATED = {
    "JUPYTER_CONFIG_DIR": STATE / "jupyter-config",
    "JUPYTER_DATA_DIR": STATE / "jupyter-data",
    "JUPYTER_RUNTIME_DIR": STATE / "jupyter-runtime",
    "IPYTHONDIR": STATE / "ipython",
    "MPLCONFIGDIR": STATE / "matplotlib",
}
for _name, _folder in ISOLATED.items():
    os.environ.setdefault(_name, str(_folder))
    Path(os.environ[_name]).mkdir(parents=True, exist_ok=True)

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from lifetime import kernel_options  # noqa: E402

# The imports the notebooks share, one cell each, for --imports.
IMPORT_CELLS = [
    "pass  # the kernel alone",
    "import numpy",
    "import torch",
    "import matplotlib\nimport matplotlib.pyplot as plt",
    "import ipywidgets",
    "import attnlib",
    "from attnlib import modules",
    "from attnlib import plots",
    "from attnlib import widgets",
]


def proc_status_mb(pid: int, key: str) -> float:
    """``key`` (e.g. ``VmHWM``, ``VmRSS``) from ``/proc/<pid>/status``, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024  # the file gives kB (1024 bytes)
    raise RuntimeError(f"/proc/{pid}/status has no {key}")


def reset_peak(pid: int) -> None:
    """Start a new ``VmHWM`` from the current RSS (Linux: ``echo 5 > clear_refs``)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


@dataclass
class CellMemory:
    index: int
    first_line: str
    peak_mb: float  # VmHWM while the cell ran (per_cell) or since the kernel started
    rss_mb: float  # VmRSS after the cell
    added_mb: float  # VmRSS after the cell minus VmRSS before it


@dataclass
class Run:
    peak_mb: float = 0.0
    start_rss_mb: float = 0.0
    cells: list[CellMemory] = field(default_factory=list)


def run_notebook(nb: nbformat.NotebookNode, cwd: Path, per_cell: bool) -> Run:
    """Execute ``nb`` (in memory) in a fresh kernel, started in ``cwd``; its memory."""
    run = Run()
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        store_widget_state=False,
    )
    state = {}

    def kernel_pid() -> int:
        if "pid" not in state:
            pid = client.km.provisioner.process.pid
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"ipykernel" not in cmdline:
                raise RuntimeError(f"pid {pid} is not an IPython kernel: {cmdline!r}")
            state["pid"] = pid
            run.start_rss_mb = proc_status_mb(pid, "VmRSS")
            state["rss"] = run.start_rss_mb
        return state["pid"]

    def before_cell(cell: nbformat.NotebookNode, cell_index: int) -> None:
        pid = kernel_pid()
        state["rss"] = proc_status_mb(pid, "VmRSS")
        if per_cell:
            reset_peak(pid)

    def after_cell(cell: nbformat.NotebookNode, cell_index: int, execute_reply: dict) -> None:
        pid = kernel_pid()
        rss = proc_status_mb(pid, "VmRSS")
        peak = proc_status_mb(pid, "VmHWM")
        run.peak_mb = max(run.peak_mb, peak)
        first_line = cell.source.strip().splitlines()[0]
        run.cells.append(CellMemory(cell_index, first_line, peak, rss, rss - state["rss"]))

    client.on_cell_execute = before_cell
    client.on_cell_executed = after_cell
    # The kernel's own stderr (e.g. ipykernel's note on unencrypted TCP) is kept aside and
    # shown only when the run fails, so that the output is one line per measurement.
    with tempfile.TemporaryFile(mode="w+") as kernel_log:
        try:
            client.execute(stderr=kernel_log, **kernel_options())  # ends with this process
        except Exception:
            kernel_log.seek(0)
            sys.stderr.write(kernel_log.read())
            raise
    return run


def print_cells(run: Run) -> None:
    print(f"  kernel started: rss_mb={run.start_rss_mb:.1f}")
    for cell in run.cells:
        print(
            f"  cell {cell.index:>2} peak_mb={cell.peak_mb:.1f} rss_mb={cell.rss_mb:.1f} "
            f"added_mb={cell.added_mb:+.1f} | {cell.first_line[:70]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/NN_*.ipynb")
    parser.add_argument("--cells", action="store_true", help="also print every cell's memory")
    parser.add_argument("--imports", action="store_true", help="first measure the imports alone")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        sys.exit("kernel_memory.py reads /proc/<pid>/status: Linux only")
    paths = [p.resolve() for p in args.notebooks] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))

    # Build matplotlib's font cache now, if it is missing, so no kernel pays for it.
    import matplotlib.font_manager  # noqa: F401

    if args.imports:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in IMPORT_CELLS])
        with tempfile.TemporaryDirectory(prefix="kernel-memory-") as tmp:
            run = run_notebook(nb, Path(tmp), per_cell=True)
        print(f"imports peak_mb={run.peak_mb:.1f}")
        print_cells(run)

    peaks = {}
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="kernel-memory-") as tmp:
            # The notebook's whole folder, so that anything it reads beside it is there too.
            folder = Path(tmp) / path.parent.name
            shutil.copytree(path.parent, folder, ignore=shutil.ignore_patterns(".*"))
            nb = nbformat.read(folder / path.name, as_version=4)
            run = run_notebook(nb, folder, per_cell=args.cells)
        peaks[path.name] = run.peak_mb
        print(f"{path.name} peak_mb={run.peak_mb:.1f}", flush=True)
        if args.cells:
            print_cells(run)

    worst = max(peaks, key=peaks.__getitem__)
    print(f"max_mb={peaks[worst]:.1f} notebook={worst}")


if __name__ == "__main__":
    main()
