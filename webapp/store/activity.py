"""Who did what: the append-only activity record.

Every store function that changes something calls `record` inside its own transaction
(`transactions.change`), so a change and its record commit together or not at all: a
refused change leaves no row, and no row claims a change that did not happen. A call
that changes nothing (a save of the saved text) records nothing. Rows are only ever
added: nothing here updates or deletes one, and purging an agent keeps them (its
`agent_id` becomes NULL, its name stays).

The actor is `actor.current_actor()`, read here and nowhere else, so no caller can
forget to pass it; None (the local single-user mode) is shown as `LOCAL`.
"""

from __future__ import annotations

from sqlalchemy import Select, distinct, false, select
from sqlalchemy.orm import Session

from webapp.schema import models
from webapp.schema.models import ACTIVITY_DETAIL_LENGTH, NAME_LENGTH, utcnow

from . import rules
from .actor import LOCAL, current_actor
from .errors import ValidationError
from .transactions import in_change

#: Every kind of change the record knows, with what it says in a sentence ("alice ...").
KINDS: dict[str, str] = {
    "agent.create": "created the agent",
    "agent.settings": "changed the agent's settings",
    "agent.rename": "renamed the agent",
    "agent.delete": "moved the agent to the trash",
    "agent.restore": "restored the agent from the trash",
    "agent.purge": "deleted the agent for good",
    "agent.nostr": "changed the agent's Nostr key or relays",
    "skill.create": "created a skill",
    "skill.save": "saved a skill",
    "skill.rename": "renamed a skill",
    "skill.toggle": "enabled or disabled a skill",
    "skill.reorder": "changed the adoption order",
    "skill.delete": "moved a skill to the trash",
    "skill.restore": "restored a skill from the trash",
    "skill.import": "imported skill folders",
    "revision.restore": "restored an old version of a skill",
    "tool.create": "added a mock tool",
    "tool.update": "changed a mock tool",
    "tool.rename": "renamed a mock tool",
    "tool.delete": "removed a mock tool",
    "variable.create": "added a variable binding",
    "variable.update": "changed a variable binding",
    "variable.rename": "renamed a variable binding",
    "variable.delete": "removed a variable binding",
    "scenario.create": "added a scenario",
    "scenario.update": "changed a scenario",
    "scenario.rename": "renamed a scenario",
    "scenario.delete": "removed a scenario",
    "import": "imported a bundle",
    "log.append": "appended to the context log",
    "log.delete": "deleted a context-log entry",
    "log.clear": "cleared the context log",
    "publish": "published the context",
    "publish.override": "published with failing context tests",
    "label.move": "moved a label to a snapshot",
    "webhook.add": "added a webhook",
    "webhook.remove": "removed a webhook",
    "webhook.toggle": "paused or resumed a webhook",
    "nostr.import": "imported skills from Nostr",
    "nostr.publish": "published signed events to Nostr relays",
}

#: The groups a filter may ask for as a whole (`skill` is every `skill.*` kind).
KIND_GROUPS: tuple[str, ...] = tuple(sorted({kind.partition(".")[0] for kind in KINDS
                                             if "." in kind}))

#: Rows per page of an activity list.
PAGE_SIZE = 50


def record(session: Session, agent: models.Agent, kind: str, subject: str = "",
           detail: str = "") -> models.Activity:
    """Add a row saying the current actor made a change of `kind` to `subject` of `agent`.

    Call it inside the change's own transaction (a `@change` function), after its
    checks. `subject` and `detail` are cut to their columns and flattened to one line,
    so a hostile name or note can neither fail the change nor fill the page.

    Raises:
        ValueError: `kind` is not one of `KINDS` (a programming error).
        RuntimeError: called outside a store change, where nothing would commit it.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown activity kind {kind!r}")
    if not in_change(session):
        raise RuntimeError("activity.record must be called inside a store change (@change)")
    row = models.Activity(at=utcnow(), actor=current_actor(), agent_name=agent.name,
                          agent_id=agent.id, kind=kind, subject=bounded(subject, NAME_LENGTH),
                          detail=bounded(detail, ACTIVITY_DETAIL_LENGTH))
    session.add(row)
    session.flush()
    return row


def bounded(text: str, limit: int) -> str:
    """`text` on one line (control characters, line breaks and runs of white space
    become one space) and at most `limit` characters, cut with `…`."""
    line = " ".join("".join(" " if ch < " " or ch == "\x7f" else ch for ch in text).split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def names(items: list[str] | tuple[str, ...], shown: int = 5) -> str:
    """`a, b, c and 4 more`: a few names for a detail, never all of a long list."""
    listed = ", ".join(items[:shown])
    return f"{listed} and {len(items) - shown} more" if len(items) > shown else listed


def list_activity(session: Session, *, agent: models.Agent | str | None = None,
                  actor: str | None = None, kind: str | None = None,
                  before: int | None = None, limit: int = PAGE_SIZE) -> list[models.Activity]:
    """Rows of the record, newest first, at most `limit`, with ids below `before` (the
    last id of the page before: the next page starts there).

    `agent` as a row is that agent's rows across its renames; as a name, the rows
    recorded under that name (an agent purged or renamed since included). `actor` is a
    username, or `LOCAL` for the changes made without an account. `kind` is one of
    `KINDS` or of `KIND_GROUPS`. Raises `ValidationError` (on `kind`) for any other kind.
    """
    return list(session.scalars(_filtered(select(models.Activity), agent=agent, actor=actor,
                                          kind=kind)
                                .where(*([models.Activity.id < before] if before else []))
                                .order_by(models.Activity.id.desc()).limit(limit)))


def activity_actors(session: Session, *, agent: models.Agent | None = None
                    ) -> list[str | None]:
    """Everyone the record names (of `agent`'s rows only, when given), None (the local
    mode) first, then by username: the choices of a User filter."""
    found = set(session.scalars(_filtered(select(distinct(models.Activity.actor)),
                                          agent=agent)))
    return ([None] if None in found else []) + sorted(name for name in found if name)


def activity_agent_names(session: Session) -> list[str]:
    """Every agent name the record holds (purged and former names too), sorted."""
    return sorted(session.scalars(select(distinct(models.Activity.agent_name))))


def _filtered(query: Select, *, agent: models.Agent | str | None = None,
              actor: str | None = None, kind: str | None = None) -> Select:
    column = models.Activity
    if kind is not None and kind not in KINDS and kind not in KIND_GROUPS:
        raise ValidationError([("kind", f"must be one of the activity kinds, not "
                                        f"{bounded(kind, 40)!r}")])
    if any(value is not None and not rules.can_be_stored(value) for value in (actor, agent)
           if not isinstance(value, models.Agent)):
        return query.where(false())  # a NUL is in no row, and PostgreSQL refuses to compare it
    if isinstance(agent, models.Agent):
        query = query.where(column.agent_id == agent.id)
    elif agent is not None:
        query = query.where(column.agent_name == agent)
    if actor == LOCAL:
        query = query.where(column.actor.is_(None))
    elif actor is not None:
        query = query.where(column.actor == actor)
    if kind in KINDS:
        query = query.where(column.kind == kind)
    elif kind is not None:
        query = query.where(column.kind.startswith(f"{kind}.", autoescape=True))
    return query
