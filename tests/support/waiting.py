"""Waiting for a condition, never for a length of time: the one place a test sleeps."""

from __future__ import annotations

import time
from collections.abc import Callable

#: How often a condition is asked, and how many times at most (60 s in all).
INTERVAL = 0.01
ATTEMPTS = 6_000


def wait_until(condition: Callable[[], object], what: str, *, attempts: int = ATTEMPTS) -> None:
    """Return as soon as `condition()` is true; fail, naming `what`, after `attempts` asks.

    The bound is on the asks, not on the clock: the sleep between them only yields the
    core to the threads and processes the condition waits for.
    """
    for _ in range(attempts):
        if condition():
            return
        time.sleep(INTERVAL)
    raise AssertionError(f"still waiting for {what} after {attempts} checks")
