"""Error paths: 404, 409, 413, 422, CSRF failures and 500, each a clear page without a traceback."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX

EDITOR = "/agents/Simon/skills/chat"


@pytest.mark.parametrize("url", [
    "/agents/Nobody",
    "/agents/Nobody/skills/chat",
    "/agents/Simon/skills/nope",
    "/agents/Simon/skills/nope/preview",
    "/no/such/page",
])
def test_404_page(client, simon, url):
    response = client.get(url)
    assert response.status_code == 404
    assert b"404 Not Found" in response.data and b"<!doctype html>" in response.data
    assert b"Traceback" not in response.data


def test_404_fragment_for_htmx(client, simon):
    response = client.get("/agents/Simon/skills/nope", headers=HTMX)
    assert response.status_code == 404
    assert response.data.lstrip().startswith(b'<section id="error"')


def test_404_on_posts_to_missing_skills(client, simon, skill_form):
    for url in ("/agents/Simon/skills/nope/preview",
                "/agents/Simon/skills/nope/move", "/agents/Simon/skills/nope/enabled"):
        assert client.post(url, data=skill_form("x", direction="up")).status_code == 404
    # A save keeps the text: the conflict page says the skill does not exist.
    response = client.post("/agents/Simon/skills/nope", data=skill_form("x"))
    assert response.status_code == 409 and "nope no longer exists" in response.data.decode()


def test_409_keeps_the_authors_text(client, simon, skill_form, saved):
    client.post(EDITOR, data=skill_form("system:\nthe other tab's text\n"))
    mine = "system:\nmy <b>precious</b> words\n"
    response = client.post(EDITOR, data=skill_form(mine, version=1))
    assert response.status_code == 409
    html = response.data.decode()
    assert "my &lt;b&gt;precious&lt;/b&gt; words" in html  # theirs, escaped, in the textarea
    assert "the other tab&#39;s text" in html                     # the saved text
    assert "Keep mine" in html and "Take saved" in html and 'data-copy="#mine"' in html
    assert 'name="version" value="2"' in html                     # keep-mine saves over v2
    assert '<span class="word-changed">' in html or "line-add" in html
    assert saved("Simon", "chat").content == "system:\nthe other tab's text\n"


def test_keep_mine_from_the_conflict_page_saves(client, simon, skill_form, saved):
    client.post(EDITOR, data=skill_form("system:\ntheirs\n"))
    assert client.post(EDITOR, data=skill_form("system:\nmine\n", version=1)).status_code == 409
    response = client.post(EDITOR, data=skill_form("system:\nmine\n", version=2))
    assert response.status_code == 303
    assert saved("Simon", "chat").content == "system:\nmine\n"


def test_413_for_a_body_over_the_limit(app, client, simon, skill_form):
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_FORM_MEMORY_SIZE"] = 2000
    response = client.post(EDITOR, data=skill_form("x" * 5000))
    assert response.status_code == 413
    assert b"413 Request Entity Too Large" in response.data
    assert b"larger than this server accepts" in response.data


@pytest.mark.parametrize("fields, field", [
    ({"layer": "3"}, "layer"),
    ({"layer": "one"}, "layer"),
    ({"d_tag": "has space"}, "d_tag"),
    ({"d_tag": ""}, "d_tag"),
    ({"version": "v1"}, "version"),
    ({"enabled": "maybe"}, "enabled"),
])
def test_422_invalid_fields_change_nothing(client, simon, skill_form, saved, fields, field):
    response = client.post(EDITOR, data=skill_form("system:\nchanged?\n", **fields))
    assert response.status_code == 422
    html = response.data.decode()
    assert f"<strong>{field}</strong>:" in html
    # The author's text is still in the form, and nothing was saved.
    assert "changed?" in html
    assert saved("Simon", "chat").version == 1


def test_422_unknown_scenario_in_the_preview(client, simon, skill_form):
    response = client.post(f"{EDITOR}/preview", data=skill_form("x", scenario="no such"),
                           headers=HTMX)
    assert response.status_code == 422
    assert b"no scenario named" in response.data


def test_422_missing_version(client, simon, skill_form, saved):
    data = skill_form("x")
    del data["version"]
    response = client.post(EDITOR, data=data)
    assert response.status_code == 422 and b"<strong>version</strong>" in response.data


def test_422_preview_fragment_is_swapped_with_the_reason(client, simon, skill_form):
    response = client.post(f"{EDITOR}/preview", data=skill_form("x", layer="9"), headers=HTMX)
    assert response.status_code == 422
    assert response.data.lstrip().startswith(b'<section id="preview"')


def test_422_store_validation_is_shown_on_the_field(client, simon, skill_form, saved):
    response = client.post(EDITOR, data=skill_form("x", triggers="dm, , ok"))
    assert response.status_code in (303, 422)  # empty names are dropped, not an error
    response = client.post("/agents/Simon/skills/identity",
                           data=skill_form("x", d_tag="personality", version=1))
    assert response.status_code == 422
    assert b"already exists" in response.data
    assert saved("Simon", "identity").version == 1


@pytest.mark.parametrize("body, reason", [
    (b"{not json", b"not valid JSON"),
    (b"[1, 2]", b"must be a JSON object"),
])
def test_422_bad_json(client, simon, csrf, saved, body, reason):
    response = client.post(EDITOR, data=body, content_type="application/json",
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 422
    assert reason in response.data
    assert saved("Simon", "chat").version == 1


def test_json_save_and_preview(client, simon, csrf, saved):
    headers = {"X-CSRFToken": csrf}
    preview = client.post(f"{EDITOR}/preview", json={"content": "system:\nvia json\n"},
                          headers={**headers, **HTMX})
    assert preview.status_code == 200 and b"via json" in preview.data
    response = client.post(EDITOR, json={"content": "system:\nvia json\n", "version": 1},
                           headers=headers)
    assert response.status_code == 303
    row = saved("Simon", "chat")
    assert row.content == "system:\nvia json\n" and row.triggers == ["dm"] and row.enabled


def test_422_bad_move_direction(client, simon, csrf):
    response = client.post(f"{EDITOR}/move", data={"csrf_token": csrf, "direction": "sideways"})
    assert response.status_code == 422 and b"direction" in response.data


@pytest.mark.parametrize("url", [
    EDITOR, f"{EDITOR}/preview", f"{EDITOR}/log", f"{EDITOR}/move", f"{EDITOR}/enabled",
])
def test_csrf_missing_token_is_refused(client, simon, csrf, saved, url):
    response = client.post(url, data={"content": "system:\nforged\n", "version": 1,
                                      "direction": "up", "enabled": "0"})
    assert response.status_code == 400
    assert b"security token" in response.data
    assert saved("Simon", "chat").version == 1


def test_csrf_wrong_token_is_refused(client, simon, skill_form, saved):
    response = client.post(EDITOR, data=skill_form("system:\nforged\n", csrf_token="guess"))
    assert response.status_code == 400
    assert saved("Simon", "chat").version == 1


def test_csrf_without_a_session_is_refused(client, simon):
    response = client.post(EDITOR, data={"csrf_token": "anything", "content": "x", "version": 1})
    assert response.status_code == 400


def test_csrf_header_is_accepted(client, simon, csrf):
    data = {"content": "system:\nfrom htmx\n", "version": 1, "d_tag": "chat", "layer": "1",
            "triggers": "dm", "enabled": "1"}
    response = client.post(f"{EDITOR}/preview", data=data, headers={"X-CSRFToken": csrf, **HTMX})
    assert response.status_code == 200


def test_pages_issue_a_token_for_the_session(client, simon):
    html = client.get(EDITOR).data.decode()
    with client.session_transaction() as session:
        token = session["csrf_token"]
    assert f'"X-CSRFToken": "{token}"' in html
    assert f'name="csrf_token" value="{token}"' in html


def test_405(client, simon):
    assert client.delete(EDITOR, headers={"X-CSRFToken": "x"}).status_code in (400, 405)
    assert client.put("/").status_code in (400, 405)


def test_500_page_hides_the_exception(database_url):
    from webapp.app import create_app

    app = create_app({"SECRET_KEY": "t", "DATABASE_URL": database_url, "SEED_DEMO": False})
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals /etc/passwd")

    response = app.test_client().get("/boom")
    assert response.status_code == 500
    assert b"500 Internal Server Error" in response.data
    assert b"secret internals" not in response.data and b"Traceback" not in response.data
    assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
