"""docs/SKILLS.md inside the app (being built)."""

from __future__ import annotations

from flask import Blueprint, Response

bp = Blueprint("help", __name__)


@bp.get("/help")
def show() -> Response:
    """The skill authors' guide."""
    return Response("help", mimetype="text/plain")
