"""Webhooks against a receiver the test starts on 127.0.0.1: the outbox written with the
publish (and not when it rolls back), Standard Webhooks signatures, retries, two workers
delivering each message once, addresses refused, the commands."""

from __future__ import annotations

import re
import socket
import threading
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from tests.support.receiver import receiver, trickling_receiver
from webapp import store
from webapp.cli import main
from webapp.outbound import ALLOW_PRIVATE, delivery
from webapp.schema import api_models
from webapp.schema.models import utcnow
from webapp.store.webhooks import RETRIES, url_problem
from webapp.web.api_schema import WEBHOOK_EVENTS, SnapshotInfo


@pytest.fixture
def allow_private(monkeypatch):
    """This instance may reach 127.0.0.1, where the tests' receivers listen."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")


@pytest.fixture
def agent(session) -> str:
    """An agent `demo` with one skill, not yet published."""
    store.create_agent(session, "demo")
    store.create_skill(session, "demo", "chat", triggers=["dm"], content="Be kind.\n")
    return "demo"


def messages(session) -> list[api_models.WebhookMessage]:
    return list(session.scalars(select(api_models.WebhookMessage)
                                .order_by(api_models.WebhookMessage.id)))


def drain(session_factory, now=None) -> int:
    """Deliver until nothing is due at `now`; returns the tries made."""
    tried = 0
    while done := delivery.deliver_due(session_factory, now):
        tried += done
    return tried


@pytest.mark.parametrize(("url", "refused"), [
    ("https://hooks.example.com/skill-editor", None),
    ("http://93.184.215.14:8080/x?y=1", None),
    ("ftp://hooks.example.com/", "must start with http"),
    ("https:///nohost", "must start with http"),
    ("https://user:pw@hooks.example.com/", "user name or password"),
    ("http://127.0.0.1:9000/", "not a public address"),
    ("http://10.1.2.3/", "not a public address"),
    ("http://169.254.169.254/latest/meta-data", "not a public address"),
    ("http://[::1]/", "not a public address"),
    ("http://127.1/", "not a public address"),
    ("http://0x7f.0.0.1/", "not a public address"),
    ("http://2130706433/", "not a public address"),
    ("http://cafe.example/", None),
    ("http://[::ffff:192.168.0.1]/", "not a public address"),
    ("http://localhost:5000/", "not a public host"),
    ("http://printer.local/", "not a public host"),
    ("https://hooks.example.com/a b", "no spaces"),
    ("https://hooks.example.com:99999/", "is not a URL"),
    ("https://" + "a" * 2000 + ".com/", "at most 2000"),
])
def test_a_url_must_be_http_to_a_public_host(url, refused):
    problem = url_problem(url)
    assert (problem is None) if refused is None else (refused in problem)


def test_private_addresses_are_allowed_only_when_the_instance_says_so(allow_private):
    assert url_problem("http://127.0.0.1:9000/") is None
    assert url_problem("http://localhost:5000/") is None


def test_adding_a_webhook_shows_its_secret_once_and_keeps_the_rules(session, agent):
    made = store.webhooks.add_webhook(session, agent, "https://hooks.example.com/in")
    assert made.secret.startswith("whsec_")
    assert made.webhook.events == "snapshot.published label.moved"
    with pytest.raises(store.ValidationError, match="not a public address"):
        store.webhooks.add_webhook(session, agent, "http://192.168.1.1/")
    with pytest.raises(store.ValidationError, match="choose events"):
        store.webhooks.add_webhook(session, agent, "https://hooks.example.com/", ["deleted"])
    with pytest.raises(store.NotFound):
        store.webhooks.add_webhook(session, "nobody", "https://hooks.example.com/")


def test_a_publish_writes_its_events_in_its_own_transaction(session, agent, allow_private):
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/all")
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/moves", ["label.moved"])
    paused = store.webhooks.add_webhook(session, agent, "https://hooks.example.com/paused")
    store.webhooks.set_active(session, agent, paused.webhook.id, False)
    store.publish(session, agent, "first", 0)
    sent = [(m.webhook_id, m.event) for m in messages(session)]
    assert sorted(sent) == [(1, "label.moved"), (1, "snapshot.published"), (2, "label.moved")]
    published = next(m for m in messages(session) if m.event == "snapshot.published")
    data = published.payload["data"]
    assert published.payload["type"] == "snapshot.published"
    assert data["agent"] == "demo" and data["label"] == "production"
    assert data["snapshot"]["number"] == 1 and len(data["snapshot"]["digest"]) == 64
    assert data["snapshot"]["note"] == "first" and data["previous"] is None
    assert data["skills_changed"] == ["chat"]


def test_the_snapshot_is_announced_before_its_label_moves(session, agent):
    """`snapshot.published` comes first in the outbox, and the worker takes it first."""
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/all")
    store.publish(session, agent, "first", 0)
    assert [m.event for m in messages(session)] == ["snapshot.published", "label.moved"]
    taken = store.webhooks.claim(session)
    assert [d.payload["type"] for d in taken] == ["snapshot.published", "label.moved"]


def test_webhook_times_are_written_as_the_api_writes_them(session, agent):
    """ISO 8601 in UTC ending `Z`, as the runtime API's `published_at` (pydantic's JSON)."""
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/all")
    snapshot = store.publish(session, agent, "first", 0)
    payload = messages(session)[0].payload
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", payload["timestamp"])
    api = SnapshotInfo(number=1, digest=snapshot.digest, note="", published_by=None,
                       published_at=snapshot.published_at, labels=[])
    assert payload["data"]["snapshot"]["published_at"] == api.model_dump(mode="json")[
        "published_at"]
    assert payload["data"]["snapshot"]["published_at"].endswith("Z")


def test_every_payload_is_what_the_document_says(session, agent):
    """The document's `webhooks` are made from `WEBHOOK_EVENTS`: each payload written
    (a publish, a rollback, a test) is valid against its model, with no field unknown."""
    made = store.webhooks.add_webhook(session, agent, "https://hooks.example.com/all")
    store.publish(session, agent, "first", 0)
    store.create_skill(session, agent, "more", triggers=["dm"], content="More.\n")
    store.publish(session, agent, "second", 1)
    store.move_label(session, agent, "production", 1)
    store.webhooks.send_test(session, agent, made.webhook.id)
    payloads = [m.payload for m in messages(session)]
    assert {p["type"] for p in payloads} == set(WEBHOOK_EVENTS)
    for payload in payloads:
        WEBHOOK_EVENTS[payload["type"]].model_validate(payload)


def test_a_publish_that_rolls_back_sends_nothing(session, agent):
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/all")
    store.publish(session, agent, "first", 0)
    before = len(messages(session))
    with pytest.raises(store.PublishConflict):
        store.publish(session, agent, "stale", 0)  # the reviewer saw no snapshot: a conflict
    with pytest.raises(store.ValidationError):
        store.publish(session, agent, "same", 1)  # nothing changed since #1
    assert len(messages(session)) == before


def test_a_rollback_moves_the_label_and_says_where_it_was(session, agent):
    store.publish(session, agent, "first", 0)
    chat = store.get_skill(session, agent, "chat")
    store.save_skill(session, agent, "chat", expected_version=chat.version, content="Be brief.\n")
    store.publish(session, agent, "second", 1)
    store.webhooks.add_webhook(session, agent, "https://hooks.example.com/moves", ["label.moved"])
    store.move_label(session, agent, "production", 1)
    moved = messages(session)[-1].payload["data"]
    assert moved["label"] == "production" and moved["snapshot"]["number"] == 1
    assert moved["previous"]["number"] == 2


def test_the_receiver_verifies_the_signature(session, session_factory, agent, allow_private):
    with receiver() as got:
        made = store.webhooks.add_webhook(session, agent, got.url)
        store.publish(session, agent, "first", 0)
        assert drain(session_factory) == 2
    assert len(got.requests) == 2
    for headers, body in got.requests:
        payload = Webhook(made.secret).verify(body, headers)
        assert payload["data"]["agent"] == "demo"
        assert headers["webhook-id"].startswith("msg_")
    with pytest.raises(Exception, match="signature"):
        Webhook("whsec_" + "A" * 32).verify(got.requests[0][1], got.requests[0][0])
    assert {m.status for m in messages(session)} == {"delivered"}


def test_a_receiver_that_fails_twice_gets_the_third_try(session, session_factory, agent,
                                                          allow_private):
    with receiver(answers=[500, 503]) as got:
        store.webhooks.add_webhook(session, agent, got.url, ["snapshot.published"])
        store.publish(session, agent, "first", 0)
        now = utcnow()
        assert drain(session_factory, now) == 1  # the first try; the next is due in 5 s
        assert drain(session_factory, now + RETRIES[0]) == 1
        assert drain(session_factory, now + RETRIES[0] + timedelta(seconds=1)) == 0
        assert drain(session_factory, now + RETRIES[0] + RETRIES[1]) == 1
    ids = {headers["webhook-id"] for headers, _ in got.requests}
    assert len(got.requests) == 3 and len(ids) == 1  # the same message, tried three times
    session.expire_all()
    [message] = messages(session)
    assert message.status == "delivered" and message.tries == 3
    codes = [t.status_code for _, tries in store.webhooks.messages_of(
        session, store.webhooks.get_webhook(session, agent, message.webhook_id)) for t in tries]
    assert codes == [500, 503, 200]


def test_a_message_is_failed_for_good_after_the_last_retry(session, session_factory, agent,
                                                            allow_private):
    with receiver(then=500) as got:
        store.webhooks.add_webhook(session, agent, got.url, ["snapshot.published"])
        store.publish(session, agent, "first", 0)
        now = utcnow()
        for wait in (timedelta(0), *RETRIES):
            now += wait
            assert drain(session_factory, now) == 1
        assert drain(session_factory, now + timedelta(days=2)) == 0
    session.expire_all()
    assert [(m.status, m.tries) for m in messages(session)] == [("failed", len(RETRIES) + 1)]
    store.webhooks.redeliver(session, agent, messages(session)[0].id)
    with receiver() as again:
        hook = session.scalars(select(api_models.Webhook)).one()
        hook.url = again.url
        session.commit()
        assert drain(session_factory) == 1
    assert len(again.requests) == 1


@pytest.mark.postgres
def test_two_workers_deliver_each_message_once(postgres_url, allow_private):
    from webapp.schema import db

    engine = db.make_engine(postgres_url)
    db.upgrade(engine)
    sessions = db.make_sessionmaker(engine)
    try:
        with receiver() as got, sessions() as session:
            store.create_agent(session, "demo")
            for _ in range(3):
                store.webhooks.add_webhook(session, "demo", got.url)
            for n in range(10):
                store.create_skill(session, "demo", f"s{n}", triggers=["dm"], content=f"{n}\n")
                store.publish(session, "demo", f"#{n + 1}", n)
            start = threading.Barrier(2)
            tries = [0, 0]

            def work(index: int) -> None:
                start.wait()
                tries[index] = drain(sessions)

            workers = [threading.Thread(target=work, args=(i,)) for i in range(2)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(timeout=60)
        ids = [headers["webhook-id"] for headers, _ in got.requests]
        assert len(ids) == 60 and len(set(ids)) == 60 and sum(tries) == 60
    finally:
        engine.dispose()


def test_a_private_address_is_refused_when_it_is_tried(session, session_factory, agent,
                                                        monkeypatch):
    with receiver() as got:
        monkeypatch.setenv(ALLOW_PRIVATE, "1")
        store.webhooks.add_webhook(session, agent, got.url, ["snapshot.published"])
        monkeypatch.delenv(ALLOW_PRIVATE)  # the instance no longer allows it
        store.publish(session, agent, "first", 0)
        assert drain(session_factory) == 1
    assert got.requests == []
    [(message, [attempt])] = store.webhooks.messages_of(
        session, session.scalars(select(api_models.Webhook)).one())
    assert attempt.status_code is None and "not a public address" in attempt.detail


def test_a_receiver_that_never_answers_is_given_up_on(session, session_factory, agent,
                                                       allow_private, monkeypatch):

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    monkeypatch.setattr(delivery, "TIMEOUT_SECONDS", 0.2)
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        store.webhooks.add_webhook(session, agent, url, ["snapshot.published"])
        store.publish(session, agent, "first", 0)
        assert drain(session_factory) == 1
    finally:
        listener.close()
    [(message, [attempt])] = store.webhooks.messages_of(
        session, session.scalars(select(api_models.Webhook)).one())
    assert attempt.status_code is None and "no answer within 0.2 s" in attempt.detail
    assert message.status == "pending"


def test_send_test_event_reaches_one_webhook(session, session_factory, agent, allow_private):
    with receiver() as got:
        made = store.webhooks.add_webhook(session, agent, got.url, ["label.moved"])
        store.webhooks.send_test(session, agent, made.webhook.id)
        assert drain(session_factory) == 1
    payload = Webhook(made.secret).verify(got.requests[0][1], got.requests[0][0])
    assert payload["type"] == "webhook.test" and payload["data"]["agent"] == "demo"


def test_the_commands(database_url, allow_private):
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(main, [*args, "--database-url", database_url])

    assert run("db", "upgrade").exit_code == 0
    from webapp.schema import db

    with db.session_scope(database_url) as session:
        store.create_agent(session, "demo")
        store.create_skill(session, "demo", "chat", triggers=["dm"], content="Hi.\n")
    with receiver() as got:
        added = run("webhook", "add", "--agent", "demo", "--url", got.url)
        assert added.exit_code == 0, added.output
        secret = added.stdout.splitlines()[-1]
        assert added.stdout == secret + "\n" and secret.startswith("whsec_")
        assert got.url in run("webhook", "list", "--agent", "demo").stdout
        tested = run("webhook", "test", "1")  # the id names the webhook: no --agent needed
        assert tested.exit_code == 0, tested.output
        msg_id = tested.stderr.split()[-1]
        assert msg_id.startswith("msg_")
        worked = run("worker", "--once")
        assert worked.exit_code == 0 and "1 try" in worked.stderr
        log = run("webhook", "deliveries", "1")
        assert "webhook.test" in log.stdout and "delivered" in log.stdout and " 200 " in log.stdout
        assert msg_id in log.stdout
        again = run("webhook", "redeliver", msg_id)  # the id deliveries shows
        assert again.exit_code == 0 and f"queued {msg_id} again" in again.stderr
        assert "1 try" in run("worker", "--once").stderr
        assert run("webhook", "redeliver", "#1", "--agent", "demo").exit_code == 0
        assert "1 try" in run("worker", "--once").stderr
        assert len(got.requests) == 3
        assert {request[0]["webhook-id"] for request in got.requests} == {msg_id}
    missing = run("webhook", "redeliver", "msg_nope")
    assert missing.exit_code == 1 and "no webhook message 'msg_nope'" in missing.stderr
    assert run("webhook", "redeliver", "x").exit_code == 2
    with db.session_scope(database_url) as session:
        store.create_agent(session, "other")
    mismatched = run("webhook", "test", "1", "--agent", "other")
    assert mismatched.exit_code == 1 and "no webhook #1 of agent 'other'" in mismatched.stderr
    refused = run("webhook", "add", "--agent", "demo", "--url", "ftp://x/")
    assert refused.exit_code == 1 and "must start with http" in refused.stderr
    assert run("webhook", "add", "--agent", "nobody", "--url", "https://a.example/").exit_code == 1
    assert run("webhook", "remove", "1", "--agent", "demo").exit_code == 0
    assert run("webhook", "remove", "1", "--agent", "demo").exit_code == 1


def test_a_receiver_that_answers_a_byte_at_a_time_is_cut_at_the_deadline(allow_private,
                                                                          monkeypatch):
    """One deadline covers the whole try: a receiver that starts its answer and then sends
    a byte every 0.1 s (each byte renewing a socket's timeout) is cut when it passes, and
    the try says so. What the receiver got to send is counted, not timed."""
    monkeypatch.setattr(delivery, "TIMEOUT_SECONDS", 0.5)
    with trickling_receiver(count=60, pace=0.1) as slow:  # 6 s, were the try never cut
        status, detail = delivery.post(store.webhooks.Delivery(
            1, "msg_1", slow.url, "whsec_" + "A" * 32, {"type": "x"}), utcnow())
    assert status is None and "no answer within 0.5 s" in detail
    assert slow.sent < 60  # the try hung up before the receiver was done
