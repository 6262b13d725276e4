"""The API keys page: an admin's, as page and fragment; a key created with its token shown
once, a refused form kept as sent, Revoke, the CSRF check on its forms."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX, TOKEN, is_page, sign_in
from webapp import store
from webapp.schema import db

PAGE = "/admin/api-keys"


def token_in(response) -> str:
    return re.search(r'id="new-token"[^>]*>(se_[A-Za-z0-9_-]+)<', response.get_data(
        as_text=True))[1]


def test_the_page_and_its_fragment(client, csrf):
    page = client.get(PAGE)
    assert page.status_code == 200 and is_page(page) and "<h1>API keys</h1>" in page.text
    fragment = client.get(PAGE, headers=HTMX)
    assert not is_page(fragment) and fragment.text.lstrip().startswith('<section id="api-keys"')


def test_a_key_is_created_and_its_token_shown_once(app, client, csrf, simon):
    created = client.post(PAGE, data={"csrf_token": csrf, "name": "runtime", "agent": simon,
                                      "scope": ["read", "assemble"]})
    assert created.status_code == 201
    # No cache keeps the answer that shows the token; the list without it may be kept.
    assert created.headers["Cache-Control"] == "no-store"
    assert "no-store" not in client.get(PAGE).headers.get("Cache-Control", "")
    token = token_in(created)
    with app.app_context():
        key = store.api_keys.authenticate(db.get_session(), token, "127.0.0.1")
        assert key.scopes == ("read", "assemble")
    listed = client.get(PAGE).text
    assert "runtime" in listed and token not in listed and "read, assemble" in listed
    with client.session_transaction() as session:
        assert token not in str(dict(session))


@pytest.mark.parametrize(("form", "field"), [
    ({"name": "no scope"}, "scopes"), ({"name": "x" * 101, "scope": "read"}, "name"),
    ({"agent": "Nobody", "scope": "read", "name": "kept name"}, "agent"),
    ({"scope": "root", "name": "kept name"}, "scopes")])
def test_a_refused_form_comes_back_as_sent(client, csrf, form, field):
    response = client.post(PAGE, data={"csrf_token": csrf, **form})
    assert response.status_code == 422 and f"<strong>{field}</strong>" in response.text
    assert form["name"][:50] in response.text
    assert 'id="new-token"' not in response.text


def test_revoke(app, client, csrf):
    with app.app_context():
        made = store.api_keys.create_key(db.get_session(), "old", ["read"])
    response = client.post(f"{PAGE}/{made.key.id}/revoke", data={"csrf_token": csrf})
    assert response.status_code == 303
    assert "revoked" in client.get(PAGE).text
    with app.app_context(), pytest.raises(store.api_keys.BadKey):
        store.api_keys.authenticate(db.get_session(), made.token, "127.0.0.1")
    assert client.post(f"{PAGE}/99/revoke", data={"csrf_token": csrf}).status_code == 404


@pytest.mark.parametrize("path", [PAGE, f"{PAGE}/1/revoke"])
def test_its_forms_need_the_csrf_token(client, csrf, path):
    response = client.post(path, data={"scope": "read"})
    assert response.status_code == 400
    assert store.api_keys.SCOPES  # nothing was made: the list is still empty
    assert "No API keys yet." in client.get(PAGE).text


def test_an_author_is_refused_and_an_admin_sees_it_in_the_menu(app, client, team):
    sign_in(client, "author", TOKEN)
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, data={"csrf_token": TOKEN, "scope": "read"}).status_code == 403
    admin = app.test_client()
    sign_in(admin, "admin", TOKEN)
    assert f'href="{PAGE}"' in admin.get("/").text


# -- labels on the Changes page


def test_publishing_moves_the_label_the_form_names(app, client, csrf, simon):
    url = f"/agents/{simon}/changes"
    page = client.get(url).text
    assert 'name="label" value="production"' in page
    client.post(f"{url}/publish", data={"csrf_token": csrf, "expected_latest": "0",
                                        "note": "one", "label": "staging"})
    with app.app_context():
        session = db.get_session()
        assert store.resolve(session, simon, "staging").number == 1
        chat = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=chat.version, content="x\n")
    refused = client.post(f"{url}/publish", data={"csrf_token": csrf, "expected_latest": "1",
                                                  "note": "kept note", "label": "Bad Label"})
    assert refused.status_code == 422 and "kept note" in refused.text
    assert 'value="Bad Label"' in refused.text and 'id="error-label"' in refused.text
    with app.app_context():
        assert store.latest_snapshot(db.get_session(), simon).number == 1


def test_moving_production_back_is_the_rollback_on_the_page(app, client, csrf, simon):
    with app.app_context():
        session = db.get_session()
        store.publish(session, simon, "one", 0)
        chat = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=chat.version, content="x\n")
        store.publish(session, simon, "two", 1)
    page = client.get(f"/agents/{simon}/changes").text
    assert "Move production to snapshot #1" in page
    assert "Move production to snapshot #2" not in page  # it points there
    moved = client.post(f"/agents/{simon}/snapshots/1/label", data={"csrf_token": csrf})
    assert moved.status_code == 303
    with app.app_context():
        assert store.resolve(db.get_session(), simon, "production").number == 1
        assert store.latest_snapshot(db.get_session(), simon).number == 2
    assert "moved a label to a snapshot" in client.get(f"/agents/{simon}/activity").text
    refused = client.post(f"/agents/{simon}/snapshots/1/label",
                          data={"csrf_token": csrf, "label": "latest"})
    assert refused.status_code == 422
    assert client.post(f"/agents/{simon}/snapshots/9/label",
                       data={"csrf_token": csrf}).status_code == 404


# -- the API reference, linked from Help


def test_the_api_reference_is_linked_from_help_under_the_strict_csp(client):
    assert 'href="/help/api"' in client.get("/help").text
    for headers in ({}, HTMX):
        page = client.get("/help/api", headers=headers)
        assert page.status_code == 200 and "Authorization: Bearer" in page.text
        assert "<script" not in page.text.split("<main", 1)[-1]
        assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert "'unsafe-inline'" not in page.headers["Content-Security-Policy"]


def test_the_changes_page_lists_the_label_moves(app, client, csrf, simon):
    with app.app_context():
        session = db.get_session()
        store.publish(session, simon, "one", 0)
        store.move_label(session, simon, "staging", 1)
    page = client.get(f"/agents/{simon}/changes").text
    assert "<h2>Label moves</h2>" in page
    moves = page.split("<h2>Label moves</h2>", 1)[1]
    assert "staging</span> to #1" in moves and "production</span> to #1" in moves


def test_the_local_mode_links_the_api_keys_page(client, simon):
    """With no account there is no account menu: the site's links name the page."""
    site = client.get(f"/agents/{simon}/changes").text
    nav = site[site.index('<nav class="site-nav"'):]
    assert f'<a href="{PAGE}">API keys</a>' in nav[:nav.index("</nav>")]
    assert client.get(PAGE).status_code == 200


def test_with_accounts_the_link_is_in_an_admins_menu_only(client, simon, team):
    sign_in(client, "admin")
    page = client.get(f"/agents/{simon}/changes").text
    assert page.count(f'<a href="{PAGE}">API keys</a>') == 1
    assert 'class="user-menu"' in page[:page.index(f'<a href="{PAGE}">API keys</a>')]
    sign_in(client, "author")
    assert f'href="{PAGE}"' not in client.get(f"/agents/{simon}/changes").text


def test_the_api_reference_links_go_to_the_reference(client, simon):
    reference = client.get("/help/api")
    assert reference.status_code == 200 and 'id="webhooks"' in reference.text
    assert 'href="/help/api">API reference</a>' in client.get(PAGE).text
    hooks = client.get(f"/agents/{simon}/webhooks").text
    assert 'href="/help/api#webhooks">API reference</a>' in hooks
    assert "/help#api" not in hooks
