"""The whole-agent preview (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

from webapp import store
from webapp.db import get_session

bp = Blueprint("agent_preview", __name__)


@bp.get("/agents/<agent>/preview")
def show(agent: str) -> Response:
    """The agent's context for a scenario."""
    store.get_agent(get_session(), agent)
    return Response("preview", mimetype="text/plain")
