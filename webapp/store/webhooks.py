"""Webhooks: URLs told of an agent's publishes and label moves, signed as Standard Webhooks.

An event is written to the outbox (`WebhookMessage`, one row per subscribed webhook) in
the transaction of the change it tells of (`enqueue`, called by `publish` and
`labels.point_at`): a publish never loses its event, and one rolled back sends nothing.
A worker (`webapp.outbound.delivery`) takes due messages with `claim`, posts them and writes each
try with `record_try`: delivered on a 2xx, else tried again after each of `RETRIES`, then
failed for good. `claim` locks the rows it takes with `FOR UPDATE SKIP LOCKED` on
PostgreSQL (SQLite has one writer at a time) and pushes their `due_at` past a try's
longest time (`LEASE`), so two workers never take the same message.

URLs are http(s) to public addresses (`url_problem`): a private, loopback, link-local or
otherwise non-public host is refused, as the name is given and again when it is resolved
for each try (`address_problem`), unless the instance allows private addresses
(`SKILL_EDITOR_WEBHOOK_ALLOW_PRIVATE=1`). The secret (`whsec_` and 24 random bytes in
base64) is shown once; it is kept as it is, since it must sign.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from pydantic import TypeAdapter
from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.outbound import address_problem, numeric_host, private_allowed
from webapp.pipeline import excerpt, parse_json
from webapp.schema import api_models, models
from webapp.schema.models import utcnow

from . import rules
from .activity import record
from .actor import current_actor
from .agents import AgentRef, get_agent
from .changes import skill_items_changed
from .errors import NotFound, ValidationError
from .transactions import change, rows

#: What a webhook may be told of.
EVENTS = ("snapshot.published", "label.moved")
#: The event **Send test event** sends (to one webhook, whatever its events).
TEST_EVENT = "webhook.test"
#: The waits before each try after the first: then the message has failed for good.
RETRIES = tuple(timedelta(seconds=s) for s in (5, 30, 120, 600, 3600, 6 * 3600, 12 * 3600))
#: How long one try may take (the receiver's answer included).
TIMEOUT_SECONDS = 10
#: A claimed message is due again after this if its worker never wrote its try (it died).
LEASE = timedelta(seconds=6 * TIMEOUT_SECONDS)
PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


@dataclass(frozen=True, slots=True)
class NewWebhook:
    """A webhook just added, and its secret: the only time the secret is shown."""

    webhook: api_models.Webhook
    secret: str


@dataclass(frozen=True, slots=True)
class Delivery:
    """A claimed message, with what its try needs (read in the claiming transaction)."""

    message_id: int
    msg_id: str
    url: str
    secret: str
    payload: dict[str, Any]


#: How the runtime API writes a time (pydantic's JSON of an aware datetime: ISO 8601 in
#: UTC, ending `Z`); a webhook's times are written the same way.
_TIME = TypeAdapter(datetime)


def api_time(moment: datetime) -> str:
    """`moment` as the runtime API writes a time: `2026-12-06T21:57:59.586655Z`."""
    return _TIME.dump_python(moment.astimezone(UTC), mode="json")


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a webhook's (None: it can): http(s), a host, no credentials,
    and a host that is not named as a non-public address."""
    if len(url) > api_models.URL_LENGTH or not url.isascii() or any(c.isspace() for c in url):
        return f"must be an http(s) URL of at most {api_models.URL_LENGTH} characters, no spaces"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port out of range raises here)
    except ValueError:
        return "is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must start with http:// or https:// and name a host"
    if parts.username or parts.password:
        return "must not hold a user name or password"
    host = parts.hostname
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return None if private_allowed() else f"{host} is not a public host"
    try:
        return address_problem(numeric_host(host))
    except ValueError:
        return None  # a name: checked again when it is resolved for each try


def list_webhooks(session: Session, agent: AgentRef) -> list[api_models.Webhook]:
    """The agent's webhooks, oldest first."""
    row = get_agent(session, agent)
    return list(session.scalars(select(api_models.Webhook).where(
        api_models.Webhook.agent_id == row.id).order_by(api_models.Webhook.id)))


def get_webhook(session: Session, agent: AgentRef | None, webhook_id: int
                ) -> api_models.Webhook:
    """Webhook `webhook_id` of the agent (None: of whichever agent has it, as a webhook's
    id names one across agents); raises `NotFound`, also for an agent in the trash."""
    query = rows(api_models.Webhook).where(api_models.Webhook.id == webhook_id)
    if agent is None:
        query = query.join(models.Agent, models.Agent.id == api_models.Webhook.agent_id).where(
            models.Agent.deleted_at.is_(None))
        whose = ""
    else:
        row = get_agent(session, agent)
        query = query.where(api_models.Webhook.agent_id == row.id)
        whose = f" of agent {row.name!r}"
    webhook = session.scalar(query)
    if webhook is None:
        raise NotFound(f"no webhook #{webhook_id}{whose}")
    return webhook


def _owner(session: Session, webhook: api_models.Webhook) -> models.Agent:
    return get_agent(session, webhook.agent_id)


@change
def add_webhook(session: Session, agent: AgentRef, url: str,
                events: list[str] | tuple[str, ...] = EVENTS) -> NewWebhook:
    """Tell `url` of the agent's `events`, by `current_actor()`; its secret is made here.

    Raises `ValidationError` (a URL `url_problem` refuses, no event or an unknown one) and
    `NotFound` (no such agent).
    """
    row = get_agent(session, agent)
    url = url.strip()
    problems = []
    problem = url_problem(url)
    if problem:
        problems.append(("url", f"The URL {excerpt(url)} {problem}."))
    unknown = [event for event in events if event not in EVENTS]
    if not events or unknown:
        problems.append(("events", f"choose events among {', '.join(EVENTS)}"))
    if problems:
        raise ValidationError(problems)
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")
    webhook = api_models.Webhook(
        agent_id=row.id, url=url, events=" ".join(e for e in EVENTS if e in events),
        secret=secret, active=True, created_by=current_actor(), created_at=utcnow())
    session.add(webhook)
    session.flush()
    record(session, row, "webhook.add", f"#{webhook.id}", _host(url))
    return NewWebhook(webhook, secret)


@change
def remove_webhook(session: Session, agent: AgentRef | None, webhook_id: int
                   ) -> api_models.Webhook:
    """Remove a webhook (of the agent; None: of any), with its messages and their tries;
    raises `NotFound`."""
    webhook = get_webhook(session, agent, webhook_id)
    record(session, _owner(session, webhook), "webhook.remove", f"#{webhook.id}",
           _host(webhook.url))
    session.delete(webhook)
    return webhook


@change
def set_active(session: Session, agent: AgentRef, webhook_id: int, active: bool
               ) -> api_models.Webhook:
    """Pause (False) or resume a webhook: a paused one is told of nothing new."""
    webhook = get_webhook(session, agent, webhook_id)
    if webhook.active != active:
        webhook.active = active
        record(session, get_agent(session, agent), "webhook.toggle", f"#{webhook.id}",
               "resumed" if active else "paused")
    return webhook


def enqueue(session: Session, agent: models.Agent, event: str, data: dict[str, Any],
            webhook: api_models.Webhook | None = None) -> list[api_models.WebhookMessage]:
    """Write `event` to the outbox of each active webhook of `agent` that wants it (or of
    `webhook` alone), in the caller's transaction."""
    if webhook is not None:
        targets = [webhook]
    else:
        targets = [hook for hook in session.scalars(select(api_models.Webhook).where(
            api_models.Webhook.agent_id == agent.id, api_models.Webhook.active.is_(True)))
            if event in hook.events.split()]
    now = utcnow()
    messages = []
    for hook in targets:
        payload = {"type": event, "timestamp": api_time(now), "data": data}
        message = api_models.WebhookMessage(
            webhook_id=hook.id, msg_id="msg_" + secrets.token_hex(16), event=event,
            payload=payload, created_at=now, status=PENDING, tries=0, due_at=now)
        session.add(message)
        messages.append(message)
    session.flush()
    return messages


@change
def send_test(session: Session, agent: AgentRef | None, webhook_id: int
              ) -> api_models.WebhookMessage:
    """Queue a `TEST_EVENT` for one webhook (of the agent; None: of any), signed as every
    message is."""
    webhook = get_webhook(session, agent, webhook_id)
    row = _owner(session, webhook)
    return enqueue(session, row, TEST_EVENT, {"agent": row.name, "by": current_actor()},
                   webhook)[0]


@change
def redeliver(session: Session, agent: AgentRef | None, message: int | str
              ) -> api_models.WebhookMessage:
    """Send a message again now (its id unchanged, so a receiver can see it is the same):
    `message` is its row's number or its `msg_…` id (the `webhook-id` a receiver got), of
    the agent's webhooks (None: of any agent's); raises `NotFound`."""
    query = rows(api_models.WebhookMessage).join(
        api_models.Webhook, api_models.Webhook.id == api_models.WebhookMessage.webhook_id).join(
        models.Agent, models.Agent.id == api_models.Webhook.agent_id).where(
        models.Agent.deleted_at.is_(None))
    if isinstance(message, int):
        query = query.where(api_models.WebhookMessage.id == message)
    else:
        query = query.where(api_models.WebhookMessage.msg_id == message)
    whose = ""
    if agent is not None:
        row = get_agent(session, agent)
        query = query.where(api_models.Webhook.agent_id == row.id)
        whose = f" of agent {row.name!r}"
    # A text with a NUL cannot be a message's id (and PostgreSQL refuses to compare it).
    found = session.scalar(query) if rules.can_be_stored(str(message)) else None
    if found is None:
        named = f"#{message}" if isinstance(message, int) else excerpt(message)
        raise NotFound(f"no webhook message {named}{whose}")
    found.status, found.due_at = PENDING, utcnow()
    return found


def messages_of(session: Session, webhook: api_models.Webhook, limit: int = 50
                ) -> list[tuple[api_models.WebhookMessage, list[api_models.WebhookTry]]]:
    """The webhook's latest messages, newest first, each with its tries (oldest first)."""
    messages = list(session.scalars(rows(api_models.WebhookMessage).where(
        api_models.WebhookMessage.webhook_id == webhook.id)
        .order_by(api_models.WebhookMessage.id.desc()).limit(limit)))
    tries: dict[int, list[api_models.WebhookTry]] = {m.id: [] for m in messages}
    for attempt in session.scalars(select(api_models.WebhookTry).where(
            api_models.WebhookTry.message_id.in_(list(tries))).order_by(api_models.WebhookTry.id)):
        tries[attempt.message_id].append(attempt)
    return [(message, tries[message.id]) for message in messages]


@change
def claim(session: Session, now: datetime | None = None, limit: int = 10) -> list[Delivery]:
    """Take up to `limit` due messages for one worker: locked while taken (skipping rows
    another worker holds, on PostgreSQL) and not due again before `LEASE` has passed."""
    now = now or utcnow()
    due = session.scalars(
        rows(api_models.WebhookMessage)
        .where(api_models.WebhookMessage.status == PENDING,
               api_models.WebhookMessage.due_at <= now)
        .order_by(api_models.WebhookMessage.due_at, api_models.WebhookMessage.id)
        .limit(limit).with_for_update(skip_locked=True)).all()
    hooks = {hook.id: hook for hook in session.scalars(select(api_models.Webhook).where(
        api_models.Webhook.id.in_({message.webhook_id for message in due})))}
    taken = []
    for message in due:
        message.due_at = now + LEASE
        hook = hooks[message.webhook_id]
        taken.append(Delivery(message.id, message.msg_id, hook.url, hook.secret,
                              dict(message.payload)))
    return taken


@change
def record_try(session: Session, message_id: int, status_code: int | None, detail: str,
               milliseconds: int, now: datetime | None = None) -> api_models.WebhookMessage:
    """Write one try of a message: delivered on a 2xx, else due again after the next of
    `RETRIES`, or failed for good when none is left."""
    now = now or utcnow()
    message = session.scalar(rows(api_models.WebhookMessage).where(
        api_models.WebhookMessage.id == message_id))
    if message is None:  # the webhook was removed during the try
        raise NotFound(f"no webhook message #{message_id}")
    ok = status_code is not None and 200 <= status_code < 300
    session.add(api_models.WebhookTry(
        message_id=message.id, at=now, status_code=status_code, ok=ok,
        detail=detail[:api_models.EXCERPT_LENGTH], milliseconds=milliseconds))
    message.tries += 1
    if ok:
        message.status = DELIVERED
    elif message.tries > len(RETRIES):
        message.status = FAILED
    else:
        message.due_at = now + RETRIES[message.tries - 1]
    return message


def published_data(agent: models.Agent, snapshot: models.PublishedSnapshot,
                   previous: models.PublishedSnapshot | None, label: str | None
                   ) -> dict[str, Any]:
    """What `snapshot.published` says: the agent, the snapshot, its label, the one before
    and the skills that differ between the two (as Compare and the Changes page say)."""
    before = parse_json(previous.bundle)["skills"] if previous is not None else []
    changed = skill_items_changed(before, parse_json(snapshot.bundle)["skills"])
    return {
        "agent": agent.name, "snapshot": _snapshot(snapshot), "label": label,
        "previous": _snapshot(previous) if previous is not None else None,
        "skills_changed": sorted(d_tag for d_tag, _, _ in changed),
    }


def moved_data(agent: models.Agent, label: str, snapshot: models.PublishedSnapshot,
               previous: models.PublishedSnapshot | None) -> dict[str, Any]:
    """What `label.moved` says: the agent, the label, where it points now and before."""
    return {"agent": agent.name, "label": label, "snapshot": _snapshot(snapshot),
            "previous": _snapshot(previous) if previous is not None else None,
            "by": current_actor()}


def _host(url: str) -> str:
    """What the activity list says of a URL: its host (a path or query may hold a token)."""
    return urlsplit(url).hostname or ""


def _snapshot(snapshot: models.PublishedSnapshot) -> dict[str, Any]:
    return {"number": snapshot.number, "digest": snapshot.digest, "note": snapshot.note,
            "published_by": snapshot.published_by,
            "published_at": api_time(snapshot.published_at)}
