"""Rendering is bounded: hostile markdown is shown as plain text, ordinary text as before.

The bound is counted, not timed: a block the guard judges too costly never reaches
Python-Markdown or pygments (nothing of it is sent to a worker), and what is sent stays
within the guard's budgets. The time each payload takes is a figure of `make bench`'s
worst-case table (`benchmarks/worst_case.py`).
"""

from __future__ import annotations

import html as html_entities
import json
import re
from pathlib import Path

import markdown
import pytest

import webapp
from tests.support.workspaces import many_skills
from webapp.bounds import deadlines
from webapp.pipeline import assemble, load_bundle
from webapp.render import highlight as render_highlight
from webapp.render import highlight_json, highlight_markdown_lines, markdown_to_html, sanitize
from webapp.render import html as render_html
from webapp.render.blocks import markdown_blocks, source_blocks
from webapp.render.guard import BLOCK_BUDGET, TEXT_BUDGET, highlight_cost, markdown_cost
from webapp.render.highlight import highlight_lines

ROOT = Path(webapp.__file__).parent.parent
MB = 1_000_000

# Each family about a megabyte, each one block.
PAYLOADS = {
    "run of [": "[" * MB,
    "nested brackets": "[" * (MB // 2) + "]" * (MB // 2),
    "[ in a long paragraph": ("[" * 10 + "x" * 90 + "\n") * (MB // 101),
    "unclosed tags": "<a " * (MB // 3),
    "quoted unclosed tags": "<a b='>' " * (MB // 9),
    "fence lines": "```\n" * (MB // 4),
    "clean fences": "```\nx\n```\n" * (MB // 10),
    "heading lines": "#\n" * (MB // 2),
    "list lines": "-\n" * (MB // 2),
    "numbered list lines": "1.\n" * (MB // 3),
    "quote lines": ">\n" * (MB // 2),
    "setext underlines": "a\n=\n" * (MB // 4),
    "run of <": "<" * MB,
    "emphasis markers": "_a" * (MB // 2),
}


@pytest.mark.parametrize("text", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_a_hostile_block_is_plain_text_without_converting_it(text, sent_to_workers):
    assert len(markdown_blocks(text)) == 1
    assert markdown_cost(text) > BLOCK_BUDGET
    html = markdown_to_html(text)
    lines = highlight_markdown_lines(text)
    assert sent_to_workers == {kind: [] for kind in deadlines.DEADLINES}
    assert html.startswith(f"<p><em>{render_html.NOTICE}</em></p>\n<pre><code>")
    body = html.removeprefix(f"<p><em>{render_html.NOTICE}</em></p>\n<pre><code>")
    assert "<" not in body.removesuffix("</code></pre>")
    assert len(lines) == len(text.splitlines())
    assert _unescaped(html).endswith(text + "</code></pre>")


@pytest.mark.parametrize("text", [t for t in PAYLOADS.values() if highlight_cost(t) > BLOCK_BUDGET],
                         ids=[k for k, t in PAYLOADS.items() if highlight_cost(t) > BLOCK_BUDGET])
def test_the_source_view_shows_a_costly_block_exactly(text):
    lines = highlight_markdown_lines(text)
    assert "<" not in "".join(lines)
    assert "\n".join(map(_unescaped, lines)) == text.removesuffix("\n")


def test_many_costly_blocks_stay_within_the_text_budget(sent_to_workers, monkeypatch):
    """Fenced blocks between paragraphs are cheap alone; a megabyte of them is not. The
    guard's budget is what is checked, so the blocks it lets through run in this process:
    on a loaded machine a worker's deadline would add notices of its own
    (tests/hostile/test_deadlines.py checks those)."""

    def in_process(kind, fn, items):
        sent_to_workers[kind].extend(items)
        return deadlines.Outcome([fn(item) for item in items])

    monkeypatch.setattr(deadlines, "run", in_process)
    text = "".join(f"Text {i}\n\n```\nx{i}\n```\n\n" for i in range(MB // 22))
    html = markdown_to_html(text)
    lines = highlight_markdown_lines(text)
    # What was converted or highlighted is what the budgets allow (less when cached).
    assert sum(map(markdown_cost, sent_to_workers["markdown"])) <= TEXT_BUDGET
    assert sum(map(highlight_cost, sent_to_workers["highlight"])) <= TEXT_BUDGET
    sent = sent_to_workers["markdown"] + sent_to_workers["highlight"]
    assert sum(map(len, sent)) < len(text) // 20
    assert html.startswith("<p>Text 0</p>")
    # Past the text budget, the rest of the text is one plain block with one notice, and
    # the Source view's lines are still exactly the text's.
    assert html.count(render_html.NOTICE) == 1
    rendered, rest = html.split(f"<p><em>{render_html.NOTICE}</em></p>\n<pre><code>")
    assert rest.endswith("</code></pre>") and "<" not in rest.removesuffix("</code></pre>")
    assert text.endswith(_unescaped(rest.removesuffix("</code></pre>")))
    assert len(lines) == len(text.splitlines())
    assert "\n".join(_unescaped(re.sub("<[^>]*>", "", line)) for line in lines) \
        == text.removesuffix("\n")


def test_json_of_a_megabyte_lexes_its_long_string_as_one_stand_in(monkeypatch):
    """JsonLexer reads a character at a time: a megabyte-long string is lexed as a short
    stand-in and put back, so the lexer reads the JSON without it."""
    lexed: list[str] = []
    real_highlight = render_highlight.highlight

    def highlight(text, lexer, formatter):
        lexed.append(text)
        return real_highlight(text, lexer, formatter)

    # In this process (not a worker), so the lexer's input can be seen.
    monkeypatch.setattr(deadlines, "run", lambda kind, fn, items: deadlines.Outcome(
        [fn(item) for item in items]))
    monkeypatch.setattr(render_highlight, "highlight", highlight)
    long = "<a " * (MB // 3)
    html = highlight_json({"content": long, "items": list(range(50_000))})
    [text] = lexed
    assert len(text) < 2 * len(json.dumps(list(range(50_000)), indent=2))
    assert long not in text
    assert html_entities.escape(long, quote=False) in html


def _ordinary() -> dict[str, str]:
    texts = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "docs").glob("*.md")}
    workspaces = [load_bundle(path) for path in sorted((ROOT / "webapp" / "demo").glob("*.json"))]
    for workspace in [*workspaces, many_skills(200)]:
        name = workspace.agent.name
        for skill in workspace.skills:
            texts[f"{name} {skill.d_tag}"] = skill.content
        for scenario in workspace.scenarios:
            context = assemble(workspace, scenario.name)
            texts[f"{name} {scenario.name} document"] = context.document
            for i, message in enumerate(context.messages):
                texts[f"{name} {scenario.name} message {i}"] = message["content"]
    return texts


ORDINARY = _ordinary()


@pytest.mark.parametrize("text", ORDINARY.values(), ids=ORDINARY.keys())
def test_ordinary_documents_pass_the_guard(text):
    assert all(markdown_cost(block) <= BLOCK_BUDGET for block in markdown_blocks(text))
    assert sum(markdown_cost(block) for block in markdown_blocks(text)) <= 400_000
    assert all(highlight_cost(block) <= BLOCK_BUDGET for block in source_blocks(text))
    html = markdown_to_html(text)
    assert render_html.NOTICE not in html
    whole = markdown.markdown(text, extensions=render_html.MARKDOWN_EXTENSIONS,
                              extension_configs=render_html.MARKDOWN_CONFIG, output_format="html")
    assert html == sanitize(whole)
    assert highlight_markdown_lines(text) == list(highlight_lines(text))


def _unescaped(html: str) -> str:
    return html_entities.unescape(str(html))
