"""A context-log entry laid out for `_log_entry.html`: its messages rendered, its text
highlighted, its problems errors first."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from webapp.pipeline import Diagnostic, LogFormatError, format_log_entry, parse_log_entry
from webapp.render import highlight_markdown_lines
from webapp.schema import models
from webapp.textdiff.lines import SHOWN_ROWS, Diff, diff_lines

from .messages import MessageCard, message_card, messages_text
from .preview import problem_key
from .shown_text import SHOWN_CHARS, shown_part


@dataclass(frozen=True, slots=True)
class EntryView:
    """A log entry laid out for `_log_entry.html`."""

    entry: models.ContextLogEntry
    text: str
    cards: list[MessageCard]
    source: list[Markup]
    problems: list[Diagnostic]
    #: Characters of `text` the Source view leaves out (`shown_text.SHOWN_CHARS`).
    hidden: int = 0
    #: For a runtime report that differs from its snapshot: what the snapshot assembles
    #: from the same inputs (old) against what the agent sent (new), message by message.
    differs: Diff | None = None


def entry_view(entry: models.ContextLogEntry, agent: str) -> EntryView:
    """Cards for the messages, the highlighted entry text and the problems, errors first;
    the messages and the text each shown up to `SHOWN_CHARS`, the rest counted."""
    text = entry_text(entry, agent)
    problems = sorted((Diagnostic(**d) for d in entry.diagnostics), key=problem_key)
    cards, room = [], SHOWN_CHARS
    for message in entry.messages:
        card = message_card(message, room)
        cards.append(card)
        room -= card.chars - card.hidden
    source, hidden = shown_part(text)
    return EntryView(entry, text, cards, highlight_markdown_lines(source), problems, hidden,
                     runtime_diff(entry))


def runtime_diff(entry: models.ContextLogEntry) -> Diff | None:
    """What the snapshot a runtime report names assembles, against what was sent: None
    unless the report was checked and differs."""
    check = entry.runtime_check or {}
    if check.get("verdict") != "differs":
        return None
    expected = [{"role": role, "content": content} for role, content in check["expected"]]
    return diff_lines(messages_text(expected), messages_text(entry.messages), limit=SHOWN_ROWS)


def _parses(text: str) -> bool:
    try:
        parse_log_entry(text)
    except LogFormatError:
        return False
    return True


def entry_text(entry: models.ContextLogEntry, agent: str) -> str:
    """The stored log-entry text, or one made from the entry's fields when none is stored
    or the stored one is not in the current format.

    Entries logged before the header was made safe hold a header that a trigger could
    break out of (raw HTML, a forged `user:` line): such a text is never shown or
    downloaded. Its document, messages and counts are stored apart, so the entry is
    written again, exactly, in the format that parses back.
    """
    if entry.summary and _parses(entry.summary):
        return entry.summary
    counts = {"error": entry.error_count, "warning": entry.warning_count, "info": entry.info_count}
    return format_log_entry(entry.document, agent=agent, scenario=entry.scenario,
                            trigger=entry.trigger, counts=counts, messages=entry.messages,
                            time=entry.created_at)
