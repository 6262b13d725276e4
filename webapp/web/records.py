"""The context log and a skill's history: revisions, diffs, restores and the trash (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

from webapp import store
from webapp.db import get_session

bp = Blueprint("records", __name__)


@bp.get("/agents/<agent>/log")
def log_list(agent: str) -> Response:
    """The agent's context log, newest first."""
    store.get_agent(get_session(), agent)
    return Response("log", mimetype="text/plain")


@bp.get("/agents/<agent>/trash")
def trash(agent: str) -> Response:
    """The agent's deleted skills."""
    store.get_agent(get_session(), agent)
    return Response("trash", mimetype="text/plain")


@bp.get("/agents/<agent>/skills/<path:d_tag>/history")
def history(agent: str, d_tag: str) -> Response:
    """A skill's revisions."""
    store.get_skill(get_session(), agent, d_tag, include_deleted=True)
    return Response("history", mimetype="text/plain")
