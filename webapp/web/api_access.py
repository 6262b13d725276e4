"""Who may call the runtime API and its MCP server: the request's key read with the
agent and label it asks for (`api_key`), and the refusal every API route answers
(`ApiError`, a problem)."""

from __future__ import annotations

from flask import Response, request
from werkzeug.exceptions import HTTPException

from webapp import store
from webapp.pipeline import excerpt
from webapp.schema import db
from webapp.store.labels import LABEL

from .problems import problem


class ApiError(HTTPException):
    """A refusal with its status, detail and extra headers (a 401's `WWW-Authenticate`)."""

    def __init__(self, code: int, detail: str, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.code, self.extra = code, headers or {}


def refused(exc: ApiError) -> Response:
    """A refusal, as a problem: each API blueprint registers this for `ApiError`
    (Werkzeug's other errors and the store's `NotFound` are made problems by the app's
    handlers: `problems.wanted`)."""
    return problem(exc.code or 400, exc.description or "", exc.extra)


def api_key(agent: str, scope: str | tuple[str, ...], label: str | None = None
            ) -> store.api_keys.Grant:
    """What the request's key may do with `agent` (and where `label` points), in one read:
    401 without a valid key, 429 when this address failed too often, 404 for an agent the
    key may not see (as for one that does not exist), 403 for a scope the key lacks (for
    several, one of them)."""
    kind, _, token = request.headers.get("Authorization", "").partition(" ")
    try:
        grant = store.api_keys.authenticate(
            db.get_session(), token.strip() if kind.lower() == "bearer" else None,
            request.remote_addr or "unknown", agent, label=label)
    except store.Throttled as exc:
        raise ApiError(429, str(exc), {"Retry-After": str(exc.retry_after)}) from None
    except store.api_keys.BadKey as exc:
        raise ApiError(401, f"{exc}: send Authorization: Bearer TOKEN",
                       {"WWW-Authenticate": 'Bearer realm="skill-editor"'}) from None
    except store.NotFound:
        raise ApiError(404, f"There is no agent {excerpt(agent)}.") from None
    wanted = (scope,) if isinstance(scope, str) else scope
    if not set(wanted) & set(grant.scopes):
        raise ApiError(403, f"this key lacks the {' or '.join(map(repr, wanted))} scope")
    return grant


def resolved(grant: store.api_keys.Grant, ref: str) -> store.SnapshotRef:
    """The snapshot `ref` names (the label's, already read with the key, when it is one)."""
    if grant.labelled is not None:
        return grant.labelled
    return store.resolve(db.get_session(), grant.agent_id or 0, ref)


def label_of(ref: str) -> str | None:
    """`ref` when it is a label's name (a number, `latest`, `draft`, a name no label may
    have never reach the key's query)."""
    return ref if store.labels.reference(ref).kind == LABEL else None
