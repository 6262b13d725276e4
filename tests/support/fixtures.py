"""The fixtures every suite may use, registered by the root conftest (`pytest_plugins`):
the demo agents in the test database, a CSRF token and forms, and accounts of each role.

The root conftest's `app` and `client` give an app on an empty, migrated database; these
add agents to it and helpers to post as a browser would.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.workspaces import scale_workspace
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

from .pages import PASSWORD, TOKEN
from .workspaces import RELAY_WATCH, SIMON, many_skills
from .xss import xss_bundle


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




@pytest.fixture
def mallory(app) -> str:
    """An agent whose every text field is an XSS payload (`tests.support.xss`)."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(xss_bundle()))
    return "Mallory"
