"""Signing in and out, one's own account, and the admins' list of accounts.

Every rule (names, passwords, roles, throttling, the last admin) is the store's
(`webapp.store.accounts`); who may open which page each view declares
(`access.requires`). Signing in starts a new session (the old one, CSRF token included,
is dropped); signing out ends every session of the account in the store and clears this
one. Both take the CSRF token or a request the browser says this site's page sent
(`security.same_origin_suffices`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, redirect, request, session, url_for
from flask_login import current_user, login_user, logout_user

from webapp import store
from webapp.schema.db import get_session

from .access import SignedIn, local_mode, requires, safe_next
from .responses import done, page_or_fragment
from .security import same_origin_suffices

bp = Blueprint("auth", __name__)

#: What a failed sign-in says, whether the name or the password was wrong.
WRONG = "Wrong username or password."
#: The actions of the admins' form for one account.
USER_ACTIONS = ("set_role", "disable", "enable", "reset_password")


@bp.get("/login")
@requires("anyone")
def login() -> Response:
    """The sign-in form (already signed in: straight on)."""
    target = safe_next(request.args.get("next"))
    if current_user.is_authenticated:
        return redirect(target, 303)
    return login_response(target)


@bp.post("/login")
@same_origin_suffices
@requires("anyone")
def sign_in() -> Response:
    """Check the credentials; on success start a new session and go on to `next`."""
    form = request.form
    target = safe_next(form.get("next"))
    try:
        user = store.accounts.authenticate(get_session(), form.get("username", ""),
                                           form.get("password", ""), request.remote_addr or "")
    except store.Throttled as exc:
        reason = str(exc)  # "too many failed sign-ins; try again in N seconds"
        response = login_response(target, 429, error=f"{reason[:1].upper()}{reason[1:]}.",
                                  username=form.get("username", ""))
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    except store.SignInFailed:
        return login_response(target, 401, error=WRONG, username=form.get("username", ""))
    # A new session: whatever the old cookie held (a planted one included) is dropped,
    # and the CSRF token is made anew on the next page.
    session.clear()
    login_user(SignedIn(user))
    return redirect(target, 303)


@bp.post("/logout")
@same_origin_suffices
@requires("anyone")
def logout() -> Response:
    """Sign out: every session of the account ends (a cookie kept from before no longer
    works), and this one, CSRF token included, is cleared."""
    if current_user.is_authenticated:
        store.accounts.end_sessions(get_session(), current_user.username)
    logout_user()
    session.clear()
    return done("Signed out.", url_for("auth.login"))


@bp.get("/account")
@requires("viewer")
def account() -> Response:
    """The signed-in user's account: who they are, and a form to change the password."""
    return account_response()


@bp.post("/account/password")
@requires("viewer")
def change_password() -> Response:
    """Change one's own password (the current one first); other sessions end."""
    if not current_user.is_authenticated:
        return account_response(403)
    form = request.form
    if form.get("new_password", "") != form.get("confirm_password", ""):
        return account_response(422, errors={"confirm_password": "does not match the new password"})
    try:
        user = store.accounts.change_password(get_session(), current_user.username,
                                              form.get("current_password", ""),
                                              form.get("new_password", ""))
    except store.ValidationError as exc:
        return account_response(422, errors=exc.errors)
    login_user(SignedIn(user))  # the session's token follows the new password
    return done("Changed your password.", url_for("auth.account"))


@bp.get("/admin/users")
@requires("admin")
def users() -> Response:
    """Every account, with forms to add one and to change one."""
    return users_response()


@bp.post("/admin/users")
@requires("admin")
def add_user() -> Response:
    """Add an account."""
    form = request.form
    new = store.NewUser(username=form.get("username", ""), role=form.get("role", ""),
                        password=form.get("password", ""),
                        display_name=form.get("display_name", ""))
    try:
        user = store.accounts.create_user(get_session(), new)
    except store.ValidationError as exc:
        return users_response(422, errors=exc.errors, values=form)
    return done(f"Added the account {user.username} ({user.role}).", url_for("auth.users"))


@bp.post("/admin/users/<username>")
@requires("admin")
def update_user(username: str) -> Response:
    """Change one account: its role, disabled or enabled, or a new password."""
    form, session_ = request.form, get_session()
    action = form.get("action", "")
    try:
        if action == "set_role":
            user = store.accounts.set_role(session_, username, form.get("role", ""))
            message = f"{user.username} is now {user.role}."
        elif action in ("disable", "enable"):
            user = store.accounts.set_disabled(session_, username, action == "disable")
            message = f"{'Disabled' if user.disabled else 'Enabled'} {user.username}."
        elif action == "reset_password":
            user = store.accounts.set_password(session_, username, form.get("password", ""))
            message = f"Set a new password for {user.username}; their sessions have ended."
        else:
            raise store.ValidationError([("action", f"must be one of {', '.join(USER_ACTIONS)}")])
    except store.ValidationError as exc:
        errors = {f"{username}.{field}": text for field, text in exc.errors.items()}
        return users_response(422, errors=errors)
    return done(message, url_for("auth.users"))


def login_response(target: str, status: int = 200, **context: Any) -> Response:
    """The sign-in page (in the local mode, a page saying there is nothing to sign in to)."""
    return page_or_fragment("login.html", "_login.html", status, next=target,
                            local=local_mode(), **context)


def account_response(status: int = 200, errors: dict[str, str] | None = None) -> Response:
    """The account page, with the password form's errors if any."""
    return page_or_fragment("account.html", "_account.html", status, errors=errors or {},
                            local=local_mode())


def users_response(status: int = 200, errors: dict[str, str] | None = None,
                   values: Any = None) -> Response:
    """The admins' list of accounts, with the add form as it was sent and any errors."""
    return page_or_fragment("admin_users.html", "_admin_users.html", status,
                            users=store.accounts.list_users(get_session()), roles=store.ROLES,
                            errors=errors or {}, values=values or {})
