"""Verdict cards (attnlib/cards.py, attnlib/exercises/_card.py) and a prediction's tries.

The card is HTML made from the reader's own text, so it escapes; its ``text/plain`` is the
verdict's message exactly (what nbval compares); its words wrap only between words; and a
prediction question's first wrong answer names the mistake without giving the answer away.
"""

from __future__ import annotations

import random
import re

import pytest

from attnlib.cards import STATUSES, STYLE, Part, card
from attnlib.exercises import EXERCISES, check
from attnlib.exercises._tries import NUDGE, forget
from attnlib.exercises._value import ValueExercise
from attnlib.mistakes import MISTAKES


@pytest.fixture(autouse=True)
def _fresh_tries(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNLIB_PROGRESS_DIR", str(tmp_path))
    for variable in ("ATTNLIB_VERDICT_LOG", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(variable, raising=False)
    forget()
    yield
    forget()


def test_a_card_escapes_every_text_it_is_given():
    html = card(
        "wrong",
        "<script>alert(1)</script>",
        [Part("<b>label</b>", "a & b < c `<i>x</i>`"), Part("fold <u>", "\"q\" 'r'", True)],
    )
    body = html.split("</style>", 1)[1]
    assert "<script>" not in body and "<b>" not in body and "<i>" not in body and "<u>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "a &amp; b &lt; c <code>&lt;i&gt;x&lt;/i&gt;</code>" in body
    assert "<details><summary>fold &lt;u&gt;</summary>" in body
    assert "&quot;q&quot; &#x27;r&#x27;" in body


@pytest.mark.parametrize("bad", ["ok", "", None, "Correct"])
def test_a_card_of_an_unknown_status_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="card status: expected one of"):
        card(bad, "title")


def test_a_card_wraps_between_words_only_and_uses_the_theme_with_fallbacks():
    rules = STYLE.replace("\n", " ")
    assert "overflow-wrap: break-word" in rules and "word-break: normal" in rules
    assert "break-all" not in rules and "anywhere" not in rules
    assert not re.search(r"hyphens:\s*auto", rules)
    used = re.findall(r"var\((--jp-[\w-]+)([^)]*)\)", rules)
    assert used, "the card takes its colours from JupyterLab's theme"
    assert all(rest.startswith(",") for _, rest in used), [v for v, r in used if not r]
    # Off JupyterLab (the site, light or dark) text and greys must not assume a light page.
    for prop, fallback in re.findall(
        r"(color|background):\s*var\(--jp-[\w-]+,\s*([^)]*\)?)", rules
    ):
        assert fallback.startswith(("inherit", "transparent", "currentColor", "rgba(")), (
            prop,
            fallback,
        )
    for _, variable, fallback in STATUSES.values():  # the status colour also has its fallback
        assert variable.startswith("--jp-") and re.fullmatch(r"#[0-9a-f]{6}", fallback)


def _verdicts():
    """Verdicts of every status: stubs, wrong and right answers, not run, a course fault."""
    out = [check(name, ...) for name in sorted(EXERCISES)]
    out += [check("01.dot", lambda a, b: (a * b).sum()), check("01.dot", lambda a, b: a * b)]
    out += [check("01.repeats", 21), check("01.repeats", 14), check("01.highest", "<b>one</b>")]
    out += [check("99.nothing"), check("02.matmul", lambda inputs: inputs.T @ inputs)]
    return out


def test_text_plain_is_the_message_exactly_and_html_is_a_card_of_it():
    verdicts = _verdicts()
    assert {v.status for v in verdicts} >= {
        "not attempted", "correct", "mistake", "wrong", "refused", "course fault"
    }  # fmt: skip
    for verdict in verdicts:
        bundle = verdict._repr_mimebundle_()
        assert bundle["text/plain"] == str(verdict) == repr(verdict) == verdict.message
        html = bundle["text/html"]
        assert html.startswith("<style>") and 'class="attnlib-card' in html
        if verdict.mistake:
            assert MISTAKES[verdict.mistake].label.replace("'", "&#x27;") in html
    refused = next(v for v in verdicts if "&lt;b&gt;one" in v._repr_mimebundle_()["text/html"])
    assert "<b>one" not in refused._repr_mimebundle_()["text/html"]


def test_a_named_mistake_of_a_function_shows_its_case_and_folds_its_fix():
    verdict = check("02.matmul", lambda inputs: inputs.T @ inputs)
    assert verdict.mistake == "transposed_product", verdict.message
    html = verdict._repr_mimebundle_()["text/html"]
    assert "Likely mistake:" in html and "Seen on:</span> the book&#x27;s 6 tokens" in html
    assert "<details><summary>Hint: how to fix it</summary>" in html


def test_correct_is_a_tick():
    html = check("01.dot", lambda a, b: (a * b).sum())._repr_mimebundle_()["text/html"]
    assert "attnlib-card-correct" in html and "✓</span>Correct</p>" in html


# --- a prediction's first wrong answer -------------------------------------------------------


def _shows(message: str, right) -> bool:
    """Whether ``message`` states the right answer ``right``."""
    if isinstance(right, bool):
        return False  # a yes-or-no answer is never hidden by leaving it out
    if isinstance(right, str):
        return re.search(rf"\b{re.escape(right)}\b", message, re.I) is not None
    if isinstance(right, tuple):
        return str(right) in message or str(list(right)) in message
    if isinstance(right, int):
        return re.search(rf"(?<![\d.]){right}(?![\d]|\.\d)", message) is not None
    if isinstance(right, float):
        if right.is_integer() and _shows(message, int(right)):
            return True
        return (
            any(f"{right:{f}}" in message for f in (".4f", ".3f", ".2f")) or repr(right) in message
        )
    return False


PREDICTIONS = sorted(
    n for n, e in EXERCISES.items() if isinstance(e, ValueExercise) and e.prediction and e.mistakes
)


HIDDEN: dict[str, list[str]] = {}  # the explanations held back at a first try, by exercise


def test_there_are_predictions_with_named_mistakes():
    assert len(PREDICTIONS) >= 10, PREDICTIONS


@pytest.mark.parametrize("name", PREDICTIONS)
def test_a_predictions_first_named_mistake_hints_and_the_second_explains(name):
    exercise = EXERCISES[name]
    right = exercise.expected()
    named, hidden = 0, HIDDEN.setdefault(name, [])
    for mistake, make in exercise.mistakes.items():
        forget()
        wrong = make()
        first = check(name, wrong)
        if first.status != "mistake":
            continue  # a value the answer policy takes another way (a pair given as a dict)
        named += 1
        assert MISTAKES[mistake].label in first.message
        assert not _shows(first.message, right), (name, mistake, first.message)
        shown = re.sub(r"<[^>]+>", " ", first._repr_mimebundle_()["text/html"].split("</style>")[1])
        assert not _shows(shown, right), (name, mistake, shown)
        second = check(name, wrong)
        assert second.mistake == first.mistake and NUDGE not in second.message
        assert second.hint and second.hint in second.message
        if _shows(second.message, right):  # the explanation gives it away: held back at first
            hidden.append(mistake)
            assert NUDGE in first.message
            assert "<details>" not in first._repr_mimebundle_()["text/html"]
        else:  # a hint that does not give the answer away is shown at once
            assert first.message == second.message
    assert named, f"{name}: no named mistake was judged through check()"


def _generated_wrong(exercise, right, rng: random.Random) -> list:
    """Wrong answers of the right type, not written by hand: other numbers, other tokens."""
    tokens = getattr(exercise.accept, "tokens", None)
    if tokens is not None:
        return [t for t in tokens if t.lower() != right]
    if isinstance(right, bool):
        return [not right]
    if isinstance(right, int):
        return [v for v in (rng.randint(0, 3 * right + 10) for _ in range(12)) if v != right]
    if isinstance(right, float):
        return [right * f for f in (rng.uniform(0.1, 0.9), rng.uniform(1.1, 3.0))]
    if isinstance(right, tuple) and all(isinstance(n, int) for n in right):
        return [tuple(n + rng.randint(1, 5) for n in right), tuple(reversed(right)) + (1,)]
    return []


@pytest.mark.parametrize(
    "name", sorted(n for n, e in EXERCISES.items() if getattr(e, "prediction", False))
)
def test_a_first_wrong_prediction_never_states_the_answer(name):
    exercise = EXERCISES[name]
    right = exercise.expected()
    wrongs = _generated_wrong(exercise, right, random.Random(name))
    for wrong in wrongs:
        forget()
        verdict = check(name, wrong)
        assert not verdict.correct, (name, wrong)
        assert not _shows(verdict.message, right), (name, wrong, verdict.message)


def test_the_count_is_per_exercise_and_starts_again_after_a_right_answer():
    first = check("01.repeats", 21)
    assert NUDGE in first.message
    assert NUDGE in check("01.highest", "one").message  # another exercise: its own first try
    assert NUDGE not in check("01.repeats", 21).message
    assert check("01.repeats", 15).correct
    assert NUDGE in check("01.repeats", 21).message


def test_under_the_grader_the_first_wrong_answer_is_explained_at_once(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTNLIB_VERDICT_LOG", str(tmp_path / "log.jsonl"))
    verdict = check("01.repeats", 21)
    assert verdict.mistake == "repeats_distinct" and NUDGE not in verdict.message


def test_the_explanations_that_state_the_answer_are_held_back():
    for name in PREDICTIONS:
        if name not in HIDDEN:
            test_a_predictions_first_named_mistake_hints_and_the_second_explains(name)
    held = {(name, m) for name, ms in HIDDEN.items() for m in ms}
    # read by hand in the mistakes' tables: these explanations state the right answer
    assert {("01.repeats", "repeats_distinct"), ("01.highest", "itself_highest")} <= held, held


def test_a_checkpoint_shows_as_a_card_of_its_own_never_a_bare_correct():
    from attnlib.exercises import checkpoint
    from attnlib.exercises._card import verdict_card
    from attnlib.modules import MultiHeadAttentionWrapper

    wrapper = MultiHeadAttentionWrapper
    passed = verdict_card(checkpoint("07.wrapper_forward", wrapper, "the course's layer"))
    assert "Checkpoint passed" in passed and ">Correct<" not in passed
    failed = verdict_card(checkpoint("07.wrapper_forward", object(), "an object"))
    assert "Checkpoint failed" in failed and "attnlib-card-wrong" in failed


def test_a_failed_checkpoints_named_mistake_reads_like_an_exercises_card():
    """What was judged, the mistake's name and its hint on lines of their own (the run-on
    message cut apart); the text stays the one line nbval compares."""
    from attnlib.attention import attention_scores, softmax
    from attnlib.data import example_inputs
    from attnlib.exercises import checkpoint

    inputs = example_inputs()
    weights = softmax(attention_scores(inputs))
    verdict = checkpoint("04.running_sum", weights[2] @ inputs, "the context vector")
    assert verdict._repr_mimebundle_()["text/plain"] == verdict.message
    assert verdict.message.startswith(
        "✗ checkpoint failed: the context vector (judged as exercise 04.running_sum): Not quite."
    )
    body = verdict._repr_mimebundle_()["text/html"].split("</style>")[1]
    lines = re.findall(r"<p>(.*?)</p>", body)
    assert lines[0] == "the context vector (judged as exercise 04.running_sum)", lines
    assert lines[1] == (
        '<span class="attnlib-card-label">Likely mistake:</span> the wrong query index '
        "(off by one?)"
    ), lines
    assert lines[2].startswith('<span class="attnlib-card-label">Hint:</span> this is the')
    assert lines[2].endswith("use attn_weights[1] (and inputs[1] as the query).")
    # Without a named mistake, the reason is its own line, as said.
    plain = checkpoint("07.d_out", (4, 2), "the sizes")
    body = plain._repr_mimebundle_()["text/html"].split("</style>")[1]
    assert re.findall(r"<p>(.*?)</p>", body) == [
        "the sizes (judged as exercise 07.d_out)",
        "Not quite: (4, 2) is not the answer.",
    ]


def test_the_book_value_checkpoints_show_as_cards_with_their_line_as_text():
    """checks.py's pass line and a caught CheckpointError, displayed in a notebook: a card,
    whose text/plain is the line nbval compares."""
    import torch

    from attnlib import CheckpointError, check_weights
    from attnlib.checks import _Passed
    from attnlib.data import example_inputs

    inputs = example_inputs()
    with pytest.raises(CheckpointError) as caught:
        check_weights(torch.softmax(inputs @ inputs.T, dim=0))
    bundle = caught.value._repr_mimebundle_()
    assert bundle["text/plain"] == str(caught.value)
    body = bundle["text/html"].split("</style>", 1)[1]
    assert "attnlib-card-wrong" in body and "Weights checkpoint failed" in body
    assert f"Likely mistake:</span> {MISTAKES['softmax_dim0'].label}" in body
    line = "✓ scores checkpoint passed: shape (6, 6), 36 entries, symmetric"
    passed = _Passed(line)._repr_mimebundle_()
    assert passed["text/plain"] == line == repr(_Passed(line))
    assert "Scores checkpoint passed</p>" in passed["text/html"]


def test_no_notebook_prints_a_checkpoint_as_console_text():
    """Every checkpoint the course shows is a card: no stream output says a checkpoint passed
    or failed (the notebooks display the verdict or the caught error)."""
    import nbformat
    from course import NOTEBOOKS

    printed = [
        (path.name, line)
        for path in NOTEBOOKS
        for cell in nbformat.read(path, as_version=4).cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
        for line in out.get("text", "").splitlines()
        if re.search(r"checkpoint (passed|failed)", line)
    ]
    assert not printed, printed
