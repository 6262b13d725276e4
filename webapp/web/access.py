"""Who may use which page, checked in one place before every request.

Each view declares the least role that may use it beside its route, `@requires("author")`
(`ANYONE`: no sign-in needed). `authorize` runs before every request (before the CSRF check, so a
refused request is refused whatever it carries) and decides in this order:

1. No account in the database: the local single-user mode.
   The request must name this machine in its `Host` header (`local_host`), else every
   address, static files included, is a 421: a web page elsewhere whose name was made to
   point at 127.0.0.1 (DNS rebinding) sends its own name. A client on this machine
   (loopback, and carrying none of `FORWARDING_HEADERS`: no proxy is trusted then) may do
   everything; any other client gets a 403 page saying how to create the first account,
   whatever server runs the app.
2. Otherwise the request's user comes from the session (Flask-Login), and becomes the
   store's actor (`store.set_actor`), so every change records who made it.
3. `ANYONE` endpoints (the login page, static files) need nothing more. An anonymous
   request elsewhere is sent to the login page, or gets a 401 from htmx and JSON (with
   the login page's address in `X-Sign-In`); a role
   below the one needed gets a 403 page. A view that declares no role is refused to
   everyone (`tests/test_architecture.py` fails on one, and `tests/web/test_access.py`
   holds its own table of who may use each route).

A view may also name form flags that ask a higher role (`requires(..., flags=...)`):
importing a bundle *over* an existing agent (`replace`) replaces it, which is an admin's.
They are checked after the CSRF check, once the body limit of the route applies to
reading the form.

Templates hide what a role cannot use with `can("author")`.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask, Request, Response, current_app, g, redirect, request, url_for
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from flask_login import LoginManager, UserMixin, current_user
from werkzeug.exceptions import Forbidden, MisdirectedRequest, Unauthorized
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp import store
from webapp.schema import models
from webapp.schema.db import get_session

from .responses import flag
from .security import error_page, leave_the_cookie, leaves_the_cookie

#: No sign-in needed.
ANYONE = "anyone"
API_KEY = "api key"  # the runtime API (`/api/v1`): its routes check the request's key
VIEWER, AUTHOR, REVIEWER, ADMIN = store.ROLES
V = TypeVar("V", bound=Callable[..., Any])

#: The attributes `requires` sets on a view function.
_ROLE, _FLAGS = "required_role", "required_by_flags"


def requires(role: str, *, flags: Mapping[str, str] | None = None) -> Callable[[V], V]:
    """Declare the least role that may use a view, whatever method its route takes:
    `@requires("author")` under the route's decorator (`ANYONE`: no sign-in needed), and
    the form `flags` that, when set, ask a higher role (`flags={"replace": "admin"}`).

    Viewers read everything, previews included (a POSTed preview or check computes and
    stores nothing); authors change skills, tools, variables, scenarios and agent
    settings, create agents, import as a new agent and append to the context log;
    reviewers publish; admins manage accounts, read the whole instance's activity,
    replace, delete and restore agents, and delete log entries. A confirmation page asks
    for the role of what it confirms.
    """
    for named in (role, *(flags or {}).values()):
        if named not in (ANYONE, API_KEY) and named not in store.ROLES:
            raise ValueError(f"No role {named!r}: one of {ANYONE}, {API_KEY}, "
                             f"{', '.join(store.ROLES)}.")

    def declare(view: V) -> V:
        setattr(view, _ROLE, role)
        setattr(view, _FLAGS, dict(flags or {}))
        return view
    return declare


#: Headers a reverse proxy or a CDN adds: with no account, a request carrying one came
#: through a proxy, from elsewhere, and is refused (`PROXY_FIX` or not: with no account no
#: proxy is trusted, so none of them can make a client elsewhere look like this machine).
FORWARDING_HEADERS = (
    "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto",
    "X-Forwarded-Port", "X-Forwarded-Prefix", "X-Forwarded-Server", "X-Real-IP",
    "X-Client-IP", "True-Client-IP", "CF-Connecting-IP", "Fastly-Client-IP",
    "X-Cluster-Client-IP", "X-Original-Forwarded-For", "Via",
)

#: What a client elsewhere is told while no account exists.
NO_ACCOUNTS = ("This Skill Editor has no accounts yet, so it is a single-user tool that "
               "answers only its own machine. To share it, create the first account on the "
               "server: skill-editor user add NAME --role admin — then sign in here.")


#: What a request naming another host is told while no account exists.
OTHER_HOST = ("This Skill Editor has no accounts yet, so it answers only at its own "
              "machine's addresses: http://127.0.0.1, http://localhost or http://[::1] (with "
              "its port). The address you used names it otherwise, which a page on another "
              "site could use to reach it (DNS rebinding), so nothing was done.")


class SignedIn(UserMixin):
    """The signed-in account as the web layer sees it (Flask-Login's user object)."""

    def __init__(self, user: models.User):
        self.username = user.username
        self.display_name = user.display_name or user.username
        self.role = user.role
        self._token = store.accounts.session_token(user)

    def get_id(self) -> str:
        return self._token


def needed_role(app: Flask, endpoint: str, method: str) -> str | None:
    """The least role a `method` request to `endpoint` needs, as its view declares it
    (`requires`); None, refused to everyone, for a view that declares none or a method
    its route does not take (HEAD and OPTIONS go with GET)."""
    view = app.view_functions.get(endpoint)
    method = "GET" if method in ("HEAD", "OPTIONS") else method
    if view is None or not any(method in (rule.methods or ())
                               for rule in app.url_map.iter_rules(endpoint)):
        return None
    if endpoint == "static":
        return ANYONE  # Flask's own view: the stylesheet and scripts of the sign-in page
    return getattr(view, _ROLE, None)


def is_loopback(address: str | None) -> bool:
    """Whether a client address is this machine's (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(address or "").is_loopback
    except ValueError:
        return False


def from_this_machine() -> bool:
    """Whether the client is this machine: a loopback address, and no forwarding header
    (behind a proxy on the same machine every client arrives from loopback). With a
    forwarding header `PROXY_FIX` may have put someone's address in `remote_addr`; any of
    them refuses, so no header can make a client elsewhere look like this machine."""
    return is_loopback(request.remote_addr) and not any(
        name in request.headers for name in FORWARDING_HEADERS)


def local_host(host: str) -> bool:
    """Whether a `Host` header names this machine: `localhost` or a loopback address
    (`127.0.0.1`, `[::1]`), with or without a port. Any other name may be a site's whose
    address was made to point here (DNS rebinding); an address cannot be."""
    match = _LOCAL_HOST.fullmatch(host)
    if match is None:
        return False
    name = match["name"]
    return name.lower() == "localhost" or is_loopback(name.removeprefix("[").removesuffix("]"))


#: A host name, an IPv4 address or a bracketed IPv6 address, and a port: what `local_host`
#: then checks (no nested repeats: linear on any header).
_LOCAL_HOST = re.compile(r"(?P<name>localhost|[0-9.]{7,15}|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?",
                         re.IGNORECASE)


def is_loopback_host(host: str) -> bool:
    """Whether a server address to bind is this machine's only (`localhost`, 127.0.0.0/8,
    `::1`); any other name or address may answer other machines."""
    return host.strip("[]").lower() == "localhost" or is_loopback(host.strip("[]"))


def local_mode() -> bool:
    """Whether this request is in the local single-user mode (no account exists)."""
    if "local_mode" not in g:
        g.local_mode = not store.accounts.has_accounts(get_session())
    return g.local_mode


def can(role: str) -> bool:
    """For templates: whether this request's user may do what `role` may."""
    if local_mode():
        return True
    return bool(current_user.is_authenticated) and store.has_role(current_user.role, role)


def authorize() -> Response | None:
    """Let the request through, send it to the login page, or refuse it (401, 403)."""
    store.set_actor(None)
    if request.endpoint is None:
        return None  # no route: the router answers 404 or 405
    needed = needed_role(current_app, request.endpoint, request.method)
    if needed == API_KEY:  # the route checks its key, in the local mode too (docs/api.md)
        leave_the_cookie()  # and no session
        return None
    if local_mode():
        if not local_host(request.host):
            leave_the_cookie()  # no session for a name that is not this machine's
            raise MisdirectedRequest(OTHER_HOST)
        if from_this_machine() or needed == ANYONE:
            return None
        raise Forbidden(NO_ACCOUNTS)
    if current_user.is_authenticated:
        store.set_actor(current_user.username)
    if needed == ANYONE:
        return None
    if not current_user.is_authenticated:
        return sign_in_first()
    if needed is None or not store.has_role(current_user.role, needed):
        raise Forbidden(refusal(needed))
    return None


def authorize_flags() -> None:
    """The flags a view declares (`requires(..., flags=...)`): a flag set in the form asks
    its role as well."""
    view = current_app.view_functions.get(request.endpoint or "")
    raised = getattr(view, _FLAGS, None)
    if not raised or local_mode():
        return
    for field, role in raised.items():
        if flag(request.form.get(field)) and not store.has_role(current_user.role, role):
            raise Forbidden(refusal(role, f"with {field!r} set"))


def refusal(needed: str | None, what: str = "") -> str:
    """What a 403 page says to a signed-in user whose role is too low."""
    if needed is None:
        return "Nobody may use this address."
    return (f"You are signed in as {current_user.username} ({current_user.role}); this "
            f"{'request ' + what if what else 'page'} needs the {needed} role. Ask an admin "
            "if you need it.")


def sign_in_first() -> Response:
    """An anonymous request: a browser gets the login page, coming back here afterwards;
    htmx and JSON get a 401 whose `X-Sign-In` header says where to sign in. They are not
    sent there: an htmx request comes from a page that may hold unsaved text (a keystroke's
    preview, a save in place), and `app.js` keeps that page and offers the sign-in in
    another tab instead."""
    if request.headers.get("HX-Request") or request.is_json or (
            request.accept_mimetypes.best == "application/json"):
        back = safe_next(urlsplit(request.headers.get("HX-Current-URL", "")).path)
        body, code = error_page(Unauthorized("You are not signed in (or your session has "
                                             "ended): sign in again."))
        response = Response(body, code, mimetype="text/html")
        response.headers["X-Sign-In"] = url_for("auth.login", next=back)
        return response
    back = request.full_path.rstrip("?") if request.method == "GET" else request.path
    return redirect(url_for("auth.login", next=back), 303)


def safe_next(target: str | None) -> str:
    """Where to go after signing in: `target` if it is a path on this site, else home."""
    home = url_for("agents.index")
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return home
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ch < " " or ch == "\\" for ch in target):
        return home
    return target


def reset_actor(exc: BaseException | None = None) -> None:
    """After each request: nobody is the actor until the next request says who."""
    store.set_actor(None)


#: The session key that names the host a session (and its CSRF token) was made for.
SESSION_HOST = "host"


class SessionCookies(SecureCookieSessionInterface):
    """The session cookie is `Secure` whenever the request came over HTTPS (as the browser
    or, with `PROXY_FIX`, the reverse proxy says), or when `SESSION_COOKIE_SECURE` is set.

    It is host-only (no `Domain`, whatever `SESSION_COOKIE_DOMAIN` says), and a session
    holds the host it was made for (`SESSION_HOST`): read under another `Host` it is an
    empty one, so a session and its CSRF token serve only the name they were made at. A
    response marked by `leave_the_cookie` sets no cookie at all."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    def get_cookie_domain(self, app: Flask) -> None:
        return None

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        session = super().open_session(app, request)
        host = request.host.lower()
        if session is not None and session.get(SESSION_HOST, host) != host:
            return self.session_class()
        return session

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        if leaves_the_cookie():
            return
        if session and session.get(SESSION_HOST) != request.host.lower():
            session[SESSION_HOST] = request.host.lower()
        super().save_session(app, session, response)


def init_app(app: Flask) -> None:
    """Install Flask-Login, the access check, the secure cookies and, if configured,
    ProxyFix (`PROXY_FIX`: how many reverse proxies stand in front of the app)."""
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies,  # type: ignore
                                x_host=proxies, x_port=proxies, x_prefix=proxies)
    app.session_interface = SessionCookies()
    manager = LoginManager(app)
    manager.user_loader(_load_user)
    app.before_request(authorize)
    app.teardown_request(reset_actor)
    app.jinja_env.globals["can"] = can


def _load_user(token: str) -> Any:
    user = store.accounts.user_of_session(get_session(), token)
    return SignedIn(user) if user is not None else None
