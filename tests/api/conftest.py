"""Fixtures for the runtime API: the Simon demo agent published, another agent, and keys.

`token(scopes, agent)` makes a key and returns its bearer headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import webapp
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"


@pytest.fixture
def published(app) -> str:
    """Simon imported and published twice: #1, then #2 (production) with a skill edited;
    and an agent `Other`, published once."""
    with app.app_context():
        session = db.get_session()
        store.import_bundle(session, load_bundle(SIMON))
        store.publish(session, "Simon", "first", 0)
        chat = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=chat.version,
                         content=chat.content + "\nBe brief.\n")
        store.publish(session, "Simon", "second", 1)
        store.create_agent(session, "Other")
        store.create_skill(session, "Other", "chat", triggers=["dm"], content="Secret.\n")
        store.publish(session, "Other", "", 0)
    return "Simon"


@pytest.fixture
def token(app):
    """Make an API key; returns the `Authorization` headers that send it."""

    def make(*scopes: str, agent: str | None = None) -> dict[str, Any]:
        with app.app_context():
            made = store.api_keys.create_key(db.get_session(), "test", list(scopes), agent)
        return {"Authorization": f"Bearer {made.token}"}

    return make
