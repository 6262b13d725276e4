"""Every saved version of a skill, and bringing an old one back."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.pipeline import excerpt
from webapp.schema import models

from .activity import record
from .agents import AgentRef
from .convert import folder_fields, skill_fields
from .errors import NotFound
from .folders import check_manifest
from .skills import get_skill, save
from .transactions import change, rows


def list_revisions(session: Session, agent: AgentRef, d_tag: str) -> list[models.SkillRevision]:
    """Every saved version of a skill (also of one in the trash), newest first."""
    row = get_skill(session, agent, d_tag, include_deleted=True)
    return list(session.scalars(rows(models.SkillRevision)
                                .where(models.SkillRevision.skill_id == row.id)
                                .order_by(models.SkillRevision.version.desc())))


def get_revision(session: Session, agent: AgentRef, d_tag: str, version: int
                 ) -> models.SkillRevision:
    """One saved version of a skill; raises `NotFound`."""
    row = get_skill(session, agent, d_tag, include_deleted=True)
    revision = session.scalar(select(models.SkillRevision).where(
        models.SkillRevision.skill_id == row.id, models.SkillRevision.version == version))
    if revision is None:
        raise NotFound(f"skill {excerpt(d_tag)} has no version {version}")
    return revision


@change
def restore_revision(session: Session, agent: AgentRef, d_tag: str, version: int, *,
                     expected_version: int, note: str | None = None) -> models.Skill:
    """Save an old version's content, metadata and files as a new version (the `d_tag`
    stays)."""
    row = get_skill(session, agent, d_tag)
    revision = get_revision(session, agent, d_tag, version)
    fields = {**skill_fields(revision), **folder_fields(revision), "d_tag": row.d_tag}
    check_manifest(session, fields["files"])  # the limits may have been lowered since
    saved = save(session, row, expected_version, fields, note or f"restored version {version}",
                 fields)
    if saved.version != expected_version:  # else the old version is what is saved now
        record(session, saved.agent, "revision.restore", d_tag,
               f"version {version} as version {saved.version}")
    return saved
