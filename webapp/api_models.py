"""The tables of the runtime API (`/api/v1`): its keys, and the labels it resolves.

Apart from `webapp.models` (whose `Base` they share, so one metadata holds every table
and Alembic sees them) because they serve another door: an agent running elsewhere.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.models import NAME_LENGTH, Base, utcnow

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
