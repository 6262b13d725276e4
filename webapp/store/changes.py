"""What changed since a snapshot: the skills whose version differs (with the saves in
between and who made them), and the tools, bindings and scenarios added, changed or
removed (the Changes page's review before a publish)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.pipeline import dump_bundle, dumps_json, parse_json
from webapp.schema import models

from .actor import LOCAL
from .agents import AgentRef, get_agent
from .publish import get_snapshot
from .skills import list_skills
from .workspaces import workspace_with

#: The bundle sections whose items `changes_since` compares by name.
ITEM_SECTIONS = ("tools", "variables", "scenarios")


@dataclass(frozen=True, slots=True)
class SkillChange:
    """A skill whose version differs from the snapshot's.

    `published_version` is None for a skill added since, `current_version` None for one
    gone since (trashed or renamed away); `revisions` are the saves in between, oldest
    first.
    """

    d_tag: str
    published_version: int | None
    current_version: int | None
    revisions: tuple[models.SkillRevision, ...]

    @property
    def authors(self) -> list[str]:
        return changed_by(self.revisions)


@dataclass(frozen=True, slots=True)
class ItemChange:
    """A tool, variable or scenario `added`, `removed` or `changed` since the snapshot."""

    section: str
    name: str
    state: str


@dataclass(frozen=True, slots=True)
class Changes:
    """What differs between a snapshot and the workspace now, by kind."""

    skills: list[SkillChange]
    items: list[ItemChange]
    settings: bool  # the agent's settings (title, message mode, model, ...)
    order: bool  # the adoption order of the skills


def changed_by(revisions: Sequence[models.SkillRevision]) -> list[str]:
    """The distinct authors of `revisions`, in the order they first saved; a save made
    in the local single-user mode (no author) counts as `LOCAL`."""
    return list(dict.fromkeys(revision.author or LOCAL for revision in revisions))


def changes_since(session: Session, agent: AgentRef, number: int | None = None) -> Changes:
    """What changed between snapshot `number` (the latest when None) and the workspace now.

    Raises `NotFound` when there is no such snapshot.
    """
    row = get_agent(session, agent)
    snapshot = get_snapshot(session, row, number)
    published = parse_json(snapshot.bundle)
    current = dump_bundle(workspace_with(session, row, list_skills(session, row)))
    return Changes(
        skills=_skill_changes(session, row, snapshot.skill_versions),
        items=[change for section in ITEM_SECTIONS
               for change in item_changes(section, published[section], current[section])],
        settings=json_text(published["agent"]) != json_text(current["agent"]),
        order=[s["d_tag"] for s in published["skills"]] != [s["d_tag"] for s in current["skills"]],
    )


def _skill_changes(session: Session, agent: models.Agent, published: dict[str, Any]
                   ) -> list[SkillChange]:
    live = {skill.d_tag: skill for skill in list_skills(session, agent)}
    every = {skill.d_tag: skill for skill in list_skills(session, agent, include_deleted=True)}
    changes = []
    for d_tag in [*published, *(tag for tag in live if tag not in published)]:
        before = published.get(d_tag)
        now = live[d_tag].version if d_tag in live else None
        if before == now:
            continue
        row = every.get(d_tag)
        revisions: tuple[models.SkillRevision, ...] = ()
        if row is not None:
            revisions = tuple(session.scalars(
                select(models.SkillRevision).where(
                    models.SkillRevision.skill_id == row.id,
                    models.SkillRevision.version > (before or 0))
                .order_by(models.SkillRevision.version)))
        changes.append(SkillChange(d_tag, before, now, revisions))
    return changes


def item_changes(section: str, published: list[dict[str, Any]], current: list[dict[str, Any]]
                 ) -> list[ItemChange]:
    """The items of bundle section `section` added, removed or changed from `published` to
    `current` (two lists of the section's items, as a bundle holds them)."""
    before = {item["name"]: item for item in published}
    now = {item["name"]: item for item in current}
    changes = [ItemChange(section, name, "removed") for name in before if name not in now]
    for name, item in now.items():
        if name not in before:
            changes.append(ItemChange(section, name, "added"))
        elif json_text(before[name]) != json_text(item):
            changes.append(ItemChange(section, name, "changed"))
    return changes


def json_text(item: Any) -> str:
    """An item as JSON text: what it is in the bundle, numbers exactly as written (two
    dicts of `JsonNumber`s and ints compare by their text, not their Python values)."""
    return dumps_json(item)
