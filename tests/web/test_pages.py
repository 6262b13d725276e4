"""Every route as a full page and as an htmx fragment, and what each one does."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX, fragment_root, is_page
from webapp import store
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"


def test_index_page_and_fragment(client, simon):
    page = client.get("/")
    assert page.status_code == 200 and is_page(page)
    assert b'href="/agents/Simon"' in page.data
    assert "HX-Request" in page.headers["Vary"]
    fragment = client.get("/", headers=HTMX)
    assert not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section id="agents"')
    assert "HX-Request" in fragment.headers["Vary"]


def test_history_restore_gets_the_whole_page(client, simon):
    response = client.get(EDITOR, headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert is_page(response)


def test_agent_opens_its_first_skill(client, simon):
    response = client.get("/agents/Simon")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/agents/Simon/skills/identity")


def test_editor_page_shows_list_form_and_preview(client, simon):
    response = client.get(EDITOR)
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    for root in ('id="skill-list"', 'id="skill-form"', 'id="scenario-picker"', 'id="preview"'):
        assert root in html
    # Rendered on the server with the page: the preview works without JavaScript.
    assert "Simon — Didactyl Agent</h1>" in html
    assert 'name="version" value="1"' in html
    assert "Hey Simon, who mentioned me on Nostr today?" in html


def test_editor_fragment(client, simon):
    response = client.get(EDITOR, headers=HTMX)
    assert not is_page(response)
    assert fragment_root(response).startswith(b'<div id="editor"')


def test_preview_of_saved_skill_page_and_fragment(client, simon):
    url = "/agents/Simon/skills/chat/preview"
    assert is_page(client.get(url))
    fragment = client.get(url, headers=HTMX)
    assert fragment_root(fragment).startswith(b'<section id="preview"')
    assert b"No change" in fragment.data


def test_preview_of_draft_fragment_changes_nothing(client, simon, skill_form, saved):
    data = skill_form("system:\n# Draft heading\n\nuser:\n{{message}}\n")
    response = client.post(f"{EDITOR}/preview", data=data, headers=HTMX)
    assert response.status_code == 200
    assert fragment_root(response).startswith(b'<section id="preview"')
    html = response.data.decode()
    assert "Draft heading</h2>" in html  # bumped one level below the title
    assert '<span class="word-changed">' in html or 'line-add' in html
    assert saved("Simon", "chat").version == 1


def test_preview_of_draft_without_javascript_is_the_whole_page(client, simon, skill_form):
    response = client.post(f"{EDITOR}/preview", data=skill_form("system:\nplain draft\n"))
    assert is_page(response)
    assert "plain draft" in response.data.decode()


def test_preview_with_picker_overrides(client, simon, skill_form):
    data = skill_form("user:\n{{message}}\n", message="A different question?", trigger="dm")
    response = client.post(f"{EDITOR}/preview", data=data, headers=HTMX)
    assert "A different question?" in response.data.decode()


def test_preview_for_a_trigger_that_does_not_use_the_skill(client, simon, skill_form):
    response = client.post(f"{EDITOR}/preview", data=skill_form("x", trigger="cron"), headers=HTMX)
    assert response.status_code == 200
    assert "does not use" in response.data.decode()


def test_save_redirects_and_bumps_version(client, simon, skill_form, saved):
    response = client.post(EDITOR, data=skill_form("system:\nSaved text\n"))
    assert response.status_code == 303
    assert response.headers["Location"].endswith(EDITOR)
    row = saved("Simon", "chat")
    assert (row.version, row.content) == (2, "system:\nSaved text\n")
    page = client.get(EDITOR).data.decode()
    assert "Saved chat as version 2." in page
    assert 'name="version" value="2"' in page


def test_save_turns_crlf_into_lf(client, simon, skill_form, saved):
    client.post(EDITOR, data=skill_form("system:\r\nline\r\n"))
    assert saved("Simon", "chat").content == "system:\nline\n"


def test_save_with_new_d_tag_renames(client, simon, skill_form, saved):
    response = client.post("/agents/Simon/skills/identity",
                           data=skill_form("I am {{agent_profile}}.\n", d_tag="who-am-i",
                                           layer="2", triggers=""))
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/agents/Simon/skills/who-am-i")
    assert "{{who-am-i}}" in saved("Simon", "personality").content


def test_save_keeps_the_scenario_choice(client, simon, skill_form):
    response = client.post(EDITOR, data=skill_form("x", message="Keep me"))
    assert "message=Keep+me" in response.headers["Location"]


def test_conflict_page_and_fragment(client, simon, skill_form):
    client.post(EDITOR, data=skill_form("system:\nfirst tab\n"))
    page = client.post(EDITOR, data=skill_form("system:\nsecond tab\n", version=1))
    assert page.status_code == 409 and is_page(page)
    fragment = client.post(EDITOR, data=skill_form("system:\nsecond tab\n", version=1),
                           headers=HTMX)
    assert fragment.status_code == 409
    assert fragment_root(fragment).startswith(b'<section id="conflict"')


def test_toggle_page_redirects_and_fragment_is_the_list(client, simon, csrf, saved):
    url = "/agents/Simon/skills/personality/enabled"
    page = client.post(url, data={"csrf_token": csrf, "enabled": "0", "current": "chat"})
    assert page.status_code == 303 and page.headers["Location"].endswith(EDITOR)
    assert saved("Simon", "personality").enabled is False
    fragment = client.post(url, data={"csrf_token": csrf, "enabled": "1", "current": "chat"},
                           headers=HTMX)
    assert fragment_root(fragment).startswith(b'<nav id="skill-list"')
    assert fragment.headers["HX-Trigger"] == "workspace-changed"
    assert saved("Simon", "personality").enabled is True


def order(app) -> list[str]:
    with app.app_context():
        return [s.d_tag for s in store.list_skills(db.get_session(), "Simon")]


def test_move_page_and_fragment(app, client, simon, csrf):
    url = "/agents/Simon/skills/chat/move"
    page = client.post(url, data={"csrf_token": csrf, "direction": "up", "current": "chat"})
    assert page.status_code == 303
    assert order(app) == ["identity", "chat", "personality"]
    fragment = client.post(url, data={"csrf_token": csrf, "direction": "up", "current": "chat"},
                           headers=HTMX)
    assert fragment_root(fragment).startswith(b'<nav id="skill-list"')
    assert order(app) == ["chat", "identity", "personality"]
    # Already first: nothing moves, nothing fails.
    client.post(url, data={"csrf_token": csrf, "direction": "up"}, headers=HTMX)
    assert order(app) == ["chat", "identity", "personality"]


def test_append_log_page_and_fragment(app, client, simon, skill_form):
    url = f"{EDITOR}/log"
    page = client.post(url, data=skill_form("system:\nlogged draft\n"))
    assert page.status_code == 303
    fragment = client.post(url, data=skill_form("system:\nlogged draft\n"), headers=HTMX)
    assert fragment_root(fragment).startswith(b'<span id="log-status"')
    assert b"Appended at" in fragment.data
    with app.app_context():
        entries = store.list_log(db.get_session(), "Simon")
    assert len(entries) == 2
    assert "logged draft" in entries[0].document
    assert entries[0].scenario == "admin asks about mentions"


@pytest.mark.parametrize("tab", ["document", "diff", "messages", "log", "problems", "pipeline"])
def test_every_tab_is_in_the_preview(client, simon, tab):
    html = client.get(EDITOR, headers=HTMX).data.decode()
    assert f'data-panel="{tab}"' in html and f'data-tab-button="{tab}"' in html


def test_preview_tabs_content(client, simon, skill_form):
    content = "system:\n# Added\n{{agent_npubb}}\n\nuser:\n{{message}}\n"
    html = client.post(f"{EDITOR}/preview", data=skill_form(content), headers=HTMX).data.decode()
    # Document: cards with sizes, the source with a gutter marking this skill's lines.
    assert 'class="message-card role-system"' in html and "tokens</span>" in html
    assert '<tr class="mine">' in html and ">chat:2</a>" in html
    # Diff: unified and side by side, the added heading as an added line.
    assert 'class="diff diff-unified"' in html and 'class="diff diff-split"' in html
    assert "## Added" in html
    # Messages: both request shapes, highlighted, with copy buttons.
    assert "OpenAI chat completions" in html and "Anthropic Messages" in html
    assert 'data-copy="#body-openai"' in html and 'class="highlight"' in html
    assert "&#34;system&#34;" not in html  # pygments output, not double-escaped JSON
    # Log: the entry and the append button.
    assert 'id="log-entry"' in html and "Append to context log" in html
    # Problems: the typo, with the suggestion, linking to its line.
    assert "unknown-variable" in html and "agent_npub" in html
    assert 'data-skill="chat" data-line="3"' in html
    # Pipeline: every step of the assembly, the edited skill's stages in full.
    assert "Skills selected by the trigger" in html and "The provider request" in html
    assert "References expanded" in html and "Headings bumped" in html


def test_anthropic_body_has_system_on_top(client, simon):
    html = client.get(EDITOR, headers=HTMX).data.decode()
    anthropic = html.split('id="body-anthropic"')[1]
    assert "system" in anthropic.split("messages")[0]
