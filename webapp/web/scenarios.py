"""The scenarios page of an agent (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

from webapp import store
from webapp.db import get_session

bp = Blueprint("scenarios", __name__)


@bp.get("/agents/<agent>/scenarios")
def index(agent: str) -> Response:
    """The agent's scenarios."""
    store.get_agent(get_session(), agent)
    return Response("scenarios", mimetype="text/plain")
