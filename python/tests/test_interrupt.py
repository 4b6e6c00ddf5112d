"""Ctrl-C (SIGINT, a notebook's interrupt) ends a long native call at once
with KeyboardInterrupt, where it used to wait for the whole call (a query
over the standard library: a minute)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import quarry_code


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
