"""Skills into the trash and back: a skill in use is kept unless forced, and a restored
one takes the place in the adoption order it had."""

from __future__ import annotations

from sqlalchemy.orm import Session

from webapp.pipeline import excerpt
from webapp.schema import models
from webapp.schema.models import utcnow

from .activity import names, record
from .agents import AgentRef, get_agent
from .errors import InUse, NotFound
from .skills import find_skill, get_skill, references_to
from .transactions import change


@change
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
    record(session, agent_row, "skill.delete", d_tag,
           f"still referenced by {names(users)}" if users else "")
    return row


@change
def restore_skill(session: Session, agent: AgentRef, d_tag: str) -> models.Skill:
    """Take a skill out of the trash, at the place in the adoption order it had."""
    row = find_skill(session, agent, d_tag)
    if row is None or row.deleted_at is None:
        raise NotFound(f"no skill {excerpt(d_tag)} in the trash")
    row.deleted_at = None
    session.flush()
    record(session, row.agent, "skill.restore", d_tag)
    return row
