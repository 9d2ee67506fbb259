"""Cards: the one HTML look of what the course tells a reader about their work.

A card is a status (its colour and mark), a title, and parts: a labelled line each, or a
part folded into ``<details>`` to be opened on purpose (a fix, an answer). Verdicts of the
exercises, the checkpoints and the progress table all use it, so they read alike. Every text
is HTML-escaped here; a part's text may mark code with backticks, as the messages do.

Colours are JupyterLab's theme variables (light and dark alike); on a page without them (the
static site, in either of its themes) text and links keep the page's own colours and the
greys are translucent, so nothing assumes a light page. Words wrap only between words (a
word longer than the line breaks rather than run off a 390 px screen).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

#: status -> (mark, the theme variable of its colour, its fallback)
STATUSES = {
    "correct": ("✓", "--jp-success-color1", "#2e7d32"),
    "wrong": ("✗", "--jp-warn-color1", "#e65100"),
    "pending": ("○", "--jp-border-color1", "#9e9e9e"),
    "fault": ("!", "--jp-error-color1", "#b00020"),
    "info": ("i", "--jp-brand-color1", "#1565c0"),
}

#: The card's stylesheet, scoped to its class; the same in every card, so many cards in one
#: page agree. The text keeps the theme's ink: only the border and the mark carry the status.
#: The table's cells name the class twice: as specific as JupyterLab's rule for output tables
#: (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``, right-aligned) and later, so
#: words read from the left.
STYLE = """<style>
.attnlib-card {
  box-sizing: border-box; max-width: 46em; margin: 4px 0; padding: 6px 10px 6px 12px;
  border: 1px solid var(--jp-border-color2, rgba(128, 128, 128, 0.4));
  border-left: 4px solid var(--attnlib-status);
  border-radius: 4px; background: var(--jp-layout-color0, transparent);
  color: var(--jp-content-font-color1, inherit);
  font-family: var(--jp-ui-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: var(--jp-content-font-size1, 14px); line-height: 1.45;
  overflow-wrap: break-word; word-break: normal; hyphens: manual;
}
.attnlib-card-title { font-weight: 600; margin: 0 0 2px 0; }
.attnlib-card-mark { color: var(--attnlib-status); font-weight: 700; margin-right: 0.35em; }
.attnlib-card p { margin: 2px 0; }
.attnlib-card-label { font-weight: 600; }
.attnlib-card code {
  font-family: var(--jp-code-font-family, ui-monospace, Menlo, Consolas, monospace);
  font-size: 0.95em; background: var(--jp-layout-color2, rgba(128, 128, 128, 0.18));
  padding: 0 0.2em;
  border-radius: 3px; color: inherit;
}
.attnlib-card details { margin: 4px 0 0 0; }
.attnlib-card summary { cursor: pointer; color: var(--jp-content-link-color, inherit); }
.attnlib-card summary:focus-visible { outline: 2px solid var(--jp-brand-color1, currentColor); }
.attnlib-card table {
  border-collapse: collapse; margin: 4px 0; max-width: 100%; color: inherit; font-size: inherit;
}
.attnlib-card.attnlib-card th, .attnlib-card.attnlib-card td {
  text-align: left; vertical-align: top; padding: 2px 10px 2px 0;
  border-bottom: 1px solid var(--jp-border-color2, rgba(128, 128, 128, 0.4));
}
.attnlib-card a { color: var(--jp-content-link-color, inherit); text-decoration: underline; }
.attnlib-card .attnlib-card-muted { color: var(--jp-content-font-color2, inherit); }
.attnlib-card .attnlib-card-when { display: block; font-size: 0.9em; }
</style>"""

_CODE = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Part:
    """One line of a card: ``label`` (may be empty) and ``text``; ``folded`` puts it in a
    ``<details>`` whose summary is the label."""

    label: str
    text: str
    folded: bool = False


def inline(text: str) -> str:
    """``text`` escaped for HTML, with `backticked` spans as code."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text, quote=True))


def card(status: str, title: str, parts: Sequence[Part] = (), html: str = "") -> str:
    """The HTML of one card. ``status`` is a key of :data:`STATUSES`; ``title`` and the
    parts are plain text (escaped here); ``html`` is markup already escaped by its maker (a
    table), put after the parts."""
    if status not in STATUSES:
        raise ValueError(f"card status: expected one of {sorted(STATUSES)}, got {status!r}")
    if not isinstance(title, str) or not all(isinstance(p, Part) for p in parts):
        raise ValueError(
            f"card: expected a str title and Part parts, got {type(title).__name__} and "
            f"{[type(p).__name__ for p in parts]}"
        )
    mark, variable, fallback = STATUSES[status]
    lines = [
        f'<div class="attnlib-card attnlib-card-{status}" role="status" '
        f'style="--attnlib-status: var({variable}, {fallback})">',
        f'<p class="attnlib-card-title"><span class="attnlib-card-mark" aria-hidden="true">'
        f"{mark}</span>{inline(title)}</p>",
    ]
    for part in parts:
        label, text = inline(part.label), inline(part.text)
        if part.folded:
            lines.append(f"<details><summary>{label}</summary><p>{text}</p></details>")
        elif label:
            lines.append(f'<p><span class="attnlib-card-label">{label}:</span> {text}</p>')
        else:
            lines.append(f"<p>{text}</p>")
    if html:
        lines.append(html)
    lines.append("</div>")
    return STYLE + "\n" + "\n".join(lines)
