"""The account forms against hostile values: the sign-in form (open to anyone), the admins'
accounts forms and the account page. Never a 5xx or a traceback, never an echo of a huge
value, never a header a value wrote, and a refused change changes nothing."""

from __future__ import annotations

import pytest

from tests.support.pages import PASSWORD, TOKEN, sign_in
from tests.support.sweep import VALUES, check_answer
from webapp import store
from webapp.schema import db

#: A megabyte: the most an untrusted field may be, always answered with a 4xx.
MEGABYTE = "x" * 1_000_000
HOSTILE = {"megabyte": MEGABYTE, **VALUES}
#: The most a refusal may answer: the page and what it keeps, never the megabyte.
MAX_BYTES = 64_000

#: Each account form: its URL, the fields it reads (each given the hostile value), and
#: the fields it is posted with as they are.
FORMS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "add": ("/admin/users", ("username", "password", "display_name", "role"), {}),
    "reset": ("/admin/users/author", ("password",), {"action": "reset_password"}),
    "role": ("/admin/users/author", ("role",), {"action": "set_role"}),
    "action": ("/admin/users/author", ("action",), {}),
    "own password": ("/account/password",
                     ("current_password", "new_password", "confirm_password"), {}),
}

#: The hostile values a form takes: a password may be any text of a length it allows. Every
#: other value is refused with a 4xx (the megabyte always: a 413, or a 422 for a field read
#: whole).
ACCEPTED = {("reset", "long"), ("reset", "digits30"), ("reset", "forged"), ("reset", "aliases")}


def _check(response, what: str) -> None:
    check_answer(response, what, MAX_BYTES)
    assert all(name.lower() != "x" for name, _ in response.headers), what  # "header" value


def _accounts(app) -> list[tuple[str, str, bool, str]]:
    with app.app_context():
        return [(u.username, u.role, u.disabled, u.password_hash)
                for u in store.accounts.list_users(db.get_session())]


@pytest.mark.parametrize("label", list(HOSTILE))
def test_the_sign_in_form_refuses_hostile_values(app, client, team, label):
    value = HOSTILE[label]
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    response = client.post("/login", data={"csrf_token": TOKEN, "username": value,
                                           "password": value, "next": value})
    _check(response, f"sign in {label}")
    assert response.status_code in (401, 413, 429), label
    with client.session_transaction() as session:
        assert "_user_id" not in session


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("label", list(HOSTILE))
def test_the_account_forms_refuse_hostile_values(app, client, team, form, label):
    value = HOSTILE[label]
    url, fields, fixed = FORMS[form]
    admin = sign_in(client, "admin")
    before = _accounts(app)
    response = admin.post(url, data={"csrf_token": TOKEN, **fixed,
                                     **dict.fromkeys(fields, value)})
    _check(response, f"{form} {label}")
    if (form, label) in ACCEPTED:
        assert response.status_code == 303, f"{form} {label}: {response.status_code}"
        assert _accounts(app) != before, f"{form} {label}: an accepted change changed nothing"
    else:
        assert 400 <= response.status_code < 500, f"{form} {label}: {response.status_code}"
        assert _accounts(app) == before, f"{form} {label}: a refused change changed something"


def test_a_megabyte_password_is_refused_and_the_old_one_still_works(app, client, team):
    admin = sign_in(client, "admin")
    response = admin.post("/admin/users/author", data={
        "csrf_token": TOKEN, "action": "reset_password", "password": MEGABYTE})
    assert response.status_code in (413, 422)
    assert MEGABYTE[:1000].encode() not in response.get_data()
    with app.app_context():
        author = store.accounts.get_user(db.get_session(), "author")
        assert store.accounts._verify(author.password_hash, PASSWORD)
