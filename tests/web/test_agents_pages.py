"""The agents: the home page's list, New agent, Settings (rename included), the empty
agent page, and the agents' trash (delete, restore, delete for good)."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX, is_page, starts_with
from webapp import store
from webapp.schema import db


def agent_form(csrf: str, **fields) -> dict:
    data = {"csrf_token": csrf, "name": "Scout", "title": "{name} — scout",
            "message_mode": "sequence", "max_array_items": "5", "label_user": "Boss",
            "label_assistant": "Scout"}
    data.update(fields)
    return data


def read_agent(app, name: str):
    with app.app_context():
        return store.get_agent(db.get_session(), name)


# -- the home page


def test_home_lists_agents_with_skills_last_change_and_problems(client, simon, relay_watch):
    page = client.get("/")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert "New agent" in html and 'href="/new-agent"' in html
    assert ">Simon</strong>" in html and ">Relay Watch</strong>" in html
    assert "3 skills" in html and "4 skills" in html
    assert "<time datetime=" in html
    # Relay Watch has a `{{admin_note}}` typo: a warning, counted on its row.
    relay_row = html[html.index(">Relay Watch</strong>"):].split("</tr>")[0]
    assert "warning" in relay_row
    assert 'href="/agents/Simon/settings"' in html
    fragment = client.get("/", headers=HTMX)
    assert not is_page(fragment) and starts_with(fragment, b'<section id="agents"')


def test_home_without_agents_says_how_to_start(client):
    html = client.get("/").data.decode()
    assert "No agents yet" in html and 'href="/new-agent"' in html and "import a bundle" in html


# -- New agent


def test_new_agent_form_page_and_fragment(client):
    page = client.get("/new-agent")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    for label in ("Name", "Title template", "Message mode", "Max array items",
                  "Label for user messages", "Label for assistant messages"):
        assert f"{label} <" in html or f"{label}\n" in html
    assert ">Create agent</button>" in html and 'value="{name}"' in html
    assert "data-warn-unsaved" in html
    fragment = client.get("/new-agent", headers=HTMX)
    assert starts_with(fragment, b'<section id="agent-form"')


def test_create_agent_opens_its_empty_page(app, client, csrf):
    response = client.post("/new-agent", data=agent_form(csrf))
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Scout"
    agent = read_agent(app, "Scout")
    assert (agent.title, agent.message_mode, agent.max_array_items) == (
        "{name} — scout", "sequence", 5)
    assert agent.history_labels == {"user": "Boss", "assistant": "Scout"}
    page = client.get("/agents/Scout")
    assert page.status_code == 200
    html = page.data.decode()
    assert "Created the agent Scout." in html and "has no skills yet" in html
    assert 'href="/agents/Scout/new-skill"' in html and ">New skill</a>" in html
    assert "#import-skill" in html and "#import-bundle" in html
    fragment = client.get("/agents/Scout", headers=HTMX)
    assert starts_with(fragment, b'<section id="agent-empty"')


@pytest.mark.parametrize("fields, field, message", [
    ({"name": ""}, "name", "must not be empty"),
    ({"name": "a/b"}, "name", "must not contain &#39;/&#39;"),
    ({"name": ".."}, "name", "must not be"),
    ({"name": " padded"}, "name", "must not start or end with a space"),
    ({"name": "x" * 201}, "name", "at most 200 characters"),
    ({"message_mode": "chaos"}, "message_mode", "must be one of grouped, sequence"),
    ({"max_array_items": "many"}, "max_array_items", "must be a whole number"),
    ({"max_array_items": "9" * 30}, "max_array_items", "must be at most"),
    ({"name": "Simon"}, "name", "already exists"),
    ({"title": "nul\x00"}, "title", "NUL"),
])
def test_a_refused_agent_keeps_what_was_typed(app, client, simon, csrf, fields, field, message):
    typed = agent_form(csrf, **fields)
    response = client.post("/new-agent", data=typed)
    assert response.status_code == 422
    html = response.data.decode()
    assert "Nothing was saved" in html and message in html
    assert f'id="error-{field}"' in html
    assert 'value="{name} — scout"' in html or field == "title"  # the author's text is back
    with app.app_context():
        assert [a.name for a in store.list_agents(db.get_session())] == ["Simon"]


def test_create_agent_needs_csrf(client):
    assert client.post("/new-agent", data={"name": "X"}).status_code == 400


# -- Settings


def test_settings_page_shows_the_saved_fields(client, simon):
    page = client.get("/agents/Simon/settings")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert 'value="Simon"' in html and 'value="{name} — Didactyl Agent"' in html
    assert 'name="label_user" value="Admin"' in html and ">Save</button>" in html
    assert 'href="/agents/Simon/delete"' in html
    assert 'aria-current="page">Settings</a>' in html
    fragment = client.get("/agents/Simon/settings", headers=HTMX)
    assert starts_with(fragment, b'<section id="agent-form"')
    assert client.get("/agents/Nobody/settings").status_code == 404


def test_settings_save_and_rename_move_the_pages(app, client, simon, csrf):
    response = client.post("/agents/Simon/settings",
                           data=agent_form(csrf, name="Simone", title="{name}!"))
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Simone/settings"
    html = client.get("/agents/Simone/settings").data.decode()
    assert "renamed from Simon" in html
    assert read_agent(app, "Simone").title == "{name}!"
    assert client.get("/agents/Simon/settings").status_code == 404
    assert client.get("/agents/Simone/skills/chat").status_code == 200
    # The title template follows the new name in the assembled document.
    preview = client.get("/agents/Simone/skills/chat").data.decode()
    assert "Simone!" in preview


def test_settings_refused_keeps_the_form(client, simon, relay_watch, csrf):
    response = client.post("/agents/Simon/settings", data=agent_form(csrf, name="Relay Watch"))
    assert response.status_code == 422 and "already exists" in response.data.decode()
    assert 'value="Relay Watch"' in response.data.decode()


# -- the trash


def test_delete_asks_then_moves_to_the_trash_and_restore_brings_it_back(app, client, simon,
                                                                        csrf):
    ask = client.get("/agents/Simon/delete")
    assert ask.status_code == 200 and "3 skills" in ask.data.decode()
    assert starts_with(client.get("/agents/Simon/delete", headers=HTMX),
                       b'<section id="confirm-delete"')
    response = client.post("/agents/Simon/delete", data={"csrf_token": csrf})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    home = client.get("/").data.decode()
    assert "Moved the agent Simon to the trash" in home and "Restore Simon</button>" in home
    assert client.get("/agents/Simon").status_code == 404
    assert client.get("/agents/Simon/skills/chat").status_code == 404
    # Its name stays taken while it is in the trash.
    refused = client.post("/new-agent", data=agent_form(csrf, name="Simon"))
    assert refused.status_code == 422 and "is in the trash" in refused.data.decode()
    restored = client.post("/agent-trash/Simon/restore", data={"csrf_token": csrf})
    assert restored.status_code == 303 and restored.headers["Location"] == "/agents/Simon"
    assert client.get("/agents/Simon/skills/chat").status_code == 200
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Simon")) == 3


def test_delete_for_good_only_from_the_trash(app, client, simon, csrf):
    assert client.get("/agent-trash/Simon/purge").status_code == 404
    assert client.post("/agent-trash/Simon/purge", data={"csrf_token": csrf}).status_code == 404
    client.post("/agents/Simon/delete", data={"csrf_token": csrf})
    ask = client.get("/agent-trash/Simon/purge")
    assert ask.status_code == 200 and "cannot be restored" in ask.data.decode()
    response = client.post("/agent-trash/Simon/purge", data={"csrf_token": csrf})
    assert response.status_code == 303
    with app.app_context():
        session = db.get_session()
        assert store.list_agents(session) == [] and store.list_agent_trash(session) == []
    # The name is free again.
    assert client.post("/new-agent", data=agent_form(csrf, name="Simon")).status_code == 303


def test_restore_of_an_agent_not_in_the_trash_is_404(client, simon, csrf):
    assert client.post("/agent-trash/Simon/restore", data={"csrf_token": csrf}).status_code == 404
    assert client.post("/agent-trash/Nobody/restore", data={"csrf_token": csrf}).status_code == 404
