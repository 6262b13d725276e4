"""The runtime API (`/api/v1`): an agent deployed elsewhere reads its published snapshots
and assembles each turn, with an API key (`Authorization: Bearer TOKEN`).

No session, no cookie, no CSRF token: the key is the credential (`access.API_KEY` lets
these routes through to `api_key`, and `security.takes_api_key` skips the CSRF check).
Every error is `application/problem+json` with a `detail`. Requests and answers are
`api_schema`'s models (the OpenAPI document is made from them), a turn is assembled by
`api_turn` with the editor's pipeline (docs/api.md); who may call is `api_access`'s.
The agent's MCP server is `api_mcp`'s (docs/mcp.md).
"""

from __future__ import annotations

from typing import Any, TypeVar

from flask import Blueprint, Response, current_app, json, request, url_for
from pydantic import BaseModel
from pydantic import ValidationError as ModelError
from spectree import Response as Answers

from webapp import store
from webapp.pipeline import Workspace, dumps_json
from webapp.schema import db, models
from webapp.store.labels import DRAFT, NUMBER
from webapp.store.publish import canonical_text, digest_of
from webapp.views.preview import preview_models

from .access import ANYONE, API_KEY, requires
from .api_access import ApiError, api_key, label_of, refused, resolved
from .api_document import openapi_document
from .api_schema import (
    SPEC,
    AssembleAnswer,
    AssembleRequest,
    LogAnswer,
    LogRequest,
    Problem,
    SkillFileList,
    SnapshotList,
)
from .api_turn import (
    UNCHECKED,
    TurnProblem,
    assemble_turn,
    entry_fields,
    expected_context,
    runtime_check,
    sent_messages,
    snapshot_workspace,
)
from .compression import keeping_etag
from .forms import json_body
from .responses import download_name
from .security import takes_api_key
from .snapshot_files import SHA256, file_bytes, file_list, folder_zip, published_skill

bp = Blueprint("api", __name__, url_prefix="/api/v1")
Body = TypeVar("Body", bound=BaseModel)

#: A numbered snapshot never changes; `private`, since it is answered to a key: a shared
#: cache would go on serving it after the key is revoked.
IMMUTABLE = "private, max-age=31536000, immutable"
#: The answer depends on the encoding asked for and on the key: no shared cache gives one
#: client's answer to another.
VARY = "Accept-Encoding, Authorization"
#: The header that names the snapshot a label or `latest` resolved to.
SNAPSHOT_HEADER = "X-Snapshot-Number"
#: The refusals each route documents, all of them problems: a read's, and a post's (whose
#: body may be too large, not JSON or not what the model says).
READ_ERRORS = {f"HTTP_{code}": Problem for code in (401, 403, 404, 429)}
POST_ERRORS = {f"HTTP_{code}": Problem for code in (401, 403, 404, 413, 415, 422, 429)}


bp.register_error_handler(ApiError, refused)


def snapshot_info(snapshot: models.PublishedSnapshot, labels: list[str]) -> dict[str, Any]:
    return {"number": snapshot.number, "digest": snapshot.digest, "note": snapshot.note,
            "published_by": snapshot.published_by, "published_at": snapshot.published_at,
            "labels": labels}


@bp.get("/agents/<agent>/snapshots")
@takes_api_key
@SPEC.validate(resp=Answers(HTTP_200=SnapshotList, **READ_ERRORS), skip_validation=True,
               tags=["snapshots"])
@requires(API_KEY)
def snapshots(agent: str) -> Response:
    """The agent's snapshots, newest first, with their labels (the `read` scope)."""
    grant = api_key(agent, "read")
    session = db.get_session()
    row = store.get_agent(session, grant.agent_id or 0)
    labels = store.labels.labels_by_snapshot(session, row)
    body = SnapshotList(agent=row.name, snapshots=[
        snapshot_info(s, labels.get(s.id, [])) for s in store.list_snapshots(session, row)])
    return Response(body.model_dump_json(), mimetype="application/json")


@bp.get("/agents/<agent>/snapshots/<ref>")
@takes_api_key
@SPEC.validate(resp=Answers("HTTP_200", "HTTP_304", **READ_ERRORS), skip_validation=True,
               tags=["snapshots"])
@requires(API_KEY)
def snapshot(agent: str, ref: str) -> Response:
    """The snapshot `ref` names (a number, a label or `latest`) as its canonical bundle,
    byte for byte; `ETag` is its digest, and `If-None-Match` answers 304."""
    _, found = read_grant(agent, ref)
    headers = snapshot_headers(ref, found)
    # Weak comparison (RFC 9110, 13.1.2): `W/"<digest>"`, as a proxy that changed the
    # encoding sends it back, names the same bundle as `"<digest>"`.
    if request.if_none_match.contains_weak(found.digest):
        response = Response(status=304, headers=headers)
        response.set_etag(found.digest)
        return response
    bundle = store.snapshot_bundle(db.get_session(), found)
    response = Response(bundle.encode("utf-8"), mimetype="application/json", headers=headers)
    return keeping_etag(response, found.digest)


@bp.get("/agents/<agent>/snapshots/<ref>/skills/<path:d_tag>/files")
@takes_api_key
@SPEC.validate(resp=Answers(HTTP_200=SkillFileList, **READ_ERRORS), skip_validation=True,
               tags=["files"])
@requires(API_KEY)
def skill_files(agent: str, ref: str, d_tag: str) -> Response:
    """The files of skill `d_tag`'s folder in snapshot `ref`, SKILL.md first, each with its
    size, sha256, mode and addresses; `ETag` is the snapshot's digest."""
    grant, found = read_grant(agent, ref)
    published = published_skill(db.get_session(), grant.agent_id or 0, found, d_tag)
    body = SkillFileList(
        agent=agent, snapshot=found.number, digest=found.digest, skill=d_tag,
        folder=published.folder, files=file_list(
            published,
            lambda path: url_for("api.skill_file", agent=agent, ref=ref, d_tag=d_tag,
                                 path=path, _external=True),
            lambda sha256: url_for("api.blob", agent=agent, sha256=sha256, _external=True)))
    response = Response(body.model_dump_json(), mimetype="application/json",
                        headers=snapshot_headers(ref, found))
    return keeping_etag(response, found.digest)


@bp.get("/agents/<agent>/snapshots/<ref>/skills/<path:d_tag>/files/<path:path>")
@takes_api_key
@SPEC.validate(resp=Answers("HTTP_200", "HTTP_304", **READ_ERRORS), skip_validation=True,
               tags=["files"])
@requires(API_KEY)
def skill_file(agent: str, ref: str, d_tag: str, path: str) -> Response:
    """One file of skill `d_tag`'s folder in snapshot `ref`, byte for byte; `ETag` is its
    sha256, `X-File-Mode` 755 or 644."""
    grant, found = read_grant(agent, ref)
    session = db.get_session()
    published = published_skill(session, grant.agent_id or 0, found, d_tag)
    data, sha256, executable = file_bytes(session, grant.agent_id or 0, published, path)
    headers = {**snapshot_headers(ref, found), "X-File-Mode": "755" if executable else "644"}
    return file_response(data, sha256, headers)


@bp.get("/agents/<agent>/blobs/<sha256>")
@takes_api_key
@SPEC.validate(resp=Answers("HTTP_200", "HTTP_304", **READ_ERRORS), skip_validation=True,
               tags=["files"])
@requires(API_KEY)
def blob(agent: str, sha256: str) -> Response:
    """The file of the agent whose sha256 is `sha256`, byte for byte: it never changes
    (`Cache-Control` immutable, `ETag` the sha256)."""
    grant = api_key(agent, "read")
    if not SHA256.fullmatch(sha256):
        raise ApiError(404, "a file is named by its sha256: 64 lowercase hexadecimal digits")
    headers = {"Cache-Control": IMMUTABLE, "Vary": VARY}
    if request.if_none_match.contains_weak(sha256):
        return file_response(b"", sha256, headers)
    return file_response(store.get_blob(db.get_session(), grant.agent_id or 0, sha256), sha256,
                         headers)


@bp.get("/agents/<agent>/snapshots/<ref>/skills/<path:d_tag>/folder.zip")
@takes_api_key
@SPEC.validate(resp=Answers("HTTP_200", **READ_ERRORS), skip_validation=True, tags=["files"])
@requires(API_KEY)
def skill_zip(agent: str, ref: str, d_tag: str) -> Response:
    """Skill `d_tag`'s folder in snapshot `ref` as a zip (`<name>/SKILL.md` and its files,
    modes kept)."""
    grant, found = read_grant(agent, ref)
    session = db.get_session()
    published = published_skill(session, grant.agent_id or 0, found, d_tag)
    snapshot = store.get_snapshot(session, grant.agent_id or 0, found.number)
    filename, data = folder_zip(session, grant.agent_id or 0, published, snapshot.published_at)
    response = Response(data, mimetype="application/zip", headers=snapshot_headers(ref, found))
    response.headers.set("Content-Disposition", "attachment", filename=download_name(filename))
    return response


def read_grant(agent: str, ref: str) -> tuple[store.api_keys.Grant, store.SnapshotRef]:
    """The `read` key's grant and the snapshot `ref` names."""
    grant = api_key(agent, "read", label_of(ref))
    return grant, resolved(grant, ref)


def snapshot_headers(ref: str, found: store.SnapshotRef) -> dict[str, str]:
    """What an answer about snapshot `ref` says of caching and of the snapshot it is."""
    numbered = store.labels.reference(ref).kind == NUMBER
    return {"Cache-Control": IMMUTABLE if numbered else "no-cache", "Vary": VARY,
            SNAPSHOT_HEADER: str(found.number)}


def file_response(data: bytes, sha256: str, headers: dict[str, str]) -> Response:
    """A file's bytes with its sha256 as `ETag`; 304 when `If-None-Match` names it."""
    if request.if_none_match.contains_weak(sha256):
        response = Response(status=304, headers=headers)
    else:
        response = Response(data, mimetype="application/octet-stream", headers=headers)
    response.set_etag(sha256)
    return response


@bp.post("/agents/<agent>/assemble")
@takes_api_key
@SPEC.validate(json=AssembleRequest, resp=Answers(HTTP_200=AssembleAnswer, **POST_ERRORS),
               skip_validation=True, tags=["assemble"])
@requires(API_KEY)
def assemble(agent: str) -> Response:
    """One turn: the snapshot's context for the posted inputs (the `assemble` scope; the
    draft needs `draft` as well)."""
    grant = api_key(agent, "assemble")  # before the body: no key is a 401, whatever is sent
    turn = read_body(AssembleRequest)
    workspace, number, digest = turn_workspace(grant, str(turn.snapshot))
    try:
        answer = assemble_turn(workspace, turn, preview_models(current_app.config))
    except TurnProblem as exc:
        raise ApiError(422, str(exc)) from None
    body = {"snapshot": number, "digest": digest, **answer}
    return Response(dumps_json(body), mimetype="application/json")


@bp.post("/agents/<agent>/log")
@takes_api_key
@SPEC.validate(json=LogRequest, resp=Answers(HTTP_201=LogAnswer, **POST_ERRORS),
               skip_validation=True, tags=["log"])
@requires(API_KEY)
def log(agent: str) -> Response:
    """What the running agent sent (the `log` scope): kept in the agent's Context log as
    `runtime`, checked against what the snapshot it names assembles from the same inputs."""
    grant = api_key(agent, "log")
    report = read_body(LogRequest)
    try:
        posted = ([m.model_dump() for m in report.messages]
                  if report.messages is not None else None)
        sent = sent_messages(report.log_entry, posted)
        check, expected = UNCHECKED, None
        if report.snapshot is not None:
            workspace, number, digest = turn_workspace(grant, str(report.snapshot))
            expected = expected_context(workspace, report)
            check = runtime_check(sent.messages, expected.messages, number, digest)
    except TurnProblem as exc:
        raise ApiError(422, str(exc)) from None
    try:
        entry = store.log_runtime(
            db.get_session(), grant.agent_id or 0, sent.messages, document=sent.document,
            summary=report.log_entry or "", check=check,
            **entry_fields(report, sent, expected),
            author=f"API key #{grant.key_id}" + (f" {grant.name}" if grant.name else ""))
    except store.ValidationError as exc:
        raise ApiError(422, str(exc)) from None
    body = LogAnswer(id=entry.id, url=url_for("log.entry", agent=agent, entry_id=entry.id,
                                              _external=True),
                     verdict=check["verdict"], snapshot=check["snapshot"], note=check["note"])
    return Response(body.model_dump_json(), status=201, mimetype="application/json")


def turn_workspace(grant: store.api_keys.Grant, ref: str) -> tuple[Workspace, int | None, str]:
    """The workspace a turn assembles from, with its snapshot's number (None for the
    draft, which needs the `draft` scope) and digest."""
    session = db.get_session()
    if store.labels.reference(ref).kind == DRAFT:
        if "draft" not in grant.scopes:
            raise ApiError(403, "this key lacks the 'draft' scope")
        workspace = store.load_workspace(session, grant.agent_id or 0)
        return workspace, None, digest_of(canonical_text(workspace))
    found = resolved(grant, ref)
    return (snapshot_workspace(found.digest, lambda: store.snapshot_bundle(session, found)),
            found.number, found.digest)


@bp.get("/openapi.json")
@requires(ANYONE)
def openapi() -> Response:
    """The OpenAPI 3.1 document, made from the models the routes validate with."""
    return Response(json.dumps(openapi_document(SPEC.spec)), mimetype="application/json")


def read_body(model: type[Body]) -> Body:
    """The posted body as `model`: a 415 unless JSON, a 422 naming what is wrong."""
    if not request.is_json:
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    data = json_body(request.get_data(cache=True))
    where = store.surrogate_path(data)
    if where is not None:
        raise ApiError(422, f"{where or 'body'}: {store.SURROGATE_MESSAGE}")
    try:
        return model.model_validate(data)
    except ModelError as exc:
        raise ApiError(422, _reasons(exc)) from None


def _reasons(exc: ModelError) -> str:
    """The first few validation errors, each `where: why`, without the values sent."""
    reasons = []
    for error in exc.errors(include_input=False, include_url=False)[:5]:
        where = ".".join(str(part)[:80] for part in error["loc"]) or "body"
        reasons.append(f"{where}: {error['msg']}")
    return "; ".join(reasons)

