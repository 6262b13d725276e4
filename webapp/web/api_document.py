"""The OpenAPI 3.1 document the runtime API serves: spectree's, made from the very models
the routes validate with (`api_schema`), completed with what spectree cannot say, so
that the document is the contract a third-party tool checks the server against: errors
are `application/problem+json`, the headers each answer sends (and `If-None-Match`), the
snapshot's body (a bundle) and a `webhooks` section for every event with its payload and
signature headers (docs/api.md).
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic.json_schema import models_json_schema

from webapp.pipeline import bundle_schema

from .api_schema import WEBHOOK_EVENTS
from .problems import PROBLEM_TYPE

SNAPSHOT_PATH = "/api/v1/agents/{agent}/snapshots/{ref}"
JSON = "application/json"
_TEXT = {"type": "string"}

#: The headers of an answer to a snapshot (`api.snapshot`): 200 and 304 alike.
SNAPSHOT_HEADERS = {
    "ETag": {"description": "`\"<digest>\"`: the sha256 of the bundle (the body once "
                            "decoded), whatever the encoding", "schema": _TEXT},
    "X-Snapshot-Number": {"description": "the snapshot's number (what a label or `latest` "
                                         "resolved to)", "schema": {"type": "integer"}},
    "Cache-Control": {"description": "a number: `private, max-age=31536000, immutable`; a "
                                     "label or `latest`: `no-cache`", "schema": _TEXT},
    "Vary": {"description": "`Accept-Encoding, Authorization`", "schema": _TEXT},
}
#: The headers of the refusals that send one.
ERROR_HEADERS = {
    "401": {"WWW-Authenticate": {"description": "`Bearer realm=\"skill-editor\"`",
                                 "schema": _TEXT}},
    "429": {"Retry-After": {"description": "seconds until a wrong key may be tried again",
                            "schema": {"type": "integer", "minimum": 1}}},
}
IF_NONE_MATCH = {
    "name": "If-None-Match", "in": "header", "required": False, "schema": _TEXT,
    "description": "the ETag of the copy held (strong or weak, `*`): a 304 while it is "
                   "still the snapshot `ref` gives"}
#: A snapshot's body: a bundle, as the reader that imports one allows it
#: (`pipeline.bundle_schema`, docs/bundle.md).
BUNDLE = {key: value for key, value in bundle_schema().items() if key != "$schema"}
#: The Standard Webhooks headers every message is signed with.
SIGNATURE_HEADERS = [
    {"name": "webhook-id", "in": "header", "required": True, "schema": _TEXT,
     "description": "`msg_…`, the same on every try of a message: drop a repeat"},
    {"name": "webhook-timestamp", "in": "header", "required": True, "schema": _TEXT,
     "description": "seconds since the epoch when the try was signed"},
    {"name": "webhook-signature", "in": "header", "required": True, "schema": _TEXT,
     "description": "`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the "
                    "webhook's secret"},
]


def openapi_document(spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` (spectree's document) completed: a new dict, `spec` is left as it is."""
    document = copy.deepcopy(spec)
    for operations in document["paths"].values():
        for operation in operations.values():
            for status, answer in operation["responses"].items():
                if int(status) >= 400:
                    answer["content"] = {PROBLEM_TYPE: answer["content"][JSON]}
                    if status in ERROR_HEADERS:
                        answer["headers"] = ERROR_HEADERS[status]
    snapshot = document["paths"][SNAPSHOT_PATH]["get"]
    snapshot["parameters"].append(IF_NONE_MATCH)
    snapshot["responses"]["200"].update(content={JSON: {"schema": BUNDLE}},
                                        headers=SNAPSHOT_HEADERS)
    snapshot["responses"]["304"]["headers"] = SNAPSHOT_HEADERS
    _, schemas = models_json_schema([(model, "validation") for model in WEBHOOK_EVENTS.values()],
                                    ref_template="#/components/schemas/{model}")
    document["components"]["schemas"].update(schemas["$defs"])
    document["webhooks"] = {event: {"post": {
        "summary": model.__doc__,
        "parameters": SIGNATURE_HEADERS,
        "requestBody": {"required": True, "content": {JSON: {
            "schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}},
        "responses": {"2XX": {"description": "received: any other answer is tried again"}},
    }} for event, model in WEBHOOK_EVENTS.items()}
    return document
