"""The context log: what the agent was given, entry by entry, newest first.

Deleting asks first on a page of its own, so it works without JavaScript; htmx adds
`hx-confirm` to the list buttons on top and gets the list back.
"""

from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any

from flask import Blueprint, Response, request, send_file, url_for

from webapp import store
from webapp.schema.db import get_session
from webapp.views.log import entry_text, entry_view

from .access import requires
from .forms import whole_number
from .responses import done, page_or_fragment

bp = Blueprint("log", __name__)

#: Context-log entries per page of the list.
PAGE_SIZE = 50
LOG_FILENAME = "context.log.md"


@bp.get("/agents/<agent>/log")
@requires("viewer")
def index(agent: str) -> Response:
    """The agent's context log, newest first, a page at a time."""
    return log_list_response(agent, request.args)


@bp.get("/agents/<agent>/log/<id:entry_id>")
@requires("viewer")
def entry(agent: str, entry_id: int) -> Response:
    """One log entry: its messages rendered, its text highlighted, its problems."""
    entry = store.get_log_entry(get_session(), agent, entry_id)
    return page_or_fragment("log_entry.html", "_log_entry.html", agent=agent,
                            record=entry_view(entry, agent))


@bp.get(f"/agents/<agent>/log/{LOG_FILENAME}")
@requires("viewer")
def download(agent: str) -> Response:
    """The whole log as markdown, oldest entry first, entries separated by a blank line."""
    entries = reversed(store.list_log(get_session(), agent, limit=None))
    text = "\n".join(_with_final_newline(entry_text(entry, agent)) for entry in entries)
    return send_file(BytesIO(text.encode("utf-8")), mimetype="text/markdown",
                     as_attachment=True, download_name=LOG_FILENAME)


@bp.get("/agents/<agent>/log/<id:entry_id>/delete")
@requires("admin")
def delete_confirm(agent: str, entry_id: int) -> Response:
    """Ask before deleting a log entry."""
    entry = store.get_log_entry(get_session(), agent, entry_id)
    return page_or_fragment("log_delete.html", "_log_delete.html", agent=agent, entry=entry,
                            log_args=_log_args(request.args))


@bp.post("/agents/<agent>/log/<id:entry_id>/delete")
@requires("admin")
def delete(agent: str, entry_id: int) -> Response:
    """Delete a log entry; htmx gets the list (of the page and filter in the query) back."""
    store.delete_log_entry(get_session(), agent, entry_id)
    message = f"Deleted context-log entry #{entry_id}."
    return done(message, url_for("log.index", agent=agent, **_log_args(request.args)),
                in_place=lambda: log_list_response(agent, request.args, notice=message))


def log_list_response(agent: str, args: Mapping[str, Any], notice: str | None = None) -> Response:
    """Render the list for the page and scenario filter in `args`."""
    session = get_session()
    page = whole_number(args.get("page", "1"), "page")
    scenario = args.get("scenario") or None
    source = args.get("source") if args.get("source") in store.LOG_SOURCES else None
    entries = store.list_log(session, agent, scenario=scenario, source=source,
                             limit=page * PAGE_SIZE + 1)
    return page_or_fragment(
        "log.html", "_log_list.html", agent=agent, notice=notice, scenario=scenario,
        source=source or "", sources=[("", "anywhere"), *((s, s) for s in store.LOG_SOURCES)],
        page_number=page,
        entries=entries[(page - 1) * PAGE_SIZE:page * PAGE_SIZE],
        more=len(entries) > page * PAGE_SIZE,
        scenarios=[row.name for row in store.list_scenarios(session, agent)],
        log_args=_log_args(args))


def _with_final_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _log_args(args: Mapping[str, Any]) -> dict[str, str]:
    """The list's page and filter, for links back to it."""
    return {key: args[key] for key in ("page", "scenario", "source") if args.get(key)}
