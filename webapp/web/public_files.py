"""A skill's file by its sha256, without a key, for a Nostr importer elsewhere: served only
when the instance opts in (`SKILL_EDITOR_PUBLIC_BLOBS=1`), else 404 (docs/nostr.md)."""

from __future__ import annotations

from flask import Blueprint, Response, abort

from webapp import store
from webapp.db import get_session
from webapp.outbound import nostr_sync

from .access import ANYONE, requires
from .snapshot_files import SHA256

bp = Blueprint("public_files", __name__)


@bp.get("/public/<agent>/blobs/<sha256>")
@requires(ANYONE)
def blob(agent: str, sha256: str) -> Response:
    """The agent's file whose sha256 is `sha256`, when the instance serves files publicly."""
    if not nostr_sync.public_blobs() or not SHA256.fullmatch(sha256):
        abort(404)
    row = store.agents.find_agent(get_session(), agent)
    if row is None or row.deleted_at is not None:
        abort(404)
    data = store.get_blob(get_session(), row.id, sha256)
    response = Response(data, mimetype="application/octet-stream",
                        headers={"Cache-Control": "public, max-age=31536000, immutable"})
    response.set_etag(sha256)
    return response
