"""A skill's history (revisions, diffs, restore) and the trash (delete, restore) as pages."""

from __future__ import annotations

import pytest
from markupsafe import escape

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from tests.support.xss import CORPUS, EVIL_TAG, xss_bundle
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"
HISTORY = f"{EDITOR}/history"


@pytest.fixture
def three_versions(client, simon, skill_form) -> None:
    """chat at version 3: v2 changed the text, v3 the name, triggers and text again."""
    second = skill_form("system:\n# Chat\n\nSecond text.\n")
    assert client.post(EDITOR, data=second).status_code == 303
    data = skill_form("system:\n# Chat\n\nThird text.\n", version=2, name="Talk",
                      triggers="dm, cron")
    assert client.post(EDITOR, data=data).status_code == 303


def restore(client, csrf, version: int, expected: int, **kwargs):
    return client.post(f"{HISTORY}/{version}/restore",
                       data={"csrf_token": csrf, "expected_version": expected}, **kwargs)


# -- revisions and diffs


def test_history_page_lists_versions_and_diffs_the_last_two(client, three_versions):
    response = client.get(HISTORY)
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert html.index(">v3</a>") < html.index(">v2</a>") < html.index(">v1</a>")
    assert "imported" in html                                 # v1's note
    assert "Version 2 → version 3" in html
    assert 'class="diff diff-unified"' in html and 'class="diff diff-split"' in html
    assert '<span class="word-changed">Third</span>' in html
    assert "<td>name</td>" in html and "Talk" in html and "dm, cron" in html  # field changes
    assert 'value="2" aria-label="Compare from version 2" checked' in html
    assert 'value="3" aria-label="Compare to version 3" checked' in html


def test_history_fragment(client, three_versions):
    response = client.get(HISTORY, headers=HTMX)
    assert not is_page(response) and "HX-Request" in response.headers["Vary"]
    assert fragment_root(response).startswith(b'<section id="history"')


def test_diff_between_any_two_versions(client, three_versions):
    html = client.get(f"{HISTORY}?from=1&to=3", headers=HTMX).data.decode()
    assert "Version 1 → version 3" in html
    assert "Respond" in html and "Third" in html  # v1 and v3 text, in word spans
    html = client.get(f"{HISTORY}?from=3&to=1").data.decode()
    assert "Version 3 → version 1" in html


def test_same_version_twice_is_no_change(client, three_versions):
    html = client.get(f"{HISTORY}?from=2&to=2").data.decode()
    assert "The text is the same in both versions." in html


def test_a_skill_with_one_version(client, simon):
    html = client.get("/agents/Simon/skills/identity/history").data.decode()
    assert "Version 1 → version 1" in html and ">Restore</button>" not in html


@pytest.mark.parametrize("query, reason", [
    ("from=x", b"from: must be a whole number, not &#39;x&#39;"),
    ("to=0", b"to: must be at least 1, not 0"),
])
def test_bad_version_choice_is_422(client, three_versions, query, reason):
    response = client.get(f"{HISTORY}?{query}")
    assert response.status_code == 422 and reason in response.data


@pytest.mark.parametrize("url", [
    f"{HISTORY}?from=9",
    f"{HISTORY}?to=9",
    f"{HISTORY}/9",
    "/agents/Simon/skills/nope/history",
    "/agents/Simon/skills/nope/history/1",
    "/agents/Nobody/skills/chat/history",
])
def test_missing_versions_skills_and_agents_are_404(client, three_versions, url):
    assert client.get(url).status_code == 404


def test_revision_page_renders_and_highlights(client, three_versions):
    response = client.get(f"{HISTORY}/1")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert "<h1>Chat</h1>" in html                     # rendered
    assert '<table class="source highlight">' in html  # source
    assert "Restore as version 4" in html and 'name="expected_version" value="3"' in html
    assert 'href="/agents/Simon/skills/chat/history?from=1&amp;to=3"' in html


def test_a_revision_keeps_a_role_marker_apart_from_the_next_line(client, simon):
    """chat's `user:` and `{{message}}` are two lines: the rendered view shows a part per
    marker, not one paragraph "user: {{message}}"."""
    html = client.get(f"{HISTORY}/1").data.decode()
    rendered = html[html.index('class="doc-rendered"'):html.index('class="doc-source"')]
    assert "user: {{message}}" not in rendered
    assert ('<div class="message-card role-user">\n        <header><span class="role">user:'
            '</span></header>\n        <div class="rendered-markdown"><p>{{message}}</p></div>'
            ) in rendered
    assert '<div class="message-card role-system">' in rendered and "<h1>Chat</h1>" in rendered


def test_revision_fragment(client, three_versions):
    response = client.get(f"{HISTORY}/3", headers=HTMX)
    assert fragment_root(response).startswith(b'<section id="revision"')
    assert b"(current)" in response.data and b"Restore as" not in response.data


def test_history_works_for_d_tags_with_slashes(app, client, simon):
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "team/a", content="hello\n")
    assert client.get("/agents/Simon/skills/team/a/history").status_code == 200
    assert client.get("/agents/Simon/skills/team/a/history/1").status_code == 200


# -- restoring a version


def test_restore_saves_the_old_version_as_a_new_one(client, three_versions, csrf, saved):
    response = restore(client, csrf, 1, 3)
    assert response.status_code == 303 and response.headers["Location"] == EDITOR
    row = saved("Simon", "chat")
    assert row.version == 4 and row.name == "Chat" and list(row.triggers) == ["dm"]
    assert row.content.startswith("system:\n# Chat\n\nRespond helpfully")
    assert "Restored version 1 of chat as version 4." in client.get(EDITOR).data.decode()
    assert "restored version 1" in client.get(HISTORY).data.decode()


def test_restore_with_htmx_navigates(client, three_versions, csrf):
    response = restore(client, csrf, 1, 3, headers=HTMX)
    assert response.status_code == 204 and response.headers["HX-Redirect"] == EDITOR


def test_restore_from_a_stale_page_is_a_409_conflict(client, three_versions, csrf, saved):
    response = restore(client, csrf, 1, 2)
    assert response.status_code == 409
    html = response.data.decode()
    assert "Keep mine" in html and "Respond helpfully" in html and "Third text." in html
    assert 'name="version" value="3"' in html
    assert saved("Simon", "chat").version == 3


def test_restore_conflict_fragment(client, three_versions, csrf):
    response = restore(client, csrf, 1, 2, headers=HTMX)
    assert response.status_code == 409
    assert fragment_root(response).startswith(b'<section id="conflict"')


@pytest.mark.parametrize("expected, reason", [
    ("", b"expected_version: is required"),
    ("three", b"expected_version: must be a whole number"),
])
def test_restore_with_bad_version_is_422(client, three_versions, csrf, saved, expected, reason):
    response = restore(client, csrf, 1, expected)
    assert response.status_code == 422 and reason in response.data
    assert saved("Simon", "chat").version == 3


def test_restore_without_csrf_token_changes_nothing(client, three_versions, saved):
    response = client.post(f"{HISTORY}/1/restore", data={"expected_version": 3})
    assert response.status_code == 400
    assert saved("Simon", "chat").version == 3


def test_restore_of_a_missing_version_or_skill_is_404(client, three_versions, csrf):
    assert restore(client, csrf, 9, 3).status_code == 404
    response = client.post("/agents/Simon/skills/nope/history/1/restore",
                           data={"csrf_token": csrf, "expected_version": 1})
    assert response.status_code == 404


def test_restore_accepts_json(client, three_versions, csrf, saved):
    response = client.post(f"{HISTORY}/2/restore", json={"expected_version": 3},
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 303
    assert saved("Simon", "chat").content == "system:\n# Chat\n\nSecond text.\n"


# -- deleting a skill and the trash


def test_delete_asks_first_and_names_the_skills_that_embed_it(client, simon):
    response = client.get("/agents/Simon/skills/identity/delete")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert "Move identity to the trash?" in html
    assert 'href="/agents/Simon/skills/personality"' in html
    assert 'name="force" value="1" required' in html


def test_delete_confirm_fragment(client, simon):
    response = client.get(f"{EDITOR}/delete", headers=HTMX)
    assert fragment_root(response).startswith(b'<section id="delete-skill"')
    assert b'name="force"' not in response.data  # nothing embeds chat


def test_delete_of_an_embedded_skill_is_refused_unless_confirmed(client, simon, csrf, saved):
    response = client.post("/agents/Simon/skills/identity/delete", data={"csrf_token": csrf})
    assert response.status_code == 409
    html = response.data.decode()
    assert "Not deleted: 1 other skill embeds identity." in html and ">personality</a>" in html
    assert not saved("Simon", "identity").deleted
    response = client.post("/agents/Simon/skills/identity/delete",
                           data={"csrf_token": csrf, "force": "1"})
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Simon/trash"
    with pytest.raises(store.NotFound):
        saved("Simon", "identity")


def test_delete_then_restore_from_the_trash(client, simon, csrf, saved):
    response = client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    assert response.status_code == 303
    html = client.get("/agents/Simon/trash").data.decode()
    assert "Moved chat to the trash." in html and "<code>chat</code>" in html
    assert client.get(EDITOR).status_code == 404
    response = client.post(f"{EDITOR}/restore", data={"csrf_token": csrf})
    assert response.status_code == 303 and response.headers["Location"] == EDITOR
    assert saved("Simon", "chat").version == 1
    assert "No skill is in the trash." in client.get("/agents/Simon/trash").data.decode()


def test_delete_with_htmx_navigates_to_the_trash(client, simon, csrf):
    response = client.post(f"{EDITOR}/delete", data={"csrf_token": csrf}, headers=HTMX)
    assert response.status_code == 204 and response.headers["HX-Redirect"] == "/agents/Simon/trash"


def test_trash_page_and_fragment(client, simon, csrf):
    client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    page = client.get("/agents/Simon/trash")
    assert page.status_code == 200 and is_page(page)
    assert b'action="/agents/Simon/skills/chat/restore"' in page.data
    assert b'href="/agents/Simon/skills/chat/history"' in page.data
    fragment = client.get("/agents/Simon/trash", headers=HTMX)
    assert fragment_root(fragment).startswith(b'<section id="trash"')


def test_restore_from_the_trash_with_htmx_answers_the_trash(client, simon, csrf):
    client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    response = client.post(f"{EDITOR}/restore", data={"csrf_token": csrf}, headers=HTMX)
    assert response.status_code == 200
    assert fragment_root(response).startswith(b'<section id="trash"')
    assert b"Restored <a href=\"/agents/Simon/skills/chat\">chat</a>" in response.data


def test_history_of_a_trashed_skill(client, three_versions, csrf):
    client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    html = client.get(HISTORY).data.decode()
    assert "in the trash" in html and "Restore from the trash" in html
    assert ">Restore</button>" not in html  # restore it from the trash first
    assert restore(client, csrf, 1, 3).status_code == 404


@pytest.mark.parametrize("method, url", [
    ("get", "/agents/Simon/skills/nope/delete"),
    ("post", "/agents/Simon/skills/nope/delete"),
    ("post", "/agents/Simon/skills/nope/restore"),
    ("post", f"{EDITOR}/restore"),  # not in the trash
    ("get", "/agents/Nobody/trash"),
])
def test_missing_skills_in_delete_and_trash_are_404(client, simon, csrf, method, url):
    response = getattr(client, method)(url, data={"csrf_token": csrf})
    assert response.status_code == 404


def test_delete_and_restore_need_the_csrf_token(client, simon, saved):
    assert client.post(f"{EDITOR}/delete").status_code == 400
    assert not saved("Simon", "chat").deleted


# -- navigation


def test_editor_links_to_the_history_log_and_trash(client, simon):
    html = client.get(EDITOR).data.decode()
    assert 'href="/agents/Simon/skills/chat/history"' in html
    assert 'href="/agents/Simon/log"' in html and 'href="/agents/Simon/trash"' in html


# -- untrusted text


@pytest.fixture
def mallory_history(app, client, csrf) -> str:
    """Mallory's hostile skill saved a second time with more payloads; returns its history URL."""
    with app.app_context():
        session = db.get_session()
        store.import_bundle(session, load_bundle(xss_bundle()))
        store.save_skill(session, "Mallory", "evil", expected_version=1,
                         content="user:\n" + CORPUS + "\n<script>alert('v2')</script>\n",
                         name="<script>alert('name v2')</script>", triggers=["<b>dm</b>"])
    return "/agents/Mallory/skills/evil/history"


@pytest.mark.parametrize("suffix", ["", "?from=1&to=2", "?from=2&to=1", "/1", "/2"])
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_xss_in_revisions_reaches_nothing_executable(client, mallory_history, suffix, headers):
    response = client.get(mallory_history + suffix, headers=headers)
    assert response.status_code == 200
    html = response.data.decode()
    assert executable_markup(html) == []
    assert "&lt;script&gt;alert(" in html


def test_hostile_d_tag_in_history_trash_and_delete(client, mallory_history, csrf):
    url = f"/agents/Mallory/skills/{EVIL_TAG}"
    for page in (f"{url}/history", f"{url}/history/1", f"{url}/delete"):
        response = client.get(page)
        assert response.status_code == 200 and executable_markup(response.data.decode()) == []
    client.post(f"{url}/delete", data={"csrf_token": csrf, "force": "1"})
    response = client.get("/agents/Mallory/trash")
    assert str(escape(EVIL_TAG)) in response.data.decode()
    assert executable_markup(response.data.decode()) == []
