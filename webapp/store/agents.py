"""Agents: the workspaces everything else belongs to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp import models
from webapp.pipeline import DEFAULT_HISTORY_LABELS, excerpt

from . import rules
from .errors import AlreadyExists, NotFound
from .transactions import apply_changes, change, insert, rows

#: An agent given by row, id or name.
AgentRef = models.Agent | int | str


def list_agents(session: Session) -> list[models.Agent]:
    """Every agent, by name."""
    return list(session.scalars(select(models.Agent).order_by(models.Agent.name)))


def get_agent(session: Session, agent: AgentRef) -> models.Agent:
    """The agent with this id or name (a row is returned as is); raises `NotFound`."""
    if isinstance(agent, models.Agent):
        return agent
    if isinstance(agent, int):
        row = session.get(models.Agent, agent)
    else:
        row = find_agent(session, agent)
    if row is None:
        raise NotFound(f"no agent {excerpt(agent)}")
    return row


def find_agent(session: Session, name: str) -> models.Agent | None:
    """The agent named `name`, or None."""
    if not rules.can_be_stored(name):
        return None
    return session.scalar(rows(models.Agent).where(models.Agent.name == name))


def agent_fields(name: str, title: str, message_mode: str, max_array_items: int,
                 history_labels: Mapping[str, str] | None) -> dict[str, Any]:
    """An agent's fields with the defaults filled in (not checked)."""
    return {"name": name, "title": title, "message_mode": message_mode,
            "max_array_items": max_array_items,
            "history_labels": dict(DEFAULT_HISTORY_LABELS if history_labels is None
                                   else history_labels)}


def _taken(name: str) -> str:
    return f"an agent named {name!r} already exists"


@change
def create_agent(session: Session, name: str, *, title: str = "{name}",
                 message_mode: str = "grouped", max_array_items: int = 8,
                 history_labels: Mapping[str, str] | None = None) -> models.Agent:
    """Create an empty workspace; raises `AlreadyExists` or `ValidationError`."""
    fields = agent_fields(name, title, message_mode, max_array_items, history_labels)
    fields = rules.check("agent", fields)
    return insert_agent(session, fields)


def insert_agent(session: Session, fields: dict[str, Any]) -> models.Agent:
    """Add an agent row with checked `fields`; raises `AlreadyExists`."""
    if find_agent(session, fields["name"]) is not None:
        raise AlreadyExists([("name", _taken(fields["name"]))])
    row = models.Agent(**fields)
    insert(session, row, "name", _taken(fields["name"]))
    return row


@change
def update_agent(session: Session, agent: AgentRef, **changes: Any) -> models.Agent:
    """Change an agent's `name`, `title`, `message_mode`, `max_array_items` or `history_labels`."""
    row = get_agent(session, agent)
    fields = {"name": row.name, "title": row.title, "message_mode": row.message_mode,
              "max_array_items": row.max_array_items, "history_labels": row.history_labels}
    apply_changes(fields, changes)
    fields = rules.check("agent", agent_fields(**fields))
    if fields["name"] != row.name and find_agent(session, fields["name"]) is not None:
        raise AlreadyExists([("name", _taken(fields["name"]))])
    for key, value in fields.items():
        setattr(row, key, value)
    session.flush()
    return row
