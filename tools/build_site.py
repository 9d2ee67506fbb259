"""Write the course as a website into site/: Sphinx with MyST-NB and the book theme.

`make site` calls this. Each committed notebook, with the widget state that `make
notebooks` saves beside it (notebooks/.widget-state/), becomes one page, its explorers
alive without a kernel; a landing page
holds the course map (the table of README.md's "The course"); the book theme gives every
page a sidebar, previous/next links, search and a dark mode. Nothing a page loads comes
from another host: MathJax, require.js, the widgets' HTML manager and anywidget's module
are copied into _static/ from pinned npm packages (shared by every page, cached once).

The Sphinx sources are laid out in .cache/site-src/ from tools/site/ (conf.py, course.css)
and the notebooks, each given the current front end and its kernel-only controls disabled.

Usage:
    python tools/build_site.py [--out site]      write the site (npm packages needed)
    python tools/build_site.py --fetch            download the npm packages (npm pack)
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import nbformat

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SITE_FILES = ROOT / "tools" / "site"
NPM_DIR = ROOT / ".cache" / "npm"
SOURCES = ROOT / ".cache" / "site-src"
# The scripts a page runs, pinned. anywidget's must match the Python package's protocol
# (its models ask for anywidget ~0.11). axe-core is for the site's tests only.
NPM_PACKAGES = {
    "requirejs": "2.3.8",
    "@jupyter-widgets/html-manager": "1.0.15",
    "anywidget": "0.11.0",
    "mathjax": "3.2.2",
    "axe-core": "4.14.1",
}
MANAGER = "@jupyter-widgets/html-manager"
# MathJax's files the pages load (tools/site/course.js names the components): its loader,
# TeX with the packages the notebooks' math uses, HTML output, and the hidden MathML a
# screen reader reads.
MATHJAX_COMPONENTS = (
    "startup.js",
    "core.js",
    "input/tex-base.js",
    "input/tex/extensions/ams.js",
    "input/tex/extensions/noundefined.js",
    "output/chtml.js",
    "output/chtml/fonts/tex.js",
    "a11y/assistive-mml.js",
)
LINK = re.compile(r"\]\((\d\d_[\w-]+)\.ipynb([#)])")
# The one link out of notebooks/ (09's "course map"): the landing page holds that map.
README_LINK = re.compile(r"\]\(\.\./README\.md(#[\w-]*)?\)")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# The theme's Font Awesome script (1.6 MB, every icon as SVG, for icons a site adds): the
# theme's stylesheet draws the few icons the pages show from Font Awesome's web fonts.
FONT_AWESOME_SCRIPT = re.compile(
    r'\s*<script [^>]*src="_static/scripts/fontawesome\.js[^"]*"></script>'
)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# A long word of an inline code literal (Sphinx writes one span.pre per word), e.g.
# torch.nn.functional.scaled_dot_product_attention: it may wrap after a dot or an underscore.
LONG_CODE_WORD = re.compile(r'(<span class="pre">)([^<]{17,})(</span>)')
WRAP_AFTER = re.compile(r"([._])(?=[^._])")
# Where each page's notebook can be downloaded from (conf.py's html_extra_path copies it).
DOWNLOADS = "notebooks"
# What a page says about the controls only a kernel can act on (a sentence needs embeddings).
KERNEL_NOTE = "Fixed on this page: open the notebook in JupyterLab to try your own sentence."


def package_dir(name: str, npm_dir: Path = NPM_DIR) -> Path:
    """Where ``fetch`` unpacks npm package ``name``."""
    return npm_dir / f"{name.replace('@', '').replace('/', '-')}-{NPM_PACKAGES[name]}"


def fetch(npm_dir: Path = NPM_DIR) -> None:
    """Download and unpack :data:`NPM_PACKAGES` into ``npm_dir`` (skipped if already there)."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not installed: it fetches the scripts the site's pages need")
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


def copy_scripts(static: Path, npm_dir: Path = NPM_DIR) -> None:
    """The pages' scripts into ``static`` (the site's _static/), one copy for every page."""
    missing = [name for name in NPM_PACKAGES if not package_dir(name, npm_dir).is_dir()]
    if missing:
        sys.exit(f"npm packages missing in {npm_dir}: {missing}; run: make npm")
    static.mkdir(parents=True, exist_ok=True)
    shutil.copy(package_dir("requirejs", npm_dir) / "require.js", static / "require.js")
    manager = package_dir(MANAGER, npm_dir) / "dist"
    shutil.copy(manager / "embed-amd.js", static / "embed-amd.js")
    # MathJax: the components the pages use (tools/site/course.js loads them), not the
    # tex-chtml bundle (1.16 MB, with every TeX package's loader and the contextual menu);
    # and the fonts the HTML output loads from its own folder, each only when a page needs it.
    mathjax = package_dir("mathjax", npm_dir) / "es5"
    for component in MATHJAX_COMPONENTS:
        target = static / "mathjax" / component
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(mathjax / component, target)
    fonts = Path("output", "chtml", "fonts", "woff-v2")
    shutil.copytree(mathjax / fonts, static / "mathjax" / fonts, dirs_exist_ok=True)


def fix_kernel_only_controls(nb: nbformat.NotebookNode) -> None:
    """Disable the controls a page cannot act on, and say why right under them.

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
        if not boxes:
            continue
        # Said right under the disabled box (its own message line), else under the drawing.
        lines = [m for m in parts if "attnlib-status-sentence" in m.get("_dom_classes", ())]
        lines = lines or [m for m in parts if "attnlib-status" in m.get("_dom_classes", ())]
        for status in lines:
            status["value"] += f'<div class="attnlib-note">{html.escape(KERNEL_NOTE)}</div>'


def with_current_module(nb: nbformat.NotebookNode) -> None:
    """Give the explorers the front end of this checkout: saved notebooks do not keep it."""
    from attnlib.widgets.frontend import with_module

    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if widgets:
        widgets["state"] = with_module(widgets["state"])


def site_links(markdown: str) -> str:
    """``markdown`` whose links stay inside the site: the README's course map is the
    landing page (``index.md``); links between notebooks are kept for MyST to resolve."""
    return README_LINK.sub("](index.md)", markdown)


def with_widget_state(nb: nbformat.NotebookNode, path: Path) -> None:
    """Put back the widget state that `make notebooks` saved beside the notebook at ``path``
    (notebooks keep none, so that renderers without JavaScript show the explorers' pictures)."""
    from run_notebooks import widget_state_path  # beside this file

    state_file = widget_state_path(path)
    shown = {
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    }
    if not shown:
        return
    if not state_file.is_file():
        sys.exit(f"{path.name} shows explorers but {state_file} is missing: run make notebooks")
    widgets = json.loads(state_file.read_text(encoding="utf-8"))
    if missing := shown - set(widgets["state"]):
        sys.exit(f"{state_file} lacks {sorted(missing)} that {path.name} shows: run make notebooks")
    nb.metadata["widgets"] = {WIDGET_STATE: widgets}


def repository() -> str:
    """The repository's public address, written once in pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["urls"]["Repository"]


def binder(stem: str | None = None) -> str:
    """Binder's link opening notebook ``stem`` in JupyterLab (the course's folder if None)."""
    owner_name = repository().removeprefix("https://github.com/").strip("/")
    path = f"notebooks/{stem}.ipynb" if stem else "notebooks"
    return f"https://mybinder.org/v2/gh/{owner_name}/HEAD?urlpath=lab/tree/{path}"


def links_bar(stem: str | None = None) -> str:
    """The line under a page's title: the repository, Binder for its notebook, its .ipynb.
    Raw HTML: MyST would take a Markdown link to an .ipynb for a link to its page."""
    links = [f'<a href="{html.escape(repository())}">The repository on GitHub</a>']
    if stem:
        links.append(f'<a href="{html.escape(binder(stem))}">Run this notebook on Binder</a>')
        links.append(f'<a href="{DOWNLOADS}/{stem}.ipynb" download>Download {stem}.ipynb</a>')
    else:
        links.append(f'<a href="{html.escape(binder())}">Run the course on Binder</a>')
    items = "".join(f"<li>{link}</li>" for link in links)
    return f'<nav class="course-links" aria-label="Links of this page"><ul>{items}</ul></nav>'


def with_links_bar(nb: nbformat.NotebookNode, stem: str) -> None:
    """The links bar put right under the notebook's title (its first ``# `` heading)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for k, line in enumerate(lines):
            if line.startswith("# "):
                lines[k + 1 : k + 1] = ["", links_bar(stem), ""]
                cell.source = "\n".join(lines)
                return
    raise ValueError(f"{stem}: no '# ' title in a markdown cell to put the links under")


def with_alt_text(nb: nbformat.NotebookNode) -> None:
    """Give each figure a cell draws its alt text (MyST-NB reads ``mystnb.image.alt``): else
    Sphinx writes the image's file name, a hash, as its alt text."""
    from site_alt import figure_alt  # beside this file

    markdown = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            markdown = cell.source
            continue
        drawn = [
            o
            for o in cell.get("outputs", [])
            if "image/png" in o.get("data", {}) and WIDGET_VIEW not in o["data"]
        ]
        image = cell.metadata.setdefault("mystnb", {}).setdefault("image", {})
        if drawn and not image.get("alt"):
            image["alt"] = figure_alt(cell.source, markdown)


def prepared(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` as its page shows it."""
    nb = nbformat.read(path, as_version=4)
    with_widget_state(nb, path)
    with_current_module(nb)
    fix_kernel_only_controls(nb)
    with_alt_text(nb)
    with_links_bar(nb, path.stem)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = site_links(cell.source)
    return nb


def course_map(readme: str) -> list[tuple[str, str, str, str]]:
    """README's course table as rows of (notebook stem, title, you learn to, explorer)."""
    row = re.compile(
        r"^\| \[(.+?)\]\(notebooks/(\d\d_[\w-]+)\.ipynb\) \| (.*?) \|.*\|\s*(.*?)\s*\|$"
    )
    rows = [row.match(line) for line in readme.splitlines()]
    return [(m[2], m[1], m[3], m[4]) for m in rows if m]


def landing_page(readme: str, stems: list[str]) -> str:
    """The site's index.md: what the course is, a picture of it, where to start, its map."""
    from figures_site import ALT, NAME  # beside this file

    rows = {stem: rest for stem, *rest in course_map(readme)}
    first = stems[0]
    lines = [
        "# attention, step by step",
        "",
        links_bar(),
        "",
        "How a self-attention layer turns token embeddings into context vectors, built up one",
        "checked stage at a time, beside chapter 3 of *Build a Large Language Model (From",
        "Scratch)* by Sebastian Raschka. Each page is a notebook with its outputs; its explorers",
        "respond to their controls here, without a kernel.",
        "",
        f"```{{figure}} {NAME}",
        f":alt: {ALT}",
        ":width: 461px",
        "",
        "Where the course is going: each word of *Your journey starts with one step* weighs",
        "every word of the sentence, and each row of weights sums to 1. The row of *journey*,",
        "framed, is the one the book follows; notebook 03 computes this grid, 04 turns it into",
        "context vectors.",
        "```",
        "",
        "## Where to start",
        "",
        f"Read [{rows.get(first, (first,))[0]}]({first}.ipynb) first, then each page in turn:",
        "every notebook builds on the one before. To write the exercises yourself and have",
        "them checked, run the notebooks in JupyterLab: on Binder with one click, or on your",
        "own machine with `make lab` (the repository's README says how).",
        "",
        "## The course map",
        "",
    ]
    # A list, not a table: on a phone a table squeezes its columns until names break.
    for stem in stems:
        title, learn, explorer = rows.get(stem, (stem, "", ""))
        lines.append(f"- **[{title}]({stem}.ipynb)**: {learn}.")
        if explorer:
            lines.append(f"  *Explorer:* {explorer}.")
    lines += ["", "```{toctree}", ":hidden:", ":maxdepth: 1", "", *stems, "```", ""]
    return "\n".join(lines)


def lay_out_sources(src: Path, notebooks: Path = NOTEBOOKS, npm_dir: Path = NPM_DIR) -> None:
    """Fill ``src`` with what Sphinx reads: conf.py, _static/, index.md and the notebooks."""
    if src.exists():
        shutil.rmtree(src)
    (src / "_static" / "mathjax").mkdir(parents=True)
    shutil.copy(SITE_FILES / "conf.py", src / "conf.py")
    for name in ("course.css", "course.js"):
        shutil.copy(SITE_FILES / name, src / "_static" / name)
    shutil.copytree(SITE_FILES / "_templates", src / "_templates")
    copy_scripts(src / "_static", npm_dir)
    # The manager asks require.js for "anywidget", which looks beside the page first: the
    # pages are all at the site's root, and so is this file (conf.py's html_extra_path).
    (src / "_extra").mkdir()
    anywidget = package_dir("anywidget", npm_dir) / "dist" / "index.js"
    shutil.copy(anywidget, src / "_extra" / "anywidget.js")
    # The manager's stylesheet looks for its icon fonts in @jupyter-widgets/ beside the page;
    # browsers take the woff2.
    (src / "_extra" / "@jupyter-widgets").mkdir()
    for font in (package_dir(MANAGER, npm_dir) / "dist").glob("*.woff2"):
        shutil.copy(font, src / "_extra" / "@jupyter-widgets" / font.name)
    if (notebooks / "figures").is_dir():
        shutil.copytree(notebooks / "figures", src / "figures")
    from figures_site import NAME, landing_weights  # beside this file

    landing_weights(src / NAME)
    stems = []
    (src / "_extra" / DOWNLOADS).mkdir()
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        nbformat.write(prepared(path), src / path.name)
        # The download is the notebook as committed: no widget state, no site-only links.
        shutil.copy(path, src / "_extra" / DOWNLOADS / path.name)
        stems.append(path.stem)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (src / "index.md").write_text(landing_page(readme, stems), encoding="utf-8")


def wrappable(page: str) -> str:
    """``page`` with a place to wrap (``<wbr>``) after each dot or underscore of its long
    code words: a phone wraps them there rather than mid-word."""
    return LONG_CODE_WORD.sub(lambda m: m[1] + WRAP_AFTER.sub(r"\1<wbr>", m[2]) + m[3], page)


#: A link to a notebook written by an output (the progress table's), not by MyST: its page.
OUTPUT_NOTEBOOK_LINK = re.compile(r'href="(\d\d_[\w-]+)\.ipynb(#[^"]*)?"')


def trim(html_dir: Path) -> None:
    """Leave out of the built site what its pages do not use: the theme's Font Awesome
    script, and the source maps (read by a browser's developer tools only); mark where long
    code words may wrap."""
    for page in html_dir.rglob("*.html"):
        text = FONT_AWESOME_SCRIPT.sub("", page.read_text(encoding="utf-8"))
        text = OUTPUT_NOTEBOOK_LINK.sub(lambda m: f'href="{m[1]}.html{m[2] or ""}"', text)
        page.write_text(wrappable(text), encoding="utf-8")
    for unused in (html_dir / "_static").rglob("*"):
        if unused.name.startswith("fontawesome.js") or unused.suffix == ".map":
            unused.unlink()


def build(out: Path, notebooks: Path = NOTEBOOKS, npm_dir: Path = NPM_DIR) -> list[Path]:
    """Write the site into ``out`` (index.html at its root); the notebooks' pages written."""
    from sphinx.cmd.build import build_main

    src = SOURCES if out.resolve() == (ROOT / "site").resolve() else out.parent / "site-src"
    lay_out_sources(src, notebooks, npm_dir)
    # Sphinx writes inside the sources (MyST-NB also writes a folder beside its output),
    # then the finished site is copied to ``out``.
    html_dir = src / "_build" / "html"
    # -W: a broken link or a missing page fails the build; -E: read every source afresh.
    args = ["-b", "html", "-q", "-W", "-E", "-d", str(src / "_build" / "doctrees")]
    if build_main([*args, str(src), str(html_dir)]) != 0:
        sys.exit("sphinx-build failed (its messages are above)")
    # Sphinx's build record, not a page: a site served as it is needs no such file.
    (html_dir / ".buildinfo").unlink(missing_ok=True)
    trim(html_dir)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(html_dir, out)
    return [out / f"{p.stem}.html" for p in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))]


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
