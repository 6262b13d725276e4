"""How every blueprint answers: a page or its htmx fragment, redirects, flags.

One template serves both: `page.html` includes `_fragment.html`, and htmx asks for the
fragment alone. The choice is made here, once, and every response says `Vary: HX-Request`.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from flask import Response, flash, make_response, redirect, request, stream_template

#: The spellings of "yes" a form or a JSON body may send for a checkbox or flag.
TRUE_WORDS = frozenset({"1", "true", "on", "yes"})


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


def go_to(url: str) -> Response:
    """After a change that leads to another page: a 303, or for htmx a full navigation."""
    if wants_fragment():
        response = Response(status=204)
        response.headers["HX-Redirect"] = url
        return response
    return redirect(url, 303)


def done(message: str, url: str) -> Response:
    """Flash `message` and send the browser to `url` with a 303, so a reload does not post."""
    flash(message)
    return redirect(url, 303)


def download_name(name: str) -> str:
    """`name` made safe for a Content-Disposition file name: control characters, line
    breaks, slashes and backslashes become `_` (Werkzeug's `send_file` encodes the rest,
    non-ASCII included). Agent names cannot hold them now; older rows might."""
    cleaned = "".join("_" if ch in '/\\"' or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
                      else ch for ch in name).strip(" .")
    return cleaned or "download"


def counted(number: int, noun: str) -> str:
    """`1 scenario`, `2 scenarios`: a count and its noun, plural when it is not one."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def flag(value: Any) -> bool:
    """A checkbox or JSON flag: true, or one of `TRUE_WORDS` in any case."""
    if isinstance(value, bool):
        return value
    return str(value).lower() in TRUE_WORDS
