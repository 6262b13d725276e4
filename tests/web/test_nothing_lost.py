"""Nothing typed is lost: Ctrl/Cmd+S saves in place (JSON), a save with errors still saves
and says so, an unchanged save says nothing changed, and an expired CSRF token brings the
author's text back with a fresh token."""

from __future__ import annotations

from tests.support.pages import HTMX
from webapp import store
from webapp.schema import db
from webapp.web.security import FRESH_TOKEN_HEADER

EDITOR = "/agents/Simon/skills/chat"
IN_PLACE = {"X-Save-In-Place": "1"}


def saved(app, d_tag: str = "chat"):
    with app.app_context():
        return store.get_skill(db.get_session(), "Simon", d_tag)


def test_an_in_place_save_answers_json_and_saves(app, client, simon, skill_form):
    row = saved(app)
    response = client.post(EDITOR, data=skill_form(row.content + "\nMore.\n", version=row.version),
                           headers=IN_PLACE)
    assert response.status_code == 200 and response.is_json
    outcome = response.get_json()
    assert outcome["saved"] and outcome["changed"] and outcome["version"] == row.version + 1
    assert outcome["message"] == f"Saved chat as version {row.version + 1}."
    assert outcome["errors"] == 0 and outcome["url"] == EDITOR
    assert saved(app).content.endswith("More.\n")
    # Nothing is queued for a later page: the message was the JSON's.
    assert "Saved chat" not in client.get(EDITOR).data.decode()


def test_an_unchanged_save_makes_no_version_and_says_so(app, client, simon, skill_form):
    row = saved(app)
    form = skill_form(row.content, version=row.version, description=row.description)
    outcome = client.post(EDITOR, data=form, headers=IN_PLACE).get_json()
    assert not outcome["changed"] and outcome["version"] == row.version
    assert outcome["message"] == f"No change to save: chat is still version {row.version}."
    page = client.post(EDITOR, data=form, follow_redirects=True).data.decode()
    assert "No change to save" in page
    assert saved(app).version == row.version


def test_a_save_with_errors_is_saved_and_counts_them(app, client, simon, skill_form):
    row = saved(app)
    content = row.content + "\n{{chat}}\n"  # embeds itself: a reference-cycle error
    outcome = client.post(EDITOR, data=skill_form(content, version=row.version,
                                                  description=row.description),
                          headers=IN_PLACE).get_json()
    assert outcome["changed"] and outcome["errors"] >= 1
    assert f"with {outcome['errors']} error" in outcome["message"]
    assert outcome["problems_url"].endswith("#problems")
    assert saved(app).content == content
    page = client.post(EDITOR, data=skill_form(content + "x", version=row.version + 1,
                                               description=row.description),
                       follow_redirects=True).data.decode()
    assert "with 1 error" in page or "with 2 errors" in page


def test_an_in_place_save_that_fails_answers_the_page(app, client, simon, skill_form):
    row = saved(app)
    bad = client.post(EDITOR, data=skill_form(row.content, version=row.version, layer="9"),
                      headers=IN_PLACE)
    assert bad.status_code == 422 and not bad.is_json and "Nothing was saved" in bad.data.decode()
    # Someone else saves; a save from the version the author started at is a conflict.
    assert client.post(EDITOR, data=skill_form("theirs", version=row.version),
                       headers=IN_PLACE).is_json
    conflict = client.post(EDITOR, data=skill_form("mine", version=row.version),
                           headers=IN_PLACE)
    assert conflict.status_code == 409 and not conflict.is_json
    assert "mine" in conflict.data.decode()


def test_a_rename_is_one_version_and_the_message_names_what_was_rewritten(app, client, simon,
                                                                          skill_form, csrf):
    row = saved(app, "identity")
    form = skill_form(row.content, version=row.version, d_tag="self", layer="2", triggers="",
                      name=row.name, description=row.description)
    page = client.post("/agents/Simon/skills/identity", data=form,
                       follow_redirects=True).data.decode()
    assert "Saved self as version 2 (renamed from identity; references rewritten in" in page
    assert saved(app, "self").version == 2


def test_an_expired_token_brings_the_text_back_with_a_fresh_one(client, simon, skill_form):
    with client.session_transaction() as session:
        session["csrf_token"] = "the-new-session-token"
    form = skill_form("My precious draft\nline two\n", version=1)
    form["csrf_token"] = "an-old-token"
    response = client.post(EDITOR, data=form)
    assert response.status_code == 400
    html = response.data.decode()
    assert "Nothing you typed is lost" in html and ">Send again</button>" in html
    assert "My precious draft\nline two" in html
    assert 'name="csrf_token" value="the-new-session-token"' in html
    assert f'action="{EDITOR}"' in html
    assert response.headers[FRESH_TOKEN_HEADER] == "the-new-session-token"
    # Sending it again as it is saves it.
    form["csrf_token"] = "the-new-session-token"
    assert client.post(EDITOR, data=form).status_code == 303


def test_an_expired_token_on_htmx_hands_over_the_fresh_one(client, simon, skill_form):
    with client.session_transaction() as session:
        session["csrf_token"] = "fresh"
    response = client.post(f"{EDITOR}/preview", data={"content": "x"},
                           headers={**HTMX, "X-CSRFToken": "stale"})
    assert response.status_code == 400 and response.headers[FRESH_TOKEN_HEADER] == "fresh"
    assert response.data.lstrip().startswith(b'<section id="error"')


def test_a_lost_session_still_gets_a_token(client, simon):
    response = client.post("/new-agent", data={"name": "Kept", "title": "{name}"})
    assert response.status_code == 400
    token = response.headers[FRESH_TOKEN_HEADER]
    assert token and f'value="{token}"' in response.data.decode()
    assert 'name="name" rows="2"' in response.data.decode() and "Kept" in response.data.decode()


def test_every_editable_form_warns_before_leaving(client, simon):
    for url in ("/agents/Simon/tools/agent_identity", "/agents/Simon/variables",
                "/agents/Simon/scenarios", "/agents/Simon/settings", "/agents/Simon/new-skill",
                "/new-agent"):
        assert "data-warn-unsaved" in client.get(url).data.decode(), url
