"""A check ends an endless loop in the reader's answer with one line, and Stop prints one line."""

from __future__ import annotations

import signal
import threading

import pytest

from attnlib.exercises import _core, _limits, check


def _spin(a, b):
    while True:
        pass


def _stubborn(a, b):  # catches the interrupt and goes on: the limit must still end the check
    while True:
        try:
            while True:
                pass
        except Exception:
            pass


@pytest.mark.parametrize("answer", [_spin, _stubborn], ids=["loop", "loop catching Exception"])
def test_an_endless_loop_is_ended_with_one_line(monkeypatch, answer):
    monkeypatch.setattr(_limits, "SECONDS", 0.5)
    verdict = check("01.dot", answer)
    assert verdict.status == "wrong" and not verdict.correct
    assert verdict.message == _limits.ENDLESS and "\n" not in verdict.message
    # the limit is gone after the check: no stray SIGPROF later
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, signal.SIG_IGN, None)


def test_a_finishing_answer_is_not_cut_short():
    def dot(a, b):
        return (a * b).sum()

    assert check("01.dot", dot).correct
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_stop_during_a_check_is_one_line_and_still_stops():
    def interrupted(a, b):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stopped:
        check("01.dot", interrupted)
    assert isinstance(stopped.value, _limits.Stopped)
    assert stopped.value._render_traceback_() == [_limits.STOPPED]


def test_off_the_main_thread_a_check_runs_without_the_limit():
    results = []

    def dot(a, b):
        return (a * b).sum()

    worker = threading.Thread(target=lambda: results.append(_core.check("01.dot", dot)))
    worker.start()
    worker.join()
    assert results[0].correct
