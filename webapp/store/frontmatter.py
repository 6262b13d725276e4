"""A skill's SKILL.md frontmatter edited as text: every key, not only the skill's fields.

The frontmatter editor shows the YAML a skill's SKILL.md exports (`frontmatter_text`) and
saves it whole (`save_frontmatter`): the text becomes the skill's head as written, so the
keys the author did not touch keep their bytes, and the skill's fields are the ones the
text reads as (`agentskills.with_frontmatter`). The save is a skill write like any other:
the bundle's rules, one version from the one the page showed, one revision, one activity
row; a file with mixed line ends keeps the end of each line it still has.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from webapp import agentskills
from webapp.agentskills import SkillMdError, skill_name
from webapp.schema import models

from . import rules
from .activity import record
from .agents import AgentRef, get_agent
from .convert import skill_fields, skill_of
from .errors import ValidationError
from .skills import get_skill, save
from .transactions import change


def exported_head(row: models.Skill | models.SkillRevision) -> str:
    """The head the skill's SKILL.md is exported with (its head as written, fields edited
    since rewritten in place; derived for a skill made in the editor)."""
    return agentskills.head_for(skill_of(row), row.frontmatter)


def frontmatter_text(row: models.Skill | models.SkillRevision) -> str:
    """The YAML of the skill's SKILL.md, as exported: what the frontmatter editor shows."""
    return agentskills.frontmatter_yaml(exported_head(row))


@change
def save_frontmatter(session: Session, agent: AgentRef, d_tag: str, text: str, *,
                     expected_version: int) -> models.Skill:
    """Save the YAML of a skill's SKILL.md as edited: a new version whose head is `text`
    between the fences and whose fields are what it reads as (its body kept).

    Raises `ValidationError` (each problem under `frontmatter` or the key it names: YAML
    that does not read, a field the bundle refuses, a d_tag that is not the skill's: a
    rename is the editor's), `Conflict` (not the current version), `NotFound`.
    """
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    head = exported_head(row)
    try:
        read = agentskills.with_frontmatter(head, text, row.content,
                                            folder=skill_name(row.d_tag))
    except SkillMdError as exc:
        raise ValidationError(exc.problems) from None
    if read.skill.d_tag != row.d_tag:
        raise ValidationError([("metadata.d_tag", f"is the skill's d_tag ({row.d_tag}): rename "
                                                  "the skill in its editor")])
    fields = rules.check("skills", {
        "d_tag": row.d_tag, "name": read.skill.name, "description": read.skill.description,
        "layer": read.skill.layer, "triggers": list(read.skill.triggers),
        "enabled": read.skill.enabled, "content": row.content})
    # The stored head is the one read, so the ends of its lines follow the lines kept.
    fields.update(frontmatter=read.head,
                  line_ends=agentskills.with_new_head(row.frontmatter, read.head,
                                                      row.line_ends))
    saved = save(session, row, expected_version, fields, "frontmatter edited",
                 {**skill_fields(row), "frontmatter": text})
    if saved.version != expected_version:
        record(session, agent_row, "skill.save", row.d_tag,
               f"version {saved.version}: frontmatter edited")
    return saved
