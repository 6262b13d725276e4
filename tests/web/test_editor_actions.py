"""The editor's own Delete (to the trash, asked first) and a save's note (on History)."""

from __future__ import annotations

import pytest

from tests.support.pages import is_page, sign_in
from webapp import store
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"
CONTENT = "system:\n# Chat\n\nA changed line.\n"


def revision_note(app, d_tag: str, version: int) -> str | None:
    with app.app_context():
        return store.get_revision(db.get_session(), "Simon", d_tag, version).note


# -- Delete


def test_the_editor_offers_delete_asked_first(client, simon):
    html = client.get(EDITOR).data.decode()
    assert '<a class="button danger delete-skill" href="/agents/Simon/skills/chat/delete">' \
           'Delete…</a>' in html
    confirm = client.get(f"{EDITOR}/delete")
    assert confirm.status_code == 200 and is_page(confirm)
    assert b"Move chat to the trash?" in confirm.data and b'name="csrf_token"' in confirm.data


def test_a_viewer_s_editor_has_no_delete(client, simon, team):
    sign_in(client, "viewer")
    html = client.get(EDITOR).data.decode()
    assert "delete-skill" not in html and 'name="note"' not in html


def test_delete_from_the_editor_follows_the_trash_rule(client, simon, csrf, saved):
    """identity is embedded by personality: the store refuses until forced."""
    refused = client.post("/agents/Simon/skills/identity/delete", data={"csrf_token": csrf})
    assert refused.status_code == 409 and b"Delete it anyway" in refused.data
    moved = client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    assert moved.status_code == 303
    with pytest.raises(store.NotFound):
        saved("Simon", "chat")


def test_delete_without_the_csrf_token_changes_nothing(client, simon, saved):
    assert client.post(f"{EDITOR}/delete", data={}).status_code == 400
    assert saved("Simon", "chat").deleted_at is None


# -- a save's note


def test_a_save_carries_its_note_to_history(app, client, simon, skill_form):
    data = skill_form(CONTENT, note="  Shorter opening.  ")
    assert client.post(EDITOR, data=data).status_code == 303
    assert revision_note(app, "chat", 2) == "Shorter opening."
    assert "Shorter opening." in client.get(f"{EDITOR}/history").data.decode()
    # The editor after it starts with an empty note.
    assert 'name="note" value=""' in client.get(EDITOR).data.decode()


def test_a_save_in_place_carries_its_note(app, client, simon, skill_form):
    response = client.post(EDITOR, data=skill_form(CONTENT, note="Via Ctrl+S"),
                           headers={"X-Save-In-Place": "1"})
    assert response.status_code == 200 and response.json["version"] == 2
    assert revision_note(app, "chat", 2) == "Via Ctrl+S"


def test_a_blank_note_is_no_note(app, client, simon, skill_form):
    assert client.post(EDITOR, data=skill_form(CONTENT, note="   ")).status_code == 303
    assert revision_note(app, "chat", 2) is None


def test_a_rename_keeps_its_note_after_the_rename_s(app, client, simon, skill_form):
    data = skill_form(CONTENT, d_tag="talk", note="Clearer name.")
    assert client.post(EDITOR, data=data).status_code == 303
    assert revision_note(app, "talk", 2) == "renamed from chat; Clearer name."


def test_a_note_with_a_nul_is_refused_and_kept(app, client, simon, skill_form, saved):
    response = client.post(EDITOR, data=skill_form(CONTENT, note="bad\x00note"))
    assert response.status_code == 422 and b"note" in response.data
    assert saved("Simon", "chat").version == 1
    refused = client.post(EDITOR, data=skill_form(CONTENT, layer="7", note="Kept for later"))
    assert refused.status_code == 422
    assert 'name="note" value="Kept for later"' in refused.data.decode()
