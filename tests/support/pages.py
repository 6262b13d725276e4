"""What a response is (a whole page or an htmx fragment), what markup could run, and how
the tests post and sign in as a browser would."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

TOKEN = "test-csrf-token"
HTMX = {"HX-Request": "true"}
#: The password of every account the web tests make.
PASSWORD = "correct horse battery"


def is_page(response) -> bool:
    """Whether the response is a whole page rather than an htmx fragment."""
    return response.data.lstrip().lower().startswith(b"<!doctype html>")


def starts_with(response, root: bytes) -> bool:
    """Whether the response's markup begins with `root`."""
    return response.data.lstrip().startswith(root)


def fragment_root(response) -> bytes:
    """The start of a fragment: its root element's opening tag."""
    return response.data.lstrip()[:80]


class Markup(HTMLParser):
    """Collects every start tag of a page with its attributes, to look for anything executable."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text += data


_URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "srcset", "data", "poster")
_BAD_SCHEMES = re.compile(r"^\s*(javascript|data|vbscript):", re.IGNORECASE)


def executable_markup(html: str) -> list[str]:
    """Everything in `html` that could run script or load active content; empty when safe.

    Our own `<script src>` tags for static files and the budget chart's `<svg>` are
    allowed; nothing else is.
    """
    page = Markup(html)
    found = []
    if page.script_text.strip():
        found.append(f"inline script: {page.script_text.strip()[:60]!r}")
    for tag, attrs in page.tags:
        if tag == "script" and not (attrs.get("src") or "").startswith("/static/"):
            found.append(f"<script> without a static src: {attrs}")
        # The budget chart is our own SVG (its text autoescaped); markdown's HTML never
        # holds one (nh3 drops it), so any other <svg> came from somewhere it must not.
        ours = tag == "svg" and attrs.get("class") == "budget-chart"
        if tag in ("iframe", "object", "embed", "svg", "math", "style", "base", "frame") \
                and not ours:
            found.append(f"<{tag}> element")
        if tag == "meta" and attrs.get("http-equiv"):
            found.append(f"<meta http-equiv={attrs['http-equiv']!r}>")
        for name, value in attrs.items():
            if name.startswith("on"):
                found.append(f"<{tag} {name}=...> event handler")
            if name == "style":
                found.append(f"<{tag} style=...>")
            if name in _URL_ATTRIBUTES and value and _BAD_SCHEMES.match(value):
                found.append(f"<{tag} {name}={value[:40]!r}>")
    return found


def editor_url(agent: str, d_tag: str, suffix: str = "") -> str:
    """The editor's address of a skill (and of one of its routes, with `suffix`)."""
    return f"/agents/{quote(agent)}/skills/{quote(d_tag)}{suffix}"


def panel(html: str, name: str) -> str:
    """The preview panel `name` of a page or fragment, up to the next panel."""
    start = html.index(f'data-panel="{name}"')
    end = html.find('<div class="panel" data-panel=', start + 1)
    return html[start:end if end > 0 else len(html)]


def sign_in(client: Any, username: str, token: str = TOKEN) -> Any:
    """Sign `client` in as `username` through the sign-in form; returns it, with the CSRF
    token `token` in its new session."""
    with client.session_transaction() as session:
        session["csrf_token"] = token
    response = client.post("/login", data={"csrf_token": token, "username": username,
                                           "password": PASSWORD})
    assert response.status_code == 303, response.data[:300]
    with client.session_transaction() as session:
        session["csrf_token"] = token
    return client


def without_time(body: bytes) -> bytes:
    """The body without what differs between two requests: the log entry's time and the
    style nonce of the Content-Security-Policy."""
    body = re.sub(rb"context-log: \S+Z", b"context-log: T", body)
    return re.sub(rb'nonce="[^"]*"', b'nonce=""', body)


class _DiffViews(HTMLParser):
    """Each diff table of a page with the element that picks its view: the nearest
    ancestor with `data-diff-view` (None without one), and the toggles inside each."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, int | None]] = []  # (tag, index of a view element)
        self.views = 0
        self.tables: list[tuple[str, int | None]] = []
        self.toggles: set[int] = set()
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        view = self.open[-1][1] if self.open else None
        if tag == "table" and {"diff-unified", "diff-split"} & set(
                (found.get("class") or "").split()):
            self.tables.append(((found.get("class") or ""), view))
        if found.get("data-view-toggle") == "diff-view" and view is not None:
            self.toggles.add(view)
        if "data-diff-view" in found:
            view, self.views = self.views, self.views + 1
        if tag not in self.VOID:
            self.open.append((tag, view))

    def handle_endtag(self, tag: str) -> None:
        for at in range(len(self.open) - 1, -1, -1):
            if self.open[at][0] == tag:
                del self.open[at:]
                return


def diffs_shown_once(html: str) -> bool:
    """Whether every diff on the page (its unified and side-by-side tables) sits in an
    element that shows one of them at a time, with the Unified / Side by side toggle."""
    parsed = _DiffViews(html)
    return bool(parsed.tables) and all(view is not None and view in parsed.toggles
                                       for _, view in parsed.tables)
