"""The caches at real size and the cold path: `assemble` on 1,000 and 4,000 skills, warm
and cold, two agents in turn, and a naive assembly of the same texts for comparison.

Cold means nothing of the workspace is in the pipeline's memos, as on the first preview
after a start: every run uses skill names and texts never seen before (a fresh prefix),
so it measures no cache and needs no access to one.

The naive baseline (`naive_assemble`) is what a template engine without provenance does
with the same texts: one regular-expression substitution of every `{{name}}` by its
value (each tool's result text as it stands), one regular-expression heading bump
(`#` added to every ATX heading), the skills joined under the title. No role split, no
fences, no diagnostics, no origins.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import re
import time
import tracemalloc
from collections.abc import Callable

from webapp.pipeline import Agent, Workspace, assemble

from .workspaces import SCENARIO, scale_workspace

Row = tuple[str, str, str]

_NAME = re.compile(r"\{\{[ \t]*([^\s{}]+)[ \t]*\}\}")
_HEADING = re.compile(r"^(#{1,6})(?=[ \t]|$)", re.MULTILINE)


def naive_assemble(workspace: Workspace, values: dict[str, str]) -> str:
    """Substitute `{{names}}` by `values`, bump headings, join: the baseline."""
    def value(match: re.Match[str]) -> str:
        return values.get(match.group(1), "")

    parts = [f"system:\n# {workspace.agent.name}"]
    for skill in workspace.skills:
        parts.append(_HEADING.sub(r"#\1", _NAME.sub(value, skill.content)))
    return "\n\n---\n\n".join(parts) + "\n"


def renamed(workspace: Workspace, prefix: str) -> Workspace:
    """`workspace` with every skill's name and text made new (nothing of it memoised)."""
    return dataclasses.replace(workspace, skills=tuple(
        dataclasses.replace(s, d_tag=f"{prefix}{s.d_tag}", content=f"{s.content}\n{prefix}")
        for s in workspace.skills))


def best_ms(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` calls, in ms of this process's CPU time (the machine is
    shared: time spent waiting for a core does not count, and the fastest run is the
    least disturbed one). A full collection first, so each call starts alike."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return min(times)


_RUNS = itertools.count()


def cold_ms(workspace: Workspace, repeat: int) -> float:
    """The fastest cold assembly of `workspace` (names and texts never used before)."""
    fresh = [renamed(workspace, f"c{next(_RUNS)}_") for _ in range(repeat)]
    it = iter(fresh)
    return best_ms(lambda: assemble(next(it), SCENARIO), repeat)


def tool_values(workspace: Workspace) -> dict[str, str]:
    """Each mock tool's result text as it stands, for the naive baseline (the pipeline also
    turns a JSON text into markdown; the naive baseline substitutes it unchanged)."""
    return {tool.name: str(tool.result.get("content", "")) for tool in workspace.tools}


def retained_kb_per_skill(workspace: Workspace) -> float:
    """What one cold assembly of `workspace` leaves allocated (its memo entries: the
    context is dropped), per skill, in KB, by `tracemalloc`. The workspace is built
    before tracing starts, so the texts themselves are not counted."""
    fresh = renamed(workspace, f"m{next(_RUNS)}_")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        assemble(fresh, SCENARIO)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / len(workspace.skills) / 1000


def cache_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for the caches and the cold path."""
    small, large = (250, 1000) if quick else (1000, 4000)
    repeat = 3 if quick else 5
    ws_small, ws_large = scale_workspace(small), scale_workspace(large)
    values = tool_values(ws_small)
    naive = best_ms(lambda: naive_assemble(ws_small, values), repeat)
    cold = cold_ms(ws_small, repeat)
    assemble(ws_small, SCENARIO)
    warm_small = best_ms(lambda: assemble(ws_small, SCENARIO), repeat) / small
    assemble(ws_large, SCENARIO)
    warm_large = best_ms(lambda: assemble(ws_large, SCENARIO), repeat) / large
    other = renamed(dataclasses.replace(ws_large, agent=Agent(name="Other")), "o_")
    assemble(other, SCENARIO)
    turn = best_ms(lambda: (assemble(ws_large, SCENARIO), assemble(other, SCENARIO)),
                   repeat) / (2 * large)
    return [
        (f"naive substitute-and-bump, {small} skills", f"{naive:.1f} ms", ""),
        (f"cold assemble, {small} skills", f"{cold:.0f} ms", ""),
        (f"cold assemble, {small} skills / naive substitute-and-bump", f"{cold / naive:.1f}x",
         "near 3x"),
        (f"warm assemble, per skill, {small} skills", f"{warm_small * 1000:.1f} us", ""),
        (f"warm assemble, per skill, {large} skills", f"{warm_large * 1000:.1f} us", ""),
        (f"warm assemble, per-skill cost at {large} vs {small} skills",
         f"{warm_large / warm_small:.2f}x", "<= 1.5x"),
        (f"two agents of {large} skills previewed in turn, per skill",
         f"{turn * 1000:.1f} us", "flat"),
        (f"kept by the memos after one {large}-skill assembly, per skill",
         f"{retained_kb_per_skill(ws_large):.1f} KB", "(was 37 KB)"),
    ]


if __name__ == "__main__":
    for figure, measured, target in cache_rows():
        print(f"{figure:<62} {measured:>10}  {target}")
