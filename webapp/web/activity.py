"""Who did what: an agent's activity and the whole instance's, newest first, filtered by
user, agent and kind, a page at a time (`before` the last row shown).

The record itself is the store's (`store.activity`): every change adds its row in its
own transaction. These pages only read it.
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.db import get_session
from webapp.views.activity import activity_list

from .access import requires
from .forms import whole_number
from .responses import page_or_fragment

bp = Blueprint("activity", __name__)


@bp.get("/agents/<agent>/activity")
@requires("viewer")
def agent(agent: str) -> Response:
    """The agent's activity across its renames, filtered by user and kind."""
    session = get_session()
    row = store.get_agent(session, agent)
    listing = activity_list(session, request.args, _before(),
                            partial(url_for, "activity.agent", agent=row.name), _agent_url,
                            agent=row)
    return page_or_fragment("activity.html", "_activity.html", agent=row.name, listing=listing)


@bp.get("/admin/activity")
@requires("admin")
def admin() -> Response:
    """Everything done on this instance, filtered by user, agent and kind."""
    listing = activity_list(get_session(), request.args, _before(),
                            partial(url_for, "activity.admin"), _agent_url)
    return page_or_fragment("activity.html", "_activity.html", listing=listing)


def _before() -> int | None:
    """The `before` of the query: the last id of the page before, else a 422."""
    before = request.args.get("before")
    return whole_number(before, "before", "id") if before else None


def _agent_url(name: str) -> str:
    return url_for("activity.agent", agent=name)
