"""The OpenAPI document is the contract, checked by tools nobody here wrote: schemathesis
(every check, a fixed seed, a bounded number of examples) runs against the app served on
127.0.0.1 and finds nothing; and the document says what the server does (the problem
content type, every status, the headers, strict types, the webhooks)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import serve
from webapp import store
from webapp.store.webhooks import EVENTS, TEST_EVENT

DOCUMENT = "/api/v1/openapi.json"
ASSEMBLE = "/api/v1/agents/Simon/assemble"
LOG = "/api/v1/agents/Simon/log"
SCHEMATHESIS = Path(sys.executable).parent / "st"
#: The test data schemathesis cannot make (an agent with a published snapshot), and the
#: statuses a schema-valid request may get: 422 too, since the names a turn uses are
#: checked against the snapshot's and a log entry against the context log's format (data,
#: not shape, which no schema can state).
CONFIG = """\
[parameters]
agent = "Simon"
ref = "production"

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "304", "401", "403", "404", "422", "429"]
"""


@pytest.fixture
def server(app, published, monkeypatch) -> Iterator[str]:
    """The app with Simon published, served on 127.0.0.1. Wrong keys are not throttled
    here: schemathesis sends hundreds from one address, each to see a 401 (the throttle
    has its own tests, `test_endpoints.py`)."""
    monkeypatch.setattr(store.throttling, "FREE_FAILURES", 1_000_000)
    yield from serve(app)


def test_schemathesis_finds_nothing(server, token, tmp_path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    key = token("read", "assemble", "log", "draft")["Authorization"]
    result = subprocess.run(
        [str(SCHEMATHESIS), "--config-file", str(config), "run", server + DOCUMENT,
         "--checks", "all", "--seed", "1", "--max-examples", "25", "--workers", "1",
         "--header", f"Authorization: {key}"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "4 operations" in result.stdout or "Tested: 4" in result.stdout


def test_the_document_says_what_the_server_sends(client):
    document = client.get(DOCUMENT).get_json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            wanted = {"401", "403", "404", "429"} | (
                {"413", "415", "422"} if method == "post" else set())
            assert wanted <= answers.keys(), (path, method)
            for status, answer in answers.items():
                if int(status) >= 400:
                    assert list(answer["content"]) == ["application/problem+json"]
            assert answers["401"]["headers"].keys() == {"WWW-Authenticate"}
            assert answers["429"]["headers"].keys() == {"Retry-After"}
    snapshot = document["paths"]["/api/v1/agents/{agent}/snapshots/{ref}"]["get"]
    assert "If-None-Match" in [p["name"] for p in snapshot["parameters"]]
    for status in ("200", "304"):
        assert {"ETag", "X-Snapshot-Number", "Cache-Control", "Vary"} <= snapshot[
            "responses"][status]["headers"].keys()
    assert snapshot["responses"]["200"]["content"]["application/json"]["schema"][
        "required"][0] == "format"
    schemas = document["components"]["schemas"]
    assert schemas["AssembleRequest"]["properties"]["scenario"]["anyOf"][0]["minLength"] == 1
    assert schemas["LogRequest"]["oneOf"] == [{"required": ["log_entry"]},
                                              {"required": ["messages"]}]


def test_every_webhook_event_is_in_the_document(client):
    webhooks = client.get(DOCUMENT).get_json()["webhooks"]
    assert webhooks.keys() == {*EVENTS, TEST_EVENT}
    for event in webhooks.values():
        names = {p["name"] for p in event["post"]["parameters"]}
        assert names == {"webhook-id", "webhook-timestamp", "webhook-signature"}


@pytest.mark.parametrize(("path", "body", "field"), [
    (ASSEMBLE, {"snapshot": True}, "snapshot"),
    (ASSEMBLE, {"snapshot": 1.0}, "snapshot"),
    (ASSEMBLE, {"history": [{"role": "user", "content": "x", "created_at": False}]},
     "history.0.created_at"),
    (ASSEMBLE, {"message": 12}, "message"),
    (ASSEMBLE, {"scenario": ""}, "scenario"),
    (LOG, {"snapshot": "production"}, "send either log_entry or messages"),
    (LOG, {"log_entry": None, "messages": []}, "log_entry"),
])
def test_types_are_strict_as_the_document_says(client, published, token, path, body, field):
    response = client.post(path, json=body, headers=token("assemble", "log"))
    assert response.status_code == 422 and field in response.get_json()["detail"]
