"""Nobody can lock out, sign out or sign in another user: sign-in throttling that spares
the owner's address, requests another site sends refused without touching the cookie,
no password sent back, and sessions that end server-side on a sign-out and a disable.
Runs on SQLite and, in the suite's second pass, on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.pages import PASSWORD, TOKEN, sign_in
from webapp import store
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"
GUESSER = "203.0.113.9"
OWNER = "192.0.2.50"
#: What browsers send with a request another site's page made (or one whose origin they hide).
CROSS_SITE = [{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
              {"Origin": "https://evil.example"}, {"Origin": "null"},
              {"Origin": "http://localhost.evil.example"}]
SAME_ORIGIN = [{"Sec-Fetch-Site": "same-origin"}, {"Origin": "http://localhost"},
               {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"}]


@pytest.fixture
def accounts(app, simon, team) -> list[str]:
    """Simon, and one account per role."""
    return team


def from_address(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    return client


def attempt(client, username: str, password: str, **headers: str):
    return client.post("/login", data={"csrf_token": TOKEN, "username": username,
                                       "password": password}, headers=headers)


def signed_in_as(client) -> str | None:
    """Who the client's session signs in (None: nobody), read from the account page."""
    page = client.get("/account")
    if page.status_code != 200:
        return None
    text = page.get_data(as_text=True)
    return text.split("Signed in as <strong>", 1)[1].split("</strong>", 1)[0]


# -- throttling


def test_a_guesser_cannot_lock_the_owner_out(app, accounts, monkeypatch):
    # A first wait long enough that the guesser's next tries are surely within it.
    monkeypatch.setattr(store.throttling, "FIRST_WAIT", timedelta(seconds=30))
    guesser = from_address(app, GUESSER)
    codes = [attempt(guesser, "admin", f"guess number {n}").status_code for n in range(12)]
    assert codes[:store.throttling.FREE_FAILURES] == [401] * store.throttling.FREE_FAILURES
    assert 429 in codes
    refused = attempt(guesser, "admin", PASSWORD)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60  # a short wait, not a lock
    owner = from_address(app, OWNER)
    assert attempt(owner, "admin", PASSWORD).status_code == 303
    assert signed_in_as(owner) == "admin"


def test_many_guessers_on_one_name_do_not_lock_the_owner_out(app, accounts):
    for host in range(1, 13):
        attempt(from_address(app, f"198.51.100.{host}"), "admin", "a wrong guess!")
    assert attempt(from_address(app, "198.51.100.1"), "admin", PASSWORD).status_code == 429
    assert attempt(from_address(app, OWNER), "admin", PASSWORD).status_code == 303


# -- requests another site sends


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_another_site_cannot_sign_a_user_out(app, accounts, headers):
    client = sign_in(app.test_client(), "author")
    response = client.post("/logout", data={"csrf_token": TOKEN}, headers=headers)
    assert response.status_code == 403 and "Set-Cookie" not in response.headers
    assert "another site" in response.get_data(as_text=True)
    assert signed_in_as(client) == "author"
    # Nor by the answer to any other request it sends, which would replace the cookie.
    response = client.post(EDITOR, data={"csrf_token": TOKEN, "content": "x"}, headers=headers)
    assert response.status_code == 403 and "Set-Cookie" not in response.headers
    assert signed_in_as(client) == "author"


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_another_site_cannot_sign_a_user_in_as_someone_else(app, accounts, headers):
    victim = sign_in(app.test_client(), "author")
    response = attempt(victim, "viewer", PASSWORD, **headers)
    assert response.status_code == 403 and "Set-Cookie" not in response.headers
    assert signed_in_as(victim) == "author"
    anonymous = from_address(app, OWNER)
    assert attempt(anonymous, "viewer", PASSWORD, **headers).status_code == 403
    assert signed_in_as(anonymous) is None


def test_without_the_token_a_sign_in_comes_back_without_its_password(app, accounts):
    client = app.test_client()
    response = client.post("/login", data={"username": "viewer", "password": PASSWORD})
    body = response.get_data(as_text=True)
    assert response.status_code == 400 and PASSWORD not in body
    assert 'type="password" name="password"' in body and "viewer" in body
    assert signed_in_as(client) is None


def test_a_refused_password_change_sends_back_no_password(app, accounts):
    client = sign_in(app.test_client(), "author")
    form = {"current_password": PASSWORD, "new_password": "a new long password",
            "confirm_password": "a new long password", "csrf_token": "stale"}
    response = client.post("/account/password", data=form)
    body = response.get_data(as_text=True)
    assert response.status_code == 400
    assert PASSWORD not in body and "a new long password" not in body
    assert body.count('type="password"') == 3


@pytest.mark.parametrize("headers", SAME_ORIGIN)
def test_a_page_of_this_site_signs_in_and_out_without_the_token(app, accounts, headers):
    client = app.test_client()
    response = client.post("/login", data={"username": "author", "password": PASSWORD},
                           headers=headers)
    assert response.status_code == 303 and signed_in_as(client) == "author"
    assert client.post("/logout", headers=headers).status_code == 303
    assert signed_in_as(client) is None


def test_other_changes_still_need_the_token_from_a_page_of_this_site(app, accounts):
    client = sign_in(app.test_client(), "author")
    response = client.post("/account/password", data={"current_password": PASSWORD},
                           headers={"Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 400


# -- sessions end on the server


def test_a_cookie_kept_across_a_sign_out_no_longer_works(app, accounts):
    client = sign_in(app.test_client(), "author")
    other_device = sign_in(app.test_client(), "author")
    kept = client.get_cookie("session").value
    assert client.post("/logout", data={"csrf_token": TOKEN}).status_code == 303
    client.set_cookie("session", kept)
    assert client.get(EDITOR).status_code == 303
    assert signed_in_as(client) is None
    assert signed_in_as(other_device) is None  # signing out ends every session of the account


def test_a_cookie_kept_across_a_disable_and_an_enable_no_longer_works(app, accounts):
    client = sign_in(app.test_client(), "author")
    kept = client.get_cookie("session").value
    admin = sign_in(app.test_client(), "admin")
    for action in ("disable", "enable"):
        response = admin.post("/admin/users/author", data={"csrf_token": TOKEN, "action": action})
        assert response.status_code == 303
    client.set_cookie("session", kept)
    assert client.get(EDITOR).status_code == 303
    assert signed_in_as(sign_in(app.test_client(), "author")) == "author"


def test_a_sign_out_of_a_session_that_already_ended_is_no_error(app, accounts):
    client = sign_in(app.test_client(), "author")
    with app.app_context():
        store.accounts.end_sessions(db.get_session(), "author")
    assert client.post("/logout", data={"csrf_token": TOKEN}).status_code == 303
