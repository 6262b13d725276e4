"""How every blueprint answers: a page or its htmx fragment, redirects, flags.

One template serves both: `page.html` includes `_fragment.html`, and htmx asks for the
fragment alone. The choice is made here, once, and every response says `Vary: HX-Request`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from flask import (
    Response,
    current_app,
    flash,
    g,
    make_response,
    redirect,
    request,
    stream_template,
)
from werkzeug.exceptions import HTTPException

from webapp.pipeline import flag_word
from webapp.views.panels import ALWAYS_SENT
from webapp.views.wording import counted


def wants_fragment() -> bool:
    """True when htmx asked for a fragment; a history restore needs the whole page."""
    return bool(request.headers.get("HX-Request")) and not request.headers.get(
        "HX-History-Restore-Request")


def page_or_fragment(page: str, fragment: str, status: int = 200, **context: Any) -> Response:
    """Render `fragment` for htmx requests and `page` (which includes it) otherwise."""
    template = fragment if wants_fragment() else page
    # Each piece of the template is encoded alone: a large preview is megabytes of ASCII
    # (the Source table) beside a few arrows and dashes, and joined into one string first
    # it would be widened to two bytes a character and encoded character by character.
    body = b"".join([piece.encode() for piece in stream_template(template, **context)])
    response = make_response(body, status)
    response.vary.add("HX-Request")
    return response


def secret_kept_out_of_caches(response: Response, *, shown: bool) -> Response:
    """`response`, with `Cache-Control: no-store` when it `shown` a secret (a new API key's
    token, a new webhook's secret): no cache, the browser's included, keeps it."""
    if shown:
        response.headers["Cache-Control"] = "no-store"
    return response


def go_to(url: str) -> Response:
    """After a change that leads to another page: a 303, or for htmx a full navigation."""
    if wants_fragment():
        response = Response(status=204)
        response.headers["HX-Redirect"] = url
        return response
    return redirect(url, 303)


def done(message: str, url: str, *, in_place: Callable[[], Response] | None = None
         ) -> Response:
    """Tell the author `message` after a change, where they will see it.

    Where messages are flashed (the skill save's success path, a plain form POST, flashes
    its own). Only a whole page shows flashed messages (the layout's), so one is queued
    only when a whole page comes next: the page at `url`, reached by a 303 or, for htmx,
    by a full navigation (`go_to`). A flash queued for an htmx request that swaps in a
    fragment would show up later above an unrelated page. So for htmx, `in_place` (when
    given) renders the fragment that states the outcome itself, and nothing is flashed.
    """
    if in_place is not None and wants_fragment():
        return in_place()
    flash(message)
    return go_to(url)


def without_slash() -> Response | None:
    """For an address with a trailing slash that found nothing: a 308 (method, body and
    query string kept) to the same address without it when a route takes that one, else
    None (the 404 stands).

    No route ends in `/` (`/` itself aside), so `/agents/Simon/` means `/agents/Simon`. It
    is asked only once a request has come to nothing, not of every request, because a
    `<path:...>` part may itself end in `/`: `notes/` is a valid d_tag, and
    `/agents/Simon/skills/notes/` opens that skill when it exists.
    """
    path = request.path
    stripped = path.rstrip("/")
    # `//host` would be read as another site's address: never redirect there.
    if not stripped or stripped == path or stripped.startswith("//"):
        return None
    adapter = current_app.create_url_adapter(request)
    try:
        adapter.match(stripped, method=request.method)  # type: ignore[union-attr]
    except HTTPException:  # no route (or not for this method): the 404 stands
        return None
    location = request.root_path + quote(stripped)
    if request.query_string:
        location += "?" + quote(request.query_string, safe="/?:@!$&'()*+,;=%")
    return redirect(location, 308)


def download_name(name: str) -> str:
    """`name` made safe for a Content-Disposition file name: control characters, line
    breaks, slashes and backslashes become `_` (Werkzeug's `send_file` encodes the rest,
    non-ASCII included). Agent names cannot hold them now; older rows might."""
    cleaned = "".join("_" if ch in '/\\"' or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
                      else ch for ch in name).strip(" .")
    return cleaned or "download"


def shows(panel: str) -> bool:
    """For templates: whether this request's preview renders `panel` or tab (else a
    placeholder that loads it when seen; `webapp.views.panels`)."""
    shown = g.get("shown_panels")
    return shown is None or panel in shown or panel in ALWAYS_SENT


def human_size(size: int) -> str:
    """A number of bytes as people read it: `1 MB`, `16 MB`, `1.5 MB`, `64 KB`, `900 bytes`
    (binary units, as the request limits are set: a MB is 1,048,576 bytes)."""
    for unit, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f}".removesuffix(".0") + f" {unit}"
    return counted(size, "byte")


def flag(value: Any) -> bool:
    """A checkbox or JSON flag: true, or one of the pipeline's `TRUE_WORDS` (`flag_word`)."""
    if isinstance(value, bool):
        return value
    return flag_word(str(value)) is True
