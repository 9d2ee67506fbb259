"""The reader's progress as a table (:func:`attnlib.progress` returns one): the exercises of
the registry by notebook, each with the latest recorded verdict, as a card and as text."""

from __future__ import annotations

import os
from dataclasses import dataclass
from html import escape
from pathlib import Path

from attnlib.cards import Part, card
from attnlib.progress import Entry, entries, recording

NOT_ATTEMPTED = "not attempted"
COURSE_NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def notebooks() -> dict[str, list[str]]:
    """The exercises of the registry by notebook number ("01"), in course order."""
    from attnlib.exercises import EXERCISES

    by_notebook: dict[str, list[str]] = {}
    for name in EXERCISES:  # registered notebook by notebook, in the cells' order
        by_notebook.setdefault(name.split(".", 1)[0], []).append(name)
    return dict(sorted(by_notebook.items()))


def notebook_link(number: str, here: Path | None = None) -> tuple[str, str] | None:
    """(file name, link from ``here``) of notebook ``number``: beside ``here`` (the course),
    in a folder of its own beside it (the student edition), or in the course's notebooks/."""
    here = here or Path.cwd()
    for folder, prefix in ((here, ""), (here.parent, "..")):
        for path in sorted(folder.glob(f"{number}_*.ipynb")) + sorted(
            folder.glob(f"{number}_*/{number}_*.ipynb")
        ):
            if prefix and path.parent == folder:
                continue  # a notebook one level up is not the student edition's layout
            return path.name, os.path.relpath(path, here).replace(os.sep, "/")
    found = sorted(COURSE_NOTEBOOKS.glob(f"{number}_*.ipynb"))
    if found:
        return found[0].name, os.path.relpath(found[0], here).replace(os.sep, "/")
    return None


def _verdict(entry: Entry | None) -> str:
    """One exercise's state in words."""
    from attnlib.mistakes import MISTAKES

    if entry is None:
        return NOT_ATTEMPTED
    if entry.correct:
        met = MISTAKES[entry.last_mistake].label if entry.last_mistake in MISTAKES else ""
        return f"✓ done (met on the way: {met})" if met else "✓ done"
    if entry.mistake in MISTAKES:
        return f"not yet: {MISTAKES[entry.mistake].label}"
    return "not yet: not quite (no named mistake)"


@dataclass(frozen=True)
class ProgressTable:
    """What :func:`attnlib.progress` shows: ``rows`` by notebook, each (exercise, entry or
    None); ``forgotten`` the exercises a reset forgot (None: no reset)."""

    notebook: str | None
    rows: dict[str, list[tuple[str, Entry | None]]]
    forgotten: list[str] | None
    recording: bool

    @classmethod
    def now(cls, notebook: str | None, forgotten: list[str] | None) -> ProgressTable:
        kept = entries()
        rows = {
            number: [(name, kept.get(name)) for name in names]
            for number, names in notebooks().items()
            if notebook is None or number == notebook
        }
        return cls(notebook, rows, forgotten, recording())

    @property
    def done(self) -> int:
        return sum(1 for rows in self.rows.values() for _, e in rows if e and e.correct)

    @property
    def total(self) -> int:
        return sum(len(rows) for rows in self.rows.values())

    def _title(self) -> str:
        where = f" of notebook {self.notebook}" if self.notebook else " of the course"
        return f"Your progress: {self.done} of {self.total} exercises{where} done"

    def _notes(self) -> list[str]:
        notes = []
        if self.forgotten is not None:
            if self.forgotten:
                notes.append(
                    f"Forgot your verdicts on {len(self.forgotten)} exercises: "
                    f"{', '.join(self.forgotten)}."
                )
            else:
                notes.append("Nothing to forget: no verdict was recorded here.")
        if not self.recording:
            notes.append(
                "Recording is off here (ATTNLIB_PROGRESS=off, attnlib.progress_off() or a "
                "graded run): new checks are not kept."
            )
        return notes

    def __repr__(self) -> str:
        lines = [f"{self._title()}.", *self._notes()]
        for number, rows in self.rows.items():
            link = notebook_link(number)
            done = sum(1 for _, e in rows if e and e.correct)
            lines.append(f"{link[0] if link else 'notebook ' + number}: {done} of {len(rows)} done")
            width = max(len(name) for name, _ in rows)
            for name, entry in rows:
                when = f"  ({entry.at})" if entry else ""
                lines.append(f"  {name:<{width}}  {_verdict(entry)}{when}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return {"text/plain": repr(self), "text/html": self._html()}

    def _html(self) -> str:
        body = []
        for number, rows in self.rows.items():
            link = notebook_link(number)
            done = sum(1 for _, e in rows if e and e.correct)
            name = (
                f'<a href="{escape(link[1], quote=True)}">{escape(link[0])}</a>'
                if link
                else f"notebook {escape(number)}"
            )
            body.append(
                f'<tbody><tr><th colspan="2" scope="colgroup">{name}: {done} of {len(rows)} '
                "done</th></tr>"
            )
            for exercise, entry in rows:
                muted = "" if entry else ' class="attnlib-card-muted"'
                when = (
                    f'<span class="attnlib-card-when attnlib-card-muted">{escape(entry.at)}</span>'
                    if entry
                    else ""
                )
                body.append(
                    f"<tr><td><code>{escape(exercise)}</code></td>"
                    f"<td{muted}>{escape(_verdict(entry))}{when}</td></tr>"
                )
            body.append("</tbody>")
        table = (
            '<table><thead><tr><th scope="col">exercise</th><th scope="col">your latest '
            "verdict</th></tr></thead>" + "".join(body) + "</table>"
        )
        status = "correct" if self.total and self.done == self.total else "info"
        return card(status, self._title(), [Part("", n) for n in self._notes()], html=table)
