"""Deleting a skill and the trash: a deleted skill keeps its history and can come back,
and so do the tools, bindings and scenarios an import with replace dropped or overwrote.

Deleting asks first on a page of its own, naming the skills that embed the skill; a
delete they would break is refused with a 409 unless forced.
"""

from __future__ import annotations

from flask import Blueprint, Response, url_for

from webapp import store
from webapp.schema.db import get_session

from .access import requires
from .forms import request_data
from .responses import done, flag, page_or_fragment

bp = Blueprint("trash", __name__)


@bp.get("/agents/<agent>/skills/<path:d_tag>/delete")
@requires("author")
def delete_confirm(agent: str, d_tag: str) -> Response:
    """Ask before moving a skill to the trash, naming the skills that embed it."""
    session = get_session()
    skill = store.get_skill(session, agent, d_tag)
    return page_or_fragment("trash_delete.html", "_trash_delete.html", agent=agent,
                            current=d_tag, skill=skill,
                            users=store.references_to(session, agent, d_tag))


@bp.post("/agents/<agent>/skills/<path:d_tag>/delete")
@requires("author")
def delete(agent: str, d_tag: str) -> Response:
    """Move a skill to the trash; a 409 lists the skills that embed it unless `force` is set."""
    session = get_session()
    data, _ = request_data()
    try:
        store.delete_skill(session, agent, d_tag, force=flag(data.get("force")))
    except store.InUse as exc:
        skill = store.get_skill(session, agent, d_tag)
        return page_or_fragment("trash_delete.html", "_trash_delete.html", 409, agent=agent,
                                current=d_tag, skill=skill, users=exc.referenced_by,
                                refused=True)
    return done(f"Moved {d_tag} to the trash.", url_for("trash.index", agent=agent))


@bp.get("/agents/<agent>/trash")
@requires("viewer")
def index(agent: str) -> Response:
    """The agent's deleted skills, most recently deleted first."""
    return trash_response(agent)


@bp.post("/agents/<agent>/skills/<path:d_tag>/restore")
@requires("author")
def restore(agent: str, d_tag: str) -> Response:
    """Take a skill out of the trash, back to its place in the adoption order."""
    store.restore_skill(get_session(), agent, d_tag)
    return done(f"Restored {d_tag} from the trash.",
                url_for("editor.edit", agent=agent, d_tag=d_tag),
                in_place=lambda: trash_response(agent, restored=d_tag))


@bp.post("/agents/<agent>/trash/items/<id:item_id>/restore")
@requires("author")
def restore_item(agent: str, item_id: int) -> Response:
    """Put a trashed tool, binding or scenario back; a 409 if its name is taken now."""
    try:
        row = store.restore_item(get_session(), agent, item_id)
    except store.AlreadyExists as exc:
        return trash_response(agent, status=409, refused=exc.problems[0][1])
    return done(f"Restored {row.name} from the trash.", url_for("trash.index", agent=agent),
                in_place=lambda: trash_response(agent, restored_item=row.name))


def trash_response(agent: str, restored: str | None = None, *, status: int = 200,
                   restored_item: str | None = None, refused: str | None = None) -> Response:
    session = get_session()
    return page_or_fragment("trash.html", "_trash.html", status, agent=agent,
                            restored=restored, restored_item=restored_item, refused=refused,
                            skills=store.list_trash(session, agent),
                            items=store.list_item_trash(session, agent))
