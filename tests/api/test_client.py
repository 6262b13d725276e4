"""The Python client (`client/`, `skill_editor_client`) against a live server: a label's
snapshot cached by its ETag and revalidated, served from the cache while the server is
down, turns and reports, API errors, and webhooks that drop the cache."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from skill_editor_client import ApiError, Client
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.support.server import serve
from tests.support.waiting import wait_until
from webapp import store
from webapp.schema import db

SECRET = "whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY"


class Counting(httpx.HTTPTransport):
    """A real HTTP transport that keeps the status of each answer it got."""

    def __init__(self) -> None:
        super().__init__()
        self.statuses: list[int] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.statuses.append(response.status_code)
        return response


@pytest.fixture
def server(app, published) -> Iterator[str]:
    yield from serve(app)


@pytest.fixture
def client(server, token) -> Iterator[tuple[Client, Counting]]:
    key = token("read", "assemble", "log")["Authorization"].removeprefix("Bearer ")
    transport = Counting()
    with Client(server, "Simon", key, fresh_for=3600, transport=transport,
                webhook_secret=SECRET) as made:
        yield made, transport


def move_production(app, number: int) -> None:
    with app.app_context():
        store.move_label(db.get_session(), "Simon", "production", number)


def test_a_fresh_snapshot_is_served_from_the_cache(client):
    made, transport = client
    production = made.snapshot()
    assert production.number == 2 and not production.stale
    assert production.digest == hashlib.sha256(production.text.encode()).hexdigest()
    assert production.bundle["format"].startswith("skill-workspace/")
    assert made.snapshot() is production and transport.statuses == [200]


def test_a_refresh_revalidates_with_the_etag(app, client):
    made, transport = client
    production = made.snapshot()
    assert made.refresh() is production and transport.statuses == [200, 304]
    move_production(app, 1)
    assert made.refresh().number == 1 and transport.statuses == [200, 304, 200]
    assert made.snapshot("1").number == 1 and made.snapshot("latest").number == 2


def test_a_stale_copy_is_answered_while_it_is_revalidated(app, client):
    made, transport = client
    made.snapshot()
    made.fresh_for = 0
    move_production(app, 1)
    assert made.snapshot().number == 2  # at once, from the cache; asked in the background
    wait_until(lambda: made.snapshot().number == 1, "the background revalidation")
    assert 200 in transport.statuses[1:]


def test_the_cached_copy_is_served_while_the_server_is_down(app, published, token):
    key = token("read")["Authorization"].removeprefix("Bearer ")
    running = serve(app)
    url = next(running)
    with Client(url, "Simon", key, fresh_for=0) as made:
        production = made.snapshot()
        running.close()  # the server stops
        down = made.refresh()
        assert down.stale and down.number == production.number and down.text == production.text
        with pytest.raises(httpx.TransportError):
            made.snapshot("1")  # nothing cached for it: the error is the caller's


def test_a_turn_is_assembled_and_its_report_checked(client):
    made, _ = client
    turn = {"snapshot": "production", "message": "Who mentioned me?"}
    answer = made.assemble(**turn)
    assert answer["snapshot"] == 2 and answer["messages"] and "log_entry" not in answer
    assert made.report(**turn, messages=answer["messages"])["verdict"] == "matches"
    logged = made.assemble(**turn, include=["log_entry"])
    assert "messages" not in logged
    report = made.report(**turn, log_entry=logged["log_entry"])
    assert report["verdict"] == "matches" and report["snapshot"] == 2


def test_a_refusal_is_an_api_error_with_the_problem(client, server, token):
    made, _ = client
    with pytest.raises(ApiError) as refused:
        made.assemble(tool_results={"agent_identty": {"success": True}})
    assert refused.value.status == 422 and "agent_identity" in refused.value.detail
    with Client(server, "Simon", "sk_wrong") as stranger, pytest.raises(ApiError) as denied:
        stranger.snapshot()
    assert denied.value.status == 401


def test_a_publish_webhook_drops_the_cache(app, client):
    made, transport = client
    made.snapshot()
    move_production(app, 1)
    assert made.snapshot().number == 2  # fresh for an hour: the move is not seen
    payload = json.dumps({"type": "label.moved", "timestamp": "2026-12-07T00:00:00Z",
                          "data": {"agent": "Simon", "label": "production", "snapshot": 1}})
    headers = signed(payload, "msg_1")
    assert made.verify_webhook(payload, headers)["type"] == "label.moved"
    assert made.snapshot().number == 1 and transport.statuses == [200, 200]


def test_a_webhook_of_another_agent_or_a_bad_signature_keeps_the_cache(client):
    made, transport = client
    made.snapshot()
    other = json.dumps({"type": "snapshot.published", "data": {"agent": "Other"}})
    made.verify_webhook(other, signed(other, "msg_2"))
    with pytest.raises(WebhookVerificationError):
        made.verify_webhook(other.replace("Other", "Simon"), signed(other, "msg_3"))
    assert made.snapshot().number == 2 and transport.statuses == [200]


def signed(payload: str, msg_id: str) -> dict[str, str]:
    """The headers the server's delivery sends with `payload` (`webapp.outbound.delivery`)."""
    now = datetime.now(UTC)
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(SECRET).sign(msg_id, now, payload)}
