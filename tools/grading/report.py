"""What the instructor and the students read: the gradebook, the feedback pages, the summary.

Compute apart from drawing: ``tally`` counts, ``bar_chart`` draws what it is given.
Every page is one HTML file with its style inline and its chart embedded (PNG, base64).
"""

from __future__ import annotations

import base64
import csv
import html
import io
import re
from collections import Counter
from pathlib import Path

from tools.grading.verdicts import NO_VERDICT, STATUSES

FIXED_COLUMNS = ["student", "assignment", "notebook", "status", "ignored", "ignored cells"]
STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
line-height:1.45;color:#1b1b1b}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #bbb;padding:.4rem .6rem;text-align:left;vertical-align:top}
th{background:#eee}.correct{color:#17632a}.mistake{color:#8a4b00}.other{color:#8a1010}
img{max-width:100%}"""
WORDS = {"correct", "not attempted", "wrong", "refused", "course fault", "not run"}


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )


def kind_of(word: str) -> str:
    """``correct``, ``mistake`` (a named one) or ``other``: how a verdict is coloured."""
    if word == "correct":
        return "correct"
    if word in WORDS or word in NO_VERDICT or word in STATUSES:
        return "other"
    return "mistake"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# C0 and C1 control characters, DEL, and the bidirectional overrides (a name that reads
# backwards on a terminal): never written raw to the instructor's terminal
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(cell: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that would start a formula (= + - @, a tab
    or a carriage return as its first character, or first after spaces; a student's folder or
    file name, say) gets a leading '."""
    return f"'{cell}" if cell.lstrip(" ")[:1] in FORMULA_STARTS else cell


def printable(text: str) -> str:
    """``text`` for the terminal: each control character (an escape sequence's start, a
    carriage return, a bidirectional override) shown as ``?``, so a student's name can
    neither move the cursor nor hide what is printed."""
    return _CONTROL.sub("?", text)


def _csv_rows(path: Path, rows: list[list]) -> None:
    # a name whose bytes are not UTF-8 (Python's surrogates) is written escaped, not refused
    with path.open("w", newline="", encoding="utf-8", errors="backslashreplace") as file:
        csv.writer(file).writerows([[inert(str(cell)) for cell in row] for row in rows])


def write_gradebook(path: Path, results: list[dict]) -> None:
    exercises = list(dict.fromkeys(name for r in results for name in r["exercises"]))
    rows = [FIXED_COLUMNS + exercises]
    for r in results:
        ignored = "; ".join(r.get("ignored", []))
        cells = " ".join(r.get("ignored_cells", []))
        fixed = [r["student"], r["assignment"], r["notebook"], r["status"], ignored, cells]
        rows.append(fixed + [r["verdicts"].get(name, "") for name in exercises])
    _csv_rows(path, rows)


def feedback_page(result: dict) -> str:
    from attnlib.mistakes import MISTAKES

    rows = []
    for name in result["exercises"]:
        word = result["verdicts"][name]
        label = MISTAKES[word].label if word in MISTAKES else word
        rows.append(
            f'<tr><td>{html.escape(name)}</td><td class="{kind_of(word)}">{html.escape(label)}'
            f"</td><td>{html.escape(result['messages'][name])}</td></tr>"
        )
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result["notes"])
    run = f"<ul>{notes}</ul>" if notes else "<p>Your notebook ran from top to bottom.</p>"
    body = (
        f"<h1>Feedback on {html.escape(result['notebook'])}</h1>"
        f"<p>Student: {html.escape(result['student'])}. "
        f"Assignment: {html.escape(result['assignment'])}.</p><h2>The run</h2>{run}"
        "<h2>Each exercise</h2><table><thead><tr><th>Exercise</th><th>Verdict</th>"
        f"<th>What the check said, with the course's hint</th></tr></thead><tbody>"
        f"{''.join(rows)}</tbody></table>"
    )
    return _page(f"Feedback: {result['student']}, {result['notebook']}", body)


def tally(results: list[dict]) -> dict[str, Counter]:
    """Per exercise, how many submissions got each verdict."""
    counts: dict[str, Counter] = {}
    for r in results:
        for name in r["exercises"]:
            counts.setdefault(name, Counter())[r["verdicts"][name]] += 1
    return counts


def bar_chart(counts: dict[str, Counter]) -> bytes:
    """:func:`chart_figure` as PNG bytes."""
    buffer = io.BytesIO()
    chart_figure(counts).savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return buffer.getvalue()


def chart_figure(counts: dict[str, Counter]):
    """Horizontal bars, one per exercise and verdict, coloured by kind: a matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    bars = [
        (f"{name}: {word}", n, kind_of(word))
        for name, c in counts.items()
        for word, n in sorted(c.items(), key=lambda item: (-item[1], item[0]))
    ]
    colours = {"correct": "#2e7d32", "mistake": "#e08a00", "other": "#9e9e9e"}
    fig = Figure(figsize=(8, 0.6 + 0.28 * max(len(bars), 1)), layout="constrained")
    ax = fig.subplots()
    ax.barh(range(len(bars)), [n for _, n, _ in bars], color=[colours[k] for *_, k in bars])
    ax.set_yticks(range(len(bars)), [label for label, *_ in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("submissions")
    # On two lines: on one, the title is wider than the figure and is cut at both ends.
    ax.set_title("Verdicts per exercise\n(green: correct, orange: a named mistake, grey: other)")
    return fig


def write_summary(out: Path, results: list[dict], isolation: str) -> None:
    counts = tally(results)
    summary = [["exercise", "verdict", "submissions"]] + [
        [name, word, n]
        for name, c in counts.items()
        for word, n in sorted(c.items(), key=lambda item: (-item[1], item[0]))
    ]
    _csv_rows(out / "summary.csv", summary)
    statuses = Counter(r["status"] for r in results)
    status_rows = "".join(
        f"<tr><td>{html.escape(s)}</td><td>{n}</td></tr>" for s, n in statuses.most_common()
    )
    rows = "".join(
        f'<tr><td>{html.escape(name)}</td><td class="{kind_of(word)}">{html.escape(word)}</td>'
        f"<td>{n}</td></tr>"
        for name, c in counts.items()
        for word, n in sorted(c.items(), key=lambda item: (-item[1], item[0]))
    )
    chart = base64.b64encode(bar_chart(counts)).decode()
    body = (
        f"<h1>Gradebook summary</h1><p>{len(results)} submissions graded; sandbox: "
        f"{html.escape(isolation)}.</p><h2>Runs</h2><table><thead><tr><th>status</th>"
        f"<th>submissions</th></tr></thead><tbody>{status_rows}</tbody></table>"
        f'<h2>Per exercise</h2><img alt="Bar chart of the verdicts per exercise" '
        f'src="data:image/png;base64,{chart}"><table><thead><tr><th>exercise</th>'
        f"<th>verdict</th><th>submissions</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    (out / "summary.html").write_text(_page("Gradebook summary", body), encoding="utf-8")
