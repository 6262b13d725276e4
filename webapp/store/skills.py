"""Skills: create, save (optimistically locked), enable, reorder, rename, trash.

Skills are never overwritten blindly: each save names the version it started from
and is applied with one atomic `UPDATE ... WHERE id = ? AND version = ?`, so of two
concurrent saves from the same version exactly one wins and the other gets a
`Conflict`. Every saved state of a skill is kept as a revision; deleting a skill
moves it to the trash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from webapp import pipeline
from webapp.pipeline import Skill, excerpt, rename_placeholders
from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .activity import names, record
from .actor import current_actor
from .agents import AgentRef, get_agent
from .convert import exported_of, folder_fields, listing_of, skill_fields, skill_of
from .errors import AlreadyExists, Conflict, InUse, NotFound, ValidationError
from .transactions import change, insert, rows

#: The columns of a skill the pipeline reads (`convert.skill_of`).
PIPELINE_COLUMNS = (models.Skill.d_tag, models.Skill.content, models.Skill.name,
                    models.Skill.layer, models.Skill.triggers, models.Skill.enabled,
                    models.Skill.description)


def list_skills(session: Session, agent: AgentRef, *, include_deleted: bool = False
                ) -> list[models.Skill]:
    """The agent's skills in adoption order; the trash only if `include_deleted`."""
    row = get_agent(session, agent)
    return list(session.scalars(_in_order(rows(models.Skill), row.id, include_deleted)))


def pipeline_skills(session: Session, agent: models.Agent) -> list[Skill]:
    """The agent's live skills as the pipeline reads them, in adoption order: only its
    columns, no row objects (a third of the time, and of the garbage, at 1,000 skills)."""
    found = session.execute(_in_order(select(*PIPELINE_COLUMNS), agent.id, False))
    return [skill_of(row) for row in found]


def _in_order(query: Any, agent_id: int, include_deleted: bool) -> Any:
    """`query` of one agent's skills (live unless `include_deleted`), in adoption order."""
    query = query.where(models.Skill.agent_id == agent_id)
    if not include_deleted:
        query = query.where(models.Skill.deleted_at.is_(None))
    return query.order_by(models.Skill.position, models.Skill.id)


def list_trash(session: Session, agent: AgentRef) -> list[models.Skill]:
    """The agent's deleted skills, most recently deleted first."""
    row = get_agent(session, agent)
    return list(session.scalars(
        rows(models.Skill)
        .where(models.Skill.agent_id == row.id, models.Skill.deleted_at.is_not(None))
        .order_by(models.Skill.deleted_at.desc(), models.Skill.id.desc())))


def get_skill(session: Session, agent: AgentRef, d_tag: str, *,
              include_deleted: bool = False) -> models.Skill:
    """The skill with this `d_tag`; raises `NotFound` (also for a trashed one, unless asked)."""
    row = find_skill(session, agent, d_tag)
    if row is None or (row.deleted_at is not None and not include_deleted):
        where = " (it is in the trash)" if row is not None else ""
        raise NotFound(f"no skill {excerpt(d_tag)}{where}")
    return row


def find_skill(session: Session, agent: AgentRef, d_tag: str) -> models.Skill | None:
    """The skill with this `d_tag`, live or in the trash, or None."""
    agent_row = get_agent(session, agent)
    if not rules.can_be_stored(d_tag):
        return None
    return session.scalar(rows(models.Skill).where(
        models.Skill.agent_id == agent_row.id, models.Skill.d_tag == d_tag))


def taken_skill(session: Session, agent: AgentRef, d_tag: str) -> models.Skill | None:
    """The skill of `agent`, live or in the trash, whose d_tag is `d_tag` or reads as it
    (`rules.same_name`: equal NFKC forms), or None."""
    row = find_skill(session, agent, d_tag)
    if row is not None or not rules.can_be_stored(d_tag):
        return row
    agent_row = get_agent(session, agent)
    other = rules.same_name(d_tag, session.scalars(
        select(models.Skill.d_tag).where(models.Skill.agent_id == agent_row.id)))
    return None if other is None else find_skill(session, agent_row, other)


def last_known(session: Session, agent: AgentRef, d_tag: str) -> models.Skill | None:
    """The skill an author who opened `d_tag` was editing: the skill with this d_tag (live
    or in the trash), else the skill of the agent most recently saved under it (renamed
    since; its revisions keep every d_tag it had), else None (it no longer exists)."""
    row = find_skill(session, agent, d_tag)
    if row is not None or not rules.can_be_stored(d_tag):
        return row
    agent_row = get_agent(session, agent)
    return session.scalar(
        rows(models.Skill).join(models.SkillRevision,
                                models.SkillRevision.skill_id == models.Skill.id)
        .where(models.Skill.agent_id == agent_row.id, models.SkillRevision.d_tag == d_tag)
        .order_by(models.SkillRevision.saved_at.desc(), models.SkillRevision.id.desc())
        .limit(1))


def d_tag_problem(session: Session, agent: AgentRef, d_tag: str) -> str | None:
    """Why `d_tag` cannot name a new skill of `agent`, or None: the rules of a skill's
    d_tag (`rules.skill_d_tag_problem`), and no skill of the agent, live or in the trash, has it."""
    problem = rules.skill_d_tag_problem(d_tag)
    if problem:
        return problem
    taken = taken_skill(session, agent, d_tag)
    if taken is not None:
        return _taken(d_tag, taken)
    return None


def _taken(d_tag: str, row: models.Skill) -> str:
    where = " in the trash (restore it, or choose another d_tag)" if row.deleted else ""
    reads = f" as {row.d_tag!r}, which reads the same" if row.d_tag != d_tag else ""
    return f"a skill {d_tag!r} already exists{reads}{where}"


def _snapshot(row: models.Skill) -> dict[str, Any]:
    return {**skill_fields(row), "version": row.version, "deleted": row.deleted_at is not None,
            "updated_at": row.updated_at}


def _skill_input(d_tag: str, content: str, name: str, layer: int, triggers: Iterable[str],
                 enabled: bool, description: str) -> dict[str, Any]:
    if isinstance(triggers, str):
        raise ValidationError([("triggers", "must be a list of trigger names, not a string")])
    fields = {"d_tag": d_tag, "name": name, "description": description, "layer": layer,
              "triggers": list(triggers), "enabled": enabled, "content": content}
    return rules.check("skills", fields)


@change
def create_skill(session: Session, agent: AgentRef, d_tag: str, *, content: str = "",
                 name: str = "", layer: int = 1, triggers: Iterable[str] = (),
                 enabled: bool = True, description: str = "",
                 note: str | None = None, folder_of: str | None = None) -> models.Skill:
    """Add a skill at the end of the adoption order, as version 1 with its first revision
    (with the SKILL.md head and files of the skill `folder_of`, a copy's original)."""
    agent_row = get_agent(session, agent)
    fields = _skill_input(d_tag, content, name, layer, triggers, enabled, description)
    if folder_of is not None:
        fields.update(folder_fields(get_skill(session, agent_row, folder_of)))
    position = session.scalar(select(func.coalesce(func.max(models.Skill.position) + 1, 0))
                              .where(models.Skill.agent_id == agent_row.id))
    row = new_skill(session, agent_row, fields, position=position or 0, note=note)
    record(session, agent_row, "skill.create", row.d_tag)
    return row


def new_skill(session: Session, agent: models.Agent, fields: dict[str, Any], *,
              position: int, note: str | None) -> models.Skill:
    """Insert a skill with checked `fields` as version 1, with its revision."""
    taken = taken_skill(session, agent, fields["d_tag"])
    if taken is not None:
        raise AlreadyExists([("d_tag", _taken(fields["d_tag"], taken))])
    now = utcnow()
    row = models.Skill(agent_id=agent.id, position=position, version=1, created_at=now,
                       updated_at=now, **fields)
    row.exported_name, row.listing = exported_of(row), listing_of(row)
    insert(session, row, "d_tag", f"a skill {fields['d_tag']!r} already exists")
    session.add(models.SkillRevision(skill_id=row.id, version=1, saved_at=now, note=note,
                                     author=current_actor(), **fields))
    session.flush()
    return row


class Stale(Exception):
    """Internal: the atomic update matched no row (the version moved on, or it was trashed)."""


def write_skill(session: Session, row: models.Skill, expected_version: int,
                fields: dict[str, Any], *, note: str | None, restore: bool = False) -> None:
    """Apply `fields` as version `expected_version + 1` and record the revision.

    One `UPDATE ... WHERE id = ? AND version = ?`: the database decides which of two
    concurrent saves wins, and the loser matches no row. Raises `Stale` then.
    """
    now = utcnow()
    condition = [models.Skill.id == row.id, models.Skill.version == expected_version]
    if not restore:
        condition.append(models.Skill.deleted_at.is_(None))
    # The revision records the whole state: what `fields` leaves out is the row's.
    state = {**skill_fields(row), **folder_fields(row), **fields}
    revision = models.SkillRevision(skill_id=row.id, version=expected_version + 1,
                                    saved_at=now, note=note, author=current_actor(), **state)
    values = {**fields, "version": expected_version + 1, "updated_at": now,
              "exported_name": exported_of(revision), "listing": listing_of(revision)}
    if restore:
        values["deleted_at"] = None
    result = session.execute(update(models.Skill).where(*condition).values(**values)
                             .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        raise Stale()
    session.add(revision)
    session.flush()
    session.expire(row)


def conflict(session: Session, row_id: int, d_tag: str, expected_version: int | None,
             submitted: dict[str, Any]) -> Conflict:
    """Roll back and describe what is saved now, for a `Conflict`."""
    session.rollback()
    current = session.get(models.Skill, row_id, populate_existing=True)
    snapshot = _snapshot(current) if current is not None else {
        "version": None, "content": "", "deleted": True, "gone": True}
    saved = skill_of(current) if current is not None else Skill(d_tag=d_tag, content="")
    session.rollback()
    return Conflict(d_tag, expected_version=expected_version, current=snapshot,
                    submitted=submitted, saved=saved)


def save(session: Session, row: models.Skill, expected_version: int, fields: dict[str, Any],
         note: str | None, submitted: dict[str, Any]) -> models.Skill:
    """`write_skill`, a lost race raised as `Conflict`; returns the refreshed row.

    A save whose fields equal the saved ones, from the current version, writes nothing
    (no new version, no revision) and returns the row as it is.
    """
    saved = {**skill_fields(row), **folder_fields(row)}
    if (expected_version == row.version and row.deleted_at is None
            and all(saved[key] == value for key, value in fields.items())):
        return row
    # Otherwise no check of `row.version` first: only the atomic update may decide.
    try:
        write_skill(session, row, expected_version, fields, note=note)
    except (Stale, IntegrityError):
        raise conflict(session, row.id, row.d_tag, expected_version, submitted) from None
    session.refresh(row)
    return row


@change
def save_skill(session: Session, agent: AgentRef, d_tag: str, *, expected_version: int,
               content: str, name: str | None = None, layer: int | None = None,
               triggers: Iterable[str] | None = None, enabled: bool | None = None,
               description: str | None = None, note: str | None = None,
               new_d_tag: str | None = None) -> models.Skill:
    """Save a skill edited from `expected_version`: a new version and its revision.

    `name`, `layer`, `triggers`, `enabled` and `description` left as None keep their
    saved values.
    A `new_d_tag` renames the skill first, updating the references to it
    (`rename_skill(update_references=True)`), in the same transaction.
    Raises `Conflict` (nothing written) when `expected_version` is not the current
    version, or the skill was renamed, moved to the trash or deleted meanwhile (the
    conflict's `current` says where it is: `last_known`), `NotFound` (no such agent),
    `ValidationError`, `AlreadyExists` (a taken `new_d_tag`).
    """
    submitted = {"content": content, "name": name, "layer": layer,
                 "triggers": None if triggers is None else list(triggers), "enabled": enabled,
                 "description": description}
    note = note and pipeline.lf_line_ends(note)  # the one line-end rule, as for every text
    if note and (problems := rules.text_problems("skill_revisions", {"note": note})):
        raise ValidationError(problems)
    row = last_known(session, agent, d_tag)
    if row is None:
        raise Conflict.gone(d_tag, Skill(d_tag=d_tag, content=content))
    if row.d_tag != d_tag or row.deleted_at is not None:
        raise conflict(session, row.id, d_tag, expected_version, submitted)

    def edited(new_tag: str, text: str) -> dict[str, Any]:
        return _skill_input(
            new_tag, text, row.name if name is None else name,
            row.layer if layer is None else layer,
            row.triggers if triggers is None else submitted["triggers"],
            row.enabled if enabled is None else enabled,
            row.description if description is None else description)

    if new_d_tag is not None and new_d_tag != d_tag:
        # One revision for the whole edit, the rename and the author's changes together.
        return _rename(session, get_agent(session, agent), row, expected_version,
                       edited(new_d_tag, content), submitted, note).skill
    saved = save(session, row, expected_version, edited(d_tag, content), note, submitted)
    if saved.version != expected_version:  # else the save changed nothing
        record(session, saved.agent, "skill.save", d_tag,
               f"version {saved.version}" + (f": {note}" if note else ""))
    return saved


@change
def set_skill_enabled(session: Session, agent: AgentRef, d_tag: str, enabled: bool, *,
                      expected_version: int | None = None) -> models.Skill:
    """Enable or disable a skill (a new version); without `expected_version`, from the current."""
    row = get_skill(session, agent, d_tag)
    version = row.version if expected_version is None else expected_version
    fields = {**skill_fields(row), "enabled": enabled}
    note = "enabled" if enabled else "disabled"
    saved = save(session, row, version, fields, note, {"enabled": enabled})
    if saved.version != version:
        record(session, saved.agent, "skill.toggle", d_tag, f"{note}, version {saved.version}")
    return saved


@change
def reorder_skills(session: Session, agent: AgentRef, d_tags: Sequence[str]) -> list[models.Skill]:
    """Set the adoption order: `d_tags` must name every live skill exactly once.

    Raises `ValidationError` on `order` (`rules.order_problem`) otherwise; nothing changes.
    """
    agent_row = get_agent(session, agent)
    live = list_skills(session, agent_row)
    problem = rules.order_problem(d_tags, [s.d_tag for s in live])
    if problem:
        raise ValidationError([("order", problem)])
    by_tag = {s.d_tag: s for s in live}
    if list(d_tags) != [s.d_tag for s in live]:
        record(session, agent_row, "skill.reorder", "", names(list(d_tags)))
    for position, d_tag in enumerate(d_tags):
        by_tag[d_tag].position = position
    # Trashed skills keep their relative order after the live ones.
    for offset, row in enumerate(sorted(list_trash(session, agent_row),
                                        key=lambda r: (r.position, r.id))):
        row.position = len(d_tags) + offset
    session.flush()
    return [by_tag[d_tag] for d_tag in d_tags]


# -- references, rename, trash


def references_to(session: Session, agent: AgentRef, d_tag: str) -> list[str]:
    """The `d_tag`s of the other live skills whose content has `{{d_tag}}`, in adoption order."""
    return pipeline.references_to((skill_of(s) for s in list_skills(session, agent)), d_tag)


@dataclass(frozen=True)
class Renamed:
    """What `rename_skill` did: the renamed skill and the skills whose references it updated."""

    skill: models.Skill
    updated: tuple[str, ...] = field(default=())


@change
def rename_skill(session: Session, agent: AgentRef, d_tag: str, new_d_tag: str, *,
                 update_references: bool = False, expected_version: int | None = None) -> Renamed:
    """Change a skill's `d_tag`.

    When other skills reference it as `{{d_tag}}`, raises `InUse` listing them,
    unless `update_references`: then each reference becomes `{{new_d_tag}}` (spacing
    inside the braces kept) and every changed skill gets a new version. Raises
    `AlreadyExists` if `new_d_tag` is taken (also by a skill in the trash).
    """
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    version = row.version if expected_version is None else expected_version
    if new_d_tag == d_tag:
        return Renamed(row)
    if not update_references and references_to(session, agent_row, d_tag):
        raise InUse(d_tag, references_to(session, agent_row, d_tag), "rename")
    fields = _skill_input(new_d_tag, row.content, row.name, row.layer, row.triggers,
                          row.enabled, row.description)
    return _rename(session, agent_row, row, version, fields, {"d_tag": new_d_tag})


def _rename(session: Session, agent: models.Agent, row: models.Skill, version: int,
            fields: dict[str, Any], submitted: dict[str, Any], author_note: str | None = None
            ) -> Renamed:
    """Save `row` with checked `fields` (a new `d_tag` among them; its own `{{old}}`
    references renamed) as one new version, noting the old name, the skills whose references
    were rewritten (each gets a version of its own) and the author's note."""
    old, new_d_tag = row.d_tag, fields["d_tag"]
    own = {**fields, "content": rename_placeholders(fields["content"], old, new_d_tag)}
    taken = taken_skill(session, agent, new_d_tag)
    if taken is not None and taken.id != row.id:
        raise AlreadyExists([("d_tag", _taken(new_d_tag, taken))])
    users = references_to(session, agent, old)
    note = f"renamed from {old}"
    if users:
        note += f"; references rewritten in {', '.join(users)}"
    if author_note:
        note += f"; {author_note}"
    save(session, row, version, own, note, submitted)
    record(session, agent, "skill.rename", new_d_tag, f"from {old}" + (
        f"; references rewritten in {names(users)}" if users else ""))
    reference = f"reference {{{{{old}}}}} renamed to {{{{{new_d_tag}}}}}"
    for user_tag in users:
        user = get_skill(session, agent, user_tag)
        fields = {**skill_fields(user), "content": rename_placeholders(user.content, old,
                                                                       new_d_tag)}
        save(session, user, user.version, fields, reference, {})
    return Renamed(row, tuple(users))

