"""Headers, CSRF protection and error pages: the web layer's defences in one place.

Skill text, tool results and scenario messages are untrusted. Templates autoescape,
markdown goes through `webapp.render.sanitize`, and the Content-Security-Policy below
forbids inline script and style, so even a sanitizer bug cannot run script. The one
exception is the code editor's: CodeMirror writes its styles into a `<style>` element,
which a page that loads it allows with a random nonce made for that response
(`style_nonce`); no other inline style, and no inline script, is ever allowed.

Every state-changing request a browser says came from another site's page
(`sent_from`) is refused with a 403 whose answer sets no cookie: such a request arrives
without the user's cookie (`SameSite=Lax`), and a new session in its answer would replace
theirs, signing them out. Every other one must carry the session's CSRF token, as a form
field or (from htmx and fetch) in the `X-CSRFToken` header; signing in and out
(`@same_origin_suffices`) may instead come from a page the browser says is this site's.
A refused form comes back with what it held, to send again, except its passwords.

Before the CSRF check come two others: a method the route does not take is a 405 (not a
CSRF 400), and a body over the limit is a 413 however it is sent (a chunked body has no
Content-Length for Werkzeug to check, and would otherwise be cut silently). The limit is
`MAX_CONTENT_LENGTH`, except on the routes marked `@takes_imports` (a bundle or SKILL.md
upload), whose limit is `IMPORT_MAX_CONTENT_LENGTH`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from io import BytesIO
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, g, make_response, render_template, request, session
from werkzeug.exceptions import (
    BadRequest,
    Forbidden,
    HTTPException,
    InternalServerError,
    RequestEntityTooLarge,
)
from werkzeug.wsgi import get_content_length

from . import problems
from .responses import human_size

View = TypeVar("View", bound=Callable[..., Any])

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRFToken"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: How much of a refused streamed body is read and dropped so the client sees the 413
#: (past this the connection is simply closed).
DRAIN_LIMIT = 16 * 1024 * 1024
_READ_SIZE = 64 * 1024

#: What each error page tells the reader, beyond the status line.
ERROR_HINTS = {
    400: "The request could not be understood.",
    404: "There is nothing at this address.",
    405: "This address does not accept that kind of request.",
    409: "Someone changed this while you were editing it.",
    413: "The request is larger than this server accepts.",
    422: "Some fields are not valid; nothing was changed.",
    500: "Something went wrong on the server. Nothing you sent was lost on purpose; "
         "try again, and if it keeps happening, report it.",
}


class CSRFError(BadRequest):
    """A state-changing request without the session's CSRF token."""

    description = ("The security token of this form is missing or out of date (the session "
                   "expired, or the server was restarted), so nothing was changed.")


class CrossSiteRequest(Forbidden):
    """A state-changing request sent from another site's page."""

    description = ("This request was sent from a page of another site, so nothing was done "
                   "(nor were you signed in or out). To do it, use this Skill Editor's own "
                   "pages.")


#: The response header that hands htmx and fetch requests refused by the CSRF check the
#: session's token, so `app.js` can renew the page's tokens and send again.
FRESH_TOKEN_HEADER = "X-CSRF-Fresh-Token"


def csrf_failed(error: CSRFError) -> Response:
    """A refused change never loses what was typed: a form posted by the browser comes
    back as a page holding every field it sent, with a fresh token, to send again as it is
    (or edited); a script's request gets the fresh token in `FRESH_TOKEN_HEADER`."""
    token = csrf_token()
    if request.headers.get("HX-Request") or request.is_json or not request.form:
        body, code = error_page(error)
        response = make_response(body, code)
    else:
        # A password is never sent back: the page asks for it again.
        fields = [(name, "" if is_secret(name) else value, is_secret(name))
                  for name, value in request.form.items(multi=True) if name != CSRF_FIELD]
        files = [upload.filename or name for name, upload in request.files.items(multi=True)
                 if upload.filename]
        response = make_response(render_template(
            "csrf_resend.html", code=400, title=error.name, description=error.description,
            action=request.full_path.rstrip("?"), fields=fields, files=files), 400)
    response.headers[FRESH_TOKEN_HEADER] = token
    return response


def is_secret(field: str) -> bool:
    """Whether a form field holds a password (`password`, `current_password`, ...)."""
    return field.endswith("password")


def cross_site_refused(error: CrossSiteRequest) -> tuple[str, int]:
    """The 403 of a request from another site's page, which sets no cookie."""
    leave_the_cookie()
    return error_page(error)


def leave_the_cookie() -> None:
    """Mark this response as one that sets no session cookie (`access.SessionCookies`):
    it answers a request that is not this site's user's (sent from another site, or to
    a host name that is not this app's), whose session it would otherwise replace."""
    g.leave_the_cookie = True


def leaves_the_cookie() -> bool:
    """Whether `leave_the_cookie` marked this response."""
    return bool(g.get("leave_the_cookie"))


def csrf_token() -> str:
    """The session's CSRF token, created on first use."""
    token = session.get(CSRF_FIELD)
    if not token:
        token = session[CSRF_FIELD] = secrets.token_urlsafe(32)
    return token


def same_origin_suffices(view: View) -> View:
    """Mark a route a request may use without the CSRF token when the browser says it
    was sent from this site (signing in and out: a page left open past its session
    still signs in, or out)."""
    view.same_origin_suffices = True  # type: ignore[attr-defined]
    return view


def sent_from() -> str:
    """Where the browser says this request was sent from: `"same-origin"`, `"cross-site"`
    (another site, or a sibling on the same site), or `"unknown"` (a client that says
    nothing, or a user's own action such as a bookmark). `Sec-Fetch-Site` first, which
    browsers set from the page's own origin; else `Origin`, compared with the `Host` (not
    the scheme, which a proxy in front may change)."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site:
        return {"same-origin": "same-origin", "none": "unknown"}.get(fetch_site, "cross-site")
    origin = request.headers.get("Origin")
    if origin is None:
        return "unknown"
    # `null` (a sandboxed or privacy-hidden origin) has no host: never this site.
    same = urlsplit(origin).netloc.lower() == request.host.lower()
    return "same-origin" if same else "cross-site"


def takes_imports(view: View) -> View:
    """Mark a route that takes a bundle or SKILL.md upload: its body may be as large as
    `IMPORT_MAX_CONTENT_LENGTH` (every other route keeps `MAX_CONTENT_LENGTH`)."""
    view.takes_imports = True  # type: ignore[attr-defined]
    return view


def takes_api_key(view: View) -> View:
    """Mark a route of the runtime API: its credential is the API key in the
    `Authorization` header, which no other site's page can make a browser send, so it
    needs no CSRF token (and its answer sets no cookie: `access.API_KEY`)."""
    view.takes_api_key = True  # type: ignore[attr-defined]
    return view


def set_body_limit() -> None:
    """Give this request the body limit of its route: the import limit for `@takes_imports`
    routes. Runs first, so Werkzeug's Content-Length check, the form parser and
    `limit_streamed_body` all read it from `request.max_content_length`."""
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "takes_imports", False):
        limit = current_app.config["IMPORT_MAX_CONTENT_LENGTH"]
        request.max_content_length = limit
        # A pasted bundle is one form field: it may be as large as the body.
        request.max_form_memory_size = limit


def limit_streamed_body() -> None:
    """Read a body sent without Content-Length (chunked) up to the limit, 413 if more
    remains, and hand the rest of the app the bytes read with their length."""
    environ = request.environ
    limit = request.max_content_length
    if (limit is None or get_content_length(environ) is not None
            or "wsgi.input_terminated" not in environ):
        return  # Werkzeug checks a Content-Length; without one or a terminated stream, no body
    stream = environ["wsgi.input"]
    data = _read(stream, limit + 1)
    if len(data) > limit:
        _read(stream, DRAIN_LIMIT)
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))


def _read(stream: object, most: int) -> bytes:
    chunks, size = [], 0
    while size < most:
        chunk = stream.read(min(_READ_SIZE, most - size))  # type: ignore[attr-defined]
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def check_csrf() -> None:
    """Refuse a state-changing request sent from another site, or whose token does not
    match the session's (unless its route is `@same_origin_suffices` and the browser says
    it came from this site).

    A request no route takes (a 404, or a 405 for a method the route does not accept) is
    left for the router to answer: there is nothing to protect.
    """
    if request.method in SAFE_METHODS or request.routing_exception is not None:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, "takes_api_key", False):
        return
    origin = sent_from()
    if origin == "cross-site":
        raise CrossSiteRequest()
    if origin == "same-origin" and getattr(view, "same_origin_suffices", False):
        return
    expected = session.get(CSRF_FIELD)
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and not request.is_json:
        sent = request.form.get(CSRF_FIELD)
    if not expected or not sent or not secrets.compare_digest(expected, sent):
        raise CSRFError()


def style_nonce() -> str:
    """This response's nonce for `<style>` elements, made on first use (a template that
    loads the code editor asks for it); the CSP of a response that never asked has none."""
    if "style_nonce" not in g:
        g.style_nonce = secrets.token_urlsafe(18)
    return g.style_nonce


def content_security_policy() -> str:
    """The CSP of this response: `CONTENT_SECURITY_POLICY`, with `style_nonce` in
    `style-src` if the response used it."""
    nonce = g.get("style_nonce")
    if nonce is None:
        return CONTENT_SECURITY_POLICY
    return CONTENT_SECURITY_POLICY.replace("style-src 'self'", f"style-src 'self' 'nonce-{nonce}'")


def set_security_headers(response: Response) -> Response:
    """Add the CSP and friends to every response."""
    response.headers["Content-Security-Policy"] = content_security_policy()
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def error_page(error: HTTPException) -> tuple[str, int]:
    """Render any HTTP error as a page (or, for htmx, a fragment) without a traceback."""
    code = error.code or 500
    if isinstance(error, InternalServerError):
        # Never show the exception's text: it may hold internals. The log has it.
        description = ERROR_HINTS[500]
    else:
        description = error.description or ERROR_HINTS.get(code, "")
    context = {"code": code, "title": error.name, "description": description,
               "hint": too_large_hint() if code == 413 else ERROR_HINTS.get(code)}
    if request.headers.get("HX-Request"):
        return render_template("_error.html", **context), code
    return render_template("error.html", **context), code


def any_error(error: HTTPException) -> Any:
    """An HTTP error: a problem for the API (`problems`), else the error page."""
    return problems.of_http_error(error) if problems.wanted() else error_page(error)


def too_large_hint() -> str:
    """What a 413 page says: the limit that applied, and the imports' when it was another
    (the page adds that a bigger bundle imports with the CLI)."""
    limit = request.max_content_length
    said = ERROR_HINTS[413] if limit is None else (
        f"The request is larger than this server accepts here: {human_size(limit)} at most.")
    imports = current_app.config["IMPORT_MAX_CONTENT_LENGTH"]
    if limit != imports:
        said += f" Bundle and SKILL.md imports may be up to {human_size(imports)}."
    return said


def init_app(app: Flask) -> None:
    """Install the CSRF check, the security headers and the error pages on `app`."""
    app.before_request(set_body_limit)
    app.before_request(limit_streamed_body)
    app.before_request(check_csrf)
    app.after_request(set_security_headers)
    app.register_error_handler(HTTPException, any_error)
    app.register_error_handler(CSRFError, csrf_failed)
    app.register_error_handler(CrossSiteRequest, cross_site_refused)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["csrf_field"] = CSRF_FIELD
    app.jinja_env.globals["csrf_header"] = CSRF_HEADER
    app.jinja_env.globals["style_nonce"] = style_nonce
