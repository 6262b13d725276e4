"""Import and export: workspace bundles and SKILL.md folders (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

bp = Blueprint("transfer", __name__)


@bp.get("/transfer")
def index() -> Response:
    """The import and export forms."""
    return Response("transfer", mimetype="text/plain")
