"""The bounded least-recently-used cache class of every cache outside the pipeline.

The pipeline's memos are `webapp.pipeline.memo.Memo` instead: the pipeline imports nothing
outside itself. Every cache of both classes is listed, with its bound and its reason, in
docs/architecture.md ("Caches").

A cache is an object with a name and a documented bound, keyed on everything its value
depends on, so a stale value cannot be returned by construction. The bound is a total
weight: by default each entry weighs 1 (a bound on entries); a `weight(key, value)`
function bounds characters or bytes instead, so a cache holds many small values or a
few large ones, never more than its budget. Safe to share between threads: the lock
is held only to look up and to insert, never while a value is computed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_MISSING = object()


def _one(key: object, value: object) -> int:
    return 1


class LRU(Generic[K, V]):
    """At most `max_weight` worth of entries, the least recently used dropped first.

    An entry heavier than the whole budget is computed but not kept.
    """

    def __init__(self, name: str, max_weight: int,
                 weight: Callable[[K, V], int] = _one) -> None:
        self.name = name
        self.max_weight = max_weight
        self._weight = weight
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value kept for `key` (now the most recently used), else `default`."""
        with self._lock:
            entry = self._entries.get(key, _MISSING)
            if entry is _MISSING:
                return default
            self._entries.move_to_end(key)
            return entry[0]  # type: ignore[index]

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key`, dropping the least recently used entries over the bound."""
        weight = self._weight(key, value)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._total -= old[1]
            if weight <= self.max_weight:
                self._entries[key] = (value, weight)
                self._total += weight
                while self._total > self.max_weight:
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self._total -= dropped
        return value

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        """The value kept for `key`, else `compute(key)`, kept."""
        value = self.get(key, _MISSING)  # type: ignore[arg-type]
        if value is not _MISSING:
            return value  # type: ignore[return-value]
        return self.put(key, compute(key))

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._total = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def weight(self) -> int:
        """The total weight of the entries kept now."""
        return self._total
