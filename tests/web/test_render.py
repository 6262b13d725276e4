"""Markdown and code rendering: sanitized, highlighted, one source line per document line."""

from __future__ import annotations

import pytest

from webapp.render import highlight_json, highlight_markdown_lines, markdown_to_html, sanitize


@pytest.mark.parametrize("markdown, expected", [
    ("# Title", "<h1>Title</h1>"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"),
    ("```python\nx = 1\n```", '<div class="highlight"><pre><span></span><code><span class="n">x</span>'),
    ("[ok](https://example.org)", '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>'),
    ("[bad](javascript:alert(1))", '<a rel="noopener noreferrer nofollow">bad</a>'),
    ("<b onclick=alert(1)>bold</b>", "<b>bold</b>"),
    ("<script>alert(1)</script>text", "text"),
    ('<p style="color:red" class="x">p</p>', "<p>p</p>"),
])
def test_markdown_to_html(markdown, expected):
    assert expected in markdown_to_html(markdown)


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
