"""Tools, variable bindings and scenarios: the simple per-agent tables, five functions each,
and their trash: what an import with replace dropped or overwrote is kept there
(`trash_items`) and can be restored (`restore_item`).

Renaming a tool or a binding along with what uses it is `renames.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from webapp.pipeline import HistoryEntry, ToolResult, excerpt
from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .activity import record
from .agents import AgentRef, get_agent
from .errors import AlreadyExists, NotFound
from .transactions import apply_changes, change, insert, rows


@dataclass(frozen=True)
class Kind:
    """How one of the simple per-agent tables maps to a bundle section."""

    model: type[Any]
    section: str
    label: str
    defaults: dict[str, Any]
    normalize: Callable[[dict[str, Any]], dict[str, Any]]

    def fields_of(self, row: Any) -> dict[str, Any]:
        return {key: getattr(row, key) for key in self.defaults}

    def taken(self, name: str) -> AlreadyExists:
        return AlreadyExists([("name", f"a {self.label} named {name!r} already exists")])


def _normalize_tool(fields: dict[str, Any]) -> dict[str, Any]:
    entries = []
    for entry in fields["results_by_args"] or ():
        entries.append({"args": entry.args, "result": entry.result}
                       if isinstance(entry, ToolResult) else dict(entry))
    return {**fields, "results_by_args": entries}


def _normalize_scenario(fields: dict[str, Any]) -> dict[str, Any]:
    history = []
    for entry in fields["history"] or ():
        history.append({"role": entry.role, "content": entry.content,
                        "created_at": entry.created_at}
                       if isinstance(entry, HistoryEntry) else dict(entry))
    return {**fields, "history": history, "expect": list(fields.get("expect") or ())}


def _normalize_variable(fields: dict[str, Any]) -> dict[str, Any]:
    return {**fields, "result_field": fields["result_field"] or "content"}


TOOLS = Kind(models.Tool, "tools", "tool",
             {"name": "", "description": "", "result": None, "results_by_args": []},
             _normalize_tool)
VARIABLES = Kind(models.Variable, "variables", "variable",
                 {"name": "", "tool": "", "args": None, "result_field": "content", "path": None,
                  "format": None, "limit": None},
                 _normalize_variable)
SCENARIOS = Kind(models.Scenario, "scenarios", "scenario",
                 {"name": "", "trigger": "dm", "message": "", "history": [], "event": None,
                  "provider": None, "expect": []},
                 _normalize_scenario)


def list_items(session: Session, kind: Kind, agent: AgentRef) -> list[Any]:
    """The agent's rows of `kind`, in the order they were added."""
    row = get_agent(session, agent)
    return list(session.scalars(rows(kind.model).where(kind.model.agent_id == row.id)
                                .order_by(kind.model.position, kind.model.id)))


def get_item(session: Session, kind: Kind, agent: AgentRef, name: str) -> Any:
    """The agent's row of `kind` named `name`; raises `NotFound`."""
    agent_row = get_agent(session, agent)
    row = session.scalar(rows(kind.model).where(kind.model.agent_id == agent_row.id,
                                                 kind.model.name == name)) if (
        rules.can_be_stored(name)) else None
    if row is None:
        raise NotFound(f"no {kind.label} {excerpt(name)}")
    return row


def _validated(kind: Kind, fields: dict[str, Any]) -> dict[str, Any]:
    return rules.check(kind.section, kind.normalize(fields))


def _name_taken(session: Session, kind: Kind, agent_id: int, name: str) -> bool:
    if not rules.can_be_stored(name):
        return False
    return session.scalar(select(kind.model.id).where(kind.model.agent_id == agent_id,
                                                      kind.model.name == name)) is not None


def create_item(session: Session, kind: Kind, agent: AgentRef, name: str,
                changes: dict[str, Any]) -> Any:
    """Add a row of `kind` (its defaults, then `changes`) at the end."""
    agent_row = get_agent(session, agent)
    fields = dict(kind.defaults)
    apply_changes(fields, {"name": name, **changes})
    fields = _validated(kind, fields)
    if _name_taken(session, kind, agent_row.id, fields["name"]):
        raise kind.taken(fields["name"])
    position = session.scalar(select(func.coalesce(func.max(kind.model.position) + 1, 0))
                              .where(kind.model.agent_id == agent_row.id))
    row = kind.model(agent_id=agent_row.id, position=position or 0, **fields)
    insert(session, row, "name", f"a {kind.label} named {fields['name']!r} already exists")
    return row


def update_item(session: Session, kind: Kind, agent: AgentRef, name: str,
                changes: dict[str, Any]) -> Any:
    """Change fields of the row of `kind` named `name` (`name=` renames the row alone)."""
    row = get_item(session, kind, agent, name)
    fields = kind.fields_of(row)
    apply_changes(fields, changes)
    fields = _validated(kind, fields)
    if fields["name"] != row.name and _name_taken(session, kind, row.agent_id, fields["name"]):
        raise kind.taken(fields["name"])
    for key, value in fields.items():
        setattr(row, key, value)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise kind.taken(fields["name"]) from None
    return row


def recorded_update(session: Session, kind: Kind, agent: AgentRef, name: str,
                    changes: dict[str, Any], *, rewrote: str = "") -> Any:
    """`update_item`, recorded: a new name as `<kind>.rename` (`rewrote` says what else the
    rename rewrote), the other fields that changed as `<kind>.update`; nothing if nothing
    changed."""
    before = kind.fields_of(get_item(session, kind, agent, name))
    row = update_item(session, kind, agent, name, changes)
    changed = [key for key, value in kind.fields_of(row).items() if before[key] != value]
    if "name" in changed:
        changed.remove("name")
        record(session, row.agent, f"{kind.label}.rename", row.name,
               f"from {name}" + (f"; {rewrote}" if rewrote else ""))
    if changed:
        record(session, row.agent, f"{kind.label}.update", row.name, ", ".join(changed))
    return row


def _create(session: Session, kind: Kind, agent: AgentRef, name: str,
            changes: dict[str, Any]) -> Any:
    row = create_item(session, kind, agent, name, changes)
    record(session, row.agent, f"{kind.label}.create", row.name)
    return row


def _delete(session: Session, kind: Kind, agent: AgentRef, name: str) -> None:
    row = get_item(session, kind, agent, name)
    record(session, row.agent, f"{kind.label}.delete", row.name)
    session.delete(row)
    session.flush()


def list_tools(session: Session, agent: AgentRef) -> list[models.Tool]:
    """The agent's mock tools, in the order they were added."""
    return list_items(session, TOOLS, agent)


def get_tool(session: Session, agent: AgentRef, name: str) -> models.Tool:
    """The mock tool with this name; raises `NotFound`."""
    return get_item(session, TOOLS, agent, name)


@change
def create_tool(session: Session, agent: AgentRef, name: str, **fields: Any) -> models.Tool:
    """Add a mock tool; fields: `description`, `result`, `results_by_args` (dicts or
    `ToolResult`s)."""
    return _create(session, TOOLS, agent, name, fields)


@change
def update_tool(session: Session, agent: AgentRef, name: str, /, **changes: Any) -> models.Tool:
    """Change a mock tool's fields; `name=` renames the tool alone (`rename_tool` takes the
    bindings and skills that use it along)."""
    return recorded_update(session, TOOLS, agent, name, changes)


@change
def delete_tool(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a mock tool (bindings to it then report `missing-tool`)."""
    _delete(session, TOOLS, agent, name)


def list_variables(session: Session, agent: AgentRef) -> list[models.Variable]:
    """The agent's variable bindings, in the order they were added."""
    return list_items(session, VARIABLES, agent)


def get_variable(session: Session, agent: AgentRef, name: str) -> models.Variable:
    """The variable binding with this name; raises `NotFound`."""
    return get_item(session, VARIABLES, agent, name)


@change
def create_variable(session: Session, agent: AgentRef, name: str, **fields: Any
                    ) -> models.Variable:
    """Add a binding; fields: `tool` (required), `args`, `result_field`, `path`, `format`,
    `limit`."""
    return _create(session, VARIABLES, agent, name, fields)


@change
def update_variable(session: Session, agent: AgentRef, name: str, /, **changes: Any
                    ) -> models.Variable:
    """Change a binding's fields; `name=` renames the binding alone (`rename_variable`
    takes the skills that use it along)."""
    return recorded_update(session, VARIABLES, agent, name, changes)


@change
def delete_variable(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a binding."""
    _delete(session, VARIABLES, agent, name)


def list_scenarios(session: Session, agent: AgentRef) -> list[models.Scenario]:
    """The agent's scenarios, in the order they were added (the first is the default)."""
    return list_items(session, SCENARIOS, agent)


def get_scenario(session: Session, agent: AgentRef, name: str) -> models.Scenario:
    """The scenario with this name; raises `NotFound`."""
    return get_item(session, SCENARIOS, agent, name)


@change
def create_scenario(session: Session, agent: AgentRef, name: str, **fields: Any
                    ) -> models.Scenario:
    """Add a scenario; fields: `trigger`, `message`, `history` (dicts or HistoryEntries),
    `event`, `provider`."""
    return _create(session, SCENARIOS, agent, name, fields)


@change
def update_scenario(session: Session, agent: AgentRef, name: str, /, **changes: Any
                    ) -> models.Scenario:
    """Change a scenario's fields; `name=` renames it."""
    return recorded_update(session, SCENARIOS, agent, name, changes)


@change
def delete_scenario(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a scenario."""
    _delete(session, SCENARIOS, agent, name)


# -- the trash of items

KINDS_BY_SECTION = {kind.section: kind for kind in (TOOLS, VARIABLES, SCENARIOS)}


def trash_items(session: Session, agent: models.Agent, kind: Kind, items: list[Any],
                note: str) -> None:
    """Keep copies of the rows `items` of `kind` in the agent's item trash (the caller
    deletes or overwrites the rows)."""
    now = utcnow()
    for row in items:
        session.add(models.TrashedItem(agent_id=agent.id, section=kind.section, name=row.name,
                                       fields=kind.fields_of(row), deleted_at=now, note=note))


def list_item_trash(session: Session, agent: AgentRef) -> list[models.TrashedItem]:
    """The agent's trashed tools, bindings and scenarios, most recently trashed first."""
    row = get_agent(session, agent)
    return list(session.scalars(
        select(models.TrashedItem).where(models.TrashedItem.agent_id == row.id)
        .order_by(models.TrashedItem.deleted_at.desc(), models.TrashedItem.id.desc())))


@change
def restore_item(session: Session, agent: AgentRef, item_id: int) -> Any:
    """Put a trashed item back, last of its kind, and take it out of the trash.

    Raises `NotFound`, or `AlreadyExists` when an item of its kind has its name now
    (rename or delete that one first)."""
    agent_row = get_agent(session, agent)
    trashed = session.get(models.TrashedItem, item_id)
    if trashed is None or trashed.agent_id != agent_row.id:
        raise NotFound(f"no item {item_id} in the trash of {excerpt(agent_row.name)}")
    kind = KINDS_BY_SECTION[trashed.section]
    if _name_taken(session, kind, agent_row.id, trashed.name):
        raise AlreadyExists([("name", f"a {kind.label} named {trashed.name!r} exists: rename "
                                      "or delete it, then restore this one")])
    row = create_item(session, kind, agent_row, trashed.name, dict(trashed.fields))
    session.delete(trashed)
    session.flush()
    record(session, agent_row, f"{kind.label}.create", row.name, "restored from the trash")
    return row
