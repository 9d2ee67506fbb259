"""Write the course as static HTML pages into site/, with explorers alive and no kernel.

`make site` calls this. Each committed notebook, with the widget state that
`make notebooks` stores, becomes one page (nbconvert's lab template); links
between notebooks point at their pages. The scripts the pages need are copied
beside them from pinned npm packages, so the site asks no CDN for them:
require.js, the widgets' HTML manager (with its fonts) and anywidget's module.

Usage:
    python tools/build_site.py [--out site]      write the pages (npm packages needed)
    python tools/build_site.py --fetch            download the npm packages (npm pack)
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
NPM_DIR = ROOT / ".cache" / "npm"
# The scripts an exported page runs, pinned. anywidget's must match the Python package's
# protocol (its models ask for anywidget ~0.11).
NPM_PACKAGES = {
    "requirejs": "2.3.8",
    "@jupyter-widgets/html-manager": "1.0.15",
    "anywidget": "0.11.0",
}
MANAGER = "@jupyter-widgets/html-manager/dist"
FONTS = (".woff2", ".woff", ".ttf", ".eot", ".svg")
LINK = re.compile(r"\]\((\d\d_[\w-]+)\.ipynb([#)])")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# What a page says about the controls only a kernel can act on (a sentence needs embeddings).
KERNEL_NOTE = "Fixed on this page: open the notebook in JupyterLab to try your own sentence."


def package_dir(name: str, npm_dir: Path = NPM_DIR) -> Path:
    """Where ``fetch`` unpacks npm package ``name``."""
    return npm_dir / f"{name.replace('@', '').replace('/', '-')}-{NPM_PACKAGES[name]}"


def fetch(npm_dir: Path = NPM_DIR) -> None:
    """Download and unpack :data:`NPM_PACKAGES` into ``npm_dir`` (skipped if already there)."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not installed: it fetches the scripts the exported pages need")
    npm_dir.mkdir(parents=True, exist_ok=True)
    for name, version in NPM_PACKAGES.items():
        target = package_dir(name, npm_dir)
        if (target / "package.json").is_file():
            continue
        out = subprocess.run(
            [npm, "pack", "--silent", f"{name}@{version}"],
            cwd=npm_dir,
            check=True,
            capture_output=True,
            text=True,
            # npm's download cache, logs and update check stay in the repo, not in $HOME.
            env={
                **os.environ,
                "npm_config_cache": str(npm_dir / "cache"),
                "npm_config_update_notifier": "false",
            },
        )
        tarball = npm_dir / out.stdout.strip().splitlines()[-1]
        with tarfile.open(tarball) as archive:
            archive.extractall(npm_dir / "unpacking", filter="data")
        shutil.move(npm_dir / "unpacking" / "package", target)
        (npm_dir / "unpacking").rmdir()
        tarball.unlink()


def copy_scripts(out: Path, npm_dir: Path = NPM_DIR) -> None:
    """The pages' scripts beside them, where the pages and the widget manager look."""
    missing = [name for name in NPM_PACKAGES if not package_dir(name, npm_dir).is_dir()]
    if missing:
        sys.exit(f"npm packages missing in {npm_dir}: {missing}; run: make npm")
    shutil.copy(package_dir("requirejs", npm_dir) / "require.js", out / "require.js")
    # The manager loads anywidget with require.js, from the page's folder first.
    shutil.copy(package_dir("anywidget", npm_dir) / "dist" / "index.js", out / "anywidget.js")
    manager = package_dir("@jupyter-widgets/html-manager", npm_dir) / "dist"
    (out / MANAGER).mkdir(parents=True, exist_ok=True)
    shutil.copy(manager / "embed-amd.js", out / MANAGER / "embed-amd.js")
    # Its stylesheet looks for its icon fonts in two places: both are served.
    for font in manager.glob("*.*"):
        if font.suffix in FONTS:
            for folder in (out / MANAGER, out / MANAGER.split("/")[0]):
                shutil.copy(font, folder / font.name)


def exporter() -> HTMLExporter:
    """nbconvert's lab template, loading require.js and the widget manager from the site."""
    return HTMLExporter(
        template_name="lab",
        require_js_url="require.js",
        widget_renderer_url=f"{MANAGER}/embed-amd.js",
    )


def fix_kernel_only_controls(nb: nbformat.NotebookNode) -> None:
    """Disable the controls a page cannot act on, and say why in their explorer's status line.

    Without this a reader could type a sentence on a page and see nothing happen.
    """
    # Imported here: attnlib.widgets loads torch and ipywidgets, which only page-building needs.
    from attnlib.widgets.base import NEEDS_KERNEL

    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    models = {key: model["state"] for key, model in state.items()}

    def inside(key: str) -> list[dict]:  # the model and every model below it
        children = models[key].get("children", ())
        keys = (c.removeprefix("IPY_MODEL_") for c in children)
        return [models[key]] + [m for k in keys if k in models for m in inside(k)]

    for key, model in models.items():
        if "attnlib-explorer" not in model.get("_dom_classes", ()):
            continue
        parts = inside(key)
        boxes = [m for m in parts if NEEDS_KERNEL in m.get("_dom_classes", ())]
        for box in boxes:
            box["disabled"] = True
        for status in (m for m in parts if boxes and "attnlib-status" in m.get("_dom_classes", ())):
            status["value"] += f'<div class="attnlib-note">{html.escape(KERNEL_NOTE)}</div>'


def with_current_module(nb: nbformat.NotebookNode) -> None:
    """Give the explorers the front end of this checkout: saved notebooks do not keep it."""
    from attnlib.widgets.frontend import with_module

    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if widgets:
        widgets["state"] = with_module(widgets["state"])


def page(path: Path, export: HTMLExporter) -> tuple[str, str]:
    """``path`` as an HTML page whose links to notebooks point at their pages; and its title."""
    nb = nbformat.read(path, as_version=4)
    with_current_module(nb)
    fix_kernel_only_controls(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = LINK.sub(r"](\1.html\2", cell.source)
    first = nb.cells[0].source.splitlines()[0] if nb.cells else path.stem
    title = first.lstrip("# ").strip()
    body, _ = export.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return body, title


def index(titles: list[tuple[str, str]]) -> str:
    items = "\n".join(
        f'<li><a href="{html.escape(name)}">{html.escape(title)}</a></li>' for name, title in titles
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>attention, step by step</title></head>\n<body><h1>attention, step by step</h1>\n"
        f"<p>Self-attention from nested loops to multi-head attention.</p>\n<ol>\n{items}\n</ol>\n"
        "</body></html>\n"
    )


def build(out: Path, notebooks: Path = NOTEBOOKS, npm_dir: Path = NPM_DIR) -> list[Path]:
    """Write every notebook of ``notebooks`` as a page into ``out``; the pages written."""
    out.mkdir(parents=True, exist_ok=True)
    copy_scripts(out, npm_dir)
    if (notebooks / "figures").is_dir():
        shutil.copytree(notebooks / "figures", out / "figures", dirs_exist_ok=True)
    export, titles, pages = exporter(), [], []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        body, title = page(path, export)
        target = out / f"{path.stem}.html"
        target.write_text(body, encoding="utf-8")
        titles.append((target.name, title))
        pages.append(target)
    (out / "index.html").write_text(index(titles), encoding="utf-8")
    return pages


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    parser.add_argument("--fetch", action="store_true", help="only download the npm packages")
    args = parser.parse_args(argv)
    if args.fetch:
        fetch()
        return 0
    for path in build(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
