"""Names and routes through the web: a d_tag that would read as another skill's page is
refused on every form, lone surrogates are a 422 naming the field, a save against a skill
renamed, trashed or deleted meanwhile gets the conflict page with the author's text, and
the trash page restores the items an import with replace dropped."""

from __future__ import annotations

import copy
import json

import pytest

from tests.support.pages import HTMX, fragment_root, is_page, starts_with
from tests.support.workspaces import SIMON
from webapp import store
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"
IN_PLACE = {"X-Save-In-Place": "1"}
BUNDLE = json.loads(SIMON.read_text(encoding="utf-8"))


def change(app, do) -> None:
    """Another author's change, made through the store."""
    with app.app_context():
        do(db.get_session())


# -- a d_tag that reads as another skill's page


@pytest.mark.parametrize("d_tag", ["chat/enabled", "chat/preview", "chat/history/3",
                                   "chat/export", "chat\u200b"])
def test_the_new_skill_form_refuses_a_d_tag_naming_another_page(client, simon, csrf, d_tag):
    response = client.post("/agents/Simon/new-skill", data={"csrf_token": csrf, "d_tag": d_tag})
    assert response.status_code == 422 and is_page(response)
    html = response.data.decode()
    assert "must not end in" in html or "zero-width" in html
    check = client.post("/agents/Simon/new-skill/check", data={"csrf_token": csrf,
                                                              "d_tag": d_tag}, headers=HTMX)
    assert check.status_code == 200 and not is_page(check)
    assert "must not end in" in check.data.decode() or "U+200B" in check.data.decode()


def test_a_rename_to_a_reserved_d_tag_is_refused_in_the_editor(app, client, simon,
                                                               skill_form, saved):
    row = saved("Simon", "chat")
    response = client.post(EDITOR, data=skill_form(row.content, version=row.version,
                                                   d_tag="identity/log"))
    assert response.status_code == 422
    assert "must not end in &#39;/log&#39;" in response.data.decode()
    assert saved("Simon", "chat").version == row.version


def test_an_agent_name_with_a_bidirectional_override_is_refused(client, csrf):
    response = client.post("/new-agent", data={
        "csrf_token": csrf, "name": "é\u202egnp.exe", "title": "{name}",
        "message_mode": "grouped", "max_array_items": "5"})
    assert response.status_code == 422
    assert "bidirectional" in response.data.decode()


# -- lone surrogates


@pytest.mark.parametrize(("body", "field"), [
    ({"content": "a\ud800b", "version": 1}, "content"),
    ({"content": "x", "version": 1, "triggers": ["dm", "\udfff"]}, "triggers[1]"),
    ({"content": "x", "version": 1, "d_tag": "a\ud800"}, "d_tag"),
])
def test_a_lone_surrogate_in_a_json_save_is_a_422_naming_the_field(client, simon, csrf,
                                                                   saved, body, field):
    # json.dumps writes the surrogate as a `\ud800` escape, as a script would send it.
    response = client.post(EDITOR, data=json.dumps(body), content_type="application/json",
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 422
    assert f"{field}: must be Unicode text" in response.data.decode()
    assert saved("Simon", "chat").version == 1


def test_a_lone_surrogate_in_a_json_textarea_is_a_field_error(client, simon, csrf):
    response = client.post("/agents/Simon/tools", data={
        "csrf_token": csrf, "name": "probe", "result": '{"content": "\\ud800"}'})
    assert response.status_code == 422
    assert "content: must be Unicode text" in response.data.decode()


def test_a_form_cannot_carry_a_surrogate(client, simon, csrf, saved):
    # Werkzeug decodes form bytes as UTF-8: the bytes of an encoded surrogate are not read
    # as one (they stay as typed).
    response = client.post(EDITOR, data=f"csrf_token={csrf}&version=1&content=a%ED%A0%80b"
                           "&d_tag=chat&enabled=1&triggers=dm".encode(),
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 303
    assert store.surrogate_path(saved("Simon", "chat").content) is None


# -- a save meets the skill renamed, trashed or deleted


@pytest.mark.parametrize("headers", [{}, HTMX, IN_PLACE], ids=["page", "fragment", "in-place"])
def test_a_save_after_a_rename_gets_the_conflict_page_with_the_text(app, client, simon,
                                                                   skill_form, saved, headers):
    change(app, lambda s: store.rename_skill(s, "Simon", "chat", "talk"))
    response = client.post(EDITOR, data=skill_form("My words.\n", version=1), headers=headers)
    assert response.status_code == 409 and not response.is_json
    assert is_page(response) == (headers is not HTMX)
    if headers is HTMX:
        assert starts_with(response, b'<section id="conflict"'), fragment_root(response)
    html = response.data.decode()
    assert "chat was renamed to talk while you were editing" in html
    assert "My words." in html
    assert 'action="/agents/Simon/skills/talk"' in html
    assert 'name="d_tag" value="talk"' in html


def test_keep_mine_after_a_rename_saves_under_the_new_d_tag(app, client, simon, skill_form,
                                                            saved):
    change(app, lambda s: store.rename_skill(s, "Simon", "chat", "talk"))
    client.post(EDITOR, data=skill_form("My words.\n", version=1))
    response = client.post("/agents/Simon/skills/talk",
                           data=skill_form("My words.\n", version=2, d_tag="talk"))
    assert response.status_code == 303
    assert saved("Simon", "talk").content == "My words.\n"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_a_save_after_a_trash_gets_the_conflict_page(app, client, simon, skill_form, headers):
    change(app, lambda s: store.delete_skill(s, "Simon", "chat"))
    response = client.post(EDITOR, data=skill_form("My words.\n", version=1), headers=headers)
    assert response.status_code == 409 and is_page(response) == (not headers)
    html = response.data.decode()
    assert "chat was moved to the trash while you were editing" in html
    assert "My words." in html and 'href="/agents/Simon/trash"' in html
    assert "Keep mine" not in html


def test_a_save_of_a_skill_that_no_longer_exists_keeps_the_text(client, simon, skill_form):
    response = client.post("/agents/Simon/skills/gone", data=skill_form("My words.\n",
                                                                         d_tag="gone"))
    assert response.status_code == 409
    html = response.data.decode()
    assert "gone no longer exists" in html and "My words." in html
    assert "Keep mine" not in html and 'href="/agents/Simon/new-skill"' in html


def test_a_save_after_the_agent_went_to_the_trash_keeps_the_text(app, client, simon,
                                                                 skill_form):
    change(app, lambda s: store.delete_agent(s, "Simon"))
    response = client.post(EDITOR, data=skill_form("My words.\n"))
    assert response.status_code == 409
    html = response.data.decode()
    assert "chat no longer exists" in html and "My words." in html


def test_a_save_to_an_address_with_a_trailing_slash_still_redirects(client, simon,
                                                                    skill_form):
    response = client.post(EDITOR + "/", data=skill_form("My words.\n"))
    assert response.status_code == 308 and response.headers["Location"] == EDITOR


# -- the trash of items


def replaced(app, post_bundle_fields: dict) -> None:
    with app.app_context():
        store.import_bundle(db.get_session(), post_bundle_fields, replace=True)


def test_an_import_with_replace_puts_dropped_items_in_the_trash(app, client, simon, csrf):
    smaller = copy.deepcopy(BUNDLE)
    dropped = smaller["scenarios"].pop()["name"]
    response = client.post("/transfer/bundle", data={
        "csrf_token": csrf, "bundle_text": json.dumps(smaller), "replace": "1"},
        content_type="multipart/form-data")
    assert response.status_code == 303
    page = client.get("/agents/Simon/trash")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert f"<code>{dropped}</code>" in html and "replaced by an import" in html
    fragment = client.get("/agents/Simon/trash", headers=HTMX)
    assert starts_with(fragment, b'<section id="trash"')


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_restoring_a_trashed_item(app, client, simon, csrf, headers):
    smaller = copy.deepcopy(BUNDLE)
    dropped = smaller["scenarios"].pop()["name"]
    replaced(app, smaller)
    with app.app_context():
        item = store.list_item_trash(db.get_session(), "Simon")[0]
    url = f"/agents/Simon/trash/items/{item.id}/restore"
    response = client.post(url, data={"csrf_token": csrf}, headers=headers)
    if headers:
        assert response.status_code == 200 and starts_with(response, b'<section id="trash"')
        assert f"Restored {dropped}." in response.data.decode()
    else:
        assert response.status_code == 303
        assert response.headers["Location"] == "/agents/Simon/trash"
    with app.app_context():
        assert dropped in {s.name for s in store.list_scenarios(db.get_session(), "Simon")}
    assert client.post(url, data={"csrf_token": csrf}).status_code == 404


def test_restoring_an_item_whose_name_is_taken_is_a_409(app, client, simon, csrf):
    changed = copy.deepcopy(BUNDLE)
    changed["tools"][0]["description"] = "Changed."
    replaced(app, changed)
    with app.app_context():
        item = store.list_item_trash(db.get_session(), "Simon")[0]
    response = client.post(f"/agents/Simon/trash/items/{item.id}/restore",
                           data={"csrf_token": csrf})
    assert response.status_code == 409 and is_page(response)
    assert "Not restored: a tool named" in response.data.decode()
