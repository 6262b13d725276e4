"""The database schema: typed SQLAlchemy 2.x models.

Rows only; converting them to and from the pipeline's plain `Workspace` data is
`webapp.store`'s job. Times are stored in UTC and read back as aware datetimes on
every backend (SQLite keeps no time zone, so `UTCDateTime` puts it back).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from webapp.pipeline import DEFAULT_MODEL
from webapp.schema.skill_columns import NAME_LENGTH, LiveSkillState, SkillState

#: Stable constraint names, so migrations name the same thing on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

MODEL_LENGTH = 100
#: A context-log entry's `source`: `draft`, `published N` or `runtime`.
SOURCE_LENGTH = 40


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always returned time-zone aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime}


class Agent(Base):
    """A workspace: one agent with its skills, tools, bindings, scenarios and context log."""

    __tablename__ = "agents"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    title: Mapped[str] = mapped_column(Text, default="{name}")
    message_mode: Mapped[str] = mapped_column(String(20), default="grouped")
    max_array_items: Mapped[int] = mapped_column(Integer, default=8)
    history_labels: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: The model the context is meant for and its window in tokens (0: the model's own).
    model: Mapped[str] = mapped_column(String(MODEL_LENGTH), default=DEFAULT_MODEL,
                                       server_default=DEFAULT_MODEL)
    context_window: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Whether its scenarios get the built-in context tests too.
    builtin_tests: Mapped[bool] = mapped_column(default=True, server_default="1")
    #: Nostr: its public key (hex, never a secret), relays, kinds if not the defaults.
    nostr_pubkey: Mapped[str | None] = mapped_column(String(64))
    nostr_relays: Mapped[list[Any] | None] = mapped_column(JSON)
    nostr_kinds: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: The clients whose rules lint its skills (`agentskills.CLIENTS`).
    skill_clients: Mapped[list[Any]] = mapped_column(JSON, default=lambda: ["agentskills"],
                                                     server_default='["agentskills"]')
    #: Set while the agent is in the trash; it keeps its name, so a restore never collides.
    deleted_at: Mapped[datetime | None]

    skills: Mapped[list[Skill]] = relationship(
        back_populates="agent", cascade="all, delete-orphan", passive_deletes=True,
        order_by="(Skill.position, Skill.id)")
    tools: Mapped[list[Tool]] = relationship(
        back_populates="agent", cascade="all, delete-orphan", passive_deletes=True,
        order_by="(Tool.position, Tool.id)")
    variables: Mapped[list[Variable]] = relationship(
        back_populates="agent", cascade="all, delete-orphan", passive_deletes=True,
        order_by="(Variable.position, Variable.id)")
    scenarios: Mapped[list[Scenario]] = relationship(
        back_populates="agent", cascade="all, delete-orphan", passive_deletes=True,
        order_by="(Scenario.position, Scenario.id)")
    log_entries: Mapped[list[ContextLogEntry]] = relationship(
        back_populates="agent", cascade="all, delete-orphan", passive_deletes=True,
        order_by="ContextLogEntry.id")

    def __repr__(self) -> str:
        return f"<Agent {self.name!r}>"


class Skill(LiveSkillState, Base):
    """The current state of one skill; every saved state is also a `SkillRevision`.

    `version` is the optimistic lock: a save names the version it started from and
    succeeds only if that is still the current one. `deleted_at` set means the skill
    is in the trash; it keeps its `d_tag`, so a restore never collides.
    """

    __tablename__ = "skills"
    __table_args__ = (UniqueConstraint("agent_id", "d_tag"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None]

    agent: Mapped[Agent] = relationship(back_populates="skills")
    revisions: Mapped[list[SkillRevision]] = relationship(
        back_populates="skill", cascade="all, delete-orphan", passive_deletes=True,
        order_by="SkillRevision.version")

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None

    def __repr__(self) -> str:
        return f"<Skill {self.d_tag!r} v{self.version}>"


class SkillRevision(SkillState, Base):
    """One saved version of a skill: its content and metadata as they were saved."""

    __tablename__ = "skill_revisions"
    __table_args__ = (UniqueConstraint("skill_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    skill_id: Mapped[int] = mapped_column(ForeignKey("skills.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    saved_at: Mapped[datetime] = mapped_column(default=utcnow)
    note: Mapped[str | None] = mapped_column(Text)
    #: The username that saved this version (`store.current_actor()`), None in the local mode.
    author: Mapped[str | None] = mapped_column(String(NAME_LENGTH))

    skill: Mapped[Skill] = relationship(back_populates="revisions")

    def __repr__(self) -> str:
        return f"<SkillRevision {self.d_tag!r} v{self.version}>"


class SkillBlob(Base):
    """The bytes of a file of an agent's skills, once per agent by sha256: manifests name them
    (`SkillState.files`), and none goes while its agent lives, so every revision reads back."""

    __tablename__ = "skill_blobs"
    __table_args__ = (UniqueConstraint("agent_id", "sha256"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Tool(Base):
    """A mock tool: a default result and results for exact argument values."""

    __tablename__ = "tools"
    __table_args__ = (UniqueConstraint("agent_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    description: Mapped[str] = mapped_column(Text, default="")
    result: Mapped[Any | None] = mapped_column(JSON)
    #: A list of `{"args": ..., "result": ...}` objects, first match wins.
    results_by_args: Mapped[list[Any]] = mapped_column(JSON, default=list)
    position: Mapped[int] = mapped_column(Integer, default=0)

    agent: Mapped[Agent] = relationship(back_populates="tools")


class Variable(Base):
    """A variable binding: `{{name}}` is a field of a tool call's result, formatted."""

    __tablename__ = "variables"
    __table_args__ = (UniqueConstraint("agent_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    tool: Mapped[str] = mapped_column(String(NAME_LENGTH))
    args: Mapped[Any | None] = mapped_column(JSON)
    result_field: Mapped[str] = mapped_column(String(NAME_LENGTH), default="content")
    path: Mapped[str | None] = mapped_column(Text)
    format: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    limit: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, default=0)

    agent: Mapped[Agent] = relationship(back_populates="variables")


class Scenario(Base):
    """Sample input for a preview: trigger, incoming message, DM history and event."""

    __tablename__ = "scenarios"
    __table_args__ = (UniqueConstraint("agent_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    trigger: Mapped[str] = mapped_column(String(NAME_LENGTH), default="dm")
    message: Mapped[str] = mapped_column(Text, default="")
    #: A list of `{"role", "content", "created_at"}` objects.
    history: Mapped[list[Any]] = mapped_column(JSON, default=list)
    event: Mapped[Any | None] = mapped_column(JSON)
    provider: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    position: Mapped[int] = mapped_column(Integer, default=0)
    #: Its context tests: a list of expectation objects (`pipeline.read_expectations`).
    expect: Mapped[list[Any] | None] = mapped_column(JSON, default=list)

    agent: Mapped[Agent] = relationship(back_populates="scenarios")


class TrashedItem(Base):
    """A tool, variable binding or scenario an import with replace dropped or overwrote,
    kept with its fields (as its bundle section writes them) so it can be restored."""

    __tablename__ = "trashed_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    #: The bundle section: `tools`, `variables` or `scenarios`.
    section: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    fields: Mapped[dict[str, Any]] = mapped_column(JSON)
    deleted_at: Mapped[datetime] = mapped_column(default=utcnow)
    note: Mapped[str] = mapped_column(Text, default="")


class ContextLogEntry(Base):
    """One assembled context, kept so an author can look back at what the agent got."""

    __tablename__ = "context_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    scenario: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    trigger: Mapped[str] = mapped_column(String(NAME_LENGTH), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    document: Mapped[str] = mapped_column(Text, default="")
    messages: Mapped[list[Any]] = mapped_column(JSON, default=list)
    diagnostics: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: The pipeline's one-entry log text (`Context.log_entry`).
    summary: Mapped[str] = mapped_column(Text, default="")
    error_count: Mapped[int] = mapped_column(Integer, default=0)
    warning_count: Mapped[int] = mapped_column(Integer, default=0)
    info_count: Mapped[int] = mapped_column(Integer, default=0)
    #: The username that appended the entry, None in the local mode.
    author: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    #: What it was assembled from: `draft`, `published N` or `runtime` (an agent's report).
    source: Mapped[str] = mapped_column(String(SOURCE_LENGTH), default="draft",
                                        server_default="draft")
    #: A `runtime` entry's check against its snapshot (`store.log.log_runtime`).
    runtime_check: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    agent: Mapped[Agent] = relationship(back_populates="log_entries")


ACTIVITY_DETAIL_LENGTH = 300  # a line, never a user's value in full; then the kind's
ACTIVITY_KIND_LENGTH = 40


class Activity(Base):
    """One change, who made it and to what: the append-only record `store.activity` keeps.

    The actor and the agent are kept as names, not foreign keys, so a row outlives the
    account and the agent (deleted, purged or renamed: a row keeps the name it had).
    `agent_id` finds an agent's rows across its renames; a purge sets it to NULL.
    """

    __tablename__ = "activity"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    #: The username, or None for a change made in the local single-user mode.
    actor: Mapped[str | None] = mapped_column(String(NAME_LENGTH), index=True)
    agent_name: Mapped[str] = mapped_column(String(NAME_LENGTH), index=True)
    agent_id: Mapped[int | None] = mapped_column(
        ForeignKey("agents.id", ondelete="SET NULL"), index=True)
    kind: Mapped[str] = mapped_column(String(ACTIVITY_KIND_LENGTH), index=True)
    #: What was changed: a d_tag, a tool, binding or scenario name, an entry number.
    subject: Mapped[str] = mapped_column(String(NAME_LENGTH), default="")
    detail: Mapped[str] = mapped_column(String(ACTIVITY_DETAIL_LENGTH), default="")

    def __repr__(self) -> str:
        return f"<Activity {self.kind} {self.subject!r} by {self.actor!r}>"


class PublishedSnapshot(Base):
    """One published state of an agent's whole workspace: immutable, numbered per agent.

    `bundle` is the canonical bundle text and `digest` its sha256; `skill_versions` maps
    each `d_tag` to the version it had; `republished` is the snapshot this one published
    again (a rollback). No ORM relationship to `Agent`: rows never change, and ON DELETE
    CASCADE removes them with their agent.
    """

    __tablename__ = "published_snapshots"
    __table_args__ = (UniqueConstraint("agent_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    digest: Mapped[str] = mapped_column(String(64))
    bundle: Mapped[str] = mapped_column(Text)
    skill_versions: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    note: Mapped[str] = mapped_column(Text, default="")
    #: The username that published it; NULL in the local single-user mode.
    published_by: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    published_at: Mapped[datetime] = mapped_column(default=utcnow)
    republished: Mapped[int | None] = mapped_column(Integer)
    #: The context tests' results when it was published: counts, each failure, and the
    #: admin's override note when it was published with failures (`store.publish`).
    tests: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    @property
    def short_digest(self) -> str:
        return self.digest[:12]

    def __repr__(self) -> str:
        return f"<PublishedSnapshot #{self.number} {self.short_digest}>"


#: The longest username (`webapp.store.accounts` owns the characters a username may hold).
USERNAME_LENGTH = 40
#: The longest name a failed sign-in is recorded under (what was typed, cut to this).
TYPED_NAME_LENGTH = 200
#: The longest client address kept for throttling (an IPv6 address is at most 45 characters).
ADDRESS_LENGTH = 64


class User(Base):
    """An account: who may sign in, with which role. Never deleted, only disabled, so the
    names on revisions and activity keep meaning someone."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(USERNAME_LENGTH), unique=True)
    display_name: Mapped[str] = mapped_column(String(NAME_LENGTH), default="")
    #: viewer, author, reviewer or admin (`webapp.store.accounts.ROLES`).
    role: Mapped[str] = mapped_column(String(20))
    #: An argon2id hash in PHC format (its parameters are part of it).
    password_hash: Mapped[str] = mapped_column(String(255))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Part of every session's token (`store.accounts.session_token`): raising it ends
    #: every session of the account (a sign-out, a disable, a new password).
    session_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_login_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"<User {self.username!r} {self.role}>"


class FailedLogin(Base):
    """One refused sign-in, kept for a while to throttle guessing per name and per address.

    In the database, not in memory, so every worker and every instance on this database
    counts the same failures."""

    __tablename__ = "failed_logins"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(TYPED_NAME_LENGTH), index=True)
    address: Mapped[str] = mapped_column(String(ADDRESS_LENGTH), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

