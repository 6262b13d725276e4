"""The activity lists laid out for `_activity.html`: the filter, its choices, the rows and
the links to the pages around.

What a row holds and which kinds exist is the store's (`store.activity`); this module
only lays out what the store returns for a filter the route read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from webapp import store
from webapp.schema import models

#: The filter fields a request may carry, in the order the form shows them.
FILTER_FIELDS = ("user", "agent", "kind")
#: Rows per page of an activity list.
PAGE_SIZE = 50


def who(actor: str | None) -> str:
    """How a change's author is shown: the username, or `store.LOCAL` for the local mode."""
    return actor or store.LOCAL


@dataclass(frozen=True, slots=True)
class ActivityRow:
    """One recorded change as the list shows it."""

    at: datetime
    who: str
    agent: str
    #: The agent's activity page while an agent of that name exists, else None.
    agent_url: str | None
    kind: str
    said: str
    subject: str
    detail: str
    #: The page of what the row changed, while it is there and this user may read it.
    subject_url: str | None = None


@dataclass(frozen=True, slots=True)
class ActivityList:
    """An activity page: its filter (the values asked for and the choices), rows, pager."""

    action: str
    filters: dict[str, str]
    users: list[str]
    #: The Agent filter's choices; None on an agent's own page, which has no Agent field.
    agents: list[str] | None
    kinds: list[tuple[str, list[tuple[str, str]]]]
    rows: list[ActivityRow]
    newest_url: str | None
    older_url: str | None


def kind_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """The Kind filter's choices, grouped: each group first as a whole, then its kinds;
    the kinds of no group (`import`, `publish`) under "other"."""
    groups = [(group, [(group, f"every {group} change")] + [
        (kind, f"{kind}: {said}") for kind, said in store.KINDS.items()
        if kind.startswith(f"{group}.")]) for group in store.KIND_GROUPS]
    other = [(kind, f"{kind}: {said}") for kind, said in store.KINDS.items() if "." not in kind]
    return groups + [("other", other)]


#: `url(target, agent)`: the page of an activity row's target (`store.targets.Target`) of
#: the agent now named `agent`, or None where the user may not read it.
TargetUrl = Callable[[store.targets.Target, str], str | None]


def activity_list(session: Session, args: Mapping[str, Any], before: int | None,
                  page_url: Callable[..., str], agent_url: Callable[[str], str],
                  target_url: TargetUrl, *, agent: models.Agent | None = None
                  ) -> ActivityList:
    """The page the filter in `args` and `before` (the last id of the page before) ask
    for; `page_url(**query)` is the address of the list, `agent_url(name)` an agent's
    activity page, `target_url` the page of what a row changed. With `agent`, that
    agent's rows only (and no Agent filter)."""
    fields = FILTER_FIELDS if agent is None else ("user", "kind")
    filters = {name: args[name] for name in fields if args.get(name)}
    rows = store.list_activity(session, agent=agent or filters.get("agent"),
                               actor=filters.get("user"), kind=filters.get("kind"),
                               before=before, limit=PAGE_SIZE + 1)
    shown = rows[:PAGE_SIZE]
    agents = store.list_agents(session)
    live = {row.name for row in agents}
    links = subject_urls(session, shown, {row.id: row.name for row in agents}, target_url)
    return ActivityList(
        action=page_url(), filters=filters,
        users=[who(actor) for actor in store.activity_actors(session, agent=agent)],
        agents=store.activity_agent_names(session) if agent is None else None,
        kinds=kind_choices(),
        rows=[_row(row, live, agent_url, links.get(row.id)) for row in shown],
        newest_url=page_url(**filters) if before else None,
        older_url=(page_url(**filters, before=shown[-1].id) if len(rows) > PAGE_SIZE
                   else None))


def subject_urls(session: Session, rows: list[models.Activity], live: dict[int, str],
                 target_url: TargetUrl) -> dict[int, str]:
    """The page of what each row changed, by the row's id: for the rows whose target is
    still there, of an agent not in the trash (`live`: the name of each, by id)."""
    targets = {row.id: target for row in rows
               if (target := store.targets.target_of(row)) and target.agent_id in live}
    there = store.targets.still_there(session, targets.values())
    urls = {row_id: target_url(target, live[target.agent_id])
            for row_id, target in targets.items() if target in there}
    return {row_id: url for row_id, url in urls.items() if url}


def _row(row: models.Activity, live: set[str], agent_url: Callable[[str], str],
         subject_url: str | None) -> ActivityRow:
    return ActivityRow(
        at=row.at, who=who(row.actor), agent=row.agent_name,
        agent_url=agent_url(row.agent_name) if row.agent_name in live else None,
        kind=row.kind, said=store.KINDS.get(row.kind, row.kind), subject=row.subject,
        detail=row.detail, subject_url=subject_url)
