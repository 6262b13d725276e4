"""Renaming a tool or a binding along with everything that uses it, in one transaction.

A tool's bindings get its new name as their `tool`; the skills that write `{{old}}` (where
it meant what is renamed) or call the tool from a template section are rewritten by the
pipeline's `renamed_uses`, each saved as a new version with a note. Any failure (a field
not valid, a skill saved by someone else meanwhile) rolls the whole rename back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from webapp.pipeline import renamed_uses

from .activity import names
from .agents import AgentRef, get_agent
from .convert import skill_fields
from .items import TOOLS, VARIABLES, Kind, get_item, recorded_update, update_item
from .skills import list_skills, save
from .transactions import change
from .workspaces import workspace_with


@dataclass(frozen=True)
class RenamedItem:
    """What `rename_tool` or `rename_variable` did: the item's row, and the names of the
    bindings and the `d_tag`s of the skills it rewrote."""

    item: Any
    bindings: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()


@change
def rename_tool(session: Session, agent: AgentRef, name: str, new_name: str, /,
                **changes: Any) -> RenamedItem:
    """Rename a mock tool (and apply `changes` to its other fields), with the bindings that
    call it and the skills that use it, all or nothing.

    Raises `NotFound`, `ValidationError` / `AlreadyExists` (the tool's fields or a
    binding's), `Conflict` (a skill to rewrite was saved meanwhile; nothing written).
    """
    return _rename(session, TOOLS, agent, name, new_name, changes)


@change
def rename_variable(session: Session, agent: AgentRef, name: str, new_name: str, /,
                    **changes: Any) -> RenamedItem:
    """Rename a binding (and apply `changes`), rewriting `{{name}}` in the skills that use
    it, all or nothing; raises as `rename_tool`."""
    return _rename(session, VARIABLES, agent, name, new_name, changes)


def _rename(session: Session, kind: Kind, agent: AgentRef, old: str, new: str,
            changes: dict[str, Any]) -> RenamedItem:
    agent_row = get_agent(session, agent)
    if new == old:
        return RenamedItem(recorded_update(session, kind, agent_row, old, changes))
    get_item(session, kind, agent_row, old)
    # The skills as read here are what the rewrite starts from: a save by someone else
    # after this read makes the versioned update below fail, and the rename with it.
    skill_rows = list_skills(session, agent_row)
    versions = {row.d_tag: row.version for row in skill_rows}
    workspace = workspace_with(session, agent_row, skill_rows)
    rewritten = renamed_uses(workspace, old, new, tool=kind is TOOLS)
    bindings = tuple(v.name for v in workspace.variables if v.tool == old) if kind is TOOLS else ()
    rewrote = "; ".join(f"rewrote {what} {names(which)}" for what, which in (
        ("bindings", bindings), ("skills", tuple(rewritten))) if which)
    item = recorded_update(session, kind, agent_row, old, {**changes, "name": new},
                           rewrote=rewrote)
    for binding in bindings:
        update_item(session, VARIABLES, agent_row, binding, {"tool": new})
    note = f"{kind.label} {old} renamed to {new}"
    by_tag = {row.d_tag: row for row in skill_rows}
    for d_tag, content in rewritten.items():
        row = by_tag[d_tag]
        fields = {**skill_fields(row), "content": content}
        save(session, row, versions[d_tag], fields, note, {"content": content})
    return RenamedItem(item, bindings, tuple(rewritten))
