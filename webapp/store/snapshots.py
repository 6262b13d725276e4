"""Reading snapshots: one side of a comparison (a snapshot, or the draft: the workspace as
it is now), and what differs between two sides.

Nothing here writes. A side is named as the runtime API names a snapshot (`publish.resolve`:
a number, `latest`, a label) or `DRAFT`; two sides are compared by their bundles, so a
snapshot compares with another snapshot and with the draft the same way. Skills compare by
what the bundle holds of them (text, fields, and in a `skill-workspace/2` bundle their
SKILL.md head, line ends and files), not by version: a skill saved and saved back to the
same text is no change, as it is not for the digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from webapp.pipeline import (
    SkillFile,
    Workspace,
    dump_bundle,
    read_folder,
)
from webapp.schema import models

from .agents import AgentRef, get_agent
from .changes import (
    ITEM_SECTIONS,
    Changes,
    ItemChange,
    SkillChange,
    item_changes,
    json_text,
    revisions_since,
    skill_items_changed,
)
from .labels import reference
from .log import DRAFT
from .publish import get_snapshot, parsed_snapshot, resolve
from .skills import list_skills
from .workspaces import bundle_workspace

#: The fields of a skill in a bundle other than its text and files, in the bundle's order.
SKILL_FIELDS = ("name", "description", "layer", "triggers", "enabled", "frontmatter", "crlf")


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a snapshot, or the draft (`snapshot` None).

    `bundle` is its bundle as parsed JSON, `versions` the version of each skill (`d_tag` →
    version: the snapshot's `skill_versions`, the draft's saved versions), `workspace` the
    pipeline's workspace read from the bundle.
    """

    snapshot: models.PublishedSnapshot | None
    bundle: dict[str, Any]
    versions: dict[str, int]
    workspace: Workspace

    @property
    def ref(self) -> str:
        """How an address names this side: the snapshot's number, or `draft`."""
        return str(self.snapshot.number) if self.snapshot is not None else DRAFT

    @property
    def title(self) -> str:
        return f"#{self.snapshot.number}" if self.snapshot is not None else "the draft"


def read_side(session: Session, agent: AgentRef, ref: str) -> Side:
    """The side `ref` names: `DRAFT` (the workspace as it is now), or a snapshot by number,
    `latest` or label. Raises `NotFound` for a snapshot that does not exist."""
    row = get_agent(session, agent)
    if reference(ref).kind == DRAFT:
        skills = list_skills(session, row)
        workspace = bundle_workspace(session, row, skills)
        return Side(None, dump_bundle(workspace), {s.d_tag: s.version for s in skills},
                    workspace)
    return snapshot_side(get_snapshot(session, row, resolve(session, row.id, ref).number))


def snapshot_side(snapshot: models.PublishedSnapshot) -> Side:
    """A snapshot as one side of a comparison."""
    parsed = parsed_snapshot(snapshot)
    return Side(snapshot, parsed.bundle, dict(snapshot.skill_versions), parsed.workspace)


@dataclass(frozen=True, slots=True)
class SkillDifference:
    """A skill `added`, `removed` or `changed` from side A to side B: its bundle item on
    each side (None where it is not) and its version there."""

    d_tag: str
    state: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    version_before: int | None
    version_after: int | None

    @property
    def fields(self) -> list[tuple[str, Any, Any]]:
        """The fields other than the text that differ: name, value before, value after."""
        if self.before is None or self.after is None:
            return []
        return [(name, self.before.get(name), self.after.get(name)) for name in SKILL_FIELDS
                if json_text(self.before.get(name)) != json_text(self.after.get(name))]

    @property
    def content_before(self) -> str:
        return self.before["content"] if self.before is not None else ""

    @property
    def content_after(self) -> str:
        return self.after["content"] if self.after is not None else ""

    @property
    def text_changed(self) -> bool:
        return self.content_before != self.content_after

    @property
    def files_before(self) -> tuple[SkillFile, ...]:
        return _files(self.before)

    @property
    def files_after(self) -> tuple[SkillFile, ...]:
        return _files(self.after)


def _files(item: dict[str, Any] | None) -> tuple[SkillFile, ...]:
    """The files a bundle's skill item holds (none in a `/1` bundle); the bundle was read
    once already, so it has no problem to report."""
    if item is None or "files" not in item:
        return ()
    return read_folder(item, item["d_tag"], "", lambda where, why: None).files


@dataclass(frozen=True, slots=True)
class Differences:
    """What differs from side A to side B, by kind."""

    skills: list[SkillDifference]
    items: list[ItemChange]
    settings: bool  # the agent's settings (title, message mode, model, ...)
    order: bool  # the adoption order of the skills

    @property
    def changed(self) -> bool:
        return bool(self.skills or self.items or self.settings or self.order)


def differences(a: Side, b: Side) -> Differences:
    """What differs from `a` to `b`: skills (in B's order, then those only in A), tools,
    bindings and scenarios, the agent's settings and the adoption order."""
    return Differences(
        skills=skill_differences(a, b),
        items=[change for section in ITEM_SECTIONS
               for change in item_changes(section, a.bundle[section], b.bundle[section])],
        settings=json_text(a.bundle["agent"]) != json_text(b.bundle["agent"]),
        order=[s["d_tag"] for s in a.bundle["skills"]] != [s["d_tag"] for s in b.bundle["skills"]],
    )


def skill_differences(a: Side, b: Side) -> list[SkillDifference]:
    """The skills added, removed or changed from `a` to `b`."""
    return [SkillDifference(d_tag, "added" if old is None else "removed" if new is None
                            else "changed", old, new, a.versions.get(d_tag),
                            b.versions.get(d_tag))
            for d_tag, old, new in skill_items_changed(a.bundle["skills"], b.bundle["skills"])]


def skill_difference(a: Side, b: Side, d_tag: str) -> SkillDifference | None:
    """Skill `d_tag`'s difference from `a` to `b`; None when it is the same or on neither."""
    return next((found for found in skill_differences(a, b) if found.d_tag == d_tag), None)


def changes_since(session: Session, agent: AgentRef, number: int | None = None) -> Changes:
    """What changed between snapshot `number` (the latest when None) and the draft, for the
    Changes page: Compare's `differences` of the two sides, each skill with the saves
    made since the snapshot. A skill saved back to its published text is no change, here
    as on Compare and for the digest.

    Raises `NotFound` when there is no such snapshot.
    """
    row = get_agent(session, agent)
    found = differences(snapshot_side(get_snapshot(session, row, number)),
                        read_side(session, row, DRAFT))
    every = {skill.d_tag: skill for skill in list_skills(session, row, include_deleted=True)}
    skills = [SkillChange(d.d_tag, d.version_before, d.version_after,
                          revisions_since(session, every.get(d.d_tag), d.version_before))
              for d in found.skills]
    return Changes(skills, found.items, found.settings, found.order)
