"""The worker pool's section (`webapp.bounds.deadlines`): what running a block in a worker process
costs over running it in the web process, and what replacing a killed worker costs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from webapp.bounds import deadlines
from webapp.render import html
from webapp.render.highlight import highlight_lines

Row = tuple[str, str, str]

#: A block of the size a keystroke changes.
BLOCK = "Rule 20: be very brief.\n- a\n- b\n\n---\n\n"


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def pool_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for the pool."""
    runs = 50 if quick else 500
    deadlines.run("markdown", html.convert, [BLOCK])  # the forkserver and a first worker
    in_process = _median_ms(lambda: html.convert(BLOCK), runs)
    pooled = _median_ms(lambda: deadlines.run("markdown", html.convert, [BLOCK]), runs)
    highlighted = _median_ms(lambda: deadlines.run("highlight", highlight_lines, [BLOCK]), runs)
    replaced = _replace_ms(3 if quick else 10)
    return [
        ("pool: one block rendered, in process", f"{in_process:.3f} ms", "(reference)"),
        ("pool: one block rendered, in a worker", f"{pooled:.3f} ms",
         "<= in process + 0.5 ms (a keystroke: <= 150 ms)"),
        ("pool: one block highlighted, in a worker", f"{highlighted:.3f} ms",
         "<= in process + 0.5 ms"),
        ("pool: a killed worker replaced (fork from the forkserver)", f"{replaced:.1f} ms",
         "<= 100 ms"),
    ]


def _replace_ms(times: int) -> float:
    """Median time of a call that starts a worker: every worker is idle and closed first."""
    samples = []
    for _ in range(times):
        deadlines.close_idle()
        samples.append(_median_ms(lambda: deadlines.run("markdown", html.convert, [BLOCK]), 1))
    return statistics.median(samples)
