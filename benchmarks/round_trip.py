"""The explorers as they once worked: every move goes through the kernel before it is drawn.

``widget_latency.py`` times this way against the explorers' browser links. It runs this file's
source as the first cell of its notebook, so the kernel needs nothing from ``benchmarks/``.
"""

import traitlets


def kernel_round_trip(explorer) -> None:
    """Draw ``explorer`` (an ``attnlib.widgets`` explorer) only after the kernel has seen each
    move: the browser links are removed and the kernel copies each control's value to the view
    instead, so every move pays the round trip."""
    for link in explorer._links:
        link.close()
    explorer._links = [
        traitlets.dlink((c.widget, c.attr), (explorer.frontend, c.trait))
        for c in explorer._controls
        if c.trait
    ]
