"""A skill's Files page: the files beside its SKILL.md listed, a text file viewed and edited,
a file added (uploaded), downloaded or deleted; a binary file is kept byte for byte.

Each save or delete is a new version of the skill (`store.save_file`, `delete_file`),
from the version the page showed: a stale page answers 409 with the author's text kept.
The file is named by the `path` query argument or form field (a path has slashes, so it
is not a part of the address).
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from flask import Blueprint, Response, request, send_file, url_for

from webapp import agentskills, store
from webapp.schema.db import get_session
from webapp.views.skill_files import file_rows, open_file

from .access import requires
from .forms import whole_number
from .responses import done, download_name, page_or_fragment

bp = Blueprint("files", __name__)


@bp.get("/agents/<agent>/skills/<path:d_tag>/files")
@requires("viewer")
def index(agent: str, d_tag: str) -> Response:
    """The skill's files; `?path=` opens one (text in an editor, binary as its size)."""
    path = request.args.get("path")
    return files_response(agent, d_tag, path)


@bp.get("/agents/<agent>/skills/<path:d_tag>/files/raw")
@requires("viewer")
def raw(agent: str, d_tag: str) -> Response:
    """One file's bytes, as a download."""
    file = store.get_file(get_session(), agent, d_tag, request.args.get("path", ""))
    return send_file(BytesIO(file.data), mimetype="application/octet-stream",
                     as_attachment=True, download_name=download_name(file.path.split("/")[-1]))


@bp.post("/agents/<agent>/skills/<path:d_tag>/files")
@requires("author")
def save(agent: str, d_tag: str) -> Response:
    """Save a text file as edited, or a file uploaded (added, or replacing one)."""
    form = request.form
    path = form.get("path", "").strip()
    upload = request.files.get("file")
    version = whole_number(form.get("version"), "version")
    if upload is not None and upload.filename:
        path = path or upload.filename
        data = upload.read()
    else:
        data = agentskills.text_bytes(form.get("text", ""), form.get("crlf") == "1")
    try:
        store.save_file(get_session(), agent, d_tag, path, data, expected_version=version)
    except store.ValidationError as exc:
        return files_response(agent, d_tag, path, 422, problems=exc.problems)
    except store.Conflict as exc:
        return files_response(agent, d_tag, path, 409, stale=exc, mine=form.get("text"))
    return done(f"Saved {path} as version {version + 1} of {d_tag}.",
                url_for("files.index", agent=agent, d_tag=d_tag, path=path))


@bp.post("/agents/<agent>/skills/<path:d_tag>/files/delete")
@requires("author")
def delete(agent: str, d_tag: str) -> Response:
    """Delete a file from the skill's folder (a new version; its history keeps it)."""
    path = request.form.get("path", "")
    version = whole_number(request.form.get("version"), "version")
    try:
        store.delete_file(get_session(), agent, d_tag, path, expected_version=version)
    except store.Conflict as exc:
        return files_response(agent, d_tag, path, 409, stale=exc)
    return done(f"Deleted {path} from {d_tag} (version {version + 1}).",
                url_for("files.index", agent=agent, d_tag=d_tag))


def files_response(agent: str, d_tag: str, path: str | None, status: int = 200, *,
                   problems: list[tuple[str, str]] | None = None,
                   stale: store.Conflict | None = None, mine: str | None = None) -> Response:
    """The Files page, with the file `path` open when it is one of the skill's."""
    session = get_session()
    row = store.get_skill(session, agent, d_tag)
    folder = store.folder_of(session, row)
    opened: Any = None
    if path:
        match = next((f for f in folder.files if f.path == path), None)
        opened = open_file(match) if match is not None else None
    return page_or_fragment(
        "skill_files.html", "_skill_files.html", status, agent=agent, current=d_tag,
        skill=row, rows=file_rows(folder), opened=opened, path=path or "",
        problems=problems or [], stale=stale, mine=mine)
