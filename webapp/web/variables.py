"""The variables page of an agent (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

from webapp import store
from webapp.db import get_session

bp = Blueprint("variables", __name__)


@bp.get("/agents/<agent>/variables")
def index(agent: str) -> Response:
    """The agent's variables."""
    store.get_agent(get_session(), agent)
    return Response("variables", mimetype="text/plain")
