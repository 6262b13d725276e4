"""At real size (200 skills of about 2 KB, a document of 21,000 lines): what each tab of
the editor's live preview and of the agent preview weighs, uncompressed. Bytes, not time:
the browser's time follows the HTML it parses (`docs/performance.md`)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from benchmarks.workspaces import scale_workspace
from tests.support.pages import HTMX
from webapp.views.agent_preview import CHART_BARS
from webapp.views.diff_window import STAGE_PAGE
from webapp.views.pipeline_steps import SKILLS_SHOWN

EDITOR = "/agents/Bench/skills/skill_100"
#: The issue's bound on a keystroke's answer; the tabs below are well under it.
KEYSTROKE_BYTES = 100_000
PLAIN = {**HTMX, "Accept-Encoding": "identity"}


def keystroke(client, csrf, shown: str, **fields: str):
    """A keystroke's preview of skill_100 with a line typed at its end, `shown` open."""
    content = scale_workspace(200).skills_by_tag["skill_100"].content + "\nTyped now."
    data = {"csrf_token": csrf, "version": "1", "d_tag": "skill_100", "name": "",
            "layer": "1", "triggers": "dm", "enabled": "1", "content": content,
            "shown": shown, **fields}
    response = client.post(f"{EDITOR}/preview", data=data, headers=PLAIN)
    assert response.status_code == 200
    keystroke.data = data
    return response


@pytest.mark.parametrize("shown, bound", [
    ("document:rendered", 20_000), ("document:source", 70_000), ("messages", 20_000),
    ("log", 12_000), ("problems", 10_000), ("budget", 25_000),
])
def test_the_agent_preview_sends_the_open_tab_alone(client, bench, shown, bound):
    fragment = client.get("/agents/Bench/preview", query_string={"shown": shown},
                          headers=PLAIN)
    html = fragment.data.decode()
    assert fragment.status_code == 200 and len(fragment.data) <= bound, len(fragment.data)
    # The meter is in the summary, on every tab; the chart comes with the Budget tab.
    assert "<meter" in html and "of 128,000 tokens" in html
    assert ('<svg class="budget-chart"' in html) == (shown == "budget")


def test_the_agent_preview_page_leaves_the_chart_to_its_tab(client, bench):
    page = client.get("/agents/Bench/preview", headers={"Accept-Encoding": "identity"})
    html = page.data.decode()
    assert len(page.data) <= 25_000, len(page.data)
    assert '<svg class="budget-chart"' not in html and "<meter" in html
    # Without JavaScript the placeholder is a link to the page with the chart.
    link = "/agents/Bench/preview?shown=budget"
    assert f'<a class="nojs-only" href="{link}">Show this panel</a>' in html
    chart = client.get(link).data.decode()
    # The largest parts (here the 50 tools' results, each used by many skills); the
    # others are a link away.
    assert '<svg class="budget-chart"' in chart and chart.count('<g class="bar ') == CHART_BARS
    every = re.search(r'<a href="([^"]+)">Chart all 252 parts</a>', chart)
    assert "And 212 smaller parts: " in chart and every
    chart = client.get(unescape(every[1])).data.decode()
    assert chart.count('<g class="bar ') == 252 and "smaller part" not in chart
    assert chart.count('<a href="/agents/Bench/skills/skill_') == 200


# -- the Pipeline tab

STAGE_FOLD = re.compile(r'<a class="fold-link" href="([^"]+)" hx-(get|post)="\1"\s+'
                        r'hx-target="closest \.fold" hx-swap="outerHTML">([^<]+)</a>')


@pytest.mark.parametrize("layout", ["unified", "split"])
def test_the_pipeline_tab_sends_a_page_of_each_stage_in_its_layout(client, bench, csrf,
                                                                    layout):
    response = keystroke(client, csrf, f"pipeline:{layout}")
    html = response.data.decode()
    # Was 125 KB: every row of every stage, in both layouts. Now a page of each of the
    # skill's stages, and every step of the whole pipeline in words (about 40 KB, each
    # placeholder with its no-JavaScript button that posts the draft for its panel).
    assert len(response.data) <= 42_000, len(response.data)
    assert '<ol class="stages">' in html and "Template sections added" in html
    other = "split" if layout == "unified" else "unified"
    assert f'<table class="diff diff-{layout}"' in html
    assert f'<table class="diff diff-{other}"' not in html
    assert html.count(f'<div class="diff-{other}"><p class="lazy muted" data-lazy>') == 3
    # Without JavaScript, a button posts the draft again for the other layout.
    assert (f'name="shown" value="pipeline:{other}" '
            'formaction="/agents/Bench/skills/skill_100/preview">Show this panel</button>') in html
    folds = [(unescape(url), method, text) for url, method, text in STAGE_FOLD.findall(html)]
    assert [text for _, _, text in folds] == [
        "34 more lines of this stage",
        f"{94 if layout == 'unified' else 74} more rows of this diff",
        f"{95 if layout == 'unified' else 74} more rows of this diff"]
    assert {method for _, method, _ in folds} == {"post"}
    assert all(url.startswith("/agents/Bench/preview/stage?skill=skill_100&")
               for url, _, _ in folds)


def test_the_pipeline_tab_without_a_layout_sends_both(client, bench, csrf):
    html = keystroke(client, csrf, "pipeline").data.decode()
    pipeline = html.split('id="panel-pipeline"')[1]
    assert pipeline.count('<table class="diff diff-unified"') == 3
    assert pipeline.count('<table class="diff diff-split"') == 3 and "data-lazy" not in pipeline


def test_a_stage_fold_posted_with_the_draft_opens_the_next_rows(client, bench, csrf):
    html = keystroke(client, csrf, "pipeline:unified").data.decode()
    text, unified = [unescape(url) for url, _, _ in STAGE_FOLD.findall(html)[:2]]
    data = keystroke.data  # the fields the last keystroke posted
    lines = client.post(text, data=data, headers=PLAIN).data.decode()
    (last,) = STAGE_FOLD.findall(lines)
    assert lines.count("\n") == STAGE_PAGE + 1 and last[2] == "4 more lines of this stage"
    lines = client.post(unescape(last[0]), data=data, headers=PLAIN).data.decode()
    assert lines.endswith("\nTyped now.") and "fold" not in lines  # the draft's last lines
    rows = client.post(unified, data=data, headers=PLAIN).data.decode()
    assert rows.lstrip().startswith("<tr") and rows.count("<tr") == STAGE_PAGE + 1
    (rest,) = STAGE_FOLD.findall(rows)
    assert rest[1] == "post" and rest[2] == "64 more rows of this diff"


def test_without_javascript_a_stage_fold_is_a_page_of_the_saved_skill(client, bench):
    html = client.get(f"{EDITOR}/preview?shown=pipeline").data.decode()
    url = unescape(STAGE_FOLD.findall(html)[0][0])
    page = client.get(url).data.decode()
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert "Lines 31–63 of stage “as written”" in page and "Typed now." not in page
    (rest,) = STAGE_FOLD.findall(page)
    assert rest[1] == "get" and rest[2] == "3 more lines of this stage"  # no form to post
    assert '<a href="/agents/Bench/skills/skill_100/preview?shown=pipeline">skill_100</a>' in page


@pytest.mark.parametrize("query, status", [
    ("stage=0&layout=text&rows=1-5", 422), ("skill=skill_100&stage=x&layout=text&rows=1-5", 422),
    ("skill=skill_100&stage=0&layout=wide&rows=1-5", 422),
    ("skill=skill_100&stage=0&layout=text&rows=5-1", 422),
    (f"skill=skill_100&stage={'9' * 5000}&layout=text&rows=1-5", 422),
    (f"skill=skill_100&stage=0&layout=text&rows=1-{'9' * 5000}", 422),
    ("skill=skill_100&stage=0&layout=unified&rows=1-5", 404),
    ("skill=skill_100&stage=3&layout=text&rows=1-5", 404),
    ("skill=skill_100&stage=99&layout=split&rows=1-5", 404),
    ("skill=nope&stage=0&layout=text&rows=1-5", 404),
])
def test_a_bad_stage_fold_is_refused(client, bench, query, status):
    assert client.get(f"/agents/Bench/preview/stage?{query}").status_code == status


def test_the_pipeline_pages_at_real_size_stay_pages(client, bench):
    """Every step on one page, and a skill stage of 200 skills: a few skills in full
    (`SKILLS_SHOWN`), the others a note and a link each."""
    listed = client.get("/agents/Bench/pipeline", headers=PLAIN)
    assert listed.status_code == 200 and len(listed.data) <= 40_000, len(listed.data)
    stage = client.get("/agents/Bench/pipeline/variables", headers=PLAIN)
    html = stage.data.decode()
    assert stage.status_code == 200 and len(stage.data) <= 600_000, len(stage.data)
    assert html.count('<details class="step-skill') == 200
    assert html.count("'s part</a>") == 200 - SKILLS_SHOWN
