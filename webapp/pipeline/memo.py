"""The memo class of the pipeline's pure functions: their results kept within a byte budget.

Everything outside the pipeline caches with `webapp.bounds.lru.LRU`; the pipeline keeps this
class of its own because it imports nothing outside itself. Every memo and cache is
listed, with its bound and its reason, in docs/architecture.md ("Caches").

`parse_skill`, `run_plain_skill` and `parse_template` are pure functions of hashable
arguments, so a memo keyed on the argument tuple cannot return a stale value. What it
must get right is which values to keep when the budget is spent.

The budget is bytes, not entries, so a workspace of many small skills and one of a few
large ones cost what they weigh; each memo states its `weight(args, value)`, an estimate
of the bytes the entry keeps alive (see `str_bytes` and friends).

A server previews several agents in turn. With a plain least-recently-used order, one
preview of another large agent walks through the memo and pushes out every skill of
the agent being edited (measured with a plain order: 20 to 30 times the warm cost per
skill). So the memo is segmented (SLRU): a new entry goes into a probation segment, and
only an entry used a second time moves into the protected segment, which holds up to
`protected` of the budget. A preview of another agent, seen once, fills probation and
evicts from probation; the agent being edited, looked up on every keystroke, stays
protected as long as it fits in the protected share. Within each segment the least
recently used entry goes first; a protected entry pushed out of its segment goes back
to probation (most recently used end) rather than away.

Safe to share between threads: the lock is held to look up and to insert, never while
a value is computed.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

#: The bytes CPython (64-bit) gives an empty str, tuple, and a pointer in a tuple.
STR_BYTES = sys.getsizeof("")
TUPLE_BYTES = sys.getsizeof(())
POINTER_BYTES = 8


def str_bytes(text: str) -> int:
    """What `text` weighs: one byte a character when ASCII, else up to four."""
    return STR_BYTES + (len(text) if text.isascii() else 4 * len(text))


def tuple_bytes(length: int) -> int:
    """What a tuple of `length` items weighs, not counting the items."""
    return TUPLE_BYTES + POINTER_BYTES * length


class MemoInfo(NamedTuple):
    """A memo's counters and sizes (the first four named as `functools.lru_cache`'s)."""

    hits: int
    misses: int
    maxsize: int  # the budget, in bytes
    currsize: int  # the bytes kept now
    entries: int
    protected: int  # entries in the protected segment
    evictions: int


class _Entry(NamedTuple):
    value: Any
    weight: int


class Memo(Generic[P, R]):
    """`function`'s results, at most `max_bytes` of them, in two least-recently-used
    segments (see the module's docstring). A result heavier than `max_bytes // 4` is
    returned but not kept."""

    def __init__(self, function: Callable[P, R], max_bytes: int,
                 weight: Callable[[tuple[Hashable, ...], R], int],
                 protected: float = 0.8) -> None:
        functools.update_wrapper(self, function)
        self._function = function
        self._weight = weight
        self.max_bytes = max_bytes
        self.protected_share = protected
        self._probation: OrderedDict[tuple[Hashable, ...], _Entry] = OrderedDict()
        self._protected: OrderedDict[tuple[Hashable, ...], _Entry] = OrderedDict()
        self._bytes = self._protected_bytes = 0
        self._hits = self._misses = self._evictions = 0
        self._lock = threading.Lock()

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        assert not kwargs, "memoised functions are called with positional arguments"
        key = args
        with self._lock:
            entry = self._protected.get(key)
            if entry is not None:
                self._protected.move_to_end(key)
                self._hits += 1
                return entry.value
            entry = self._probation.pop(key, None)
            if entry is not None:  # a second use: protected from now on
                self._hits += 1
                self._protect(key, entry)
                return entry.value
            self._misses += 1
        value = self._function(*args)
        weight = self._weight(key, value)
        if weight <= self.max_bytes // 4:
            with self._lock:
                self._forget(key)  # another thread may have put it meanwhile
                self._probation[key] = _Entry(value, weight)
                self._bytes += weight
                self._evict()
        return value

    def _protect(self, key: tuple[Hashable, ...], entry: _Entry) -> None:
        self._protected[key] = entry
        self._protected_bytes += entry.weight
        while self._protected_bytes > self.max_bytes * self.protected_share:
            old_key, old = self._protected.popitem(last=False)
            self._protected_bytes -= old.weight
            self._probation[old_key] = old

    def _forget(self, key: tuple[Hashable, ...]) -> None:
        old = self._probation.pop(key, None)
        if old is None:
            old = self._protected.pop(key, None)
            if old is not None:
                self._protected_bytes -= old.weight
        if old is not None:
            self._bytes -= old.weight

    def _evict(self) -> None:
        while self._bytes > self.max_bytes:
            if self._probation:
                _, old = self._probation.popitem(last=False)
            else:
                _, old = self._protected.popitem(last=False)
                self._protected_bytes -= old.weight
            self._bytes -= old.weight
            self._evictions += 1

    def __contains__(self, key: tuple[Hashable, ...]) -> bool:
        """Whether the result for the argument tuple `key` is kept (not a use)."""
        with self._lock:
            return key in self._protected or key in self._probation

    def cache_info(self) -> MemoInfo:
        """The counters since the last `cache_clear`, and what is kept now."""
        with self._lock:
            return MemoInfo(self._hits, self._misses, self.max_bytes, self._bytes,
                            len(self._probation) + len(self._protected),
                            len(self._protected), self._evictions)

    def cache_clear(self) -> None:
        """Forget every result and reset the counters."""
        with self._lock:
            self._probation.clear()
            self._protected.clear()
            self._bytes = self._protected_bytes = 0
            self._hits = self._misses = self._evictions = 0


def memo(max_bytes: int, weight: Callable[[tuple[Hashable, ...], Any], int],
         protected: float = 0.8) -> Callable[[Callable[P, R]], Memo[P, R]]:
    """Decorate a pure function of hashable positional arguments with a `Memo`."""
    def wrap(function: Callable[P, R]) -> Memo[P, R]:
        return Memo(function, max_bytes, weight, protected)
    return wrap
