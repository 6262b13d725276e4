"""What a comparison of two sides is made of (`store.snapshots.differences` compares; the
Changes page and Compare both read it): a skill changed with the saves in between and who
made them, a tool, binding or scenario added, changed or removed, items compared as the
bundle writes them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.pipeline import dumps_json
from webapp.schema import models

from .actor import LOCAL

#: The bundle sections whose items `changes_since` compares by name.
ITEM_SECTIONS = ("tools", "variables", "scenarios")


@dataclass(frozen=True, slots=True)
class SkillChange:
    """A skill that differs from the snapshot's (`snapshots.changes_since`).

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


def revisions_since(session: Session, skill: models.Skill | None, version: int | None
                    ) -> tuple[models.SkillRevision, ...]:
    """The saves of `skill` after `version` (None: all of them), oldest first; none for no
    skill (one the agent never had, not even in its trash)."""
    if skill is None:
        return ()
    return tuple(session.scalars(
        select(models.SkillRevision).where(models.SkillRevision.skill_id == skill.id,
                                           models.SkillRevision.version > (version or 0))
        .order_by(models.SkillRevision.version)))


def skill_items_changed(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]
                        ) -> list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]:
    """The skills of two bundles' `skills` sections that differ, as `(d_tag, item before,
    item after)` (None on the side without it), in `after`'s order, then those only in
    `before`. A skill is compared by all its bundle holds of it (text, fields, and in a
    `skill-workspace/2` bundle its head, line ends and files), not by version: one saved
    and saved back to the same text is no change, as it is not for the digest."""
    old = {skill["d_tag"]: skill for skill in before}
    new = {skill["d_tag"]: skill for skill in after}
    return [(d_tag, old.get(d_tag), new.get(d_tag))
            for d_tag in [*new, *(tag for tag in old if tag not in new)]
            if d_tag not in old or d_tag not in new
            or json_text(old[d_tag]) != json_text(new[d_tag])]


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
