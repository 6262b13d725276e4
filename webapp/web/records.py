"""What an agent saw and what a skill was: the context log, revisions, diffs and the trash.

Each route parses the request, calls the store and renders `log*.html`, `history*.html`
or `trash*.html` (a page that includes its fragment, chosen by `page_or_fragment`).
Deleting asks first on a page of its own, so it works without JavaScript; htmx adds
`hx-confirm` to the list buttons on top. A change answers a browser with a 303 and a
flash message, and htmx with the fragment that changed (or `HX-Redirect` when the
next page is another one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, request, send_file, url_for
from markupsafe import Markup

from webapp import models, store
from webapp.db import get_session
from webapp.pipeline import format_log_entry
from webapp.render import highlight_markdown_lines, markdown_to_html

from .conflicts import conflict_response
from .diffing import diff_lines
from .forms import request_data
from .preview import MessageCard, message_card
from .responses import flag, go_to, page_or_fragment, wants_fragment

bp = Blueprint("records", __name__)

#: Context-log entries per page of the list.
PAGE_SIZE = 50
LOG_FILENAME = "context.log.md"
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


# -- the context log


@bp.get("/agents/<agent>/log")
def log_list(agent: str) -> Response:
    """The agent's context log, newest first, a page at a time."""
    return log_list_response(agent, request.args)


@bp.get("/agents/<agent>/log/<int:entry_id>")
def log_entry(agent: str, entry_id: int) -> Response:
    """One log entry: its messages rendered, its text highlighted, its problems."""
    entry = store.get_log_entry(get_session(), agent, entry_id)
    return page_or_fragment("log_entry.html", "_log_entry.html", agent=agent,
                            record=entry_view(entry, agent))


@bp.get(f"/agents/<agent>/log/{LOG_FILENAME}")
def log_download(agent: str) -> Response:
    """The whole log as markdown, oldest entry first, entries separated by a blank line."""
    entries = reversed(store.list_log(get_session(), agent, limit=None))
    text = "\n".join(_with_final_newline(entry_text(entry, agent)) for entry in entries)
    return send_file(BytesIO(text.encode("utf-8")), mimetype="text/markdown",
                     as_attachment=True, download_name=LOG_FILENAME)


@bp.get("/agents/<agent>/log/<int:entry_id>/delete")
def log_delete_confirm(agent: str, entry_id: int) -> Response:
    """Ask before deleting a log entry."""
    entry = store.get_log_entry(get_session(), agent, entry_id)
    return page_or_fragment("log_delete.html", "_log_delete.html", agent=agent, entry=entry,
                            log_args=_log_args(request.args))


@bp.post("/agents/<agent>/log/<int:entry_id>/delete")
def log_delete(agent: str, entry_id: int) -> Response:
    """Delete a log entry; htmx gets the list (of the page and filter in the query) back."""
    store.delete_log_entry(get_session(), agent, entry_id)
    message = f"Deleted context-log entry #{entry_id}."
    if wants_fragment():
        return log_list_response(agent, request.args, notice=message)
    flash(message)
    return redirect(url_for("records.log_list", agent=agent, **_log_args(request.args)), 303)


def log_list_response(agent: str, args: Mapping[str, Any], notice: str | None = None) -> Response:
    """Render the list for the page and scenario filter in `args`."""
    session = get_session()
    page = _whole_number(args.get("page", "1"), "page")
    scenario = args.get("scenario") or None
    entries = store.list_log(session, agent, scenario=scenario, limit=page * PAGE_SIZE + 1)
    return page_or_fragment(
        "log.html", "_log_list.html", agent=agent, notice=notice, scenario=scenario,
        page_number=page,
        entries=entries[(page - 1) * PAGE_SIZE:page * PAGE_SIZE],
        more=len(entries) > page * PAGE_SIZE,
        scenarios=[row.name for row in store.list_scenarios(session, agent)],
        log_args=_log_args(args))


@dataclass(frozen=True, slots=True)
class EntryView:
    """A log entry laid out for `_log_entry.html`."""

    entry: models.ContextLogEntry
    text: str
    cards: list[MessageCard]
    source: list[Markup]
    problems: list[dict[str, Any]]


def entry_view(entry: models.ContextLogEntry, agent: str) -> EntryView:
    """Cards for the messages, the highlighted entry text and the problems, errors first."""
    text = entry_text(entry, agent)
    problems = sorted(entry.diagnostics, key=lambda d: (
        _SEVERITY_ORDER.get(d.get("severity"), 3), d.get("skill") or "", d.get("line") or 0))
    return EntryView(entry, text, [message_card(m) for m in entry.messages],
                     highlight_markdown_lines(text), problems)


def entry_text(entry: models.ContextLogEntry, agent: str) -> str:
    """The stored log-entry text; entries stored without one get it made from their fields."""
    if entry.summary:
        return entry.summary
    counts = {"error": entry.error_count, "warning": entry.warning_count, "info": entry.info_count}
    return format_log_entry(entry.document, agent=agent, scenario=entry.scenario,
                            trigger=entry.trigger, counts=counts, time=entry.created_at)


def _with_final_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _log_args(args: Mapping[str, Any]) -> dict[str, str]:
    """The list's page and filter, for links back to it."""
    return {key: args[key] for key in ("page", "scenario") if args.get(key)}


# -- history: revisions, diffs, restores


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A metadata field that differs between two revisions."""

    name: str
    old: str
    new: str


@bp.get("/agents/<agent>/skills/<path:d_tag>/history")
def history(agent: str, d_tag: str) -> Response:
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
        revisions=revisions, old=old, new=new, diff=diff_lines(old.content, new.content),
        changes=field_changes(old, new))


@bp.get("/agents/<agent>/skills/<path:d_tag>/history/<int:version>")
def revision(agent: str, d_tag: str, version: int) -> Response:
    """One saved version: its fields, its text rendered and as highlighted source."""
    session = get_session()
    skill = store.get_skill(session, agent, d_tag, include_deleted=True)
    saved = store.get_revision(session, agent, d_tag, version)
    return page_or_fragment(
        "history_revision.html", "_history_revision.html", agent=agent, current=d_tag,
        skill=skill, revision=saved, html=markdown_to_html(saved.content),
        source=highlight_markdown_lines(saved.content))


@bp.post("/agents/<agent>/skills/<path:d_tag>/history/<int:version>/restore")
def restore_revision(agent: str, d_tag: str, version: int) -> Response:
    """Save an old version as a new one, from the version the page showed (else a 409)."""
    session = get_session()
    data, _ = request_data()
    expected = _whole_number(data.get("expected_version"), "expected_version")
    try:
        row = store.restore_revision(session, agent, d_tag, version, expected_version=expected)
    except store.Conflict as exc:
        old = store.get_revision(session, agent, d_tag, version)
        mine = dataclasses.replace(store.skill_of(old), d_tag=d_tag)
        return conflict_response(agent, d_tag, mine, expected, exc, data)
    flash(f"Restored version {version} of {d_tag} as version {row.version}.")
    return go_to(url_for("editor.edit", agent=agent, d_tag=d_tag))


def field_changes(old: models.SkillRevision, new: models.SkillRevision) -> list[FieldChange]:
    """The fields besides the text that differ between two revisions."""
    return [FieldChange(name, _shown(getattr(old, name)), _shown(getattr(new, name)))
            for name in ("d_tag", "name", "layer", "triggers", "enabled")
            if getattr(old, name) != getattr(new, name)]


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value) or "(none)"
    return str(value) if value != "" else "(empty)"


def _version_arg(name: str, default: int) -> int:
    value = request.args.get(name)
    return default if value in (None, "") else _whole_number(value, name)


def _no_version(d_tag: str, name: str) -> Any:
    abort(404, description=f"Skill {d_tag!r} has no version {request.args.get(name)} ({name}).")


# -- deleting a skill and the trash


@bp.get("/agents/<agent>/skills/<path:d_tag>/delete")
def delete_confirm(agent: str, d_tag: str) -> Response:
    """Ask before moving a skill to the trash, naming the skills that embed it."""
    session = get_session()
    skill = store.get_skill(session, agent, d_tag)
    return page_or_fragment("trash_delete.html", "_trash_delete.html", agent=agent,
                            current=d_tag, skill=skill,
                            users=store.references_to(session, agent, d_tag))


@bp.post("/agents/<agent>/skills/<path:d_tag>/delete")
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
    flash(f"Moved {d_tag} to the trash.")
    return go_to(url_for("records.trash", agent=agent))


@bp.get("/agents/<agent>/trash")
def trash(agent: str) -> Response:
    """The agent's deleted skills, most recently deleted first."""
    return trash_response(agent)


@bp.post("/agents/<agent>/skills/<path:d_tag>/restore")
def restore_deleted(agent: str, d_tag: str) -> Response:
    """Take a skill out of the trash, back to its place in the adoption order."""
    store.restore_skill(get_session(), agent, d_tag)
    if wants_fragment():
        return trash_response(agent, restored=d_tag)
    flash(f"Restored {d_tag} from the trash.")
    return redirect(url_for("editor.edit", agent=agent, d_tag=d_tag), 303)


def trash_response(agent: str, restored: str | None = None) -> Response:
    return page_or_fragment("trash.html", "_trash.html", agent=agent, restored=restored,
                            skills=store.list_trash(get_session(), agent))


# -- helpers


def _whole_number(value: Any, name: str) -> int:
    """`value` as an integer of at least 1, else a 422 naming the field."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        what = "is required" if value in (None, "") else f"must be a whole number, not {value!r}"
        abort(422, description=f"{name}: {what}")
    if number < 1:
        abort(422, description=f"{name}: must be at least 1, not {number}")
    return number
