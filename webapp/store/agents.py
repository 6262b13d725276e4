"""Agents: the workspaces everything else belongs to, and their trash.

An agent in the trash (`deleted_at` set) keeps its name and everything it holds; no page
or command finds it by name (`get_agent` raises `NotFound`) until it is restored, and
its name stays taken, so a restore never collides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.agentskills import client_problem
from webapp.pipeline import DEFAULT_HISTORY_LABELS, DEFAULT_MODEL, excerpt
from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .activity import record
from .errors import AlreadyExists, NotFound, ValidationError
from .transactions import apply_changes, change, insert, rows

#: An agent given by row, id or name.
AgentRef = models.Agent | int | str


def list_agents(session: Session) -> list[models.Agent]:
    """Every agent not in the trash, by name."""
    return list(session.scalars(select(models.Agent).where(models.Agent.deleted_at.is_(None))
                                .order_by(models.Agent.name)))


def list_agent_trash(session: Session) -> list[models.Agent]:
    """The agents in the trash, most recently deleted first."""
    return list(session.scalars(rows(models.Agent).where(models.Agent.deleted_at.is_not(None))
                                .order_by(models.Agent.deleted_at.desc(), models.Agent.name)))


def get_agent(session: Session, agent: AgentRef) -> models.Agent:
    """The agent with this id or name, not in the trash (a row is returned as is);
    raises `NotFound`."""
    if isinstance(agent, models.Agent):
        return agent
    if isinstance(agent, int):
        row = session.get(models.Agent, agent)
    else:
        row = find_agent(session, agent)
    if row is None or row.deleted_at is not None:
        raise NotFound(f"no agent {excerpt(agent)}")
    return row


def find_agent(session: Session, name: str) -> models.Agent | None:
    """The agent named `name`, in the trash or not, or None."""
    if not rules.can_be_stored(name):
        return None
    return session.scalar(rows(models.Agent).where(models.Agent.name == name))


def taken_agent(session: Session, name: str) -> models.Agent | None:
    """The agent, in the trash or not, whose name is `name` or reads as it
    (`rules.same_name`: equal NFKC forms), or None."""
    row = find_agent(session, name)
    if row is not None or not rules.can_be_stored(name):
        return row
    names = session.scalars(select(models.Agent.name))
    other = rules.same_name(name, names)
    return None if other is None else find_agent(session, other)


def agent_fields(name: str, title: str = "{name}", message_mode: str = "grouped",
                 max_array_items: int = 8, history_labels: Mapping[str, str] | None = None,
                 model: str = DEFAULT_MODEL, context_window: int = 0,
                 builtin_tests: bool = True) -> dict[str, Any]:
    """An agent's fields with the defaults filled in (not checked)."""
    return {"name": name, "title": title, "message_mode": message_mode,
            "max_array_items": max_array_items,
            "history_labels": dict(DEFAULT_HISTORY_LABELS if history_labels is None
                                   else history_labels),
            "model": model, "context_window": context_window, "builtin_tests": builtin_tests}


def _taken(name: str, row: models.Agent | None = None) -> str:
    if row is not None and row.name != name:
        name = f"{row.name!r}, which reads as {name!r},"
    else:
        name = repr(name)
    if row is not None and row.deleted_at is not None:
        return (f"an agent named {name} is in the trash (restore it from the agents page, "
                "or choose another name)")
    return f"an agent named {name} already exists"


@change
def create_agent(session: Session, name: str, **settings: Any) -> models.Agent:
    """Create an empty workspace with `settings` (the other keys of `agent_fields`);
    raises `AlreadyExists` or `ValidationError`."""
    fields = rules.check("agent", agent_fields(name, **settings))
    row = insert_agent(session, fields)
    record(session, row, "agent.create", row.name)
    return row


def insert_agent(session: Session, fields: dict[str, Any]) -> models.Agent:
    """Add an agent row with checked `fields`; raises `AlreadyExists`."""
    taken = taken_agent(session, fields["name"])
    if taken is not None:
        raise AlreadyExists([("name", _taken(fields["name"], taken))])
    row = models.Agent(**fields)
    insert(session, row, "name", _taken(fields["name"]))
    return row


@change
def update_agent(session: Session, agent: AgentRef, **changes: Any) -> models.Agent:
    """Change any of an agent's fields (`agent_fields`): `name`, `title`, `message_mode`,
    `max_array_items`, `history_labels`, `model`, `context_window`, `builtin_tests`; and
    `skill_clients`, the clients its skills are written for (`agentskills.CLIENTS`)."""
    row = get_agent(session, agent)
    clients = changes.pop("skill_clients", row.skill_clients)
    problem = client_problem(clients)
    if problem:
        raise ValidationError([("skill_clients", problem)])
    fields = {key: getattr(row, key) for key in agent_fields(row.name)}
    apply_changes(fields, changes)
    fields = rules.check("agent", agent_fields(**fields))
    taken = taken_agent(session, fields["name"]) if fields["name"] != row.name else None
    if taken is not None and taken.id != row.id:
        raise AlreadyExists([("name", _taken(fields["name"], taken))])
    old_name = row.name
    fields["skill_clients"] = list(clients)
    changed = [key for key, value in fields.items() if key != "name" and getattr(row, key) != value]
    for key, value in fields.items():
        setattr(row, key, value)
    session.flush()
    # Rows recorded before a rename keep the old name; this one says where it came from.
    if row.name != old_name:
        record(session, row, "agent.rename", row.name, f"from {old_name}")
    if changed:
        record(session, row, "agent.settings", row.name, ", ".join(changed))
    return row


@change
def delete_agent(session: Session, agent: AgentRef) -> models.Agent:
    """Move an agent, with everything it holds, to the trash; `restore_agent` undoes it."""
    row = get_agent(session, agent)
    row.deleted_at = utcnow()
    session.flush()
    record(session, row, "agent.delete", row.name)
    return row


def _trashed(session: Session, name: str) -> models.Agent:
    row = find_agent(session, name)
    if row is None or row.deleted_at is None:
        raise NotFound(f"no agent {excerpt(name)} in the trash")
    return row


@change
def restore_agent(session: Session, name: str) -> models.Agent:
    """Bring an agent back from the trash, as it was; raises `NotFound`."""
    row = _trashed(session, name)
    row.deleted_at = None
    session.flush()
    record(session, row, "agent.restore", row.name)
    return row


@change
def purge_agent(session: Session, name: str) -> None:
    """Delete an agent in the trash for good, with its skills, history and context log.

    Its activity stays: the database sets the rows' `agent_id` to NULL, the name remains."""
    row = _trashed(session, name)
    record(session, row, "agent.purge", row.name)
    session.delete(row)
    session.flush()
