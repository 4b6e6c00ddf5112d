"""Ctrl-C (SIGINT, a notebook's interrupt) ends a long native call at once
with KeyboardInterrupt, where it used to wait for the whole call (a query
over the standard library: a minute); and the interrupted work stops too,
where it used to run on in the background, holding a thread of the pool."""

from __future__ import annotations

import os
import resource
import signal
import threading
import time

import pytest

import quarry_code


@pytest.fixture(autouse=True)
def _sigint_raises_keyboard_interrupt():
    """Python's own SIGINT handler for each test: a run started in a shell's
    background inherits SIGINT ignored, and Python then installs none."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def _interrupted_long_call(after: float) -> None:
    """A two-minute native call, interrupted by SIGINT after ``after`` seconds."""
    timer = _interrupt_after(after)
    try:
        with pytest.raises(KeyboardInterrupt):
            quarry_code._native._sleep_for_test(120.0)
    finally:
        timer.cancel()


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _cpu_after_interrupt(call, after: float = 0.3) -> float:
    """The CPU seconds this process uses in the 1.5 s after ``call`` (a native
    call of many seconds) is interrupted ``after`` seconds in: about 0 once its
    work stops, up to a core's worth while it runs on in the background."""
    timer = _interrupt_after(after)
    try:
        call()
    except KeyboardInterrupt:
        pass
    else:
        pytest.skip("the call ended before the interrupt (a fast build): no work to stop")
    finally:
        timer.cancel()
    before = _cpu_seconds()
    time.sleep(1.5)
    return _cpu_seconds() - before


def _line(seed: int) -> str:
    words = "the function returns a value of the file line number list open read write parse token".split()
    return " ".join(words[(seed * i + i // 5) % len(words)] for i in range(200))


# 20,000 lines of 200 words (the same four strings, so that Python holds little):
# seconds for every metric here in a release build, tens of seconds in a dev build.
HYPS = [_line(seed) for seed in (3, 5, 7, 11)] * 5000
REFS = [_line(seed) for seed in (5, 7, 11, 3)] * 5000


@pytest.mark.parametrize(
    "call",
    [
        lambda: quarry_code.metrics.score("bleu", HYPS, REFS),
        lambda: quarry_code.metrics.bleu(HYPS, REFS),
        lambda: quarry_code.metrics.rouge_l(HYPS, REFS),
        lambda: quarry_code.metrics.meteor(HYPS, REFS, use_wordnet=False),
    ],
    ids=["score-bleu", "bleu", "rouge-l", "meteor"],
)
def test_an_interrupted_metric_stops_its_work(call):
    assert _cpu_after_interrupt(call) < 0.3


def test_an_interrupted_pipe_stops_its_work(nlp):
    texts = ["Returns the value of the line in the file."] * 100_000
    assert _cpu_after_interrupt(lambda: list(nlp.pipe(texts, batch_size=len(texts)))) < 0.3


def test_interrupted_codeqa_pairs_stop_their_work(nlp):
    # One long first sentence (156,000 characters): its pairs take about as long again as
    # its parse, both linear in its length (seconds in a dev build). Interrupted in the
    # parse and once the pairs are being made (timed from the parse alone): the parse's
    # token vectors and parser look at the flag every thousand or so rows or moves, the
    # pairs between predicates.
    comment = " ".join(["reads values"] * 12000)
    start = time.perf_counter()
    list(nlp.pipe([comment]))
    parse = time.perf_counter() - start
    call = lambda: quarry_code.codeqa.pairs(comment, nlp)  # noqa: E731
    assert _cpu_after_interrupt(call, after=parse * 0.4) < 0.3
    assert _cpu_after_interrupt(call, after=parse * 1.2 + 0.05) < 0.3


def test_calls_after_interrupted_long_calls_do_not_wait():
    # Enough interrupted calls to hold every thread of the pool while their work ran on.
    for _ in range(os.cpu_count() or 1):
        timer = _interrupt_after(0.1)
        try:
            with pytest.raises(KeyboardInterrupt):
                quarry_code.metrics.score("bleu", HYPS, REFS)
        finally:
            timer.cancel()
    started = time.monotonic()
    assert quarry_code.metrics.accuracy(["a"], ["a"]) == 1.0
    assert time.monotonic() - started < 2


def test_sigint_interrupts_a_long_call():
    started = time.monotonic()
    _interrupted_long_call(0.2)
    # The call waits for signals in steps of 50 ms; a generous bound far below the 120 s.
    assert time.monotonic() - started < 60


def test_a_call_after_an_interrupt_works():
    _interrupted_long_call(0.1)
    assert quarry_code.metrics.accuracy(["a"], ["a"]) == 1.0


def test_an_exception_from_a_signal_handler_ends_the_call():
    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()

    previous = signal.signal(signal.SIGUSR1, handler)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGUSR1))
    timer.start()
    try:
        with pytest.raises(Stop):
            quarry_code._native._sleep_for_test(120.0)
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
