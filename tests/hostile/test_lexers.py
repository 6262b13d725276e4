"""Every pygments lexer a fenced block can name, on a long run of every ASCII punctuation
character: the worker pool answers each within its deadline, highlighted or shown escaped
with the notice, never a hang and never an answer far larger than the block.

Some lexers are slow on such runs (seen: cfengine3, common-lisp, emacs-lisp, scala and a
few more past 0.3 s on these 9,600 characters); which ones does not matter here, only that
the pool stops each at its deadline. The deadline is lowered to keep the sweep short.
"""

from __future__ import annotations

import string

import pytest
from pygments.lexers import get_all_lexers

from webapp.bounds import deadlines
from webapp.bounds.lru import LRU
from webapp.render import html as render_html
from webapp.render import markdown_to_html

#: Each punctuation character 300 times, one after another.
RUNS = "".join(char * 300 for char in string.punctuation)
#: The first alias of every lexer.
ALIASES = sorted(aliases[0] for _, aliases, _, _ in get_all_lexers() if aliases)


def test_every_lexer_on_punctuation_runs_answers_within_its_deadline(monkeypatch):
    monkeypatch.setitem(deadlines.DEADLINES, "markdown", 0.3)
    monkeypatch.setattr(render_html, "_rendered", LRU("test", 10**8))
    killed = deadlines.stats().killed
    overran = []
    for alias in ALIASES:
        block = f"```{alias}\n{RUNS}\n```\n"
        html = markdown_to_html(block)
        assert len(html) <= 64 * len(block), alias
        if render_html.NOTICE in html:
            overran.append(alias)
            assert RUNS.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
                .replace('"', "&#34;").replace("'", "&#39;") in html, alias
        else:
            assert '<div class="highlight">' in html, alias
    # Each block that overran cost exactly one worker.
    assert deadlines.stats().killed == killed + len(overran)
    assert len(ALIASES) > 500


@pytest.mark.parametrize("char", list(string.punctuation))
def test_the_markdown_lexer_of_the_source_view_on_each_punctuation_run(char):
    from webapp.render import highlight_markdown_lines

    text = "Title\n\n" + char * 20_000 + "\n"
    lines = highlight_markdown_lines(text)
    assert len(lines) == 3
    assert sum(map(len, lines)) <= 64 * len(text)
