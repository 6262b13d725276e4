"""`skill-editor bench`: the speed figures docs/performance.md records.

Synthetic workspaces are built here, deterministically; each figure is the median of
several timed runs (after a warm-up), so the numbers are comparable between runs.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable

from webapp.pipeline import Agent, Scenario, Skill, Tool, Workspace, assemble


def _median_ms(fn: Callable[[], object], repeat: int, number: int) -> float:
    fn()  # warm-up: caches keyed by skill text are filled as in a live preview
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1000)
    return statistics.median(samples)


def peer_template_workspace() -> Workspace:
    """One skill of 20 role sections, each with a heading, a `{{v_i}}` line and two bullets."""
    parts = []
    for i in range(20):
        role = "system" if i == 0 else ("user" if i % 2 else "assistant")
        parts.append(f"{role}:\n## Section {i}\n\nValue: {{{{v_{i}}}}}\n\n- first point {i}\n- second point {i}\n")
    tools = tuple(
        Tool(name=f"v_{i}", result={"success": True,
                                     "content": f"Result {i}: " + "plain text from the tool " * 3})
        for i in range(20)
    )
    skill = Skill(d_tag="peer", content="\n".join(parts), triggers=("dm",))
    return Workspace(agent=Agent(name="Bench"), skills=(skill,), tools=tools,
                     scenarios=(Scenario(name="bench", message="hello"),))


def scale_workspace(n_skills: int, n_tools: int = 50) -> Workspace:
    """`n_skills` triggered skills of about 2 KB each, using 50 tools between them."""
    tools = tuple(Tool(name=f"tool_{i}", description=f"Tool {i}",
                       result={"success": True, "content": f'{{"id": {i}, "name": "item {i}", "ok": true}}'})
                  for i in range(n_tools))
    skills = []
    for s in range(n_skills):
        lines = [f"# Skill {s}", "", "Some instructions for the agent to follow, in prose."]
        while sum(len(line) + 1 for line in lines) < 2000:
            k = len(lines)
            lines += [f"## Part {k}", f"- uses {{{{tool_{(s + k) % n_tools}}}}} here",
                      "Plain text line that explains a rule of the agent's behaviour."]
        skills.append(Skill(d_tag=f"skill_{s}", content="\n".join(lines), triggers=("dm",)))
    return Workspace(agent=Agent(name="Bench"), skills=tuple(skills), tools=tools,
                     scenarios=(Scenario(name="bench", message="hello"),))


def pipeline_rows(quick: bool = False) -> list[tuple[str, str, str]]:
    """(figure, measured, target) rows for the pipeline section."""
    rows = []
    peer = peer_template_workspace()
    # a fresh draft each call, as in a live preview where the author is typing
    drafts = iter(range(10**9))
    content = peer.skills[0].content
    peer_ms = _median_ms(lambda: assemble(peer, "bench"), 5 if quick else 15, 50 if quick else 400)
    draft_ms = _median_ms(lambda: assemble(peer, "bench", overrides={"peer": f"{content}\n{next(drafts)}"}),
                          3 if quick else 9, 20 if quick else 200)
    rows.append(("peer template: assemble", f"{peer_ms:.3f} ms", "< 0.5 ms"))
    rows.append(("peer template: assemble, skill text changed each call", f"{draft_ms:.3f} ms", "(re-parse)"))
    scale: dict[int, float] = {}
    for n in (10, 100) if quick else (10, 100, 1000):
        ws = scale_workspace(n)
        number = max(1, 2000 // n) if not quick else 2
        scale[n] = _median_ms(lambda ws=ws: assemble(ws, "bench"), 3 if quick else 7, number)
        rows.append((f"scale: {n} skills of 2 KB, 50 tools", f"{scale[n]:.2f} ms",
                     "< 10 ms" if n == 100 else ""))
    if 1000 in scale:
        rows.append(("scale: time(1000) / time(100)", f"{scale[1000] / scale[100]:.1f}x", "<= 12x"))
    try:
        from webapp.bench_json import bench_json_markdown
    except ImportError:  # pragma: no cover
        return rows
    sizes = (200_000,) if quick else (1_000_000, 10_000_000)
    for max_items, label in ((8, "max 8 items"), (None, "every item")):
        for row in bench_json_markdown(sizes, max_items=max_items):
            size = f"{row['size_bytes'] / 1e6:.0f} MB" if not quick else f"{row['size_bytes'] / 1e3:.0f} KB"
            rows.append((f"json_to_markdown / json.loads, {size}, {label}", f"{row['ratio']:.2f}x", "<= 3x"))
    return rows


def machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def run(quick: bool = False, web: bool = True, echo: Callable[[str], None] = print) -> None:
    """Print every section's table."""
    echo(f"machine: {machine()}")
    rows = pipeline_rows(quick)
    if web:
        try:
            from webapp.web.bench import web_rows
        except ImportError:
            rows.append(("web", "not available", ""))
        else:
            rows += web_rows(quick=quick)
    width = max(len(r[0]) for r in rows)
    echo(f"{'figure'.ljust(width)}  {'measured':>12}  target")
    for figure, measured, target in rows:
        echo(f"{figure.ljust(width)}  {measured:>12}  {target}")
