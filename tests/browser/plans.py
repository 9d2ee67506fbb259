"""How many random settings each notebook's explorers are driven through, and where.

Every explorer of a notebook's page is driven (``settings.plan_of`` reads which
explorer it is from the page), so the checks follow the notebooks as they change.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # playwright is only imported once the gate says it is there
    from playwright.sync_api import Locator, Page

EXPLORER = ".attnlib-explorer"

# Random settings per explorer in `make test`: the drawing follows the controls. The node
# check (tests/test_frontend_node.py) compares hundreds of settings' views with Python's.
FEW = 2
# The sweep of `make check-all`, per explorer, notebook by notebook: 50 or more in all.
SETTINGS: dict[str, int] = {
    "01_scores_loops.ipynb": 6,
    "03_softmax_weights.ipynb": 4,
    "04_context_vectors.ipynb": 6,
    "06_causal_attention.ipynb": 12,
    "07_multi_head_attention.ipynb": 12,
    "08_explorer.ipynb": 10,
}
# Notebooks whose share of the sweep is driven by test_lab.py's `make check-all` case, in the
# page of its Run All (after its keyboard case): each notebook is run in JupyterLab once.
SWEPT_BY_LAB_CASES = (
    "01_scores_loops.ipynb",
    "03_softmax_weights.ipynb",
    "04_context_vectors.ipynb",
    "06_causal_attention.ipynb",
)
# Shown in JupyterLab after their kernel is shut down: still drawn, still following the keys.
WITHOUT_KERNEL = ("04_context_vectors.ipynb", "08_explorer.ipynb")


def explorers(page: Page, settle_s: float = 2.0, timeout_s: float = 60.0) -> list[Locator]:
    """Every explorer in the page, in page order, once as many are drawn for ``settle_s``.

    Pages that render as they run (Voila) add explorers for a while.
    """
    drawn = f"{EXPLORER} .attnlib-heatmap"
    deadline = time.monotonic() + timeout_s
    count, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now = page.locator(drawn).count()
        if now != count:
            count, since = now, time.monotonic()
        elif count > 0 and time.monotonic() - since >= settle_s:
            break
        time.sleep(0.2)
    roots = page.locator(EXPLORER)
    assert roots.count() == count > 0, f"{roots.count()} explorers, {count} of them drawn"
    return [roots.nth(k) for k in range(count)]
