"""Labels: names (`production`, `staging`, ...) that point at one snapshot of an agent.

Publishing moves a label (`PRODUCTION` unless the reviewer names another) to the new
snapshot in the same transaction; moving a label back to an older snapshot is the
rollback, with no new number. Moving `PRODUCTION` needs a reviewer (`REVIEWER`): an
account's role is checked here, so the web, the CLI's `--as` and any later path get
the same rule. Each move is an activity row (`label.move`) and a `label.moved` event for
the agent's webhooks, in the same transaction.

A reference to a snapshot is a number, `latest`, a label's name or `draft` (the
workspace as it is now, where a path accepts it); a label name is never all digits and
never `latest` or `draft`, so a reference means one thing. `reference` reads it, once,
for every path: `publish.resolve`, the runtime API, Compare and the log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.pipeline import is_digits, whole_number
from webapp.schema import api_models, models
from webapp.schema.models import utcnow

from .accounts import require_role
from .activity import record
from .actor import current_actor
from .agents import AgentRef, get_agent
from .errors import ValidationError
from .log import DRAFT
from .transactions import rows
from .webhooks import enqueue, moved_data

PRODUCTION = "production"
#: The role that may move `PRODUCTION` (any label may be moved by an author).
REVIEWER = "reviewer"
#: Words a reference gives another meaning: no label may be named so.
RESERVED = ("latest", DRAFT)
#: How the detail of a `label.move` activity row starts: `to #3 (was #2)`.
MOVED_TO = "to #"
#: Lower-case letters, digits, `.`, `_`, `-`; starting with a letter or digit.
_LABEL = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


NUMBER, LATEST, LABEL, NOTHING = "number", "latest", "label", "nothing"


@dataclass(frozen=True, slots=True)
class Reference:
    """What a snapshot reference names: `kind` is `NUMBER` (with `number`), `LATEST`,
    `LABEL` (a name a label may have), `DRAFT`, or `NOTHING` (no snapshot can have it)."""

    text: str
    kind: str
    number: int | None = None


def reference(text: str) -> Reference:
    """Read a snapshot reference: ASCII digits are a number (`²` is not), `latest` and
    `draft` are themselves, a name a label may have is a label, anything else names
    nothing."""
    number = whole_number(text)
    if number is not None:
        return Reference(text, NUMBER, number)
    if text in RESERVED:
        return Reference(text, LATEST if text == "latest" else DRAFT)
    return Reference(text, LABEL if label_problem(text) is None else NOTHING)


def label_problem(name: str) -> str | None:
    """What is wrong with `name` as a label's name, or None."""
    if not _LABEL.fullmatch(name):
        return ("must be 1 to 64 lower-case letters, digits, '.', '_' or '-', starting with "
                "a letter or digit")
    if is_digits(name):
        return "cannot be a number (a number names a snapshot)"
    if name in RESERVED:
        return f"cannot be {name!r} (a reference with its own meaning)"
    return None


def moved_to(detail: str) -> int | None:
    """The number of the snapshot a `label.move` row's detail says the label moved to."""
    number = detail.removeprefix(MOVED_TO).partition(" ")[0] if detail.startswith(MOVED_TO) else ""
    return whole_number(number)


def labels_by_snapshot(session: Session, agent: AgentRef) -> dict[int, list[str]]:
    """The agent's labels, sorted, by the id of the snapshot each points at."""
    row = get_agent(session, agent)
    found: dict[int, list[str]] = {}
    for label in session.scalars(select(api_models.Label).where(api_models.Label.agent_id == row.id)
                                 .order_by(api_models.Label.name)):
        found.setdefault(label.snapshot_id, []).append(label.name)
    return found


def point_at(session: Session, agent: models.Agent, name: str,
             snapshot: models.PublishedSnapshot) -> api_models.Label:
    """Point label `name` at `snapshot`, inside a change (`store.publish`'s publish and
    `move_label`). Raises `ValidationError`: not a label's name, or `production` moved by
    an account below reviewer."""
    problem = label_problem(name)
    if problem:
        raise ValidationError([("label", problem)])
    if name == PRODUCTION:
        require_role(session, REVIEWER, "label", f"moving {PRODUCTION!r}")
    return _point(session, agent, name, snapshot)


def _point(session: Session, agent: models.Agent, name: str,
           snapshot: models.PublishedSnapshot) -> api_models.Label:
    label = session.scalar(rows(api_models.Label).where(api_models.Label.agent_id == agent.id,
                                                     api_models.Label.name == name))
    before = None
    if label is None:
        label = api_models.Label(agent_id=agent.id, name=name, snapshot_id=snapshot.id)
        session.add(label)
    else:
        before = session.get(models.PublishedSnapshot, label.snapshot_id)
        label.snapshot_id = snapshot.id
    label.moved_by, label.moved_at = current_actor(), utcnow()
    session.flush()
    was = f" (was #{before.number})" if before is not None else ""
    record(session, agent, "label.move", name, f"{MOVED_TO}{snapshot.number}{was}")
    enqueue(session, agent, "label.moved", moved_data(agent, name, snapshot, before))
    return label
