"""The API keys page (an admin's): create a key for one agent or all with its scopes, the
token shown once on the answer to the form, the list with when each was created, last
used and revoked, and Revoke.

The token is rendered into that one answer and nowhere else (never flashed: a flash is
kept in the session cookie). The rules are `store.api_keys`'s, as for the CLI.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.schema.db import get_session

from .access import ADMIN, requires
from .responses import done, page_or_fragment, secret_kept_out_of_caches

bp = Blueprint("api_keys", __name__)


@bp.get("/admin/api-keys")
@requires(ADMIN)
def index() -> Response:
    """Every API key, and the form to create one."""
    return keys_response()


@bp.post("/admin/api-keys")
@requires(ADMIN)
def create() -> Response:
    """Create a key; the answer shows its token, this once."""
    form = request.form
    agent = form.get("agent", "") or None
    try:
        made = store.api_keys.create_key(get_session(), form.get("name", ""),
                                         form.getlist("scope"), agent)
    except store.ValidationError as exc:
        return keys_response(422, errors=exc.errors, values=form)
    except store.NotFound as exc:
        return keys_response(422, errors={"agent": str(exc)}, values=form)
    return keys_response(201, made=made)


@bp.post("/admin/api-keys/<id:key_id>/revoke")
@requires(ADMIN)
def revoke(key_id: int) -> Response:
    """Revoke a key: it is refused from now on."""
    key = store.api_keys.revoke_key(get_session(), key_id)
    return done(f"Revoked the API key #{key.id}{' ' + key.name if key.name else ''}.",
                url_for("api_keys.index"))


def keys_response(status: int = 200, errors: dict[str, str] | None = None,
                  values: Any = None, made: store.api_keys.NewKey | None = None) -> Response:
    """The page (or its fragment), with the form as sent and its errors, or a new token."""
    session = get_session()
    return secret_kept_out_of_caches(page_or_fragment(
        "api_keys.html", "_api_keys.html", status, keys=store.api_keys.list_keys(session),
        agents=[agent.name for agent in store.list_agents(session)],
        scopes=store.api_keys.SCOPES, scopes_of=store.api_keys.scopes_of,
        errors=errors or {}, values=values, made=made), shown=made is not None)
