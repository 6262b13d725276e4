"""The worst-case section: the slowest of a corpus of hostile inputs, for assemble, for
rendering, and for each route of the draft preview (one row a tab the editor asks for).

The render payloads are the families Python-Markdown, pygments and the regexes were
quadratic or slow on, about a megabyte each (a third of one for the preview request, whose
form-encoded body must stay under the app's 1 MB limit: `[` is sent as `%5B`). The
assemble payloads are a deep chain of references and a long skill of `[`. Each figure is
one run after a warm-up of the machinery (not of the payload: every payload is rendered
for the first time). Rendering, highlighting and diffing stop at their deadlines
(`docs/bounds.md`), so the figures say what the deadlines and the linear parts cost.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from webapp.pipeline import Agent, Scenario, Skill, Workspace, assemble
from webapp.render import highlight_markdown_lines, markdown_to_html

from .hostile import hostile_rows

Row = tuple[str, str, str]
MB = 1_000_000


def render_payloads(size: int = MB) -> dict[str, str]:
    """Text of about `size` characters for each family, each one block."""
    return {
        "run of [": "[" * size,
        "nested brackets": "[" * (size // 2) + "]" * (size // 2),
        "unclosed tags <a": "<a " * (size // 3),
        "fence lines": "```\n" * (size // 4),
        "clean fences": "```\nx\n```\n" * (size // 10),
        "heading lines #": "#\n" * (size // 2),
        "list lines -": "-\n" * (size // 2),
        "quote lines >": ">\n" * (size // 2),
        "fenced blocks between paragraphs":
            "".join(f"Text {i}\n\n```\nx{i}\n```\n\n" for i in range(size // 22)),
        "link openers [a](": "[a](" * (size // 4),
        "link openers [a](<": "[a](<" * (size // 5),
        "thematic breaks ---": "---\n" * (size // 4),
        "entity openers &#": "&#" * (size // 2),
        "emphasis openers *a": "*a" * (size // 2),
        "blank-line run": "Hello\n" + "\n" * size + " x\n",
        "whitespace-only lines": "Hello\n" + " \n" * (size // 2) + "x\n",
        "U+3000 lines": "Hello\n" + "\u3000\n" * (size // 2) + "x\n",
        "devicetree fence of ;": "Code:\n```devicetree\n" + ";" * size + "\n```\n",
        "one long line, changed": "word " * (size // 5),
    }


def assemble_payloads() -> dict[str, Workspace]:
    """Workspaces whose assembly is the hostile part."""
    chain = [Skill(d_tag=f"l{i}", content=f"Level {i}\n\n{{{{l{i + 1}}}}}", layer=2)
             for i in range(1, 200)]
    deep = (Skill(d_tag="top", content="Top\n\n{{l1}}", triggers=("dm",)), *chain)
    brackets = (Skill(d_tag="brackets", content="[" * MB, triggers=("dm",)),)
    return {name: Workspace(agent=Agent(name="Worst"), skills=skills,
                            scenarios=(Scenario(name="dm", message="hello"),))
            for name, skills in [("reference chain, 200 deep", deep),
                                 ("skill of 1 MB of [", brackets)]}


def _seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _slowest(times: dict[str, float]) -> tuple[str, str]:
    name = max(times, key=times.__getitem__)
    return f"{times[name] * 1000:.0f} ms", f"<= 1000 ms; slowest: {name}"


def _render(text: str) -> None:
    markdown_to_html(text)
    highlight_markdown_lines(text)


#: The preview's tabs, each asked alone as the editor asks on a keystroke.
TABS = ("document:rendered", "document:source", "diff", "messages", "log", "problems",
        "pipeline:unified", "budget")


def _preview_times(payloads: dict[str, str]) -> dict[str, dict[str, float]]:
    """For each tab, the time of a draft-preview request of the demo's `personality` skill
    with each payload."""
    from .web import _app

    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder) / "demo.sqlite", seed_demo=True)
        client = app.test_client()
        page = client.get("/agents/Simon/skills/personality").get_data(as_text=True)
        token = re.search(r'"X-CSRFToken": "([^"]+)"', page)
        headers = {"HX-Request": "true", "X-CSRFToken": token.group(1) if token else ""}
        url = "/agents/Simon/skills/personality/preview"
        client.post(url, data={"content": "warm-up"}, headers=headers)
        times: dict[str, dict[str, float]] = {tab: {} for tab in TABS}
        for tab in TABS:
            for name, text in payloads.items():
                start = time.perf_counter()
                response = client.post(url, data={"content": text, "shown": tab},
                                       headers=headers)
                times[tab][name] = time.perf_counter() - start
                if response.status_code >= 500:
                    raise RuntimeError(f"preview of {name!r} ({tab}) answered "
                                       f"{response.status_code}")
    return times


def worst_case_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows: the slowest corpus entry of each kind and route."""
    size = MB // 10 if quick else MB
    _render("# warm-up\n\n```python\nx = 1\n```\n")
    rows = [
        ("worst case: assemble (slowest payload)",
         *_slowest({name: _seconds(lambda w=w: assemble(w, "dm"))
                    for name, w in assemble_payloads().items()})),
        ("worst case: render, markdown + source (slowest payload)",
         *_slowest({name: _seconds(lambda t=t: _render(t))
                    for name, t in render_payloads(size).items()})),
    ]
    for tab, times in _preview_times(render_payloads(size // 3)).items():
        rows.append((f"worst case: preview request, {tab} (slowest payload)", *_slowest(times)))
    rows += hostile_rows(top=3 if quick else 8)
    return rows
