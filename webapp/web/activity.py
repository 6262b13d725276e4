"""Who did what: an agent's activity and the whole instance's, newest first, filtered by
user, agent and kind, a page at a time (`before` the last row shown).

The record itself is the store's (`store.activity`): every change adds its row in its
own transaction. These pages only read it.
"""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, current_app, request, url_for

from webapp import store
from webapp.schema.db import get_session
from webapp.store.targets import Target
from webapp.views.activity import activity_list

from .access import can, needed_role, requires
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
                            _target_url, agent=row)
    return page_or_fragment("activity.html", "_activity.html", agent=row.name, listing=listing)


@bp.get("/admin/activity")
@requires("admin")
def admin() -> Response:
    """Everything done on this instance, filtered by user, agent and kind."""
    listing = activity_list(get_session(), request.args, _before(),
                            partial(url_for, "activity.admin"), _agent_url, _target_url)
    return page_or_fragment("activity.html", "_activity.html", listing=listing)


def _before() -> int | None:
    """The `before` of the query: the last id of the page before, else a 422."""
    before = request.args.get("before")
    return whole_number(before, "before", "id") if before else None


def _agent_url(name: str) -> str:
    return url_for("activity.agent", agent=name)


#: The page each kind of target is shown on, and the name of its key in the address.
_TARGET_PAGES = {"skill": ("history.index", "d_tag"), "tool": ("tools.edit", "name"),
                 "variable": ("variables.show", "name"), "scenario": ("scenarios.edit", "name"),
                 "snapshot": ("snapshots.show", "number"), "log": ("log.entry", "entry_id"),
                 "webhook": ("webhooks.deliveries", "webhook_id"),
                 "settings": ("agents.settings", None), "nostr": ("nostr.index", None),
                 "agent": ("editor.agent", None)}


def _target_url(target: Target, agent: str) -> str | None:
    """The page of what an activity row changed, when this user may read it."""
    endpoint, key = _TARGET_PAGES[target.kind]
    role = needed_role(current_app, endpoint, "GET")
    if role is None or not can(role):
        return None
    return url_for(endpoint, agent=agent, **({key: target.key} if key else {}))
