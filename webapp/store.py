"""The store: what the web app and the CLI do to the database, as plain functions.

This is the only place that turns rows into the pipeline's plain `Workspace` data
and back. Every function takes a `Session`; every function that changes something
does it in one transaction and commits it before returning (on any error it rolls
back, and nothing is written). Problems are raised as the exceptions below, which
carry what a caller needs to show them: a `Conflict` keeps both the saved text and
the text the author submitted, so a stale save never loses either.

Skills are never overwritten blindly: each save names the version it started from
and is applied with one atomic `UPDATE ... WHERE id = ? AND version = ?`, so of two
concurrent saves from the same version exactly one wins and the other gets a
`Conflict`. Every saved state of a skill is kept as a revision; deleting a skill
moves it to the trash.

Fields are checked with the bundle loader's own rules (`load_bundle`), so a skill
that can be saved can always be exported and imported again.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import models, pipeline
from .models import utcnow
from .pipeline import (
    DEFAULT_HISTORY_LABELS,
    Agent,
    HistoryEntry,
    Scenario,
    Skill,
    Tool,
    ToolResult,
    Variable,
    Workspace,
    check_item,
    dump_bundle,
    dump_scenario,
    dump_tool,
    dump_variable,
    load_bundle,
    rename_placeholders,
)

#: An agent given by row, id or name.
AgentRef = models.Agent | int | str

P = ParamSpec("P")
R = TypeVar("R")


# -- errors


class StoreError(Exception):
    """Base class of the store's errors."""


class NotFound(StoreError):
    """No such agent, skill, revision, tool, variable, scenario or log entry."""


class ValidationError(StoreError):
    """Bad field values; `.problems` lists `(field, message)` pairs."""

    def __init__(self, problems: Sequence[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("; ".join(f"{name}: {message}" for name, message in self.problems))

    @property
    def errors(self) -> dict[str, str]:
        """The first message for each field, for showing next to form inputs."""
        errors: dict[str, str] = {}
        for name, message in self.problems:
            errors.setdefault(name, message)
        return errors


class AlreadyExists(ValidationError):
    """A name (agent, `d_tag`, tool, variable or scenario) is taken."""


class Conflict(StoreError):
    """A save started from a version that is no longer the current one.

    Nothing was written. `current` holds the saved skill as it is now (`version`,
    `content`, `name`, ...; `deleted` true when it was moved to the trash meanwhile)
    and `submitted` the fields the author sent, `submitted_content` their text.
    """

    def __init__(self, d_tag: str, *, expected_version: int | None, current: dict[str, Any],
                 submitted: dict[str, Any]):
        self.d_tag = d_tag
        self.expected_version = expected_version
        self.current = current
        self.submitted = submitted
        state = "was moved to the trash" if current.get("deleted") else (
            f"is at version {current['version']}")
        super().__init__(f"skill {d_tag!r} {state}; the save started from version "
                         f"{expected_version} and was not applied")

    @property
    def current_version(self) -> int:
        return self.current["version"]

    @property
    def current_content(self) -> str:
        return self.current["content"]

    @property
    def submitted_content(self) -> str | None:
        return self.submitted.get("content")


class InUse(StoreError):
    """A skill is referenced as `{{d_tag}}` by other skills; `.referenced_by` lists them."""

    def __init__(self, d_tag: str, referenced_by: Sequence[str], action: str):
        self.d_tag = d_tag
        self.referenced_by = list(referenced_by)
        super().__init__(f"cannot {action} {d_tag!r}: referenced by "
                         + ", ".join(self.referenced_by))


ReferencedBy = InUse


def _rows(model: type[Any]) -> Any:
    """`select(model)` that refreshes objects the session already holds.

    Sessions keep objects across commits (`expire_on_commit=False`), so without
    this a long-lived session could see the version or text of an earlier read.
    """
    return select(model).execution_options(populate_existing=True)


def _change(fn: Callable[Concatenate[Session, P], R]) -> Callable[Concatenate[Session, P], R]:
    """Run a store function as one transaction: commit on return, roll back on error."""

    @functools.wraps(fn)
    def wrapper(session: Session, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result = fn(session, *args, **kwargs)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return result

    return wrapper


# -- checking fields with the bundle's rules


def _check(section: str, item: dict[str, Any]) -> None:
    """Raise `ValidationError` if `item` is not a valid entry of bundle `section`."""
    problems = [(p.path, p.message) for p in check_item(section, item)]
    problems += [(key, _NUL_MESSAGE) for key in _nul_fields(item)]
    if problems:
        raise ValidationError([(_field_of(path), message) for path, message in problems])


_NUL_MESSAGE = "must not contain NUL characters (U+0000)"


def _nul_fields(item: Mapping[str, Any]) -> list[str]:
    """The keys of `item` whose text has a NUL: PostgreSQL cannot store one in a text column.

    (JSON values are stored escaped, so only plain string fields are checked.)
    """
    return [key for key, value in item.items() if isinstance(value, str) and "\x00" in value]


def _check_bundle_text(bundle: Mapping[str, Any]) -> None:
    """`_nul_fields` for every entry of a whole bundle dict, with JSON paths."""
    problems = [(f"$.agent.{key}", _NUL_MESSAGE) for key in _nul_fields(bundle["agent"])]
    for section in ("skills", "tools", "variables", "scenarios"):
        for index, item in enumerate(bundle[section]):
            problems += [(f"$.{section}[{index}].{key}", _NUL_MESSAGE) for key in _nul_fields(item)]
    if problems:
        raise ValidationError(problems)


def _field_of(path: str) -> str:
    """`triggers[2]` -> `triggers`."""
    return re.split(r"[.\[]", path, maxsplit=1)[0] or path


# -- agents


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
        row = session.scalar(_rows(models.Agent).where(models.Agent.name == agent))
    if row is None:
        raise NotFound(f"no agent {agent!r}")
    return row


def _agent_fields(name: str, title: str, message_mode: str, max_array_items: int,
                  history_labels: Mapping[str, str] | None) -> dict[str, Any]:
    fields = {"name": name, "title": title, "message_mode": message_mode,
              "max_array_items": max_array_items,
              "history_labels": dict(DEFAULT_HISTORY_LABELS if history_labels is None
                                     else history_labels)}
    _check("agent", fields)
    return fields


@_change
def create_agent(session: Session, name: str, *, title: str = "{name}",
                 message_mode: str = "grouped", max_array_items: int = 8,
                 history_labels: Mapping[str, str] | None = None) -> models.Agent:
    """Create an empty workspace; raises `AlreadyExists` or `ValidationError`."""
    fields = _agent_fields(name, title, message_mode, max_array_items, history_labels)
    return _insert_agent(session, fields)


def _insert_agent(session: Session, fields: dict[str, Any]) -> models.Agent:
    if session.scalar(select(models.Agent.id).where(models.Agent.name == fields["name"])):
        raise AlreadyExists([("name", f"an agent named {fields['name']!r} already exists")])
    row = models.Agent(**fields)
    _insert(session, row, "name", f"an agent named {fields['name']!r} already exists")
    return row


@_change
def update_agent(session: Session, agent: AgentRef, **changes: Any) -> models.Agent:
    """Change an agent's `name`, `title`, `message_mode`, `max_array_items` or `history_labels`."""
    row = get_agent(session, agent)
    fields = {"name": row.name, "title": row.title, "message_mode": row.message_mode,
              "max_array_items": row.max_array_items, "history_labels": row.history_labels}
    _apply_changes(fields, changes)
    fields = _agent_fields(**fields)
    if fields["name"] != row.name and session.scalar(
            select(models.Agent.id).where(models.Agent.name == fields["name"])):
        raise AlreadyExists([("name", f"an agent named {fields['name']!r} already exists")])
    for key, value in fields.items():
        setattr(row, key, value)
    session.flush()
    return row


def _apply_changes(fields: dict[str, Any], changes: Mapping[str, Any]) -> None:
    unknown = sorted(set(changes) - set(fields))
    if unknown:
        raise TypeError(f"unknown field(s): {', '.join(unknown)}")
    fields.update(changes)


def _insert(session: Session, row: Any, field_name: str, message: str) -> None:
    """Add `row` and flush; a unique-constraint race becomes `AlreadyExists`."""
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise AlreadyExists([(field_name, message)]) from None


# -- workspaces


def load_workspace(session: Session, agent: AgentRef) -> Workspace:
    """The agent's workspace for the pipeline: live skills in adoption order, tools, ..."""
    row = get_agent(session, agent)
    return Workspace(
        agent=Agent(name=row.name, title=row.title, message_mode=row.message_mode,
                    max_array_items=row.max_array_items, history_labels=dict(row.history_labels)),
        skills=tuple(skill_of(s) for s in list_skills(session, row)),
        tools=tuple(_tool_data(t) for t in list_tools(session, row)),
        variables=tuple(_variable_data(v) for v in list_variables(session, row)),
        scenarios=tuple(_scenario_data(s) for s in list_scenarios(session, row)),
    )


def skill_of(row: models.Skill | models.SkillRevision) -> Skill:
    """The pipeline `Skill` of a skill row or one of its revisions."""
    return Skill(d_tag=row.d_tag, content=row.content, name=row.name, layer=row.layer,
                 triggers=tuple(row.triggers), enabled=row.enabled)


def _tool_data(row: models.Tool) -> Tool:
    return Tool(name=row.name, description=row.description, result=row.result,
                results_by_args=tuple(ToolResult(args=r["args"], result=r["result"])
                                      for r in row.results_by_args))


def _variable_data(row: models.Variable) -> Variable:
    return Variable(name=row.name, tool=row.tool, args=row.args, result_field=row.result_field,
                    path=row.path, format=row.format, limit=row.limit)


def _scenario_data(row: models.Scenario) -> Scenario:
    return Scenario(name=row.name, trigger=row.trigger, message=row.message,
                    history=tuple(HistoryEntry(role=h["role"], content=h["content"],
                                               created_at=h.get("created_at"))
                                  for h in row.history),
                    event=row.event, provider=row.provider)


def export_bundle(session: Session, agent: AgentRef) -> dict[str, Any]:
    """The agent's workspace as a `skill-workspace/1` bundle dict (trash not included)."""
    return dump_bundle(load_workspace(session, agent))


@_change
def import_bundle(session: Session, bundle: Workspace | Mapping[str, Any], *,
                  replace: bool = False, agent_name: str | None = None) -> models.Agent:
    """Import a bundle (a `Workspace` or a bundle dict) as a new agent, or over one.

    `agent_name` imports under another name. An existing agent of that name is
    refused with `AlreadyExists` unless `replace`; replacing keeps what can be kept:
    a skill with the same `d_tag` gets the bundle's text as a new version (restored
    from the trash if it was there), a skill missing from the bundle goes to the
    trash, and tools, variables and scenarios become the bundle's. The context log
    stays. Raises `BundleError` (with every problem) for an invalid bundle dict.
    """
    workspace = bundle if isinstance(bundle, Workspace) else load_bundle(dict(bundle))
    _check_bundle_text(dump_bundle(workspace))
    source = workspace.agent
    fields = _agent_fields(agent_name or source.name, source.title, source.message_mode,
                           source.max_array_items, source.history_labels)
    existing = session.scalar(_rows(models.Agent).where(models.Agent.name == fields["name"]))
    if existing is not None and not replace:
        message = (f"an agent named {fields['name']!r} already exists; "
                   "import with replace to overwrite it")
        raise AlreadyExists([("name", message)])
    if existing is None:
        agent = _insert_agent(session, fields)
    else:
        agent = existing
        for key, value in fields.items():
            setattr(agent, key, value)
    _replace_skills(session, agent, workspace.skills)
    _replace_rest(session, agent, workspace)
    session.flush()
    # Positions and trash were set with bulk updates; reload whatever the session holds.
    session.expire_all()
    return agent


def _replace_skills(session: Session, agent: models.Agent, skills: Sequence[Skill]) -> None:
    rows = {row.d_tag: row for row in session.scalars(
        _rows(models.Skill).where(models.Skill.agent_id == agent.id))}
    now = utcnow()
    for position, skill in enumerate(skills):
        fields = {"d_tag": skill.d_tag, "name": skill.name, "layer": skill.layer,
                  "triggers": list(skill.triggers), "enabled": skill.enabled,
                  "content": skill.content}
        row = rows.pop(skill.d_tag, None)
        if row is None:
            _new_skill(session, agent, fields, position=position, note="imported")
            continue
        if row.deleted_at is not None or _skill_fields(row) != fields:
            try:
                _write_skill(session, row, row.version, fields, note="imported",
                             restore=row.deleted_at is not None)
            except _Stale:  # saved by someone else during the import
                raise _conflict(session, row.id, row.d_tag, row.version, fields) from None
        session.execute(update(models.Skill).where(models.Skill.id == row.id)
                        .values(position=position))
    trashed = len(skills)
    for row in sorted(rows.values(), key=lambda r: (r.position, r.id)):
        values: dict[str, Any] = {"position": trashed}
        if row.deleted_at is None:
            values["deleted_at"] = now
        session.execute(update(models.Skill).where(models.Skill.id == row.id).values(**values))
        trashed += 1


def _replace_rest(session: Session, agent: models.Agent, workspace: Workspace) -> None:
    for model in (models.Tool, models.Variable, models.Scenario):
        session.execute(delete(model).where(model.agent_id == agent.id))
    for position, tool in enumerate(workspace.tools):
        session.add(models.Tool(agent_id=agent.id, position=position, **dump_tool(tool)))
    for position, variable in enumerate(workspace.variables):
        session.add(models.Variable(agent_id=agent.id, position=position,
                                    **dump_variable(variable)))
    for position, scenario in enumerate(workspace.scenarios):
        session.add(models.Scenario(agent_id=agent.id, position=position,
                                    **dump_scenario(scenario)))


# -- skills


def list_skills(session: Session, agent: AgentRef, *, include_deleted: bool = False
                ) -> list[models.Skill]:
    """The agent's skills in adoption order; the trash only if `include_deleted`."""
    row = get_agent(session, agent)
    query = _rows(models.Skill).where(models.Skill.agent_id == row.id)
    if not include_deleted:
        query = query.where(models.Skill.deleted_at.is_(None))
    return list(session.scalars(query.order_by(models.Skill.position, models.Skill.id)))


def list_trash(session: Session, agent: AgentRef) -> list[models.Skill]:
    """The agent's deleted skills, most recently deleted first."""
    row = get_agent(session, agent)
    return list(session.scalars(
        _rows(models.Skill)
        .where(models.Skill.agent_id == row.id, models.Skill.deleted_at.is_not(None))
        .order_by(models.Skill.deleted_at.desc(), models.Skill.id.desc())))


def get_skill(session: Session, agent: AgentRef, d_tag: str, *,
              include_deleted: bool = False) -> models.Skill:
    """The skill with this `d_tag`; raises `NotFound` (also for a trashed one, unless asked)."""
    row = _find_skill(session, agent, d_tag)
    if row is None or (row.deleted_at is not None and not include_deleted):
        where = " (it is in the trash)" if row is not None else ""
        raise NotFound(f"no skill {d_tag!r}{where}")
    return row


def _find_skill(session: Session, agent: AgentRef, d_tag: str) -> models.Skill | None:
    agent_row = get_agent(session, agent)
    return session.scalar(_rows(models.Skill).where(
        models.Skill.agent_id == agent_row.id, models.Skill.d_tag == d_tag))


def _skill_fields(row: models.Skill | models.SkillRevision) -> dict[str, Any]:
    return {"d_tag": row.d_tag, "name": row.name, "layer": row.layer,
            "triggers": list(row.triggers), "enabled": row.enabled, "content": row.content}


def _snapshot(row: models.Skill) -> dict[str, Any]:
    return {**_skill_fields(row), "version": row.version, "deleted": row.deleted_at is not None,
            "updated_at": row.updated_at}


def _skill_input(d_tag: str, content: str, name: str, layer: int, triggers: Iterable[str],
                 enabled: bool) -> dict[str, Any]:
    if isinstance(triggers, str):
        raise ValidationError([("triggers", "must be a list of trigger names, not a string")])
    fields = {"d_tag": d_tag, "name": name, "layer": layer, "triggers": list(triggers),
              "enabled": enabled, "content": content}
    _check("skills", fields)
    return fields


@_change
def create_skill(session: Session, agent: AgentRef, d_tag: str, *, content: str = "",
                 name: str = "", layer: int = 1, triggers: Iterable[str] = (),
                 enabled: bool = True, note: str | None = None) -> models.Skill:
    """Add a skill at the end of the adoption order, as version 1 with its first revision."""
    agent_row = get_agent(session, agent)
    fields = _skill_input(d_tag, content, name, layer, triggers, enabled)
    position = session.scalar(select(func.coalesce(func.max(models.Skill.position) + 1, 0))
                              .where(models.Skill.agent_id == agent_row.id))
    return _new_skill(session, agent_row, fields, position=position or 0, note=note)


def _new_skill(session: Session, agent: models.Agent, fields: dict[str, Any], *,
               position: int, note: str | None) -> models.Skill:
    taken = _find_skill(session, agent, fields["d_tag"])
    if taken is not None:
        where = " in the trash (restore it, or choose another d_tag)" if taken.deleted else ""
        raise AlreadyExists([("d_tag", f"a skill {fields['d_tag']!r} already exists{where}")])
    now = utcnow()
    row = models.Skill(agent_id=agent.id, position=position, version=1, created_at=now,
                       updated_at=now, **fields)
    _insert(session, row, "d_tag", f"a skill {fields['d_tag']!r} already exists")
    session.add(models.SkillRevision(skill_id=row.id, version=1, saved_at=now, note=note,
                                     **fields))
    session.flush()
    return row


class _Stale(Exception):
    """Internal: the atomic update matched no row (the version moved on, or it was trashed)."""


def _write_skill(session: Session, row: models.Skill, expected_version: int,
                 fields: dict[str, Any], *, note: str | None, restore: bool = False) -> None:
    """Apply `fields` as version `expected_version + 1` and record the revision.

    One `UPDATE ... WHERE id = ? AND version = ?`: the database decides which of two
    concurrent saves wins, and the loser matches no row. Raises `_Stale` then.
    """
    now = utcnow()
    condition = [models.Skill.id == row.id, models.Skill.version == expected_version]
    if not restore:
        condition.append(models.Skill.deleted_at.is_(None))
    values = {**fields, "version": expected_version + 1, "updated_at": now}
    if restore:
        values["deleted_at"] = None
    result = session.execute(update(models.Skill).where(*condition).values(**values)
                             .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        raise _Stale()
    session.add(models.SkillRevision(skill_id=row.id, version=expected_version + 1,
                                     saved_at=now, note=note, **fields))
    session.flush()
    session.expire(row)


def _conflict(session: Session, row_id: int, d_tag: str, expected_version: int | None,
              submitted: dict[str, Any]) -> Conflict:
    """Roll back and describe what is saved now, for a `Conflict`."""
    session.rollback()
    current = session.get(models.Skill, row_id, populate_existing=True)
    snapshot = _snapshot(current) if current is not None else {
        "version": None, "content": "", "deleted": True}
    session.rollback()
    return Conflict(d_tag, expected_version=expected_version, current=snapshot,
                    submitted=submitted)


def _save(session: Session, row: models.Skill, expected_version: int, fields: dict[str, Any],
          note: str | None, submitted: dict[str, Any]) -> models.Skill:
    # No check of `row.version` first: only the atomic update may decide.
    try:
        _write_skill(session, row, expected_version, fields, note=note)
    except (_Stale, IntegrityError):
        raise _conflict(session, row.id, row.d_tag, expected_version, submitted) from None
    session.refresh(row)
    return row


@_change
def save_skill(session: Session, agent: AgentRef, d_tag: str, *, expected_version: int,
               content: str, name: str | None = None, layer: int | None = None,
               triggers: Iterable[str] | None = None, enabled: bool | None = None,
               note: str | None = None) -> models.Skill:
    """Save a skill edited from `expected_version`: a new version and its revision.

    `name`, `layer`, `triggers` and `enabled` left as None keep their saved values.
    Raises `Conflict` (nothing written) when `expected_version` is not the current
    version or the skill was moved to the trash meanwhile, `NotFound`, `ValidationError`.
    """
    submitted = {"content": content, "name": name, "layer": layer,
                 "triggers": None if triggers is None else list(triggers), "enabled": enabled}
    row = _find_skill(session, agent, d_tag)
    if row is None:
        raise NotFound(f"no skill {d_tag!r}")
    fields = _skill_input(
        d_tag, content, row.name if name is None else name, row.layer if layer is None else layer,
        row.triggers if triggers is None else submitted["triggers"],
        row.enabled if enabled is None else enabled)
    return _save(session, row, expected_version, fields, note, submitted)


@_change
def set_skill_enabled(session: Session, agent: AgentRef, d_tag: str, enabled: bool, *,
                      expected_version: int | None = None) -> models.Skill:
    """Enable or disable a skill (a new version); without `expected_version`, from the current."""
    row = get_skill(session, agent, d_tag)
    version = row.version if expected_version is None else expected_version
    fields = {**_skill_fields(row), "enabled": enabled}
    return _save(session, row, version, fields, "enabled" if enabled else "disabled",
                 {"enabled": enabled})


@_change
def reorder_skills(session: Session, agent: AgentRef, d_tags: Sequence[str]) -> list[models.Skill]:
    """Set the adoption order: `d_tags` must name every live skill exactly once."""
    agent_row = get_agent(session, agent)
    live = list_skills(session, agent_row)
    if sorted(d_tags) != sorted(s.d_tag for s in live):
        missing = sorted({s.d_tag for s in live} - set(d_tags))
        extra = sorted(set(d_tags) - {s.d_tag for s in live})
        duplicated = sorted({t for t in d_tags if list(d_tags).count(t) > 1})
        details = [f"missing: {', '.join(missing)}" if missing else "",
                   f"unknown: {', '.join(extra)}" if extra else "",
                   f"repeated: {', '.join(duplicated)}" if duplicated else ""]
        raise ValidationError([("order", "must list every skill once ("
                                + "; ".join(d for d in details if d) + ")")])
    by_tag = {s.d_tag: s for s in live}
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


@_change
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
    _skill_input(new_d_tag, row.content, row.name, row.layer, row.triggers, row.enabled)
    if _find_skill(session, agent_row, new_d_tag) is not None:
        raise AlreadyExists([("d_tag", f"a skill {new_d_tag!r} already exists")])
    users = references_to(session, agent_row, d_tag)
    if users and not update_references:
        raise InUse(d_tag, users, "rename")

    def renamed(text: str) -> str:
        return rename_placeholders(text, d_tag, new_d_tag)

    own = {**_skill_fields(row), "d_tag": new_d_tag, "content": renamed(row.content)}
    _save(session, row, version, own, f"renamed from {d_tag}", {"d_tag": new_d_tag})
    note = f"reference {{{{{d_tag}}}}} renamed to {{{{{new_d_tag}}}}}"
    for user_tag in users:
        user = get_skill(session, agent_row, user_tag)
        fields = {**_skill_fields(user), "content": renamed(user.content)}
        _save(session, user, user.version, fields, note, {})
    return Renamed(row, tuple(users))


@_change
def delete_skill(session: Session, agent: AgentRef, d_tag: str, *, force: bool = False
                 ) -> models.Skill:
    """Move a skill to the trash; raises `InUse` if other skills reference it, unless `force`."""
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    users = references_to(session, agent_row, d_tag)
    if users and not force:
        raise InUse(d_tag, users, "delete")
    row.deleted_at = utcnow()
    session.flush()
    return row


@_change
def restore_skill(session: Session, agent: AgentRef, d_tag: str) -> models.Skill:
    """Take a skill out of the trash, at the place in the adoption order it had."""
    row = _find_skill(session, agent, d_tag)
    if row is None or row.deleted_at is None:
        raise NotFound(f"no skill {d_tag!r} in the trash")
    row.deleted_at = None
    session.flush()
    return row


# -- revisions


def list_revisions(session: Session, agent: AgentRef, d_tag: str) -> list[models.SkillRevision]:
    """Every saved version of a skill (also of one in the trash), newest first."""
    row = get_skill(session, agent, d_tag, include_deleted=True)
    return list(session.scalars(_rows(models.SkillRevision)
                                .where(models.SkillRevision.skill_id == row.id)
                                .order_by(models.SkillRevision.version.desc())))


def get_revision(session: Session, agent: AgentRef, d_tag: str, version: int
                 ) -> models.SkillRevision:
    """One saved version of a skill; raises `NotFound`."""
    row = get_skill(session, agent, d_tag, include_deleted=True)
    revision = session.scalar(select(models.SkillRevision).where(
        models.SkillRevision.skill_id == row.id, models.SkillRevision.version == version))
    if revision is None:
        raise NotFound(f"skill {d_tag!r} has no version {version}")
    return revision


@_change
def restore_revision(session: Session, agent: AgentRef, d_tag: str, version: int, *,
                     expected_version: int, note: str | None = None) -> models.Skill:
    """Save an old version's content and metadata as a new version (the `d_tag` stays)."""
    row = get_skill(session, agent, d_tag)
    revision = get_revision(session, agent, d_tag, version)
    fields = {**_skill_fields(revision), "d_tag": row.d_tag}
    return _save(session, row, expected_version, fields, note or f"restored version {version}",
                 fields)


# -- tools, variables and scenarios


@dataclass(frozen=True)
class _Kind:
    """How one of the simple per-agent tables maps to a bundle section."""

    model: type[Any]
    section: str
    label: str
    defaults: dict[str, Any]
    normalize: Callable[[dict[str, Any]], dict[str, Any]]

    def fields_of(self, row: Any) -> dict[str, Any]:
        return {key: getattr(row, key) for key in self.defaults}


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
    return {**fields, "history": history}


def _normalize_variable(fields: dict[str, Any]) -> dict[str, Any]:
    return {**fields, "result_field": fields["result_field"] or "content"}


TOOLS = _Kind(models.Tool, "tools", "tool",
              {"name": "", "description": "", "result": None, "results_by_args": []},
              _normalize_tool)
VARIABLES = _Kind(models.Variable, "variables", "variable",
                  {"name": "", "tool": "", "args": None, "result_field": "content", "path": None,
                   "format": None, "limit": None},
                  _normalize_variable)
SCENARIOS = _Kind(models.Scenario, "scenarios", "scenario",
                  {"name": "", "trigger": "dm", "message": "", "history": [], "event": None,
                   "provider": None},
                  _normalize_scenario)


def _list(session: Session, kind: _Kind, agent: AgentRef) -> list[Any]:
    row = get_agent(session, agent)
    return list(session.scalars(_rows(kind.model).where(kind.model.agent_id == row.id)
                                .order_by(kind.model.position, kind.model.id)))


def _get(session: Session, kind: _Kind, agent: AgentRef, name: str) -> Any:
    agent_row = get_agent(session, agent)
    row = session.scalar(_rows(kind.model).where(kind.model.agent_id == agent_row.id,
                                                  kind.model.name == name))
    if row is None:
        raise NotFound(f"no {kind.label} {name!r}")
    return row


def _validated(kind: _Kind, fields: dict[str, Any]) -> dict[str, Any]:
    fields = kind.normalize(fields)
    _check(kind.section, fields)
    return fields


def _name_taken(session: Session, kind: _Kind, agent_id: int, name: str) -> AlreadyExists | None:
    if session.scalar(select(kind.model.id).where(kind.model.agent_id == agent_id,
                                                  kind.model.name == name)):
        return AlreadyExists([("name", f"a {kind.label} named {name!r} already exists")])
    return None


def _create(session: Session, kind: _Kind, agent: AgentRef, name: str,
            changes: dict[str, Any]) -> Any:
    agent_row = get_agent(session, agent)
    fields = dict(kind.defaults)
    _apply_changes(fields, {"name": name, **changes})
    fields = _validated(kind, fields)
    taken = _name_taken(session, kind, agent_row.id, fields["name"])
    if taken:
        raise taken
    position = session.scalar(select(func.coalesce(func.max(kind.model.position) + 1, 0))
                              .where(kind.model.agent_id == agent_row.id))
    row = kind.model(agent_id=agent_row.id, position=position or 0, **fields)
    _insert(session, row, "name", f"a {kind.label} named {fields['name']!r} already exists")
    return row


def _update(session: Session, kind: _Kind, agent: AgentRef, name: str,
            changes: dict[str, Any]) -> Any:
    row = _get(session, kind, agent, name)
    fields = kind.fields_of(row)
    _apply_changes(fields, changes)
    fields = _validated(kind, fields)
    if fields["name"] != row.name:
        taken = _name_taken(session, kind, row.agent_id, fields["name"])
        if taken:
            raise taken
    for key, value in fields.items():
        setattr(row, key, value)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise AlreadyExists([("name", f"a {kind.label} named {fields['name']!r} already exists")]
                            ) from None
    return row


def _delete(session: Session, kind: _Kind, agent: AgentRef, name: str) -> None:
    session.delete(_get(session, kind, agent, name))
    session.flush()


def list_tools(session: Session, agent: AgentRef) -> list[models.Tool]:
    """The agent's mock tools, in the order they were added."""
    return _list(session, TOOLS, agent)


def get_tool(session: Session, agent: AgentRef, name: str) -> models.Tool:
    """The mock tool with this name; raises `NotFound`."""
    return _get(session, TOOLS, agent, name)


@_change
def create_tool(session: Session, agent: AgentRef, name: str, **fields: Any) -> models.Tool:
    """Add a mock tool; fields: `description`, `result`, `results_by_args` (dicts or
    `ToolResult`s)."""
    return _create(session, TOOLS, agent, name, fields)


@_change
def update_tool(session: Session, agent: AgentRef, name: str, /, **changes: Any) -> models.Tool:
    """Change a mock tool's fields; `name=` renames it."""
    return _update(session, TOOLS, agent, name, changes)


@_change
def delete_tool(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a mock tool (bindings to it then report `missing-tool`)."""
    _delete(session, TOOLS, agent, name)


def list_variables(session: Session, agent: AgentRef) -> list[models.Variable]:
    """The agent's variable bindings, in the order they were added."""
    return _list(session, VARIABLES, agent)


def get_variable(session: Session, agent: AgentRef, name: str) -> models.Variable:
    """The variable binding with this name; raises `NotFound`."""
    return _get(session, VARIABLES, agent, name)


@_change
def create_variable(session: Session, agent: AgentRef, name: str, **fields: Any
                    ) -> models.Variable:
    """Add a binding; fields: `tool` (required), `args`, `result_field`, `path`, `format`,
    `limit`."""
    return _create(session, VARIABLES, agent, name, fields)


@_change
def update_variable(session: Session, agent: AgentRef, name: str, /, **changes: Any
                    ) -> models.Variable:
    """Change a binding's fields; `name=` renames it."""
    return _update(session, VARIABLES, agent, name, changes)


@_change
def delete_variable(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a binding."""
    _delete(session, VARIABLES, agent, name)


def list_scenarios(session: Session, agent: AgentRef) -> list[models.Scenario]:
    """The agent's scenarios, in the order they were added (the first is the default)."""
    return _list(session, SCENARIOS, agent)


def get_scenario(session: Session, agent: AgentRef, name: str) -> models.Scenario:
    """The scenario with this name; raises `NotFound`."""
    return _get(session, SCENARIOS, agent, name)


@_change
def create_scenario(session: Session, agent: AgentRef, name: str, **fields: Any
                    ) -> models.Scenario:
    """Add a scenario; fields: `trigger`, `message`, `history` (dicts or HistoryEntries),
    `event`, `provider`."""
    return _create(session, SCENARIOS, agent, name, fields)


@_change
def update_scenario(session: Session, agent: AgentRef, name: str, /, **changes: Any
                    ) -> models.Scenario:
    """Change a scenario's fields; `name=` renames it."""
    return _update(session, SCENARIOS, agent, name, changes)


@_change
def delete_scenario(session: Session, agent: AgentRef, name: str) -> None:
    """Remove a scenario."""
    _delete(session, SCENARIOS, agent, name)


# -- the context log


@_change
def log_context(session: Session, agent: AgentRef, context: Any, *, scenario: str | None = None,
                trigger: str | None = None, keep: int | None = None) -> models.ContextLogEntry:
    """Append an assembled `Context` to the agent's context log.

    `scenario` and `trigger` default to the ones the context was assembled for. With
    `keep`, only the newest `keep` entries of the agent are kept.
    """
    agent_row = get_agent(session, agent)
    counts = context.counts()
    entry = models.ContextLogEntry(
        agent_id=agent_row.id,
        scenario=scenario if scenario is not None else getattr(context, "scenario", None),
        trigger=trigger if trigger is not None else (getattr(context, "trigger", "") or ""),
        created_at=utcnow(),
        document=context.document,
        messages=[dict(m) for m in context.messages],
        diagnostics=[d.to_dict() for d in context.diagnostics],
        summary=getattr(context, "log_entry", "") or "",
        error_count=counts.get("error", 0),
        warning_count=counts.get("warning", 0),
        info_count=counts.get("info", 0),
    )
    session.add(entry)
    session.flush()
    if keep is not None:
        cutoff = session.scalars(
            select(models.ContextLogEntry.id).where(models.ContextLogEntry.agent_id == agent_row.id)
            .order_by(models.ContextLogEntry.id.desc()).offset(keep).limit(1)).first()
        if cutoff is not None:
            session.execute(delete(models.ContextLogEntry).where(
                models.ContextLogEntry.agent_id == agent_row.id,
                models.ContextLogEntry.id <= cutoff))
    return entry


def list_log(session: Session, agent: AgentRef, *, scenario: str | None = None,
             limit: int | None = 50) -> list[models.ContextLogEntry]:
    """The agent's context-log entries, newest first (optionally of one scenario)."""
    agent_row = get_agent(session, agent)
    query = select(models.ContextLogEntry).where(models.ContextLogEntry.agent_id == agent_row.id)
    if scenario is not None:
        query = query.where(models.ContextLogEntry.scenario == scenario)
    query = query.order_by(models.ContextLogEntry.id.desc())
    if limit is not None:
        query = query.limit(limit)
    return list(session.scalars(query))


def get_log_entry(session: Session, agent: AgentRef, entry_id: int) -> models.ContextLogEntry:
    """One context-log entry of the agent; raises `NotFound`."""
    agent_row = get_agent(session, agent)
    entry = session.get(models.ContextLogEntry, entry_id)
    if entry is None or entry.agent_id != agent_row.id:
        raise NotFound(f"no context-log entry {entry_id}")
    return entry


@_change
def delete_log_entry(session: Session, agent: AgentRef, entry_id: int) -> None:
    """Remove one context-log entry."""
    session.delete(get_log_entry(session, agent, entry_id))
    session.flush()


@_change
def clear_log(session: Session, agent: AgentRef) -> int:
    """Remove all of the agent's context-log entries; returns how many there were."""
    agent_row = get_agent(session, agent)
    result = session.execute(delete(models.ContextLogEntry)
                             .where(models.ContextLogEntry.agent_id == agent_row.id))
    return result.rowcount
