"""The context log: assembled contexts kept so an author can look back at them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .activity import record
from .actor import current_actor
from .agents import AgentRef, get_agent
from .errors import NotFound, ValidationError
from .transactions import change

#: The `source` of an entry assembled from the workspace as it is, not from a snapshot.
DRAFT = "draft"
#: The `source` of what a running agent reported it sent (`log_runtime`).
RUNTIME = "runtime"
PUBLISHED = "published"
#: What the log can be filtered by: each source, every snapshot's as one.
LOG_SOURCES = (DRAFT, PUBLISHED, RUNTIME)


def published_source(number: int) -> str:
    """The `source` of an entry assembled from snapshot `number`: `published 3`."""
    return f"{PUBLISHED} {number}"


@change
def log_context(session: Session, agent: AgentRef, context: Any, *, scenario: str | None = None,
                trigger: str | None = None, keep: int | None = None,
                source: str = DRAFT) -> models.ContextLogEntry:
    """Append an assembled `Context` to the agent's context log.

    `source` says what it was assembled from: `DRAFT` or `published_source(number)`.
    `scenario` and `trigger` default to the ones the context was assembled for. With
    `keep`, only the newest `keep` entries of the agent are kept. Raises
    `ValidationError` for a trigger or scenario longer than its column, or a NUL in a
    text (a message override holding one reaches the document).
    """
    agent_row = get_agent(session, agent)
    texts = {
        "scenario": scenario if scenario is not None else getattr(context, "scenario", None),
        "trigger": trigger if trigger is not None else (getattr(context, "trigger", "") or ""),
        "document": context.document,
        "summary": getattr(context, "log_entry", "") or "",
        "source": source,
    }
    entry = _append(session, agent_row, texts, [dict(m) for m in context.messages],
                    [d.to_dict() for d in context.diagnostics], context.counts(),
                    current_actor())
    if keep is not None:
        cutoff = session.scalars(
            select(models.ContextLogEntry.id).where(models.ContextLogEntry.agent_id == agent_row.id)
            .order_by(models.ContextLogEntry.id.desc()).offset(keep).limit(1)).first()
        if cutoff is not None:
            session.execute(delete(models.ContextLogEntry).where(
                models.ContextLogEntry.agent_id == agent_row.id,
                models.ContextLogEntry.id <= cutoff))
    return entry


@change
def log_runtime(session: Session, agent: AgentRef, messages: list[dict[str, str]], *,
                document: str, summary: str, scenario: str | None, trigger: str,
                check: dict[str, Any], author: str,
                diagnostics: list[dict[str, Any]] | None = None,
                counts: dict[str, int] | None = None) -> models.ContextLogEntry:
    """Append what a running agent reports it sent (`RUNTIME`), with `check`: whether it
    matches what the snapshot it names assembles from the same inputs (`verdict`
    `matches`, `differs` or `unchecked`, the snapshot, what was expected, a note), and
    the problems of that assembly (or the counts the entry's header gives).

    Raises `ValidationError` as `log_context` does.
    """
    texts = {"scenario": scenario, "trigger": trigger, "document": document,
             "summary": summary, "source": RUNTIME}
    return _append(session, get_agent(session, agent), texts, messages, diagnostics or [],
                   counts or {}, author, check=check)


def _append(session: Session, agent: models.Agent, texts: dict[str, Any],
            messages: list[dict[str, str]], diagnostics: list[dict[str, Any]],
            counts: dict[str, int], author: str | None,
            check: dict[str, Any] | None = None) -> models.ContextLogEntry:
    problems = rules.text_problems("context_log", texts) + rules.text_problems(
        "context_log", {f"message {i}": m["content"] for i, m in enumerate(messages)})
    if problems:
        raise ValidationError(problems)
    entry = models.ContextLogEntry(
        agent_id=agent.id, created_at=utcnow(), messages=messages, diagnostics=diagnostics,
        **texts, error_count=counts.get("error", 0), warning_count=counts.get("warning", 0),
        info_count=counts.get("info", 0), author=author, runtime_check=check)
    session.add(entry)
    session.flush()
    record(session, agent, "log.append", f"#{entry.id}",
           f"scenario {texts['scenario']}" if texts["scenario"] else "ad hoc")
    return entry


def list_log(session: Session, agent: AgentRef, *, scenario: str | None = None,
             source: str | None = None, limit: int | None = 50) -> list[models.ContextLogEntry]:
    """The agent's context-log entries, newest first (optionally of one scenario, and of
    one of `LOG_SOURCES`)."""
    agent_row = get_agent(session, agent)
    query = select(models.ContextLogEntry).where(models.ContextLogEntry.agent_id == agent_row.id)
    if scenario is not None:
        query = query.where(models.ContextLogEntry.scenario == scenario)
    if source == PUBLISHED:
        query = query.where(models.ContextLogEntry.source.startswith(PUBLISHED + " "))
    elif source is not None:
        query = query.where(models.ContextLogEntry.source == source)
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


@change
def delete_log_entry(session: Session, agent: AgentRef, entry_id: int) -> None:
    """Remove one context-log entry."""
    entry = get_log_entry(session, agent, entry_id)
    record(session, entry.agent, "log.delete", f"#{entry_id}",
           f"scenario {entry.scenario}" if entry.scenario else "ad hoc")
    session.delete(entry)
    session.flush()


@change
def clear_log(session: Session, agent: AgentRef) -> int:
    """Remove all of the agent's context-log entries; returns how many there were."""
    agent_row = get_agent(session, agent)
    result = session.execute(delete(models.ContextLogEntry)
                             .where(models.ContextLogEntry.agent_id == agent_row.id))
    if result.rowcount:  # clearing an empty log changes nothing
        record(session, agent_row, "log.clear", "", f"entries removed: {result.rowcount}")
    return result.rowcount
