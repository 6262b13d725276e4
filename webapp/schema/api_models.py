"""The tables of the runtime API (`/api/v1`): its keys, the labels it resolves, and the
webhooks that tell a deployment of each publish (with their outbox and delivery log).

Apart from `webapp.schema.models` (whose `Base` they share, so one metadata holds every table
and Alembic sees them) because they serve another door: an agent running elsewhere.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.schema.models import NAME_LENGTH, Base, utcnow

#: The longest name of an API key or of a label.
KEY_NAME_LENGTH = 100
LABEL_LENGTH = 64


class ApiKey(Base):
    """A key the runtime API (`/api/v1`) accepts: its token is shown once and kept only as
    its sha256 (`store.api_keys`), for one agent (`agent_id`) or every agent (NULL).

    `scopes` is a space-separated set of `store.api_keys.SCOPES`. A revoked key is kept,
    with when, so the API keys page still lists it."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(KEY_NAME_LENGTH), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    agent_id: Mapped[int | None] = mapped_column(
        ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    scopes: Mapped[str] = mapped_column(String(100))
    created_by: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<ApiKey #{self.id} {self.name!r} {self.scopes!r}>"


class Label(Base):
    """A name (`production`, `staging`, ...) pointing at one snapshot of an agent.

    Moving it (`store.labels.move_label`) is publishing to that name, or the rollback when
    it moves back to an older snapshot."""

    __tablename__ = "labels"
    __table_args__ = (UniqueConstraint("agent_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(LABEL_LENGTH))
    snapshot_id: Mapped[int] = mapped_column(
        ForeignKey("published_snapshots.id", ondelete="CASCADE"), index=True)
    moved_by: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    moved_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"<Label {self.name!r} -> {self.snapshot_id}>"


#: The longest webhook URL, and the longest part of a receiver's answer a try keeps.
URL_LENGTH = 2000
EXCERPT_LENGTH = 1000


class Webhook(Base):
    """A URL told of an agent's `events` (space-separated `store.webhooks.EVENTS`), each
    message signed with `secret` (Standard Webhooks, `whsec_` and base64). The secret must
    sign, so it is kept as it is: whoever reads the database can sign as this instance."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(URL_LENGTH))
    events: Mapped[str] = mapped_column(String(100))
    secret: Mapped[str] = mapped_column(String(100))
    active: Mapped[bool] = mapped_column(default=True)
    created_by: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class WebhookMessage(Base):
    """One event for one webhook: the outbox row written in the transaction of the change it
    tells of, then tried until delivered or given up (`store.webhooks.RETRIES`).

    `status` is `pending`, `delivered` or `failed`; a pending message is due at `due_at`
    (a worker that claims it pushes `due_at` past its try, so no other worker takes it)."""

    __tablename__ = "webhook_messages"
    __table_args__ = (Index("ix_webhook_messages_status_due_at", "status", "due_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    webhook_id: Mapped[int] = mapped_column(
        ForeignKey("webhooks.id", ondelete="CASCADE"), index=True)
    msg_id: Mapped[str] = mapped_column(String(40), unique=True)
    event: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    tries: Mapped[int] = mapped_column(default=0)
    due_at: Mapped[datetime] = mapped_column(default=utcnow)


class WebhookTry(Base):
    """One try of a message: when, the receiver's status code (None: no answer) and the
    start of its answer or the error."""

    __tablename__ = "webhook_tries"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_messages.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    status_code: Mapped[int | None]
    ok: Mapped[bool] = mapped_column(default=False)
    detail: Mapped[str] = mapped_column(Text, default="")
    milliseconds: Mapped[int] = mapped_column(default=0)
