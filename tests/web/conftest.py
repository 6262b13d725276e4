"""Fixtures for the web tests: the demo agents in the test database, a CSRF token, htmx
headers, and what a response is (a whole page or an htmx fragment).

The shared `app` and `client` fixtures (tests/conftest.py) give an app on an empty,
migrated database; these add the Simon and Relay Watch demo agents and helpers to post as
a browser would.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import webapp
from benchmarks.workspaces import scale_workspace
from webapp import db, store
from webapp.pipeline import load_bundle

from .workspaces import many_skills

SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"
RELAY_WATCH = Path(webapp.__file__).parent / "demo" / "relay_watch.json"
TOKEN = "test-csrf-token"
HTMX = {"HX-Request": "true"}


@pytest.fixture
def simon(app) -> str:
    """The seed's Simon agent imported into the test database; returns its name."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(SIMON))
    return "Simon"


@pytest.fixture
def relay_watch(app) -> str:
    """The Relay Watch demo agent (two scenarios with different triggers, template sections,
    results by args, a `{{admin_note}}` typo, an unused binding); returns its name."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(RELAY_WATCH))
    return "Relay Watch"


@pytest.fixture
def many(app) -> str:
    """60 skills of about 20 lines (a document of about 1,300 lines) as agent `Many`."""
    with app.app_context():
        store.import_bundle(db.get_session(), many_skills(60))
    return "Many"


@pytest.fixture
def bench(app) -> str:
    """The benchmarks' real size: 200 skills of about 2 KB using 50 tools (a document of
    21,000 lines), `skill_0`..`skill_199`, scenario `bench`, as agent `Bench`."""
    with app.app_context():
        store.import_bundle(db.get_session(), scale_workspace(200))
    return "Bench"


def is_page(response) -> bool:
    """Whether the response is a whole page rather than an htmx fragment."""
    return response.data.lstrip().lower().startswith(b"<!doctype html>")


def starts_with(response, root: bytes) -> bool:
    """Whether the response's markup begins with `root`."""
    return response.data.lstrip().startswith(root)


def fragment_root(response) -> bytes:
    """The start of a fragment: its root element's opening tag."""
    return response.data.lstrip()[:80]


@pytest.fixture
def csrf(client) -> str:
    """Put a known CSRF token in the client's session and return it."""
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    return TOKEN


@pytest.fixture
def skill_form(csrf):
    """Build the fields the editor form posts for a skill, with overrides."""

    def build(content: str, version: int = 1, **fields: Any) -> dict[str, Any]:
        data = {"csrf_token": csrf, "version": version, "d_tag": "chat", "name": "Chat",
                "layer": "1", "triggers": "dm", "enabled": "1", "content": content}
        data.update(fields)
        return data

    return build


@pytest.fixture
def saved(app):
    """Read a skill as it is saved now: `saved(agent, d_tag)` -> store row."""

    def read(agent: str, d_tag: str) -> Any:
        with app.app_context():
            return store.get_skill(db.get_session(), agent, d_tag)

    return read


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


# -- accounts

#: The password of every account the web tests make.
PASSWORD = "correct horse battery"


@pytest.fixture
def cheap_hashes(monkeypatch) -> None:
    """argon2 with the least work it allows: the web tests sign in many times, and what
    they check is who may do what, not the hash (tests/store/test_accounts.py checks it)."""
    from argon2 import PasswordHasher

    monkeypatch.setattr(store.accounts, "HASHER",
                        PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


@pytest.fixture
def team(app, cheap_hashes) -> list[str]:
    """One account of each role, named after it (`viewer`, ... `admin`), password
    `PASSWORD`; the app is no longer in the local single-user mode."""
    with app.app_context():
        for role in reversed(store.ROLES):  # the admin first: the first account must be one
            store.accounts.create_user(db.get_session(), store.NewUser(role, role, PASSWORD))
    return list(store.ROLES)


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
