"""Whole workspaces: loading one for the pipeline, and bundles out and in.

What the pipeline assembles needs the skills' text only (`load_workspace`); a bundle that
is exported or published holds every byte of each skill's folder too (`bundle_workspace`:
a `skill-workspace/2` bundle when a skill has a head, CRLF line ends or files). Importing
a `/2` bundle writes each skill's folder as the bundle has it; a `/1` bundle has none, and
the skills it updates keep theirs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.orm import Session

from webapp.agentskills import SkillFolder
from webapp.pipeline import (
    Folder,
    Skill,
    Workspace,
    dump_bundle,
    dump_scenario,
    dump_skill,
    dump_tool,
    dump_variable,
    load_bundle,
)
from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .activity import record
from .agents import AgentRef, agent_fields, find_agent, get_agent, insert_agent, taken_agent
from .convert import (
    agent_of,
    folder_fields,
    scenario_of,
    skill_fields,
    skill_of,
    tool_of,
    variable_of,
)
from .errors import AlreadyExists, ValidationError
from .folders import bundle_folders, folder_input, head_problem
from .items import (
    SCENARIOS,
    TOOLS,
    VARIABLES,
    list_items,
    list_scenarios,
    list_tools,
    list_variables,
    trash_items,
)
from .skills import Stale, conflict, list_skills, new_skill, pipeline_skills, write_skill
from .transactions import change, rows


def load_workspace(session: Session, agent: AgentRef) -> Workspace:
    """The agent's workspace for the pipeline: live skills in adoption order, tools, ..."""
    row = get_agent(session, agent)
    return _workspace(session, row, pipeline_skills(session, row))


def workspace_with(session: Session, agent: models.Agent, skills: Sequence[models.Skill]
                   ) -> Workspace:
    """The agent's workspace with these skill rows (read by the caller, who needs them)."""
    return _workspace(session, agent, [skill_of(s) for s in skills])


def _workspace(session: Session, agent: models.Agent, skills: Sequence[Skill]) -> Workspace:
    return Workspace(
        agent=agent_of(agent),
        skills=tuple(skills),
        tools=tuple(tool_of(t) for t in list_tools(session, agent)),
        variables=tuple(variable_of(v) for v in list_variables(session, agent)),
        scenarios=tuple(scenario_of(s) for s in list_scenarios(session, agent)),
    )


def bundle_workspace(session: Session, agent: models.Agent, skills: Sequence[models.Skill]
                     ) -> Workspace:
    """The agent's workspace with these skill rows and their folders, every file read: what
    its bundle holds (`export_bundle`, a snapshot)."""
    return dataclasses.replace(workspace_with(session, agent, skills),
                               folders=bundle_folders(session, agent.id, skills))


def export_bundle(session: Session, agent: AgentRef) -> dict[str, Any]:
    """The agent's workspace as a bundle dict (trash not included), its skills' folders
    with it (`bundle_workspace`)."""
    row = get_agent(session, agent)
    return dump_bundle(bundle_workspace(session, row, list_skills(session, row)))


@change
def import_bundle(session: Session, bundle: Workspace | Mapping[str, Any], *,
                  replace: bool = False, agent_name: str | None = None) -> models.Agent:
    """Import a bundle (a `Workspace` or a bundle dict) as a new agent, or over one.

    `agent_name` imports under another name. An existing agent of that name is
    refused with `AlreadyExists` unless `replace`; replacing keeps what can be kept:
    a skill with the same `d_tag` gets the bundle's text as a new version (restored
    from the trash if it was there), a skill missing from the bundle goes to the
    trash, and tools, variables and scenarios become the bundle's. The context log
    stays. Replacing an agent in the trash restores it.

    Raises:
        BundleError: an invalid bundle dict (every problem, with its JSON path).
        ValidationError: what the database cannot store (`rules.bundle_problems`), each
            problem with its JSON path (`$.skills[0].d_tag`, or `agent_name`).
        AlreadyExists: the agent exists and `replace` is not set.
    """
    workspace = bundle if isinstance(bundle, Workspace) else load_bundle(dict(bundle))
    # A `/2` bundle's folders are the skills' (written as they are, checked by the store's
    # rules); a `/1` bundle has none, and the skills keep theirs.
    folders = workspace.folders_by_tag if workspace.folders else None
    # Line ends become LF first (`rules.normalized`), as on every other path.
    workspace = load_bundle(rules.normalized_bundle(dump_bundle(
        dataclasses.replace(workspace, folders=()))))
    rules.check_bundle(dump_bundle(workspace), agent_name=agent_name)
    source = workspace.agent
    fields = agent_fields(agent_name or source.name, source.title, source.message_mode,
                          source.max_array_items, source.history_labels, source.model,
                          source.context_window, source.builtin_tests)
    existing = find_agent(session, fields["name"])
    lookalike = taken_agent(session, fields["name"]) if existing is None else None
    if lookalike is not None:
        raise AlreadyExists([("agent_name" if agent_name else "$.agent.name",
                              f"an agent named {lookalike.name!r} already exists, which reads "
                              f"as {fields['name']!r}: import under another name")])
    if existing is not None and not replace:
        where = " (in the trash)" if existing.deleted_at is not None else ""
        # Said to an author too, who cannot replace: the way open to everyone comes first.
        message = (f"an agent named {fields['name']!r} already exists{where}; import it "
                   "under another name, or an admin may replace the agent with it")
        raise AlreadyExists([("agent_name" if agent_name else "$.agent.name", message)])
    if existing is None:
        agent = insert_agent(session, fields)
    else:
        agent = existing
        for key, value in fields.items():
            setattr(agent, key, value)
        agent.deleted_at = None  # replacing an agent in the trash brings it back
    _replace_skills(session, agent, workspace.skills, folders)
    _replace_rest(session, agent, workspace)
    session.flush()
    record(session, agent, "import", agent.name,
           f"{'over the existing agent' if existing is not None else 'as a new agent'}; "
           f"skills: {len(workspace.skills)}, tools: {len(workspace.tools)}, "
           f"variables: {len(workspace.variables)}, scenarios: {len(workspace.scenarios)}")
    # Positions and trash were set with bulk updates; reload whatever the session holds.
    session.expire_all()
    return agent


def _replace_skills(session: Session, agent: models.Agent, skills: Sequence[Skill],
                    folders: Mapping[str, Folder] | None) -> None:
    rows_by_tag = {row.d_tag: row for row in session.scalars(
        rows(models.Skill).where(models.Skill.agent_id == agent.id))}
    now = utcnow()
    for position, skill in enumerate(skills):
        fields = dump_skill(skill)
        if folders is not None:
            fields.update(_folder_fields(session, agent, skill, position,
                                         folders.get(skill.d_tag)))
        row = rows_by_tag.pop(skill.d_tag, None)
        if row is None:
            new_skill(session, agent, fields, position=position, note="imported")
            continue
        now_fields = skill_fields(row) if folders is None else {**skill_fields(row),
                                                                **folder_fields(row)}
        if row.deleted_at is not None or now_fields != fields:
            try:
                write_skill(session, row, row.version, fields, note="imported",
                            restore=row.deleted_at is not None)
            except Stale:  # saved by someone else during the import
                raise conflict(session, row.id, row.d_tag, row.version, fields) from None
        session.execute(update(models.Skill).where(models.Skill.id == row.id)
                        .values(position=position))
    trashed = len(skills)
    for row in sorted(rows_by_tag.values(), key=lambda r: (r.position, r.id)):
        values: dict[str, Any] = {"position": trashed}
        if row.deleted_at is None:
            values["deleted_at"] = now
        session.execute(update(models.Skill).where(models.Skill.id == row.id).values(**values))
        trashed += 1


def _folder_fields(session: Session, agent: models.Agent, skill: Skill, position: int,
                   folder: Folder | None) -> dict[str, Any]:
    """The folder columns of a skill a `/2` bundle imports (its files stored), checked as
    every file set is, each problem under the skill's JSON path."""
    folder = folder or Folder(skill.d_tag)
    where = f"$.skills[{position}]"
    problem = head_problem(folder.head)
    if problem:
        raise ValidationError([(f"{where}.frontmatter", problem)])
    try:
        return folder_input(session, agent, SkillFolder(skill, folder.head, folder.crlf,
                                                        folder.files,
                                                        line_ends=folder.line_ends))
    except ValidationError as exc:
        raise ValidationError([(f"{where}.{field}", message)
                               for field, message in exc.problems]) from None


def _replace_rest(session: Session, agent: models.Agent, workspace: Workspace) -> None:
    # What the bundle drops or changes goes to the item trash first: nothing is lost.
    bundled = ((TOOLS, [dump_tool(t) for t in workspace.tools]),
               (VARIABLES, [dump_variable(v) for v in workspace.variables]),
               (SCENARIOS, [dump_scenario(s) for s in workspace.scenarios]))
    for kind, items in bundled:
        by_name = {item["name"]: kind.normalize(dict(item)) for item in items}
        dropped = [row for row in list_items(session, kind, agent)
                   if by_name.get(row.name) != kind.fields_of(row)]
        trash_items(session, agent, kind, dropped, "replaced by an import")
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
