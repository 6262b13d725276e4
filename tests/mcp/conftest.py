"""Fixtures for the MCP servers: a database with two published agents.

`Docs` holds a real-shaped skills repository (scripts, a binary file, CRLF, nested
folders) and a skill whose d_tag is no Agent Skills name; `Simon` (the demo) has
scenarios, tools and `{{names}}` for the prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

import webapp
from tests.support.folders import repository, zipped
from webapp import store
from webapp.agentskills import read_zip
from webapp.pipeline import load_bundle
from webapp.schema import db

SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"


@pytest.fixture
def published_url(database_url) -> str:
    """The database with `Docs` and `Simon` imported and published (production)."""
    with db.session_scope(database_url) as session:
        store.import_bundle(session, load_bundle(SIMON))
        store.publish(session, "Simon", "first", 0)
        store.import_skills(session, "Docs", read_zip(zipped(repository())))
        store.create_skill(session, "Docs", "Chat_Main", content="Say hello.\n")
        store.publish(session, "Docs", "first", 0)
    return database_url

