"""`store.accounts`: names, roles, passwords, the last admin, signing in and throttling
(on SQLite, and on PostgreSQL in the suite's second pass)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp import store
from webapp.schema import models
from webapp.schema.models import utcnow
from webapp.store import accounts, throttling

PASSWORD = "correct horse battery"


def add(session, name: str, role: str = "author", password: str = PASSWORD, **fields):
    return accounts.create_user(session, store.NewUser(name, role, password, **fields))


@pytest.fixture
def admin(session) -> models.User:
    """The first account: the admin `root`."""
    return add(session, "root", "admin")


def problems(exc_info) -> dict[str, str]:
    return dict(exc_info.value.problems)


# -- names, roles, passwords


@pytest.mark.parametrize(("typed", "stored"), [("Alice", "alice"), ("  bob.b_2-x ", "bob.b_2-x")])
def test_a_username_is_kept_trimmed_and_lowercase(session, admin, typed, stored):
    assert add(session, typed).username == stored
    assert accounts.get_user(session, typed.upper()).username == stored


@pytest.mark.parametrize(("name", "message"), [
    ("", "is required"),
    ("x" * 41, "must be at most 40 characters"),
    ("-lead", "may hold only lowercase letters"),
    ("two words", "may hold only lowercase letters"),
    ("ünï", "may hold only lowercase letters"),
    ("local", "'local' is kept for the changes made without an account"),
])
def test_a_bad_username_is_refused_with_its_reason(session, admin, name, message):
    with pytest.raises(store.ValidationError) as refused:
        add(session, name)
    assert message in problems(refused)["username"]


def test_every_problem_of_a_new_account_is_named_at_once(session, admin):
    with pytest.raises(store.ValidationError) as refused:
        accounts.create_user(session, store.NewUser("", "owner", "short", "x" * 300))
    assert set(problems(refused)) == {"username", "role", "password", "display_name"}
    assert accounts.list_users(session) == [admin]


@pytest.mark.parametrize(("password", "message"), [
    ("x" * 11, "must be at least 12 characters"),
    ("x" * 1025, "must be at most 1024 characters"),
    ("twelve chars\x00", "must not contain NUL"),
])
def test_a_bad_password_is_refused(session, admin, password, message):
    with pytest.raises(store.ValidationError) as refused:
        add(session, "ann", password=password)
    assert message in problems(refused)["password"]


def test_the_first_account_must_be_an_admin(session):
    with pytest.raises(store.ValidationError) as refused:
        add(session, "ann", "author")
    assert "the first account must be an admin" in problems(refused)["role"]
    assert not accounts.has_accounts(session)
    add(session, "root", "admin")
    assert accounts.has_accounts(session)


def test_a_name_is_taken_once(session, admin):
    with pytest.raises(store.AlreadyExists):
        add(session, "ROOT")


def test_passwords_are_stored_as_argon2id_hashes(session, admin):
    assert admin.password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert PASSWORD not in admin.password_hash


def test_a_hash_with_old_parameters_is_made_again_at_the_next_sign_in(session, admin):
    from argon2 import PasswordHasher

    admin.password_hash = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash(
        PASSWORD)
    session.commit()
    user = accounts.authenticate(session, "root", PASSWORD, "127.0.0.1")
    assert user.password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")


@pytest.mark.parametrize(("least", "allowed"), [
    ("viewer", {"viewer", "author", "reviewer", "admin"}),
    ("author", {"author", "reviewer", "admin"}),
    ("reviewer", {"reviewer", "admin"}),
    ("admin", {"admin"}),
])
def test_each_role_includes_the_ones_before_it(least, allowed):
    assert {role for role in store.ROLES if store.has_role(role, least)} == allowed
    assert not store.has_role("owner", "viewer")


# -- the last admin


def test_the_last_enabled_admin_keeps_the_role_and_stays_enabled(session, admin):
    with pytest.raises(store.ValidationError, match="last enabled admin"):
        accounts.set_role(session, "root", "reviewer")
    with pytest.raises(store.ValidationError, match="last enabled admin"):
        accounts.set_disabled(session, "root", True)
    add(session, "second", "admin")
    accounts.set_role(session, "root", "reviewer")
    with pytest.raises(store.ValidationError, match="last enabled admin"):
        accounts.set_disabled(session, "second", True)
    assert {u.username: (u.role, u.disabled) for u in accounts.list_users(session)} == {
        "root": ("reviewer", False), "second": ("admin", False)}


# -- signing in


def test_a_right_password_signs_in_and_records_when(session, admin):
    assert admin.last_login_at is None
    user = accounts.authenticate(session, "Root", PASSWORD, "127.0.0.1")
    assert user.username == "root" and user.last_login_at is not None


@pytest.mark.parametrize("name, password", [("root", "wrong password!"),
                                            ("nobody", PASSWORD),
                                            ("disabled", PASSWORD)])
def test_a_wrong_password_an_unknown_name_and_a_disabled_account_fail_alike(
        session, admin, name, password):
    add(session, "disabled")
    accounts.set_disabled(session, "disabled", True)
    with pytest.raises(store.SignInFailed) as failed:
        accounts.authenticate(session, name, password, "127.0.0.1")
    assert str(failed.value) == "wrong username or password"


def test_a_password_change_needs_the_current_one(session, admin):
    with pytest.raises(store.ValidationError) as refused:
        accounts.change_password(session, "root", "not it at all", "a new long password")
    assert problems(refused) == {"current_password": "is not your current password"}
    with pytest.raises(store.ValidationError) as refused:
        accounts.change_password(session, "root", PASSWORD, "short")
    assert "new_password" in problems(refused)
    accounts.change_password(session, "root", PASSWORD, "a new long password")
    accounts.authenticate(session, "root", "a new long password", "127.0.0.1")


def test_a_new_password_ends_the_other_sessions(session, admin):
    token = accounts.session_token(admin)
    assert accounts.user_of_session(session, token) == admin
    accounts.set_password(session, "root", "a brand new password")
    assert accounts.user_of_session(session, token) is None
    assert accounts.user_of_session(session, accounts.session_token(admin)) == admin


@pytest.mark.parametrize("token", ["", "x", "1", "1-", "-abc", "99999999999-abc", "1-" + "0" * 16])
def test_a_token_that_names_no_account_opens_nothing(session, admin, token):
    assert accounts.user_of_session(session, token) is None


def test_a_disabled_account_s_session_ends(session, admin):
    user = add(session, "ann")
    token = accounts.session_token(user)
    accounts.set_disabled(session, "ann", True)
    assert accounts.user_of_session(session, token) is None


def test_signing_out_ends_every_session_of_the_account(session, admin):
    token = accounts.session_token(admin)
    accounts.end_sessions(session, "root")
    assert accounts.user_of_session(session, token) is None
    assert accounts.user_of_session(session, accounts.session_token(admin)) == admin


def test_a_session_kept_across_a_disable_and_an_enable_stays_ended(session, admin):
    user = add(session, "ann")
    token = accounts.session_token(user)
    accounts.set_disabled(session, "ann", True)
    accounts.set_disabled(session, "ann", False)
    assert accounts.user_of_session(session, token) is None
    assert accounts.user_of_session(session, accounts.session_token(user)) == user


def test_a_change_of_one_s_own_password_ends_the_sessions_made_before(session, admin):
    token = accounts.session_token(admin)
    accounts.change_password(session, "root", PASSWORD, "a new long password")
    assert accounts.user_of_session(session, token) is None


# -- throttling

START = utcnow()


def fail(session, name: str, address: str, times: int = 1, now=START) -> None:
    for _ in range(times):
        with pytest.raises(store.SignInFailed):
            accounts.authenticate(session, name, "wrong password!", address, now=now)


def throttled(session, name: str, address: str, now=START) -> int:
    """Try the right password: how many seconds the answer says to wait."""
    with pytest.raises(store.Throttled) as refused:
        accounts.authenticate(session, name, PASSWORD, address, now=now)
    return refused.value.retry_after


def test_the_owner_signs_in_from_an_address_that_never_failed_whatever_others_try(
        session, admin):
    fail(session, "root", "203.0.113.9", throttling.FREE_FAILURES)
    assert throttled(session, "root", "203.0.113.9") == 1
    for host in range(1, 21):  # many guessers, one try each
        fail(session, "root", f"198.51.100.{host}")
    assert throttled(session, "root", "198.51.100.1") == 60
    assert accounts.authenticate(session, "root", PASSWORD, "192.0.2.50", now=START) == admin


def test_the_wait_is_short_and_doubles_with_each_failure(session, admin):
    fail(session, "root", "192.0.2.1", throttling.FREE_FAILURES - 1)
    fail(session, "root", "192.0.2.1")  # the last free one
    waits, now = [], START
    for _ in range(9):
        wait = throttled(session, "root", "192.0.2.1", now)
        waits.append(wait)
        now += timedelta(seconds=wait)
        fail(session, "root", "192.0.2.1", now=now)
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    with pytest.raises(store.Throttled) as refused:
        accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=now)
    assert str(refused.value) == "too many failed sign-ins; try again in 60 seconds"
    later = now + throttling.LONGEST_WAIT
    assert accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=later) == admin


def test_an_address_trying_many_names_waits_for_every_name(session, admin):
    for name in ("a", "b", "c", "d", "e"):
        fail(session, name, "198.51.100.7")
    assert throttled(session, "root", "198.51.100.7") == 1
    accounts.authenticate(session, "root", PASSWORD, "198.51.100.8", now=START)


def test_a_name_many_addresses_guess_holds_up_only_the_addresses_that_failed(session, admin):
    for host in range(1, throttling.FREE_FAILURES + 1):
        fail(session, "root", f"198.51.100.{host}")
    assert throttled(session, "root", "198.51.100.1") == 1
    fail(session, "root", "198.51.100.99")  # a fresh address: its try is checked
    accounts.authenticate(session, "root", PASSWORD, "192.0.2.50", now=START)


def test_failures_count_for_nothing_once_they_leave_the_window(session, admin):
    start = START - timedelta(minutes=20)
    fail(session, "root", "192.0.2.1", throttling.FREE_FAILURES, now=start)
    assert throttled(session, "root", "192.0.2.1", now=start) == 1
    left = start + throttling.WINDOW + timedelta(seconds=1)
    fail(session, "root", "192.0.2.1", throttling.FREE_FAILURES - 1, now=left)
    accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=left)


def test_a_sign_in_forgives_the_account_s_failures_from_its_address(session, admin):
    fail(session, "root", "192.0.2.1", throttling.FREE_FAILURES - 1)
    accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=START)
    fail(session, "root", "192.0.2.1", throttling.FREE_FAILURES - 1)
    accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=START)
    # A guesser's failures elsewhere are not forgiven by the owner's sign-in.
    fail(session, "root", "203.0.113.9", throttling.FREE_FAILURES)
    accounts.authenticate(session, "root", PASSWORD, "192.0.2.1", now=START)
    assert throttled(session, "root", "203.0.113.9") == 1


def test_throttling_holds_across_two_app_instances_on_one_database(database_url, monkeypatch):
    """Two apps (as two gunicorn workers, or two machines) on the same database: the
    failures one counts, the other sees. (The wait made long enough that the requests
    after it are surely within it.)"""
    monkeypatch.setattr(throttling, "FIRST_WAIT", timedelta(minutes=10))
    monkeypatch.setattr(throttling, "LONGEST_WAIT", timedelta(minutes=10))
    from webapp.app import create_app

    first, second = (create_app({"TESTING": True, "SECRET_KEY": "test", "SEED_DEMO": False,
                                 "DATABASE_URL": database_url}) for _ in range(2))
    from webapp.schema import db

    with first.app_context():
        add(db.get_session(), "root", "admin")
    clients = [first.test_client(), second.test_client()]
    for client in clients:
        with client.session_transaction() as session:
            session["csrf_token"] = "t"
    form = {"csrf_token": "t", "username": "root", "password": "wrong password!"}
    codes = [clients[i % 2].post("/login", data=form).status_code for i in range(5)]
    assert codes == [401] * 5
    for client in clients:
        refused = client.post("/login", data={**form, "password": PASSWORD})
        assert refused.status_code == 429
        assert 9 * 60 < int(refused.headers["Retry-After"]) <= 10 * 60
        assert "Too many failed sign-ins" in refused.get_data(as_text=True)
    for app in (first, second):
        db.get_database(app).engine.dispose()
