"""Signing in and out, the account page, the admins' accounts page, and what a signed-in
user's changes record; every page as page and fragment, every change behind CSRF."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.support.pages import HTMX, PASSWORD, TOKEN, is_page, sign_in
from webapp import store
from webapp.schema import db

EDITOR = "/agents/Simon/skills/chat"


@pytest.fixture
def accounts(app, simon, team) -> list[str]:
    """Simon, and one account per role."""
    return team


def login(client, username: str, password: str, **extra):
    with client.session_transaction() as session:
        session.setdefault("csrf_token", TOKEN)
    return client.post("/login", data={"csrf_token": TOKEN, "username": username,
                                       "password": password, **extra})


def session_cookie(client) -> str:
    cookie = client.get_cookie("session")
    return cookie.value if cookie else ""


# -- the sign-in page


def test_the_sign_in_page_as_page_and_fragment(client, accounts):
    page = client.get("/login")
    assert page.status_code == 200 and is_page(page)
    html = page.get_data(as_text=True)
    assert 'name="username"' in html and 'name="password"' in html and ">Sign in</button>" in html
    fragment = client.get("/login", headers=HTMX)
    assert not is_page(fragment) and b'id="login"' in fragment.data


def test_signing_in_starts_a_new_session_and_goes_where_asked(client, accounts):
    asked = client.get(EDITOR)
    assert asked.status_code == 303 and asked.headers["Location"] == f"/login?next={EDITOR}"
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
        session["planted"] = "by someone else"
    before = session_cookie(client)
    response = login(client, "author", PASSWORD, next=EDITOR)
    assert response.status_code == 303 and response.headers["Location"] == EDITOR
    assert session_cookie(client) != before
    with client.session_transaction() as session:
        assert "planted" not in session and session.get("csrf_token") != TOKEN
    assert client.get(EDITOR).status_code == 200


def test_signed_in_the_sign_in_page_goes_straight_on(client, accounts):
    sign_in(client, "viewer")
    response = client.get(f"/login?next={EDITOR}")
    assert response.status_code == 303 and response.headers["Location"] == EDITOR


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example",
                                    "javascript:alert(1)", "evil", "/x\r\nSet-Cookie: a=b"])
def test_next_never_leads_off_the_site(client, accounts, target):
    response = login(client, "viewer", PASSWORD, next=target)
    assert response.status_code == 303
    assert response.headers["Location"] == "/"


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(client, accounts):
    wrong = login(client, "author", "not the password")
    unknown = login(client, "nobody-at-all", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    strip = lambda r: re.sub(r'value="[^"]*"', "", r.get_data(as_text=True))  # noqa: E731
    assert strip(wrong) == strip(unknown)
    assert "Wrong username or password." in wrong.get_data(as_text=True)
    # What was typed as the name stays in the field; the password never comes back.
    assert 'value="author"' in wrong.get_data(as_text=True)
    assert "not the password" not in wrong.get_data(as_text=True)


def test_too_many_failures_get_a_429_with_the_time_to_wait(client, accounts, monkeypatch):
    # A wait long enough that the request after it is surely within it.
    monkeypatch.setattr(store.throttling, "FIRST_WAIT", timedelta(minutes=10))
    monkeypatch.setattr(store.throttling, "LONGEST_WAIT", timedelta(minutes=10))
    for _ in range(store.throttling.FREE_FAILURES):
        assert login(client, "author", "not the password").status_code == 401
    refused = login(client, "author", PASSWORD)
    assert refused.status_code == 429
    assert 9 * 60 < int(refused.headers["Retry-After"]) <= 10 * 60
    assert "Too many failed sign-ins; try again in 10 minutes." in refused.get_data(as_text=True)
    assert client.get(EDITOR).status_code == 303  # not signed in


def test_signing_in_needs_the_csrf_token(client, accounts):
    response = client.post("/login", data={"username": "author", "password": PASSWORD})
    assert response.status_code == 400
    assert client.get(EDITOR).status_code == 303


def test_signing_out_clears_the_session(client, accounts):
    sign_in(client, "author")
    response = client.post("/logout", data={"csrf_token": TOKEN})
    assert response.status_code == 303 and response.headers["Location"] == "/login"
    with client.session_transaction() as session:
        assert set(session) <= {"_flashes", "host"}
    assert client.get(EDITOR).status_code == 303


def test_a_disabled_account_s_session_ends_at_its_next_request(app, client, accounts):
    sign_in(client, "author")
    assert client.get(EDITOR).status_code == 200
    with app.app_context():
        store.accounts.set_disabled(db.get_session(), "author", True)
    assert client.get(EDITOR).status_code == 303
    assert login(client, "author", PASSWORD).status_code == 401


def test_a_reset_password_ends_the_account_s_sessions(app, client, accounts):
    sign_in(client, "author")
    with app.app_context():
        store.accounts.set_password(db.get_session(), "author", "a brand new password")
    assert client.get(EDITOR).status_code == 303


# -- cookies


def test_the_session_cookie_is_secure_over_https_behind_a_proxy(app, accounts):
    app.config["PROXY_FIX"] = 1
    from webapp.web import access

    access.init_app(app)  # ProxyFix wraps the app as configured
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    response = client.post("/login", data={"csrf_token": TOKEN, "username": "author",
                                           "password": PASSWORD},
                           headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.9"})
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_the_session_cookie_is_not_secure_over_plain_http(client, accounts):
    cookie = login(client, "author", PASSWORD).headers["Set-Cookie"]
    assert "Secure" not in cookie and "HttpOnly" in cookie


# -- the account page


def test_the_account_page_changes_one_s_password(client, accounts):
    sign_in(client, "author")
    page = client.get("/account")
    assert page.status_code == 200 and "Signed in as <strong>author</strong>" in (
        page.get_data(as_text=True))
    assert not is_page(client.get("/account", headers=HTMX))
    form = {"csrf_token": TOKEN, "current_password": PASSWORD,
            "new_password": "a new long password", "confirm_password": "a new long password"}
    assert client.post("/account/password", data={**form, "csrf_token": ""}).status_code == 400
    mismatch = client.post("/account/password", data={**form, "confirm_password": "other"})
    assert mismatch.status_code == 422 and "does not match" in mismatch.get_data(as_text=True)
    wrong = client.post("/account/password", data={**form, "current_password": "no"})
    assert wrong.status_code == 422 and "is not your current password" in (
        wrong.get_data(as_text=True))
    changed = client.post("/account/password", data=form)
    assert changed.status_code == 303
    assert client.get(EDITOR).status_code == 200  # this session follows the new password
    other = login(client.application.test_client(), "author", "a new long password")
    assert other.status_code == 303


# -- the admins' accounts page


@pytest.fixture
def admin(client, accounts):
    """`client`, signed in as the admin."""
    return sign_in(client, "admin")


def test_the_accounts_page_lists_every_account_as_page_and_fragment(admin):
    page = admin.get("/admin/users")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and is_page(page)
    assert [m for m in re.findall(r'<th scope="row">([^<]+)</th>', html)] == [
        "admin", "author", "reviewer", "viewer"]
    fragment = admin.get("/admin/users", headers=HTMX)
    assert not is_page(fragment) and b'id="admin-users"' in fragment.data


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
def test_an_admin_adds_an_account(app, admin, headers):
    form = {"csrf_token": TOKEN, "username": "Newcomer", "display_name": "New Comer",
            "role": "reviewer", "password": "a good long password"}
    response = admin.post("/admin/users", data=form, headers=headers)
    assert response.status_code in (303, 200, 204)
    with app.app_context():
        user = store.accounts.get_user(db.get_session(), "newcomer")
        assert (user.role, user.display_name) == ("reviewer", "New Comer")


def test_a_refused_new_account_keeps_what_was_typed(admin):
    form = {"csrf_token": TOKEN, "username": "bad name", "display_name": "Kept Name",
            "role": "author", "password": "short"}
    response = admin.post("/admin/users", data=form)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'value="bad name"' in html and 'value="Kept Name"' in html
    assert "must be at least 12 characters" in html and "may hold only lowercase" in html
    assert "short" not in re.findall(r'name="password"[^>]*', html)[0]


@pytest.mark.parametrize(("form", "check"), [
    ({"action": "set_role", "role": "reviewer"}, lambda u: u.role == "reviewer"),
    ({"action": "disable"}, lambda u: u.disabled),
    ({"action": "reset_password", "password": "another long password"},
     lambda u: store.accounts._verify(u.password_hash, "another long password")),
])
def test_an_admin_changes_an_account(app, admin, form, check):
    response = admin.post("/admin/users/author", data={"csrf_token": TOKEN, **form})
    assert response.status_code == 303
    with app.app_context():
        assert check(store.accounts.get_user(db.get_session(), "author"))


def test_an_admin_enables_an_account_again(app, admin):
    admin.post("/admin/users/author", data={"csrf_token": TOKEN, "action": "disable"})
    admin.post("/admin/users/author", data={"csrf_token": TOKEN, "action": "enable"})
    with app.app_context():
        assert not store.accounts.get_user(db.get_session(), "author").disabled


@pytest.mark.parametrize(("target", "form", "status", "message"), [
    ("admin", {"action": "set_role", "role": "viewer"}, 422, "last enabled admin"),
    ("admin", {"action": "disable"}, 422, "last enabled admin"),
    ("author", {"action": "set_role", "role": "owner"}, 422, "must be one of"),
    ("author", {"action": "reset_password", "password": "short"}, 422, "at least 12"),
    ("author", {"action": "explode"}, 422, "must be one of"),
    ("nobody", {"action": "disable"}, 404, "no account"),
])
def test_a_refused_account_change_says_why(admin, target, form, status, message):
    response = admin.post(f"/admin/users/{target}", data={"csrf_token": TOKEN, **form})
    assert response.status_code == status
    assert message in response.get_data(as_text=True)


@pytest.mark.parametrize("url", ["/admin/users", "/admin/users/author", "/account/password"])
def test_account_changes_need_the_csrf_token(admin, url):
    response = admin.post(url, data={"action": "disable", "username": "x", "role": "author",
                                     "password": "a good long password"})
    assert response.status_code == 400


# -- controls each role sees


def page_of(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def test_a_viewer_sees_no_change_controls(client, accounts):
    sign_in(client, "viewer")
    editor = page_of(client, EDITOR)
    assert ">Save</button>" not in editor and "New skill" not in editor
    assert "drag-handle" not in editor and "Your role reads skills" in editor
    assert ">Publish</button>" not in page_of(client, "/agents/Simon/changes")
    assert "Accounts</a>" not in editor


def test_an_author_edits_but_does_not_publish(client, accounts):
    sign_in(client, "author")
    editor = page_of(client, EDITOR)
    assert ">Save</button>" in editor and "New skill" in editor
    assert ">Publish</button>" not in page_of(client, "/agents/Simon/changes")


def test_a_reviewer_publishes(client, accounts):
    sign_in(client, "reviewer")
    assert ">Publish</button>" in page_of(client, "/agents/Simon/changes")
    assert "Accounts</a>" not in page_of(client, EDITOR)


def test_an_admin_sees_the_accounts_and_every_agent_s_activity(client, accounts):
    sign_in(client, "admin")
    assert "Accounts</a>" in page_of(client, EDITOR)
    assert "Every agent's activity" in page_of(client, "/agents/Simon/activity")


def test_a_refusal_names_the_role_needed(client, accounts):
    sign_in(client, "author")
    response = client.get("/admin/users")
    assert response.status_code == 403
    assert "You are signed in as author (author); this page needs the admin role" in (
        response.get_data(as_text=True))


# -- who did what


def test_a_signed_in_user_s_changes_record_who_made_them(app, client, accounts, skill_form):
    sign_in(client, "author")
    saved = client.post(EDITOR, data=skill_form("system:\nChanged by author.\n"))
    assert saved.status_code == 303
    sign_in(client, "reviewer")
    published = client.post("/agents/Simon/changes/publish",
                            data={"csrf_token": TOKEN, "note": "first", "expected_latest": "0"})
    assert published.status_code == 303
    with app.app_context():
        session = db.get_session()
        assert store.list_revisions(session, "Simon", "chat")[0].author == "author"
        assert store.latest_snapshot(session, "Simon").published_by == "reviewer"
        kinds = [(row.actor, row.kind) for row in store.list_activity(session, agent="Simon")]
    assert kinds[:3] == [("reviewer", "label.move"), ("reviewer", "publish"),
                         ("author", "skill.save")]
    activity = page_of(client, "/agents/Simon/activity")
    assert ">author<" in activity and ">reviewer<" in activity
    history = page_of(client, f"{EDITOR}/history")
    assert ">author<" in history
