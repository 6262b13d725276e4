"""What an activity row changed, and whether it is still there to be shown.

A row's `subject` (and for a label move its `detail`) names what the change was made to,
in the words the recording code wrote: a d_tag, an item's name, `#3` for a snapshot, a
log entry or a webhook. `target_of` reads that back as a `Target`; `still_there` says
which targets still exist (a skill in the trash does: its history can be read; a removed
tool or webhook does not), so a page links only to what it can show.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from webapp.pipeline import whole_number
from webapp.schema import api_models, models

from .labels import moved_to

#: The kinds of target whose existence is read from a table: the table's agent column and
#: the column the key is in (the others are the agent's own pages: they exist with it).
_TABLES = {
    "skill": (models.Skill.agent_id, models.Skill.d_tag),
    "tool": (models.Tool.agent_id, models.Tool.name),
    "variable": (models.Variable.agent_id, models.Variable.name),
    "scenario": (models.Scenario.agent_id, models.Scenario.name),
    "snapshot": (models.PublishedSnapshot.agent_id, models.PublishedSnapshot.number),
    "log": (models.ContextLogEntry.agent_id, models.ContextLogEntry.id),
    "webhook": (api_models.Webhook.agent_id, api_models.Webhook.id),
}
#: The targets named by a number (`#3`).
_NUMBERED = ("snapshot", "log", "webhook")
#: Kinds whose target is a page of the agent's own: `settings`, `nostr` or `agent` (the
#: agent's skills).
_AGENT_PAGES = {"agent.create": "settings", "agent.settings": "settings",
                "agent.rename": "settings", "agent.restore": "settings",
                "agent.nostr": "nostr", "nostr.import": "nostr", "nostr.publish": "nostr",
                "import": "agent"}


@dataclass(frozen=True, slots=True)
class Target:
    """What a row changed: its `kind` (`skill`, `tool`, `variable`, `scenario`,
    `snapshot`, `log`, `webhook`, or an agent page: `settings`, `nostr`, `agent`) and
    `key` (a d_tag or a name, a number as text, '' for an agent page), of agent `agent_id`."""

    agent_id: int
    kind: str
    key: str


def target_of(row: models.Activity) -> Target | None:
    """What `row` changed, if it names something a page could show (None: a purged
    agent's row, the adoption order, a cleared log, a deleted item or entry)."""
    if row.agent_id is None:
        return None
    group, _, action = row.kind.partition(".")
    kind, key = "", row.subject
    if row.kind in _AGENT_PAGES:
        kind, key = _AGENT_PAGES[row.kind], ""
    elif group in ("skill", "revision") and key:
        kind = "skill"
    elif group in ("tool", "variable", "scenario") and action != "delete":
        kind = group
    elif group == "publish":
        kind, key = "snapshot", key.removeprefix("#")
    elif row.kind == "label.move":
        number = moved_to(row.detail)
        kind, key = "snapshot", str(number) if number is not None else ""
    elif group == "webhook" and action != "remove":
        kind, key = "webhook", key.removeprefix("#")
    elif row.kind == "log.append":
        kind, key = "log", key.removeprefix("#")
    if not kind or (kind in _NUMBERED and not _is_number(key)):
        return None
    return Target(row.agent_id, kind, key)


def still_there(session: Session, targets: Iterable[Target]) -> set[Target]:
    """The `targets` that exist now: one query per kind of target asked for."""
    wanted: dict[str, set[Target]] = {}
    for target in targets:
        wanted.setdefault(target.kind, set()).add(target)
    found = {target for kind, group in wanted.items() if kind not in _TABLES
             for target in group}
    for kind, group in wanted.items():
        if kind not in _TABLES:
            continue
        agent_column, key_column = _TABLES[kind]
        keys = {int(t.key) if kind in _NUMBERED else t.key for t in group}
        for agent_id, key in session.execute(select(agent_column, key_column).where(
                agent_column.in_({t.agent_id for t in group}), key_column.in_(keys))):
            found.add(Target(agent_id, kind, str(key)))
    return found & {target for group in wanted.values() for target in group}


def _is_number(text: str) -> bool:
    """A number as a row names it: ASCII digits, few enough for any column."""
    return whole_number(text) is not None
