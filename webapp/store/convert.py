"""Rows into the pipeline's plain data, written once: `skill_of(row)` and its siblings.

(`load_workspace` builds a whole `Workspace` with these.)
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row

from webapp.agentskills import exported_name, listing_facts
from webapp.pipeline import Agent, HistoryEntry, Scenario, Skill, Tool, ToolResult, Variable
from webapp.schema import models


def agent_of(row: models.Agent) -> Agent:
    """The pipeline `Agent` of an agent row."""
    return Agent(name=row.name, title=row.title, message_mode=row.message_mode,
                 max_array_items=row.max_array_items, history_labels=dict(row.history_labels),
                 model=row.model, context_window=row.context_window,
                 builtin_tests=row.builtin_tests)


def skill_of(row: models.Skill | models.SkillRevision | Row[Any]) -> Skill:
    """The pipeline `Skill` of a skill row or one of its revisions (or of their
    `skills.PIPELINE_COLUMNS` read alone)."""
    return Skill(d_tag=row.d_tag, content=row.content, name=row.name, layer=row.layer,
                 triggers=tuple(row.triggers), enabled=row.enabled, description=row.description)


def tool_of(row: models.Tool) -> Tool:
    """The pipeline `Tool` of a tool row."""
    return Tool(name=row.name, description=row.description, result=row.result,
                results_by_args=tuple(ToolResult(args=r["args"], result=r["result"])
                                      for r in row.results_by_args))


def variable_of(row: models.Variable) -> Variable:
    """The pipeline `Variable` of a binding row."""
    return Variable(name=row.name, tool=row.tool, args=row.args, result_field=row.result_field,
                    path=row.path, format=row.format, limit=row.limit)


def scenario_of(row: models.Scenario) -> Scenario:
    """The pipeline `Scenario` of a scenario row."""
    return Scenario(name=row.name, trigger=row.trigger, message=row.message,
                    history=tuple(HistoryEntry(role=h["role"], content=h["content"],
                                               created_at=h.get("created_at"))
                                  for h in row.history),
                    event=row.event, provider=row.provider, expect=tuple(row.expect or ()))


def skill_fields(row: models.Skill | models.SkillRevision) -> dict[str, Any]:
    """The fields a skill row and its revisions share, as a bundle skill dict."""
    return {"d_tag": row.d_tag, "name": row.name, "description": row.description,
            "layer": row.layer, "triggers": list(row.triggers), "enabled": row.enabled,
            "content": row.content}


def folder_fields(row: models.Skill | models.SkillRevision) -> dict[str, Any]:
    """The Agent Skills folder columns a skill row and its revisions share (`store.folders`)."""
    return {"frontmatter": row.frontmatter, "crlf": row.crlf, "line_ends": row.line_ends,
            "files": list(row.files)}


def exported_of(row: models.Skill | models.SkillRevision) -> str:
    """The `name` the SKILL.md of a skill in this state exports (`agentskills.exported_name`,
    a YAML round trip of its head): kept on the skill's row by every write."""
    return exported_name(skill_of(row), row.frontmatter or "")


def listing_of(row: models.Skill | models.SkillRevision) -> dict[str, list[int]]:
    """How each client lists the skill in this state (`agentskills.listing_facts`): kept on
    the skill's row by every write, beside its exported name."""
    return listing_facts(skill_of(row), row.frontmatter or "")
