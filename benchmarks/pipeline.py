"""The pipeline section: `assemble` on the peer template and on workspaces of 10 to 1000 skills.

Each figure is the median of several timed runs after a warm-up.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from webapp.pipeline import assemble, explain

from .workspaces import SCENARIO, peer_template_workspace, scale_workspace

Row = tuple[str, str, str]


def median_ms(fn: Callable[[], object], repeat: int, number: int) -> float:
    """The median over `repeat` samples of the mean time of `number` calls, in ms."""
    fn()  # warm-up: caches keyed by skill text are filled as in a live preview
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1000)
    return statistics.median(samples)


def pipeline_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for the pipeline section."""
    peer = peer_template_workspace()
    # a fresh draft each call, as in a live preview where the author is typing
    drafts = iter(range(10**9))
    content = peer.skills[0].content

    def draft() -> object:
        return assemble(peer, SCENARIO, overrides={"peer": f"{content}\n{next(drafts)}"})

    peer_ms = median_ms(lambda: assemble(peer, SCENARIO), 5 if quick else 15, 50 if quick else 400)
    draft_ms = median_ms(draft, 3 if quick else 9, 20 if quick else 200)
    rows = [
        ("peer template: assemble", f"{peer_ms:.3f} ms", "< 0.5 ms"),
        ("peer template: assemble, skill text changed each call", f"{draft_ms:.3f} ms",
         "(re-parse)"),
    ]
    scale: dict[int, float] = {}
    for n in (10, 100) if quick else (10, 100, 1000):
        ws = scale_workspace(n)
        number = 2 if quick else max(1, 2000 // n)
        scale[n] = median_ms(lambda ws=ws: assemble(ws, SCENARIO), 3 if quick else 7, number)
        rows.append((f"scale: {n} skills of 2 KB, 50 tools", f"{scale[n]:.2f} ms",
                     "< 10 ms" if n == 100 else ""))
    if 1000 in scale:
        rows.append(("scale: time(1000) / time(100)", f"{scale[1000] / scale[100]:.1f}x",
                     "<= 12x"))
    if not quick:  # the pipeline pages' work: every step read back from one assembly
        ws = scale_workspace(200)
        rows.append(("explain: every step of the pipeline, 200 skills (median)",
                     f"{median_ms(lambda: explain(ws, SCENARIO), 5, 1):.0f} ms", "—"))
    return rows
