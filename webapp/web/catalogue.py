"""An agent's catalogue: how each client it is written for lists its skills before any is
used, against that client's budget (`agentskills.catalogue`)."""

from __future__ import annotations

from flask import Blueprint, Response, request

from webapp import store
from webapp.schema.db import get_session
from webapp.views.catalogue import catalogue_page

from .access import requires
from .forms import whole_number
from .responses import page_or_fragment

bp = Blueprint("catalogue", __name__)


@bp.get("/agents/<agent>/catalogue")
@requires("viewer")
def show(agent: str) -> Response:
    """Each target client's listing of the skills; `?window=` measures it in another context
    window (tokens) than the agent's."""
    session = get_session()
    workspace = store.load_workspace(session, agent)
    asked = request.args.get("window")
    window = whole_number(asked, "window", "context_window") if asked else workspace.agent.window
    row = store.get_agent(session, agent)
    page = catalogue_page(row.skill_clients, store.heads(session, row), window)
    return page_or_fragment("catalogue.html", "_catalogue.html", agent=row.name, view=page,
                            agent_window=workspace.agent.window)
