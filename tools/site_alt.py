"""Alt text for the figures a notebook's code draws, as the site shows them.

A figure comes out of a cell as a PNG; without alt text Sphinx names it by its file (a
hash), which is what a screen reader then reads. The words are taken, in this order, from:
the cell's own ``mystnb.image.alt`` metadata; the titles the cell's code writes
(``suptitle``, ``title=``, ``set_title``) with its axis labels; the first sentence of the
markdown just above the cell.
"""

from __future__ import annotations

import ast
import re

# Titles held in an f-string keep their words; a value only the kernel knew is left out.
_FIELD = "…"
_SENTENCE = re.compile(r"(.+?[.:!?])(\s|$)", re.S)
_MARKUP = re.compile(r"[*`#>{}]|\$|\\[()a-zA-Z]*|\[([^\]]*)\]\([^)]*\)")
# What a plotting call draws, named for a reader who cannot see it.
_KINDS = {"heatmap": "Heatmap", "weights_bar": "Bar chart", "vectors_3d": "3-D plot of vectors"}


def _text(node: ast.AST) -> str | None:
    """The words of a string literal or an f-string (its fields as "…"); else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_text(v) if isinstance(v, ast.Constant) else _FIELD for v in node.values]
        return "".join(p or "" for p in parts)
    return None


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def titles(source: str) -> dict[str, list[str]]:
    """The figure words a cell's ``source`` writes: ``{"suptitle", "title", "xlabel",
    "ylabel", "kind"}`` -> texts in source order (string arguments of the calls)."""
    found: dict[str, list[str]] = {k: [] for k in ("suptitle", "title", "xlabel", "ylabel", "kind")}
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: no titles to read
        return found
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    sets_suptitle = any(_name(c) == "suptitle" for c in calls)
    for node in calls:
        name = _name(node)
        if name in _KINDS:
            found["kind"].append(_KINDS[name])
        elif name == "plot":
            found["kind"].append("Line chart")
        if name in ("suptitle", "set_title", "set_xlabel", "set_ylabel") and node.args:
            key = {"suptitle": "suptitle", "set_title": "title"}.get(name, name[4:])
            if (text := _text(node.args[0])) is not None:
                found[key].append(text)
        for keyword in node.keywords:
            if keyword.arg in ("title", "xlabel", "ylabel"):
                if (text := _text(keyword.value)) is not None:
                    found[keyword.arg].append(text)
        # A cell's own drawing function given its title, e.g. draw_heads(snapshot, "...").
        if name not in ("print", "display") and not found["suptitle"]:
            texts = [_text(a) for a in node.args]
            long = [t for t in texts if t and " " in t and len(t) > 20]
            if long and sets_suptitle:
                found["suptitle"].append(long[0])
    found["suptitle"] = [t for t in found["suptitle"] if t.strip(_FIELD + " ")]
    return found


def first_sentence(markdown: str) -> str:
    """The first sentence of ``markdown``'s last paragraph, markup left out."""
    paragraphs = [p for p in re.split(r"\n\s*\n", markdown) if p.strip()]
    if not paragraphs:
        return ""
    plain = _MARKUP.sub(lambda m: m.group(1) or "", paragraphs[-1])
    plain = " ".join(plain.split())
    match = _SENTENCE.match(plain)
    return (match.group(1) if match else plain).strip()


def _joined(texts: list[str]) -> str:
    unique = list(dict.fromkeys(" ".join(t.split()) for t in texts if t.strip()))
    return "; ".join(unique)


def figure_alt(source: str, markdown_before: str = "") -> str:
    """Alt text for the figure the code ``source`` draws: what it is, its title and its axes;
    the sentence above it when the code names none."""
    words = titles(source)
    heading = _joined(words["suptitle"]) or _joined(words["title"])
    # Panel titles made of the kernel's values ("block …, head …") say nothing here.
    panels = _joined([t for t in words["title"] if _FIELD not in t]) if words["suptitle"] else ""
    kind = words["kind"][0] if words["kind"] else "Figure"
    if not heading:
        sentence = first_sentence(markdown_before)
        return f"{kind}: {sentence.rstrip('.:')}." if sentence else kind
    parts = [f"{kind}: {heading.rstrip('.')}"]
    if panels:
        parts.append(f"panels: {panels}")
    labels = {axis: _joined(words[axis + "label"]) for axis in "xy"}
    axes = [f"{axis} axis {label}" for axis, label in labels.items() if label]
    if axes:
        parts.append(", ".join(axes))
    if _FIELD in heading and (sentence := first_sentence(markdown_before)):
        parts.append(sentence.rstrip(".:"))
    return ". ".join(parts) + "."
