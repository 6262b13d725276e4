"""Markdown and code rendering: sanitized, highlighted, one source line per document line."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

import webapp
from tests.support.workspaces import many_skills
from webapp.bounds.lru import LRU
from webapp.pipeline import assemble, json_to_markdown, load_bundle
from webapp.render import (
    HIGHLIGHT_CLASS,
    highlight_json,
    highlight_markdown_lines,
    markdown_to_html,
    sanitize,
)
from webapp.render import html as render_html
from webapp.render.blocks import markdown_blocks, source_blocks
from webapp.render.highlight import highlight_lines

DEMO = Path(webapp.__file__).parent / "demo"


@pytest.mark.parametrize("markdown, expected", [
    ("# Title", "<h1>Title</h1>"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"),
    ("```python\nx = 1\n```",
     '<div class="highlight"><pre><span></span><code><span class="n">x</span>'),
    ("[ok](https://example.org)",
     '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>'),
    ("[bad](javascript:alert(1))", '<a rel="noopener noreferrer nofollow">bad</a>'),
    ("<b onclick=alert(1)>bold</b>", "<b>bold</b>"),
    ("<script>alert(1)</script>text", "text"),
    ('<p style="color:red" class="x">p</p>', "<p>p</p>"),
])
def test_markdown_to_html(markdown, expected):
    assert expected in markdown_to_html(markdown)


# (markdown, its lists' shape: each <li> as "(" and each </li> as ")", so nesting shows)
NESTED_LISTS = [
    # JSON→markdown's two-space nesting, and an author's: nested.
    ("- a\n  - b\n    - c\n  - d\n- e\n", "((())())()"),
    (json_to_markdown('{"a": {"b": [1, 2]}, "c": [[1, 2], [3]]}'), "(())((()())(()))"),
    ("1. one\n  - sub\n2. two\n", "(())()"),
    # Four-space nesting, as Python-Markdown reads it: unchanged.
    ("- a\n    - b\n        - c\n- d\n", "((()))()"),
    # A mix, or an odd indent: left to Python-Markdown as before.
    ("- a\n    - b\n      - c\n", "(()())"),
    ("- a\n   - b\n", "()()"),
    # Not a list block: a paragraph first, or text in a fence.
    ("Text\n- a\n  - b\n", ""),
    ("```\n- a\n  - b\n```\n", ""),
]


@pytest.mark.parametrize("text, shape", NESTED_LISTS)
def test_lists_nested_by_two_spaces_render_nested(text, shape):
    html = markdown_to_html(text)
    assert "".join("(" if tag == "<li>" else ")" for tag in re.findall(r"</?li>", html)) == shape
    assert html == _whole_html(text)


def test_sanitize_keeps_pygments_classes_only_where_allowed():
    html = sanitize('<span class="k">def</span><p class="k">x</p><a class="k" href="/">y</a>')
    assert '<span class="k">' in html and "<p>x</p>" in html and '<a href="/"' in html


def test_highlight_markdown_lines_matches_the_lines():
    text = "# T\n\n```\ncode\n```\n- **x**: <y>\n"
    lines = highlight_markdown_lines(text)
    assert len(lines) == len(text.splitlines())
    assert "&lt;y&gt;" in lines[-1]
    assert highlight_markdown_lines("") == []


def test_highlight_json_escapes():
    html = highlight_json({"content": "</pre><script>"})
    assert "<script>" not in html and "&lt;/pre&gt;&lt;script&gt;" in html
    assert html.startswith('<div class="highlight"><pre>')


# -- blocks: rendering and highlighting a block at a time gives what the whole text gives


def _whole_html(text: str) -> str:
    """The document rendered in one conversion by the library's public function."""
    html = markdown.markdown(text, extensions=render_html.MARKDOWN_EXTENSIONS,
                             extension_configs=render_html.MARKDOWN_CONFIG, output_format="html")
    return sanitize(html)


def _whole_source(text: str) -> list[str]:
    """The source highlighted in one pass."""
    return list(highlight_lines(text))


# (name, document, blocks markdown renders apart, blocks the source is highlighted in)
DOCUMENTS = [
    ("headings and skill separators",
     "# Agent\n\n## Skill one\n\nSome *prose*.\n\n---\n\n## Skill two\n\nMore prose.", 5, 5),
    ("loose lists stay one list",
     "Intro\n\n- one\n\n- two\n\n1. first\n\n2. second\n\n* star\n\nAfter", 2, 2),
    ("list item text after a blank line",
     "- item\n\n    more of the item\n\nAfter", 2, 2),
    ("fence with blank lines and ---",
     "Before\n\n```python\nx = 1\n\n---\n\ny = 2\n```\n\nAfter\n\n~~~\na\n\nb\n~~~\n\nEnd", 3, 3),
    ("unclosed fence", "Before\n\n```\ncode\n\n# not a heading\n\nEnd", 1, 1),
    ("indented code with blank lines",
     "Para\n\n    code 1\n\n    code 2\n\n\n    code 3\n\nAfter", 2, 2),
    ("tables", "| a | b |\n|---|---|\n| 1 | 2 |\n\nText\n\n| c |\n|:-:|\n| 3 |", 2, 2),
    ("quotes continue across blank lines", "> a\n\n> b\n\nText", 2, 2),
    ("setext headings and rules", "Title\n=====\n\nSub\n---\n\n***\n\n- - -\n\nText", 3, 3),
    ("raw HTML keeps the rest in one block",
     "Text\n\n<div>\n\nInside\n\n</div>\n\nAfter", 1, 3),
    ("an unclosed inline tag reaches later blocks", "A <b>bold\n\nB\n\nC", 1, 3),
    ("reference links", "[x][r]\n\nText\n\n[r]: https://example.org", 1, 1),
    ("a link whose text spans a blank line", "[a\n\nb](https://example.org)\n\nText", 2, 2),
    ("a reference with its url after a blank line", "Text [r]:\n\nhttps://x.org\n\nEnd", 1, 1),
    # Pygments' lexer: "-" alone takes the next line, so this fence opens later.
    ("a fence the lexer skips", "-\n```\n\na\n\n```\n\nText\n\n```\n", 1, 1),
    ("an underline turns a fence into a heading", "```\n---\n\na\n\n```\n\nText\n\n```\n", 1, 1),
    ("tabs, trailing spaces, blank lines with spaces",
     "A\ttab  \n  \n\tcode\n\n   \nB  \nC", 1, 1),
    ("windows line ends", "A\r\n\r\nB\r\n\r\n- c\r\n", 1, 1),
    ("line breaks other than newlines", "A\u2028B\n\nC\n\nD\rE\n\nF", 1, 1),
    ("clean fences between prose",
     "Intro:\n```json\n{\"a\": [1,\n\nb]}\n```\n\nText\n\n~~~\n<i>\n~~~\n\nEnd <b>", 3, 3),
    ("an open bracket holds the cuts until it closes",
     "Text [open\n\nMore\n\nclose] end\n\nLast", 2, 2),
    ("empty", "", 1, 1),
]


@pytest.mark.parametrize("name, text, md_blocks, n_source_blocks",
                         DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_blocks_render_as_the_whole(name, text, md_blocks, n_source_blocks):
    assert markdown_to_html(text) == _whole_html(text)
    assert highlight_markdown_lines(text) == _whole_source(text)
    assert len(markdown_blocks(text)) == md_blocks
    assert len(source_blocks(text)) == n_source_blocks
    assert "".join(markdown_blocks(text)) == "".join(source_blocks(text)) == text


# A fenced block as the rule's clean fences are written: an opening line, a closing line.
_FENCED = re.compile(r"^(```|~~~)[\w-]*\n[\s\S]*?^\1$", re.MULTILINE)


@pytest.mark.parametrize("text", [d[1] for d in DOCUMENTS if "```" in d[1] or "~~~" in d[1]])
def test_a_fence_is_never_cut(text):
    for blocks in markdown_blocks(text), source_blocks(text):
        for fence in _FENCED.finditer(text):
            assert any(fence.group(0) in block for block in blocks)


_LINES = [
    "# Title", "## Sub", "#", "Plain text.", "Some *em* and **bold** and `code`.", "- item",
    "* star", "+ plus", "1. first", "10. tenth", "2024 was a year", "-", ">", "> quote",
    "    indented", "\tTabbed", "  - nested", "```", "```python", "``` python", "~~~", "````",
    "x = 1", "---", "***", "===", "| a | b |", "|---|---|", "| 1 | 2 |", "<div>", "</div>",
    "<b>bold", "<!-- c -->", "a <y> b", "<3", "a & b", "[link](https://example.org)",
    "[open", "close]", "[r]: https://x.org", "[x](", "url)", "text ]:", "_u_", "~~s~~",
    "trailing   ", "   ", "`", "[", "(", ")", "- [ ] task", "a `b", "c` d", "Title", "#tag",
    "**x", "y**", "```json", "~~~yaml", "  ```", "```c++", "    ```", "> ```", "- ```", "1.", "#x",
    "Text: [a](b", "c)", "![img](x.png)", "[a][b]", "a | b", "--|--", "é", "x\xa0y", "\xa0```",
]


def test_random_documents_render_as_the_whole():
    """Documents made of lines that start, continue or end blocks, in any order."""
    rng = random.Random(2024)
    for _ in range(300):
        lines = [rng.choice(["", "", rng.choice(_LINES)]) for _ in range(rng.randrange(1, 25))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        assert markdown_to_html(text) == _whole_html(text), text
        assert highlight_markdown_lines(text) == _whole_source(text), text


# Markdown-ish lines: fences, lists, quotes, indented code, html, references, setext
# underlines, tables, links and brackets, tabs and trailing spaces, blank lines.
_markdownish_line = st.one_of(
    st.sampled_from(_LINES),
    st.just(""),
    st.builds("".join, st.lists(st.sampled_from(
        ["a", "Word", " ", "\t", "#", "-", "*", "_", ">", "`", "```", "~~~", "[", "]", "(", ")",
         "]:", "<", "b>", "=", "1.", "|", "\\", "&", "é"]), max_size=8)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_markdownish_line, min_size=1, max_size=30), st.sampled_from(["", "\n"]))
def test_markdownish_text_renders_as_the_whole(lines, end):
    text = "\n".join(lines) + end
    assert markdown_to_html(text) == _whole_html(text)
    assert highlight_markdown_lines(text) == _whole_source(text)


# Documents as skills are written: paragraphs and headings, and fenced blocks (clean or
# not) holding what would end a block outside them.
_paragraph = st.builds(
    lambda first, rest: "\n".join([first, *rest]),
    st.sampled_from(["Title", "# Heading", "## Sub", "Use `x` and *y*", "See [l](u) now", "#"]),
    st.lists(st.sampled_from(_LINES), max_size=3))
_fence = st.builds(
    lambda opening, body, closing: "\n".join([opening, *body, closing]),
    st.sampled_from(["```", "```python", "~~~", "~~~json", "````", "  ```", "``` x", "```c++"]),
    st.lists(st.sampled_from(["x = 1", "", "---", "===", "[", "]", "<div>", "```", "~~~",
                              "    code", "- a", "Text"]), max_size=4),
    st.sampled_from(["```", "~~~", "````", "``` ", "  ```"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(_paragraph, _paragraph, _fence),
                          st.sampled_from(["\n\n", "\n\n", "\n", "\n\n\n"])),
                min_size=1, max_size=12))
def test_skill_like_documents_render_as_the_whole(parts):
    text = "".join(part + gap for part, gap in parts)
    assert markdown_to_html(text) == _whole_html(text)
    assert highlight_markdown_lines(text) == _whole_source(text)


def test_demo_and_scaled_documents_render_as_the_whole():
    workspaces = [load_bundle(path) for path in sorted(DEMO.glob("*.json"))] + [many_skills(12)]
    for workspace in workspaces:
        for scenario in workspace.scenarios or [None]:
            context = assemble(workspace, scenario.name if scenario else None)
            for message in context.messages:
                assert markdown_to_html(message["content"]) == _whole_html(message["content"])
            assert highlight_markdown_lines(context.document) == _whole_source(context.document)


def test_an_edit_converts_only_its_block(monkeypatch, sent_to_workers):
    converted = sent_to_workers["markdown"]
    monkeypatch.setattr(render_html, "_rendered", LRU("test", 10**6))
    skills = [f"## Skill {i}\n\nRule {i}: be brief.\n- a\n- b" for i in range(50)]
    markdown_to_html("\n\n---\n\n".join(skills))
    assert len(converted) == 50 + 50  # headings, and the rules with the separator after them
    converted.clear()
    skills[20] = skills[20].replace("be brief", "be very brief")
    html = markdown_to_html("\n\n---\n\n".join(skills))
    assert converted == ["Rule 20: be very brief.\n- a\n- b\n\n---\n\n"]
    assert html == _whole_html("\n\n---\n\n".join(skills))


@pytest.mark.parametrize("value", [
    {"messages": [{"role": "system", "content": "x" * 5000 + ' <b>&"quoted"\n\t\\ é 🦀'}]},
    {"model": "m", "messages": [{"role": "user", "content": "short"}], "system": "y" * 3000},
    ["z" * 2500, {"k" * 2500: "key long, value short"}, 1, None, True],
    # The stand-ins' private-use character in the data: lexed as it is.
    {"a": "\ue000" * 3000, "b": "\ue0000\ue000", "c": "w" * 3000},
])
def test_highlight_json_of_long_strings_is_pygments_output(value):
    text = json.dumps(value, indent=2, ensure_ascii=False)
    expected = highlight(text, JsonLexer(), HtmlFormatter(cssclass=HIGHLIGHT_CLASS))
    assert highlight_json(value) == expected
