"""The comparison page of a large agent: its diffs' hunks a page of rows at a time, the
rest in folds that load in place (htmx) or open as a page of their own; every fold
opened gives the whole diff."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.support.pages import HTMX
from tests.support.workspaces import many_skills
from webapp.pipeline import assemble
from webapp.textdiff.lines import diff_lines
from webapp.views import agent_preview, diff_window
from webapp.views.diff_window import DiffFold, HunkHeader, diff_page, table_rows

#: The left side has every skill (trigger dm), the right none (trigger cron): the whole
#: document is one hunk of removed lines.
COMPARE = "/agents/Many/preview/compare?a=dm&b=dm&b_trigger=cron"
FOLD = re.compile(r'<a class="fold-link" href="([^"]+)" hx-get="\1"\s+'
                  r'hx-target="closest \.fold" hx-swap="outerHTML">([^<]+)</a>')


def test_a_large_comparison_sends_a_page_of_each_diff(client, many):
    response = client.get(COMPARE)
    html = response.data.decode()
    assert response.status_code == 200
    # Two diffs (document, messages) in two layouts: four tables, each a page and a fold.
    folds = FOLD.findall(html)
    assert len(folds) == 4
    assert all(re.fullmatch(r"[\d,]+ more rows of this diff", text) for _, text in folds)
    # The unified tables: the document's first page is its header and removed lines.
    assert diff_window.DIFF_PAGE < html.count('<tr class="line-del">') < 2 * diff_window.DIFF_PAGE
    assert "skill 0 does" in html and "skill 59 does" not in html
    assert len(response.data) < 120_000  # four pages of rows, not the whole diff


def test_a_fold_of_the_comparison_opens_in_place(client, many):
    url = unescape(FOLD.findall(client.get(COMPARE).data.decode())[1][0])
    assert url.startswith("/agents/Many/preview/compare/lines?") and "layout=split" in url
    opened = client.get(url, headers=HTMX)
    html = opened.data.decode()
    assert opened.status_code == 200 and html.lstrip().startswith("<tr")
    assert html.count("<tr>") == diff_window.DIFF_PAGE
    (rest,) = FOLD.findall(html)  # the rest, folded again
    assert "skill 59 does" not in html and rest[1].endswith("more rows of this diff")


def test_without_javascript_a_fold_of_the_comparison_is_a_page(client, many):
    url = unescape(FOLD.findall(client.get(COMPARE).data.decode())[0][0])
    opened = client.get(url)
    html = opened.data.decode()
    assert opened.status_code == 200 and html.lstrip().lower().startswith("<!doctype html>")
    assert re.search(r'<h1 id="rows-title">Rows 121–\d+ of the document diff', html)
    assert '<table class="diff diff-unified"><tbody>' in html


def test_a_comparison_makes_its_first_lines_and_counts_the_rest(client, many, monkeypatch):
    """Past `COMPARED_LINES` unified lines a comparison's diff is counted, not made (a
    20 MB agent's two scenarios differ by 300,000 lines); the last page says so."""
    monkeypatch.setattr(agent_preview, "COMPARED_LINES", 200)
    made = []
    real = agent_preview.diff_lines
    monkeypatch.setattr(agent_preview, "diff_lines", lambda *a, **k: made.append(
        k["limit"]) or real(*a, **k))
    url = unescape(FOLD.findall(client.get(COMPARE).data.decode())[0][0])
    assert made == [200, 200]
    html = client.get(url, headers=HTMX).data.decode()  # the rest: the last page
    assert not FOLD.findall(html)
    assert re.search(r"[\d,]+ more rows of this diff are not shown\.", html)


@pytest.mark.parametrize("query", ["diff=document&layout=split", "diff=x&layout=split&rows=1-5",
                                   "diff=document&layout=x&rows=1-5",
                                   "diff=messages&layout=unified&rows=5-1"])
def test_a_bad_fold_of_the_comparison_is_a_422(client, many, query):
    assert client.get(f"/agents/Many/preview/compare/lines?{query}").status_code == 422


def test_every_page_of_a_diff_together_is_the_whole_table():
    ws = many_skills(60)
    diff = diff_lines(assemble(ws, "dm").document, assemble(ws, "dm", trigger="cron").document)
    for layout in diff_window.LAYOUTS:
        rows, page = [], diff_page(diff, "document", layout)
        while isinstance(page[-1], DiffFold):
            rows += page[:-1]
            page = diff_page(diff, "document", layout, page[-1].start, page[-1].end)
        assert rows + page == table_rows(diff, layout)
        assert isinstance(rows[0], HunkHeader)
    assert DiffFold("document", "split", 120, 340).rows == "121-340"
    assert DiffFold("document", "split", 0, 1).text == "1 more row of this diff"
