"""A draft of a megabyte on one line, previewed without JavaScript: the page shows the
Document's rendered view and the form, each other panel a button that posts the draft
again for it, so the answer holds the text a few times, not once a panel (it held it
fourteen times: both diff layouts, the Source table, the Pipeline's stages, the log)."""

from __future__ import annotations

import re

import pytest
from werkzeug.datastructures import MultiDict

from webapp import store
from webapp.schema import db
from webapp.views.document_window import LARGE_CHARS

LINE = "Opening " + "word " * (LARGE_CHARS // 2)  # a megabyte's shape at half the size: one line
PREVIEW = "/agents/Simon/skills/chat/preview"
SHOW = re.compile(r'<button class="nojs-only link-button" name="shown" '
                  r'value="([^"]+)" formaction="([^"]+)">Show this panel</button>')


@pytest.fixture
def chat(app) -> None:
    with app.app_context():
        session = db.get_session()
        store.create_agent(session, "Simon")
        store.create_skill(session, "Simon", "chat", triggers=["dm"], content="Hi.\n")


def test_a_heavy_draft_without_javascript_shows_one_panel(client, chat, skill_form):
    response = client.post(PREVIEW, data=skill_form(LINE, shown=""))
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert len(html) < 3 * len(LINE) + 400_000  # the form's text, the rendered view, chrome
    assert html.count("Opening word") <= 3
    buttons = dict((name, action) for name, action in SHOW.findall(html))
    assert {"diff", "messages", "log", "document:source"} <= set(buttons)
    assert set(buttons.values()) == {PREVIEW}


def test_show_this_panel_posts_the_draft_for_that_panel(client, chat, skill_form):
    """The browser sends the form's empty `shown` and then the pressed button's value."""
    data = skill_form(LINE + "\nTyped last.")
    sent = MultiDict([*data.items(), ("shown", ""), ("shown", "log")])
    response = client.post(PREVIEW, data=sent)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="log-entry"' in html
    assert "Typed last." in html.split('id="log-entry"', 1)[1]
    assert 'class="diff diff-split"' not in html  # the diff stays a placeholder


def test_a_light_draft_without_javascript_shows_every_panel(client, chat, skill_form):
    html = client.post(PREVIEW, data=skill_form("A short skill.\n", shown="")).get_data(
        as_text=True)
    assert 'id="log-entry"' in html and "diff diff-split" in html and not SHOW.search(html)
