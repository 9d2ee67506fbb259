"""What a reader's browser loads from the course site (`make site`), page by page.

Each page is opened from files in headless Chromium with every other request refused,
and left until its math and explorers are drawn. Every file it asks for is counted at
its size on disk (file:// has no transfer sizes):

- first visit: everything the page loads, in an empty cache;
- later visit: what it loads that no other page of the site loads (a reader who has
  read the rest of the site has those in the browser's cache).

Usage: python benchmarks/site_weight.py [SITE]   (default: site/; build it with make site)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
SETTLE_MS = 2_000


def _file(url: str) -> Path | None:
    """The file a file:// URL names (query and fragment dropped), or None for another URL."""
    parts = urlparse(url)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def loaded_files(browser, page_file: Path) -> set[Path]:
    """The files ``page_file`` loads in a fresh browser context, the page itself included."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    files: set[Path] = set()

    def on_request(request) -> None:
        path = _file(request.url)
        if path is not None and path.is_file():
            files.add(path)

    page.on("request", on_request)
    page.route(lambda url: not url.startswith("file:"), lambda route: route.abort())
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    if page.locator('script[src*="mathjax"]').count():
        page.wait_for_function("() => window.MathJax?.startup?.promise", timeout=30_000)
        page.evaluate("() => MathJax.startup.promise")
    page.wait_for_timeout(SETTLE_MS)  # explorers drawn, fonts asked for
    context.close()
    return files


def weights(site: Path, browser) -> dict[str, tuple[int, int]]:
    """Per page: (first-visit bytes, later-visit bytes)."""
    pages = sorted(site.glob("*.html"), key=lambda p: (p.stem != "index", p.stem))
    pages = [p for p in pages if p.stem not in ("genindex", "search")]
    loads = {p.stem: loaded_files(browser, p) for p in pages}
    out = {}
    for stem, files in loads.items():
        elsewhere = set().union(*(f for s, f in loads.items() if s != stem))
        first = sum(f.stat().st_size for f in files)
        later = sum(f.stat().st_size for f in files - elsewhere)
        out[stem] = (first, later)
    return out


def main(argv: list[str]) -> int:
    site = (Path(argv[0]) if argv else ROOT / "site").resolve()
    if not (site / "index.html").is_file():
        sys.exit(f"no site in {site}: run make site")
    # Chromium found and launched as the browser tests do.
    sys.path.insert(0, str(ROOT))
    from tests.browser.gate import browser_gate
    from tests.browser.pages import CHROMIUM_ARGS, chromium_env

    gate = browser_gate(os.environ)
    if gate.chromium is None:
        sys.exit(gate.reason)
    from playwright.sync_api import sync_playwright

    home = ROOT / ".cache" / "chromium-home"
    home.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=gate.chromium, args=CHROMIUM_ARGS, env=chromium_env(os.environ, home)
        )
        try:
            table = weights(site, browser)
        finally:
            browser.close()
    print(f"{'page':<32} {'first visit MB':>15} {'later visit MB':>15}")
    for stem, (first, later) in table.items():
        print(f"{stem:<32} {first / 1e6:>15.2f} {later / 1e6:>15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
