"""What a skill was: its saved versions, the diff between two of them, and restoring one.

A restore saves the old version as a new one from the version the page showed; a stale
page gets the conflict page, which keeps both texts.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint, Response, abort, request, url_for

from webapp import store
from webapp.pipeline import role_sections
from webapp.render import highlight_markdown_lines, markdown_to_html
from webapp.schema.db import get_session
from webapp.textdiff.lines import SHOWN_ROWS, diff_lines
from webapp.views.history import field_changes
from webapp.views.shown_text import shown_part

from .access import requires
from .conflicts import conflict_response
from .forms import request_data, whole_number
from .responses import done, page_or_fragment

bp = Blueprint("history", __name__)


@bp.get("/agents/<agent>/skills/<path:d_tag>/history")
@requires("viewer")
def index(agent: str, d_tag: str) -> Response:
    """A skill's revisions and the diff between the two picked (by default the last two)."""
    session = get_session()
    skill = store.get_skill(session, agent, d_tag, include_deleted=True)
    revisions = store.list_revisions(session, agent, d_tag)
    by_version = {revision.version: revision for revision in revisions}
    default_old = revisions[1 if len(revisions) > 1 else 0].version
    old = by_version.get(_version_arg("from", default_old)) or _no_version(d_tag, "from")
    new = by_version.get(_version_arg("to", revisions[0].version)) or _no_version(d_tag, "to")
    return page_or_fragment(
        "history.html", "_history.html", agent=agent, current=d_tag, skill=skill,
        revisions=revisions, old=old, new=new,
        diff=diff_lines(old.content, new.content, limit=SHOWN_ROWS),
        changes=field_changes(old, new))


@bp.get("/agents/<agent>/skills/<path:d_tag>/history/<id:version>")
@requires("viewer")
def revision(agent: str, d_tag: str, version: int) -> Response:
    """One saved version: its fields, its text rendered and as highlighted source."""
    session = get_session()
    skill = store.get_skill(session, agent, d_tag, include_deleted=True)
    saved = store.get_revision(session, agent, d_tag, version)
    shown, hidden = shown_part(saved.content)
    # A part per role marker: rendered whole, markdown would join a marker and its next
    # line into one paragraph ("user: {{message}}").
    sections = [(role, markdown_to_html(part)) for role, part in role_sections(shown)]
    return page_or_fragment(
        "history_revision.html", "_history_revision.html", agent=agent, current=d_tag,
        skill=skill, revision=saved, sections=sections,
        source=highlight_markdown_lines(shown), hidden=hidden)


@bp.post("/agents/<agent>/skills/<path:d_tag>/history/<id:version>/restore")
@requires("author")
def restore(agent: str, d_tag: str, version: int) -> Response:
    """Save an old version as a new one, from the version the page showed (else a 409)."""
    session = get_session()
    data, _ = request_data()
    expected = whole_number(data.get("expected_version"), "expected_version")
    try:
        row = store.restore_revision(session, agent, d_tag, version, expected_version=expected)
    except store.Conflict as exc:
        old = store.get_revision(session, agent, d_tag, version)
        mine = dataclasses.replace(store.skill_of(old), d_tag=d_tag)
        return conflict_response(agent, d_tag, mine, expected, exc, data)
    return done(f"Restored version {version} of {d_tag} as version {row.version}.",
                url_for("editor.edit", agent=agent, d_tag=d_tag))


def _version_arg(name: str, default: int) -> int:
    value = request.args.get(name)
    return default if value in (None, "") else whole_number(value, name, "version")


def _no_version(d_tag: str, name: str) -> Any:
    abort(404, description=f"Skill {d_tag!r} has no version {request.args.get(name)} ({name}).")
