"""A verdict as a card (:func:`attnlib.cards.card`): its title, the mistake's name, the case
it was seen on, and the fix folded away; the text is the verdict's own message."""

from __future__ import annotations

from attnlib.cards import Part, card
from attnlib.exercises._core import (
    CHECKPOINT,
    CHECKPOINT_FAILED,
    CORRECT,
    COURSE_FAULT,
    NOT_ATTEMPTED,
    NOT_RUN,
    Verdict,
)
from attnlib.exercises._tries import NUDGE
from attnlib.mistakes import MISTAKES

_STATUS = {
    "correct": "correct",
    "mistake": "wrong",
    "wrong": "wrong",
    "refused": "wrong",
    "not attempted": "pending",
    "not run": "pending",
    "course fault": "fault",
    CHECKPOINT: "correct",
    CHECKPOINT_FAILED: "wrong",
}
_TITLE = {"not attempted": NOT_ATTEMPTED, "not run": NOT_RUN, "course fault": COURSE_FAULT}


def verdict_card(verdict: Verdict) -> str:
    """The HTML card of ``verdict`` (any status; an unknown one shows its message)."""
    status = _STATUS.get(verdict.status, "info")
    message = verdict.message
    if verdict.status == "correct":
        rest = message.removeprefix(f"{CORRECT}!").strip()
        return card("correct", CORRECT, [Part("", rest)] if rest else [])
    if verdict.status == "mistake" and verdict.mistake in MISTAKES:
        parts = [Part("Likely mistake", MISTAKES[verdict.mistake].label)]
        if verdict.case:
            parts.append(Part("Seen on", verdict.case))
        if verdict.hint == NUDGE:  # a prediction's first wrong try: the nudge is the hint
            parts.append(Part("Hint", verdict.hint))
        elif verdict.hint:
            parts.append(Part("Hint: how to fix it", verdict.hint, folded=True))
        return card(status, "Not quite", parts)
    if verdict.status in ("wrong", "refused"):
        rest = message.removeprefix("Not quite").lstrip(":. ")
        return card(status, "Not quite", [Part("", rest[:1].upper() + rest[1:])])
    if verdict.status in (CHECKPOINT, CHECKPOINT_FAILED):  # "✓ checkpoint passed: what ..."
        title, _, rest = message.partition(": ")
        return card(status, title.lstrip("✓✗ ").capitalize(), _checkpoint_parts(verdict, rest))
    title = _TITLE.get(verdict.status, "")
    rest = message.removeprefix(title).lstrip(":. ") if title else message
    return card(status, title or verdict.status, [Part("", rest)] if rest else [])


def _checkpoint_parts(verdict: Verdict, rest: str) -> list[Part]:
    """What was judged, then (failed) why: a named mistake and its hint as labelled lines,
    like an exercise's card, rather than one run-on paragraph; else the message as it is."""
    judged = f" (judged as exercise {verdict.exercise})"
    said, found, why = rest.partition(judged + ": ")
    if not found:
        return [Part("", rest)]
    parts = [Part("", said + judged)]
    label = MISTAKES[verdict.mistake].label if verdict.mistake in MISTAKES else None
    lead = f"Not quite. Likely mistake: {label}. Hint: "
    if label and why.startswith(lead):  # the checked object is the notebook's: fix in sight
        return [*parts, Part("Likely mistake", label), Part("Hint", why[len(lead) :])]
    return [*parts, Part("", why)]
