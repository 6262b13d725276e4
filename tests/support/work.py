"""Work the deadline tests send to the worker processes (`webapp.bounds.deadlines`): it must be
importable there by name, so it lives here rather than in a test module."""

from __future__ import annotations

import time


def spins(item: str) -> str:
    """Work that never ends on `"stall"`, and is instant otherwise (sent to the workers)."""
    while item == "stall":
        pass
    return item.upper()


def waits(seconds: float) -> float:
    """Work that waits without using the CPU, as a worker does when the machine is loaded."""
    time.sleep(seconds)
    return seconds


def fails(item: str) -> str:
    raise ValueError(f"bad item {item}")
