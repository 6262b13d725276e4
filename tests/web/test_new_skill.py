"""New skill (d_tag checked as typed, known triggers offered, starting points), Duplicate,
and a skill's description in the editor."""

from __future__ import annotations

import pytest
from markupsafe import escape

from tests.support.pages import HTMX, is_page, starts_with
from webapp import store
from webapp.pipeline import assemble
from webapp.schema import db
from webapp.views.skill_starters import STARTERS

NEW = "/agents/Simon/new-skill"


def new_form(csrf: str, **fields) -> dict:
    data = {"csrf_token": csrf, "d_tag": "greeting", "name": "Greeting",
            "description": "Says hello.", "layer": "1", "triggers": "dm", "starter": "roles"}
    data.update(fields)
    return data


def read_skill(app, d_tag: str, agent: str = "Simon"):
    with app.app_context():
        return store.get_skill(db.get_session(), agent, d_tag)


def test_form_page_and_fragment(client, simon):
    page = client.get(NEW)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert ">Create skill</button>" in html and 'name="d_tag"' in html
    assert 'hx-post="/agents/Simon/new-skill/check"' in html
    # The agent's known triggers are offered as checkboxes.
    assert 'name="triggers" value="dm"' in html
    for starter in STARTERS:
        assert f'value="{starter.key}"' in html
    assert starts_with(client.get(NEW, headers=HTMX), b'<section id="skill-new"')
    assert client.get("/agents/Nobody/new-skill").status_code == 404


@pytest.mark.parametrize("d_tag, message", [
    ("fresh", "fresh is free"),
    ("chat", "a skill &#39;chat&#39; already exists"),
    ("two words", "must not contain whitespace or braces"),
    ("{x}", "must not contain whitespace or braces"),
    ("x" * 500, "at most 200 characters"),
])
def test_the_d_tag_is_checked_as_typed(client, simon, csrf, d_tag, message):
    response = client.post(f"{NEW}/check", data={"csrf_token": csrf, "d_tag": d_tag},
                           headers=HTMX)
    assert response.status_code == 200 and starts_with(response, b'<p id="d_tag-check"')
    html = response.data.decode()
    assert message in html and len(html) < 1000  # never an echo of a long value


def test_a_trashed_d_tag_is_taken(client, simon, csrf, app):
    with app.app_context():
        store.delete_skill(db.get_session(), "Simon", "personality", force=True)
    html = client.post(f"{NEW}/check", data={"csrf_token": csrf, "d_tag": "personality"},
                       headers=HTMX).data.decode()
    assert "in the trash" in html


@pytest.mark.parametrize("starter", [s.key for s in STARTERS])
def test_create_from_each_starting_point_opens_the_editor(app, client, simon, csrf, starter):
    response = client.post(NEW, data=new_form(csrf, starter=starter))
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Simon/skills/greeting"
    row = read_skill(app, "greeting")
    expected = next(s for s in STARTERS if s.key == starter)
    assert row.content == expected.content("greeting", "Greeting")
    assert (row.name, row.description, row.triggers, row.enabled) == (
        "Greeting", "Says hello.", ["dm"], True)
    assert row.version == 1
    page = client.get(response.headers["Location"]).data.decode()
    assert "Created the skill greeting." in page and "Says hello." in page
    # Every starting point assembles without an error.
    with app.app_context():
        workspace = store.load_workspace(db.get_session(), "Simon")
    assert not [d for d in assemble(workspace).diagnostics
                if d.severity == "error" and d.skill == "greeting"]


def test_checked_and_typed_triggers_are_combined(app, client, simon, csrf):
    data = new_form(csrf)
    data["triggers"] = ["dm", "weekly\nnightly, late"]
    assert client.post(NEW, data=data).status_code == 303
    assert read_skill(app, "greeting").triggers == ["dm", "weekly", "nightly, late"]


@pytest.mark.parametrize("fields, message", [
    ({"d_tag": ""}, "must not be empty"),
    ({"d_tag": "chat"}, "already exists"),
    ({"d_tag": "a b"}, "must not contain whitespace"),
    ({"layer": "3"}, "must be 1 or 2"),
    ({"description": "x" * 8193}, "at most 8192 characters"),
    ({"name": "n" * 201}, "at most 200 characters"),
])
def test_a_refused_skill_keeps_what_was_typed(app, client, simon, csrf, fields, message):
    response = client.post(NEW, data=new_form(csrf, **fields))
    assert response.status_code == 422
    html = response.data.decode()
    assert "Nothing was saved" in html and message in html
    assert "Says hello." in html or "description" in fields
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Simon")) == 3


def test_create_needs_csrf(client, simon):
    assert client.post(NEW, data={"d_tag": "x"}).status_code == 400


def test_duplicate_copies_the_saved_skill(app, client, simon, csrf):
    editor = client.get("/agents/Simon/skills/chat").data.decode()
    assert 'formaction="/agents/Simon/skills/chat/duplicate"' in editor and ">Duplicate<" in editor
    first = client.post("/agents/Simon/skills/chat/duplicate", data={"csrf_token": csrf})
    assert first.status_code == 303
    assert first.headers["Location"] == "/agents/Simon/skills/chat-copy"
    second = client.post("/agents/Simon/skills/chat/duplicate", data={"csrf_token": csrf})
    assert second.headers["Location"] == "/agents/Simon/skills/chat-copy-2"
    original, copy = read_skill(app, "chat"), read_skill(app, "chat-copy")
    assert (copy.content, copy.triggers, copy.layer, copy.description) == (
        original.content, original.triggers, original.layer, original.description)
    assert copy.name == "Chat (copy)"
    with app.app_context():
        order = [s.d_tag for s in store.list_skills(db.get_session(), "Simon")]
    assert order[-2:] == ["chat-copy", "chat-copy-2"]
    assert client.post("/agents/Simon/skills/nope/duplicate",
                       data={"csrf_token": csrf}).status_code == 404


def test_the_description_is_edited_with_the_skill(app, client, simon, skill_form):
    row = read_skill(app, "chat")
    page = client.get("/agents/Simon/skills/chat").data.decode()
    assert "Description <textarea" in page and str(escape(row.description)) in page
    data = skill_form(row.content, version=row.version, description="Talks with the admin.")
    assert client.post("/agents/Simon/skills/chat", data=data).status_code == 303
    saved = read_skill(app, "chat")
    assert saved.description == "Talks with the admin." and saved.version == row.version + 1
    # Saving the form unchanged makes no revision.
    data = skill_form(saved.content, version=saved.version, description=saved.description)
    assert client.post("/agents/Simon/skills/chat", data=data).status_code == 303
    assert read_skill(app, "chat").version == saved.version
