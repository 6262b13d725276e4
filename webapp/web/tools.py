"""The tools page of an agent (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

from webapp import store
from webapp.db import get_session

bp = Blueprint("tools", __name__)


@bp.get("/agents/<agent>/tools")
def index(agent: str) -> Response:
    """The agent's tools."""
    store.get_agent(get_session(), agent)
    return Response("tools", mimetype="text/plain")
