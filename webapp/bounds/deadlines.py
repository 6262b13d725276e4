"""Work on untrusted text under a deadline: worker processes that are killed when they overrun.

Python-Markdown, pygments and difflib are quadratic, or worse, on some text, and a regex
holds the GIL while it runs: one request working on a hostile skill would stop every other
request of its process. The render guard's estimate (`webapp.render.guard`) turns away
the shapes it knows, cheaply; this module is what keeps the server up for the shapes it
does not. The work runs in a worker process; a worker that overruns is killed (SIGKILL)
and replaced, and the caller is told which items were not done, to show them escaped
instead. The waiting thread sleeps in `poll`, so the process's other requests run meanwhile.

**Deadlines** are seconds of the worker's CPU time (read from `/proc`), so a loaded machine,
where a worker waits for a core, does not make ordinary text overrun; and the caller waits
`WALL_FACTOR` times as long at most, whatever the load. Per call (`DEADLINES`):

- `markdown` 1.0: rendering markdown to HTML;
- `highlight` 1.0: highlighting markdown source and JSON;
- `diff` 1.0: a line diff with its changed words marked;
- `regex` 0.5: a context test's pattern over a long text (`context_tests.bounded_search`).

Within a request, all the calls together also stay within the request's budget
(`request_budget`, 1.5 s by default; `UNTRUSTED_WORK_SECONDS` in the app's config): once it
is spent, work is not started and its items come back not done.

**Items are done in order and stream back**: `run(kind, fn, items)` sends every item to one
worker at once, and the worker sends each result as soon as it has it. At the deadline, the
item in progress and every item after it come back as `OVERRUN`; the items done before it
keep their results. The first item that overran is named (`Outcome.culprit`), so a caller
may remember it (the renderer caches it as plain text: a saved hostile skill costs its
deadline once, not on every page).

**The pool**: workers are started on demand, at most `MOST_WORKERS` a process, and an idle
one is reused; they are forked from a `forkserver` that has imported the renderer, so a
replacement starts in milliseconds and no worker inherits the web process's threads,
database connections or sockets. A worker's start is not counted against a deadline. The
first is started in the background at a process's first page request (`warm`), so no
page waits for the forkserver's imports.
"""

from __future__ import annotations

import atexit
import contextvars
import dataclasses
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final, TypeVar

from webapp.bounds.lru import LRU

V = TypeVar("V")

#: Seconds each kind of work may take in one call.
DEADLINES: Final = {"markdown": 1.0, "highlight": 1.0, "diff": 1.0, "regex": 0.5}
#: Seconds all the bounded work of one request may take together, unless the app says.
REQUEST_SECONDS: Final = 1.5
#: How many times its CPU seconds a piece of work is waited for, at most, on a loaded
#: machine (where a worker waits for a core).
WALL_FACTOR: Final = 10
#: Workers a process may run at once; a call that finds them all busy waits for one.
MOST_WORKERS: Final = 4
#: Seconds a new worker may take to start (a loaded machine forking the server).
START_SECONDS: Final = 30.0
#: Modules the forkserver imports once, so each worker starts with them.
PRELOAD: Final = ["webapp.render.html", "webapp.render.highlight", "webapp.textdiff.lines"]


class _Overrun:
    """The marker of an item whose work did not finish in time."""

    def __repr__(self) -> str:
        return "OVERRUN"


OVERRUN: Final = _Overrun()


@dataclass
class Outcome:
    """What `run` gives: each item's result, or `OVERRUN`; and the first item that overran
    while it was being worked on (None when the work finished or was never started)."""

    results: list[Any]
    culprit: int | None = None


@dataclass
class Stats:
    """What the pool has done since the process started: read by `make bench` and tests."""

    calls: int = 0
    items: int = 0
    started: int = 0
    killed: int = 0
    busy: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    idle: int = 0  # workers started and waiting for work
    warmed: bool = False  # this process asked for its first worker ahead of work (`warm`)


_log = logging.getLogger(__name__)

@dataclass
class _Budget:
    """What is left of a request's budget: seconds of worker CPU time, and the wall-clock
    moment past which no work of the request waits."""

    cpu: float
    wall_end: float


_request: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "bounded_request_budget", default=None)


def request_budget(seconds: float = REQUEST_SECONDS) -> contextvars.Token:
    """Start the current request's budget of `seconds` of worker time for all its bounded
    work (and `WALL_FACTOR` times that of waiting); returns the token `end_request` takes."""
    return _request.set(_Budget(seconds, time.monotonic() + WALL_FACTOR * seconds))


def end_request(token: contextvars.Token) -> None:
    """End the budget `request_budget` started."""
    _request.reset(token)


def run(kind: str, fn: Callable[[Any], Any], items: Sequence[Any]) -> Outcome:
    """`fn(item)` for each item, in a worker process, within the deadline of `kind` (and of
    the current request's budget).

    `fn` must be a module-level function (it is sent to the worker by name) and its items
    and results picklable. An exception `fn` raises is raised here.
    """
    if not items:
        return Outcome([])
    _POOL.note(kind, len(items))
    cpu = DEADLINES[kind]
    wall_end = time.monotonic() + WALL_FACTOR * cpu
    budget = _request.get()
    if budget is not None:
        cpu, wall_end = min(cpu, budget.cpu), min(wall_end, budget.wall_end)
    if cpu <= 0 or wall_end <= time.monotonic():
        return Outcome([OVERRUN] * len(items))
    outcome, spent = _POOL.run(fn, items, cpu, wall_end)
    if budget is not None:
        budget.cpu -= spent
    return outcome


def map_cached(kind: str, compute: Callable[[str], V], texts: list[str], cache: LRU[str, V],
                plain: Callable[[str], V]) -> dict[str, V]:
    """`compute(text)` for each of `texts`, run under the deadline of `kind` and kept in
    `cache`; a text whose work overran gets `plain(text)`.

    The text that was in progress at the deadline is cached as plain too: a saved hostile
    skill costs its deadline once, not on every page. The texts after it, never tried, are
    not cached, so the next request tries them.
    """
    outcome = run(kind, compute, texts)
    made: dict[str, V] = {}
    for i, (text, result) in enumerate(zip(texts, outcome.results, strict=True)):
        if result is OVERRUN:
            made[text] = plain(text)
            if i == outcome.culprit:
                cache.put(text, made[text])
        else:
            made[text] = cache.put(text, result)
    return made


def warm() -> None:
    """Start a worker in a thread of its own, once a process, so that the first work of the
    process finds it ready: the pool's first worker waits for the forkserver to import the
    renderer (a second or two, which a server's first page paid). The web app calls it at
    each process's first page request, after any fork of the server's own."""
    global _warmed
    with _warming:
        if _warmed == os.getpid():
            return
        _warmed = os.getpid()
    threading.Thread(target=_POOL.start_idle, name="bounded-warm", daemon=True).start()


_warming = threading.Lock()
_warmed: int | None = None  # the process that warmed (its pid)


def stats() -> Stats:
    """The pool's counters (a copy)."""
    return dataclasses.replace(_POOL.stats_copy(), warmed=_warmed == os.getpid())


def close_idle() -> None:
    """Stop the idle workers (the busy ones stop when their work is done or killed)."""
    _POOL.close()


def _serve(conn: Connection) -> None:
    """A worker's loop: take `(fn, items)`, send back `(True, result)` for each item as it is
    done, or `(False, exception)` and stop that batch."""
    conn.send("ready")
    while True:
        try:
            fn, items = conn.recv()
        except EOFError:
            return
        for item in items:
            try:
                conn.send((True, fn(item)))
            except Exception as exc:  # the caller raises it
                conn.send((False, exc))
                break


#: The shortest wait between two readings of a worker's CPU time (the kernel counts it in
#: ticks of 10 ms).
_TICK_SECONDS = 0.01


class _CpuClock:
    """The CPU time a worker process has used since this clock was made, read from
    `/proc/<pid>/stat` (user and system time, in clock ticks); where there is no `/proc`,
    the wall time since (a loaded machine then counts against the work)."""

    _TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, pid: int | None) -> None:
        self._stat = f"/proc/{pid}/stat"
        self._wall = time.monotonic()
        self._start = self._read()

    def _read(self) -> float | None:
        try:
            with open(self._stat, "rb") as stat:
                # The fields after the command's closing parenthesis; utime and stime are
                # the 14th and 15th of the line, the 12th and 13th after it.
                fields = stat.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / self._TICK
        except (OSError, IndexError, ValueError):
            return None

    def used(self) -> float:
        now = self._read()
        if now is None or self._start is None:
            return time.monotonic() - self._wall
        return now - self._start


class _Worker:
    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True,
                                       name="bounded-worker")
        self.process.start()
        child.close()
        try:
            ready = self.conn.poll(START_SECONDS) and self.conn.recv() == "ready"
        except EOFError:
            ready = False
        if not ready:
            self.kill()
            raise RuntimeError("a worker process did not start")

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class _Pool:
    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._count = 0
        self._lock = threading.Condition()
        self._context: Any = None
        self._stats = Stats()

    def note(self, kind: str, items: int) -> None:
        with self._lock:
            self._stats.calls += 1
            self._stats.items += items
            self._stats.kinds[kind] = self._stats.kinds.get(kind, 0) + 1

    def stats_copy(self) -> Stats:
        with self._lock:
            return Stats(**{**self._stats.__dict__, "kinds": dict(self._stats.kinds),
                            "idle": len(self._idle)})

    def run(self, fn: Callable[[Any], Any], items: Sequence[Any], cpu: float,
            wall_end: float) -> tuple[Outcome, float]:
        """The outcome of `fn` on `items` in one worker, which may use `cpu` seconds of CPU
        time and is waited for until `wall_end` at most; and the CPU seconds it used."""
        worker, starting = self._checkout(wall_end)
        wall_end += starting  # a worker's start is not the work's
        if worker is None:  # every worker stayed busy until the deadline
            return Outcome([OVERRUN] * len(items)), 0.0
        results: list[Any] = []
        healthy = False
        clock = _CpuClock(worker.process.pid)
        try:
            worker.conn.send((fn, list(items)))
            while len(results) < len(items):
                # The worker cannot use more CPU time than wall time passes: waiting for
                # what its CPU budget has left never lets it overrun by more than a tick.
                wait = min(cpu - clock.used(), wall_end - time.monotonic())
                if wait <= 0:
                    break
                if not worker.conn.poll(max(wait, _TICK_SECONDS)):
                    continue  # a loaded machine: the worker waited, its CPU time is checked
                ok, value = worker.conn.recv()
                if not ok:
                    healthy = True  # it stopped the batch itself and waits for the next
                    raise value
                results.append(value)
            else:
                healthy = True
        finally:
            spent = clock.used()
            self._checkin(worker, healthy)
        culprit = len(results) if len(results) < len(items) else None
        return Outcome(results + [OVERRUN] * (len(items) - len(results)), culprit), spent

    def _checkout(self, deadline: float) -> tuple[_Worker | None, float]:
        """An idle worker, else a new one if there is room, else the first one freed before
        the deadline, or None; and the seconds spent starting it."""
        with self._lock:
            while not self._idle and self._count >= MOST_WORKERS:
                if not self._lock.wait(max(0.0, deadline - time.monotonic())):
                    return None, 0.0
            self._stats.busy += 1
            if self._idle:
                return self._idle.pop(), 0.0
            self._count += 1
            self._stats.started += 1
        started = time.monotonic()
        try:
            return _Worker(self._start_context()), time.monotonic() - started
        except Exception:
            # The work is then not done, and shown escaped: a page that says so beats a 500.
            _log.exception("a worker process for untrusted work could not start")
            with self._lock:
                self._count -= 1
                self._stats.busy -= 1
                self._lock.notify()
            return None, time.monotonic() - started

    def start_idle(self) -> None:
        """Start one worker and keep it idle, unless the pool has one already."""
        with self._lock:
            if self._count:
                return
            self._count += 1
            self._stats.started += 1
        try:
            worker = _Worker(self._start_context())
        except Exception:
            _log.exception("a worker process for untrusted work could not start")
            with self._lock:
                self._count -= 1
                self._lock.notify()
            return
        with self._lock:
            self._idle.append(worker)
            self._lock.notify()

    def _checkin(self, worker: _Worker, healthy: bool) -> None:
        if not healthy:
            worker.kill()
        with self._lock:
            self._stats.busy -= 1
            if healthy:
                self._idle.append(worker)
            else:
                self._count -= 1
                self._stats.killed += 1
            self._lock.notify()

    def _start_context(self) -> Any:
        with self._lock:
            if self._context is None:
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(PRELOAD)
                self._context = context
            return self._context

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for worker in idle:
            worker.kill()


_POOL = _Pool()
atexit.register(_POOL.close)
