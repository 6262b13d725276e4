"""Skill folders imported into an agent as one change, after a preview of what it will do.

`plan_import` compares what an upload holds (`agentskills.SkillFolder`s) with the agent:
each skill is `new` (no skill of the agent has its d_tag), `updated` (one has, and the
folder it would export differs: text, fields, frontmatter or files) or `unchanged`. The
plan's `token` digests the agent's side (each skill's version) and the upload's, so
`import_skills(token=...)` applies exactly the plan that was previewed, or refuses with
`StaleImport` when either side moved since. The import is one transaction: the agent
(created when it does not exist), each new skill at the end of the adoption order, each
updated one as a new version (brought back from the trash if it was there), one activity
row. A d_tag that only reads as another skill's (`rules.same_name`) is refused.

An import takes what fits: a skill the store cannot keep (a field, a file, its limits, a
d_tag taken by a lookalike) is left out of the plan with why (`ImportPlan.left_out`, with
those the upload's reading left out, `agentskills.Upload.left_out`), and the others are
imported. Only when no skill is left to import is the import refused, with every problem.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from webapp.agentskills import (
    DEFAULT_CLIENTS,
    SKILL_FILE,
    SKILL_MD_FIELDS,
    LeftOut,
    SkillFolder,
    Upload,
    encode_skill_md,
)
from webapp.pipeline import dump_skill
from webapp.schema import models

from . import rules
from .activity import record
from .agents import agent_fields, find_agent, insert_agent, taken_agent
from .errors import StoreError, ValidationError
from .folders import check_files, exported_names, folder_input, folder_of, manifest_of
from .skills import (
    Stale,
    conflict,
    find_skill,
    new_skill,
    taken_skill,
    write_skill,
)
from .transactions import change

NEW, UPDATED, UNCHANGED = "new", "updated", "unchanged"


class StaleImport(StoreError):
    """The agent, or the upload, is not what the preview showed: nothing was imported."""


@dataclasses.dataclass(frozen=True)
class ImportItem:
    """One skill of an upload and what importing it does: `status` (`new`, `updated`,
    `unchanged`), the folder the agent has now (`current`, with its `version`) and whether
    it comes back from the trash."""

    folder: SkillFolder
    status: str
    current: SkillFolder | None = None
    version: int | None = None
    restored: bool = False

    @property
    def d_tag(self) -> str:
        return self.folder.skill.d_tag


@dataclasses.dataclass(frozen=True)
class ImportPlan:
    """What importing an upload into `agent` does, item by item; `token` names the plan."""

    agent: str
    new_agent: bool
    items: tuple[ImportItem, ...]
    token: str
    #: The agent's target clients, and the name each of its live skills exports (name ->
    #: d_tag), for the lint of what the upload brings.
    clients: tuple[str, ...] = DEFAULT_CLIENTS
    names: dict[str, str] = dataclasses.field(default_factory=dict)
    #: The upload's skills that are not imported, each with why.
    left_out: tuple[LeftOut, ...] = ()

    def count(self, status: str) -> int:
        return sum(item.status == status for item in self.items)

    @property
    def summary(self) -> str:
        text = (f"new: {self.count(NEW)}, updated: {self.count(UPDATED)}, "
                f"unchanged: {self.count(UNCHANGED)}")
        if self.left_out:
            text += f", left out: {len(self.left_out)}"
        return text


def plan_import(session: Session, agent: str, folders: Sequence[SkillFolder]) -> ImportPlan:
    """What importing `folders` (an `agentskills.Upload`, whose `left_out` the plan names, or
    any folders) into the agent named `agent` would do (nothing is written); a folder the
    store cannot keep is left out, with why.

    Raises:
        ValidationError: an agent name the rules refuse, or no skill left to import: each
            problem `(where, why)` with the folder's place in the upload (a field, a file,
            a d_tag taken by a lookalike).
    """
    row = find_agent(session, agent)
    problems: list[tuple[str, str]] = []
    if row is None:
        problems += [("agent", message) for _, message in rules.item_problems(
            "agent", agent_fields(agent))]
        lookalike = taken_agent(session, agent)
        if lookalike is not None:
            problems.append(("agent", f"reads as the agent {lookalike.name!r}: use its name"))
    elif row.deleted_at is not None:
        problems.append(("agent", f"the agent {agent!r} is in the trash: restore it first"))
    if problems:
        raise ValidationError(problems)
    items, left_out = [], list(folders.left_out if isinstance(folders, Upload) else ())
    for folder in folders:
        found = _folder_problems(session, folder)
        if row is not None:
            found += _lookalike(session, row, folder)
        if found:
            left_out.append(LeftOut(folder.source or folder.skill.d_tag, folder.skill.d_tag,
                                    tuple(found)))
        else:
            items.append(_item(session, row, folder))
    if left_out and not items:
        raise ValidationError([problem for out in left_out for problem in out.problems])
    left_out.sort(key=lambda out: out.source)
    token = _token(agent, items, left_out)
    if row is None:
        return ImportPlan(agent, True, tuple(items), token, left_out=tuple(left_out))
    return ImportPlan(agent, False, tuple(items), token, tuple(row.skill_clients),
                      exported_names(session, row), tuple(left_out))


def _folder_problems(session: Session, folder: SkillFolder) -> list[tuple[str, str]]:
    """What the store refuses of a folder, named as its place in the upload names it."""
    top = "" if folder.source in ("", SKILL_FILE) else f"{folder.source}/"
    skill_md = f"{top}{SKILL_FILE}" if folder.source else folder.skill.d_tag
    problems = [(f"{skill_md}: {SKILL_MD_FIELDS.get(field, field)}", message)
                for field, message in rules.item_problems("skills", dump_skill(folder.skill))]
    try:
        check_files(session, folder.files)
    except ValidationError as exc:
        problems += [(top + field.removeprefix("files/"), message)
                     for field, message in exc.problems]
    return problems


def _lookalike(session: Session, agent: models.Agent, folder: SkillFolder
               ) -> list[tuple[str, str]]:
    d_tag = folder.skill.d_tag
    taken = taken_skill(session, agent, d_tag) if rules.can_be_stored(d_tag) else None
    if taken is None or taken.d_tag == d_tag:
        return []
    return [(folder.source or d_tag, f"its d_tag {d_tag!r} reads as the skill {taken.d_tag!r} "
                                     f"of {agent.name}: give it that d_tag, or another")]


def _item(session: Session, agent: models.Agent | None, folder: SkillFolder) -> ImportItem:
    row = None
    if agent is not None and rules.can_be_stored(folder.skill.d_tag):
        row = find_skill(session, agent, folder.skill.d_tag)
    if row is None:
        return ImportItem(folder, NEW)
    current = folder_of(session, row)
    if not folder.whole:  # a SKILL.md alone: the skill keeps its files
        folder = dataclasses.replace(folder, files=current.files, whole=True)
    same = (current.skill == folder.skill and _export(current) == _export(folder)
            and row.deleted_at is None)
    return ImportItem(folder, UNCHANGED if same else UPDATED, current, row.version,
                      restored=row.deleted_at is not None)


def _export(folder: SkillFolder) -> tuple[bytes, list]:
    """What the folder exports as: the same bytes mean the same folder."""
    return (encode_skill_md(folder.skill, folder.head, folder.crlf, folder.line_ends),
            manifest_of(folder.files))


def _token(agent: str, items: Sequence[ImportItem], left_out: Sequence[LeftOut]) -> str:
    digest = hashlib.sha256(agent.encode("utf-8", "surrogatepass"))
    digest.update(repr([(out.source, out.name) for out in left_out]).encode(
        "utf-8", "surrogatepass"))
    for item in items:
        skill_md, manifest = _export(item.folder)
        digest.update(repr((item.d_tag, item.status, item.version, item.restored,
                            hashlib.sha256(skill_md).hexdigest(), manifest)).encode(
            "utf-8", "surrogatepass"))
    return digest.hexdigest()


@change
def import_skills(session: Session, agent: str, folders: Sequence[SkillFolder], *,
                  token: str | None = None, note: str = "imported") -> ImportPlan:
    """Import `folders` into the agent named `agent` (created when it does not exist), as
    `plan_import` plans it; with `token`, only if the plan is still the one previewed.

    Raises:
        ValidationError: as `plan_import` does.
        StaleImport: `token` is not the plan's any more.
        Conflict: a skill was saved by someone else during the import.
    """
    plan = plan_import(session, agent, folders)
    if token is not None and token != plan.token:
        raise StaleImport(f"{agent} or the upload changed since the preview: nothing was "
                          "imported; look at the preview again")
    row = find_agent(session, agent)
    if row is None:
        row = insert_agent(session, rules.check("agent", agent_fields(agent)))
        record(session, row, "agent.create", row.name)
    position = session.scalar(select(func.coalesce(func.max(models.Skill.position) + 1, 0))
                              .where(models.Skill.agent_id == row.id)) or 0
    for item in plan.items:
        if item.status == UNCHANGED:
            continue
        fields = {**rules.check("skills", dump_skill(item.folder.skill)),
                  **folder_input(session, row, item.folder)}
        if item.status == NEW:
            new_skill(session, row, fields, position=position, note=note)
            position += 1
            continue
        current = find_skill(session, row, item.d_tag)
        if current is None or item.version is None:  # the plan found it, in this transaction
            raise StaleImport(f"the skill {item.d_tag!r} went during the import")
        try:
            write_skill(session, current, item.version, fields, note=note,
                        restore=item.restored)
        except Stale:  # saved by someone else during the import
            raise conflict(session, current.id, item.d_tag, item.version, fields) from None
    if plan.count(NEW) or plan.count(UPDATED):
        record(session, row, "skill.import", "", plan.summary)
    session.expire_all()
    return plan
