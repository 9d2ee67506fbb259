"""Read what an explorer's HTML shows: heatmap cells and plain text."""

from __future__ import annotations

from html.parser import HTMLParser


class Table(HTMLParser):
    """An html_heatmap's cells ``(data-row, data-col) -> text``, their attributes, highlights."""

    def __init__(self, source: str):
        super().__init__()
        self.cells: dict[tuple[str, str], str] = {}
        self.cell_attrs: dict[tuple[str, str], dict[str, str]] = {}
        self.highlight_rows: list[str] = []
        self.highlight_cells: list[tuple[str, str]] = []
        self._current: tuple[str, str] | None = None
        self.feed(source)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "tr" and "attnlib-highlight-row" in classes:
            self.highlight_rows.append(attrs["data-row"])
        if tag == "td":
            self._current = (attrs["data-row"], attrs["data-col"])
            self.cells[self._current] = ""
            self.cell_attrs[self._current] = attrs
            if "attnlib-highlight-cell" in classes:
                self.highlight_cells.append(self._current)

    def handle_endtag(self, tag):
        if tag == "td":
            self._current = None

    def handle_data(self, data):
        if self._current is not None:
            self.cells[self._current] += data

    def row(self, i: int, num_tokens: int) -> list[str]:
        return [self.cells[(str(i), str(j))] for j in range(num_tokens)]

    def masked(self) -> set[tuple[int, int]]:
        return {
            (int(i), int(j))
            for (i, j), attrs in self.cell_attrs.items()
            if "attnlib-masked" in (attrs.get("class") or "").split()
        }


class _Strip(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)


def text(widget) -> str:
    """A widget's HTML as plain text (tags dropped, entities decoded)."""
    stripper = _Strip()
    stripper.feed(widget.value)
    return "".join(stripper.parts)
