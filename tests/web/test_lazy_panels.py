"""A live preview sends the open panel alone; the others come as placeholders that the
page asks for when their tab is opened. Without the `shown` field every panel is sent."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX
from webapp.views.panels import ALWAYS_SENT, BY_NAME, PANELS, shown_panels

PREVIEW = "/agents/Simon/skills/chat/preview"

MARKS = {  # what each panel holds when it is rendered
    "document:rendered": '<article class="message-card',
    "document:source": '<table class="source highlight">',
    "diff": "saved → draft",
    "messages": 'class="request-body"',
    "log": '<pre id="log-entry"',
    "tests": "every scenario that holds",
    "pipeline": '<ol class="stages">',
}


def post(client, skill_form, shown: str | None):
    data = skill_form("system:\n# Chat\n\nDraft text.\n\nuser:\n{{message}}\n")
    if shown is not None:
        data["shown"] = shown
    response = client.post(PREVIEW, data=data, headers=HTMX)
    assert response.status_code == 200
    return response.data.decode()


@pytest.mark.parametrize("shown", sorted(MARKS))
def test_only_the_open_panel_is_sent(client, simon, skill_form, shown):
    html = post(client, skill_form, shown)
    for panel, mark in MARKS.items():
        assert (mark in html) == (panel == shown), panel
    assert html.count("data-lazy") == len(MARKS) - 1
    assert 'id="panel-problems"' in html and "Problems" in html  # always there


def test_without_the_field_every_panel_is_sent(client, simon, skill_form):
    for shown in (None, "", "nonsense", "document:nonsense"):
        html = post(client, skill_form, shown)
        assert all(mark in html for mark in MARKS.values()) and "data-lazy" not in html


def test_the_document_tab_alone_means_both_views():
    assert shown_panels("document") == {"document", "document:rendered", "document:source"}
    assert shown_panels("pipeline") == {"pipeline", "pipeline:unified", "pipeline:split"}
    assert shown_panels("pipeline:split") == {"pipeline", "pipeline:split"}
    assert shown_panels("diff") == {"diff"} and shown_panels(None) is None
    assert shown_panels(["diff"]) is None


def test_a_page_shows_every_panel_of_a_small_document(client, simon):
    page = client.get("/agents/Simon/skills/chat").data.decode()
    assert all(mark in page for mark in MARKS.values()) and "data-lazy" not in page
    assert 'name="shown"' in page


def test_a_page_asked_for_one_panel_links_to_the_others(client, simon):
    """What a placeholder's link opens without JavaScript: the page with that panel."""
    page = client.get("/agents/Simon/skills/chat", query_string={"shown": "diff"}).data.decode()
    assert MARKS["diff"] in page and MARKS["pipeline"] not in page
    link = "/agents/Simon/skills/chat/preview?shown=pipeline"
    assert f'<a class="nojs-only" href="{link}">Show this panel</a>' in page
    assert MARKS["pipeline"] in client.get(link).data.decode()


#: What each panel of the table holds once rendered, in the editor's preview.
FILLED = {**{name: mark for name, mark in MARKS.items() if ":" in name or name in BY_NAME},
          "pipeline:unified": '<table class="diff diff-unified"',
          "pipeline:split": '<table class="diff diff-split"'}


@pytest.mark.parametrize("name", sorted(FILLED))
def test_each_placeholder_loads_the_element_the_table_names(client, simon, skill_form, name):
    """A keystroke with Problems open sends every other panel as a placeholder whose one
    loader posts the draft asking for its panel alone, into the element the panels' table
    names; the answer to that holds the element, filled."""
    element = BY_NAME[name].element
    html = post(client, skill_form, "problems")
    loaders = re.findall(r'<span class="js-only" data-loader [^>]*>', html)
    asking = [loader for loader in loaders if f'{{&#34;shown&#34;: &#34;{name}&#34;}}' in loader
              or f'{{"shown": "{name}"}}' in loader]
    assert len(asking) == 1, loaders
    assert f'hx-target="#{element}" hx-select="#{element}"' in asking[0]
    assert f'hx-post="{PREVIEW}" hx-include="closest form"' in asking[0]
    answer = post(client, skill_form, name)
    assert f'id="{element}"' in answer and FILLED[name] in answer


def test_the_table_names_the_element_of_every_lazy_panel_once():
    tabs = {panel.tab for panel in PANELS}
    assert {"document", "pipeline", "problems"} <= tabs
    assert ALWAYS_SENT == {"problems"}
    elements = [panel.element for panel in PANELS if panel.tab != "pipeline"]
    assert len(elements) == len(set(elements))
