"""A published snapshot's file by its sha256, without a key, for a Nostr importer
elsewhere: served only when the instance opts in (`SKILL_EDITOR_PUBLIC_BLOBS=1`) and only
when a skill folder of that snapshot holds the file; else 404 (docs/nostr.md)."""

from __future__ import annotations

from flask import Blueprint, Response, abort

from webapp import store
from webapp.outbound import nostr_sync
from webapp.schema.db import get_session

from .access import ANYONE, requires
from .snapshot_files import SHA256, holds_file

bp = Blueprint("public_files", __name__)


@bp.get("/public/<agent>/snapshots/<int:number>/blobs/<sha256>")
@requires(ANYONE)
def blob(agent: str, number: int, sha256: str) -> Response:
    """The file whose sha256 is `sha256` of the agent's snapshot `number`, when the instance
    serves published files publicly."""
    if not nostr_sync.public_blobs() or not SHA256.fullmatch(sha256):
        abort(404)
    session = get_session()
    row = store.agents.find_agent(session, agent)
    if row is None or row.deleted_at is not None:
        abort(404)
    found = store.resolve(session, row.name, str(number))
    if not holds_file(session, row.id, found, sha256):
        abort(404)
    response = Response(store.get_blob(session, row.id, sha256),
                        mimetype="application/octet-stream",
                        headers={"Cache-Control": "public, max-age=31536000, immutable"})
    response.set_etag(sha256)
    return response
