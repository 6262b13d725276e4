"""An agent's MCP server over Streamable HTTP (`/api/v1/agents/<agent>/mcp`, docs/mcp.md):
the skills of the snapshot `?label=` gives (`read`), its scenarios as prompts
(`assemble`), and the streams that tell a client when the label moves.

Every POST is answered by the SDK's stateless transport (`mcp_server.http`); the session id
an `initialize` is answered with is signed, not stored (`mcp_server.sessions`), so any
worker answers any request. A GET is a handshake-era client's stream of `list_changed`
notifications, a `subscriptions/listen` POST a 2026-era client's; both are counted per key.
A server whose workers serve one request at a time (gunicorn's sync workers: the WSGI
environ's `wsgi.multithread` is false) holds no streams: a GET is a 405, no session id is
given and no list is said to change, so a client re-lists when it wants the current one.
`mcp_server.server` is imported as a module: it reads `api_schema` and `api_turn` back,
and may still be loading when this module runs.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from flask import Blueprint, Response, current_app, json, request

from webapp.mcp_server import http as mcp_http
from webapp.mcp_server import live
from webapp.mcp_server import server as mcp_server  # a module: see the docstring
from webapp.mcp_server.sessions import SESSION_HEADER, Opened, Sessions, Streams, TooMany
from webapp.schema import db
from webapp.store.api_keys import Grant
from webapp.store.labels import PRODUCTION
from webapp.views.preview import preview_models

from .access import API_KEY, requires
from .api_access import ApiError, api_key, label_of, refused, resolved
from .security import takes_api_key

bp = Blueprint("api_mcp", __name__, url_prefix="/api/v1")
bp.register_error_handler(ApiError, refused)
#: Where the app keeps its `Streams` (one count per process).
STREAMS = "skill_editor.mcp_streams"


@bp.route("/agents/<agent>/mcp", methods=["GET", "POST", "DELETE"])
@takes_api_key
@requires(API_KEY)
def mcp(agent: str) -> Response:
    """The agent's MCP server: POST a JSON-RPC request, GET the notification stream."""
    if request.method == "DELETE":  # a signed session has nothing to end
        return Response(status=405, headers={"Allow": "GET, POST"})
    label = request.args.get("label", PRODUCTION)
    grant = api_key(agent, ("read", "assemble"), label_of(label))
    told = resolved(grant, label).id  # a label that points nowhere is a 404, as for reads
    opened = _session(grant, agent, label)
    streams = bool(request.environ.get("wsgi.multithread"))
    if request.method == "GET":
        if not streams:
            return Response(status=405, headers={"Allow": "POST"})
        return _notifications(grant, agent, label, told if opened is None else opened.told)
    try:
        body = json.loads(request.get_data(cache=True) or b"null")
    except ValueError:
        body = None  # the SDK answers a parse error
    lacking = [s for s in mcp_http.scopes_for(body) if s not in grant.scopes]
    if lacking:
        raise ApiError(403, f"this key lacks the {lacking[0]!r} scope")
    if _method(body) == "subscriptions/listen" and streams:
        return _listen(grant, agent, label)
    session = db.get_session()
    published = _published(agent, label, lambda: nullcontext(session))
    server = mcp_server.build_server(published, grant.scopes,
                                     live.Watch(published) if streams else None)
    got = mcp_http.answer(server, request.method, request.path, request.query_string,
                          request.headers.items(), request.get_data(cache=True),
                          current_app.config["MAX_CONTENT_LENGTH"])
    headers = [(k, v) for k, v in got.headers if k.lower() != "content-length"]
    if _method(body) == "initialize" and got.status == 200 and streams:
        headers.append((SESSION_HEADER, _sessions().open(grant.key_id, agent, label, told)))
    return Response(bytes(got.body), got.status, headers=headers)


def _session(grant: Grant, agent: str, label: str) -> Opened | None:
    """The session the request names (None: it names none); a 404 for one this server did
    not open for this key, agent and label, as the transport answers an ended session."""
    session_id = request.headers.get(SESSION_HEADER)
    if session_id is None:
        return None
    opened = _sessions().read(session_id, grant.key_id, agent, label)
    if opened is None:
        raise ApiError(404, "no such MCP session: initialize a new one")
    return opened


def _notifications(grant: Grant, agent: str, label: str, told: int | None) -> Response:
    """A handshake-era client's stream: `list_changed` each time the label moves, from
    the snapshot the client was last told of (`Last-Event-ID`, else its session's)."""
    if "text/event-stream" not in request.headers.get("Accept", ""):
        raise ApiError(406, "the MCP stream is text/event-stream: send Accept: "
                            "text/event-stream (or POST a JSON-RPC request)")
    last = live.told_of(request.headers.get("Last-Event-ID"))
    told = told if last is False else last
    published = _published(agent, label, db.get_database().sessionmaker)
    poll, seconds = _timing()
    events = live.notifications(lambda: live.snapshot_now(published, grant.agent_id), told,
                                poll=poll, seconds=seconds)
    give_back = _take(grant)
    response = Response(events, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store"})
    response.call_on_close(give_back)
    return response


def _listen(grant: Grant, agent: str, label: str) -> Response:
    """A 2026-era client's `subscriptions/listen`: the SDK's `ListenHandler` streams what
    a `Watch` of the label publishes, for at most `MCP_STREAM_SECONDS`."""
    published = _published(agent, label, db.get_database().sessionmaker)
    watch = live.Watch(published)
    server = mcp_server.build_server(published, grant.scopes, watch)
    poll, seconds = _timing()
    give_back = _take(grant)
    try:
        got = mcp_http.stream(server, request.method, request.path, request.query_string,
                              request.headers.items(), request.get_data(cache=True),
                              current_app.config["MAX_CONTENT_LENGTH"],
                              lambda: watch.run_for(poll, seconds), seconds)
    except BaseException:
        give_back()
        raise
    headers = [(k, v) for k, v in got.headers if k.lower() != "content-length"]
    if not got.started.is_set():  # cut before it answered: a 503, the stream ended
        give_back()
        return Response(bytes(got.body), got.status, headers=headers)
    response = Response(got.chunks(keepalive=poll), got.status, headers=headers)
    response.call_on_close(got.close)
    response.call_on_close(give_back)
    return response


def _take(grant: Grant) -> Callable[[], None]:
    """Count one more stream of the key (a 429 past a bound); returns what gives it back."""
    streams: Streams = current_app.extensions.setdefault(STREAMS, Streams())
    try:
        streams.take(grant.key_id)
    except TooMany as exc:
        raise ApiError(429, str(exc), {"Retry-After": "30"}) from None
    return lambda: streams.give_back(grant.key_id)


def _timing() -> tuple[float, float]:
    """How often a stream reads its label, and how long it stays open (seconds)."""
    config = current_app.config
    return (config.get("MCP_POLL_SECONDS", live.POLL_SECONDS),
            config.get("MCP_STREAM_SECONDS", live.STREAM_SECONDS))


def _published(agent: str, label: str, session: Any) -> mcp_server.Published:
    return mcp_server.Published(agent, label, session, preview_models(current_app.config))


def _method(body: Any) -> str | None:
    return body.get("method") if isinstance(body, dict) else None


def _sessions() -> Sessions:
    return Sessions(current_app.config["SECRET_KEY"])

