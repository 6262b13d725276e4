"""The context-log entry: what the agent was given, as readable markdown that parses back.

An entry is one header line (wrapped here), then the document verbatim:

    <!-- context-log: 2026-12-02T19:40:00Z · agent Simon · scenario morning ·
         trigger dm · 0 errors, 1 warning, 0 infos · messages system:12 user:1 -->
    system:
    # Simon — Didactyl Agent
    ...

The header is an HTML comment, so a rendered log shows only the documents. Its values
(agent, scenario and trigger names come from users) are percent-encoded except for
letters, digits, spaces and a few harmless marks, so no value can hold a line break, a
`-` or a `>`: nothing can close the comment early or forge a line after it. The header
lists each message's role and line count, so the document splits back into exactly the
messages it was made of, whatever their text holds (even a line `user:`); a log of many
entries is read entry by entry the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, unquote

from .result import SEVERITIES
from .untrusted import whole_number
from .workspace import ROLES

_PREFIX = "<!-- context-log: "
_SUFFIX = " -->"
_SEP = " · "
# Kept as they are in a header value: everything else is percent-encoded.
_SAFE = " _.,:;!?[]{}@#$^*+=~/'\"|"
_HEADER = re.compile(r"<!-- context-log: (?P<body>[^\n]*) -->\Z")
_COUNTS = re.compile(r"(\d+) errors?, (\d+) warnings?, (\d+) infos?\Z")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A context-log entry read back: its header's fields and the messages it recorded."""

    time: str
    agent: str
    scenario: str | None
    trigger: str
    counts: dict[str, int]
    messages: list[dict[str, str]]


def format_log_entry(document: str, *, agent: str, scenario: str | None, trigger: str,
                     counts: Mapping[str, int], messages: Sequence[Mapping[str, str]],
                     time: datetime | None = None) -> str:
    """The context-log entry of `document`, made of `messages`: the header line, then the
    document verbatim."""
    stamp = (time or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    problems = ", ".join(f"{counts.get(k, 0)} {k}{'s' * (counts.get(k, 0) != 1)}"
                         for k in SEVERITIES)
    layout = " ".join(f"{_encode(m['role'])}:{m['content'].count(chr(10)) + 1}"
                      for m in messages)
    fields = [stamp, f"agent {_encode(agent)}",
              f"scenario {_encode(scenario) if scenario else '(ad hoc)'}",
              f"trigger {_encode(trigger)}", problems, f"messages {layout}"]
    return f"{_PREFIX}{_SEP.join(fields)}{_SUFFIX}\n{document}"


def comparable_entry(text: str) -> str:
    """`text` with its header's time left out: two entries of the same context compare
    equal whenever they were written (a context test's approved snapshot)."""
    header, newline, document = text.partition("\n")
    match = _HEADER.match(header)
    if match is None:
        return text
    fields = match["body"].split(_SEP)
    return f"{_PREFIX}{_SEP.join(fields[1:])}{_SUFFIX}{newline}{document}"


def _encode(value: str) -> str:
    """`value` percent-encoded but for `_SAFE`; `quote` always keeps `-`, encoded here too
    so that a value cannot hold the `--` of a comment's end."""
    return quote(value, safe=_SAFE).replace("-", "%2D")


class LogFormatError(ValueError):
    """Text that is not a context-log entry of this format."""


def parse_log(text: str) -> list[LogEntry]:
    """Every entry of a log (entries one after another, as `context.log.md` holds them).

    Raises:
        LogFormatError: the text is not a sequence of entries.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    entries, index = [], 0
    while index < len(lines):
        entry, index = _read_entry(lines, index)
        entries.append(entry)
        while index < len(lines) and lines[index] == "":  # the blank line between entries
            index += 1
    return entries


def parse_log_entry(text: str) -> LogEntry:
    """One entry read back.

    Raises:
        LogFormatError: the text is not exactly one entry.
    """
    entries = parse_log(text)
    if len(entries) != 1:
        raise LogFormatError(f"expected one entry, found {len(entries)}")
    return entries[0]


def _read_entry(lines: list[str], index: int) -> tuple[LogEntry, int]:
    match = _HEADER.match(lines[index])
    if match is None:
        raise LogFormatError(f"line {index + 1} is not a context-log header")
    fields = match["body"].split(_SEP)
    if len(fields) != 6 or not fields[5].startswith("messages"):
        raise LogFormatError(f"line {index + 1}: the header has no message layout")
    stamp, agent, scenario, trigger, problems, layout = fields
    counts = _COUNTS.match(problems)
    if counts is None:
        raise LogFormatError(f"line {index + 1}: unreadable problem counts")
    index += 1
    messages = []
    for number, item in enumerate(layout.removeprefix("messages").split()):
        role, _, size = item.rpartition(":")
        role = unquote(role)
        lines_in = whole_number(size)
        if role not in ROLES or lines_in is None:
            raise LogFormatError(f"line {index}: unreadable message layout {item[:40]!r}")
        if number:
            if index >= len(lines) or lines[index] != "":
                raise LogFormatError(f"line {index + 1}: expected the blank line between "
                                     f"messages")
            index += 1
        if index >= len(lines) or lines[index] != f"{role}:":
            raise LogFormatError(f"line {index + 1}: expected `{role}:`")
        end = index + 1 + lines_in
        if end > len(lines):
            raise LogFormatError(f"line {index + 1}: the entry ends early")
        messages.append({"role": role, "content": "\n".join(lines[index + 1:end])})
        index = end
    name = scenario.removeprefix("scenario ")
    return LogEntry(time=stamp, agent=unquote(agent.removeprefix("agent ")),
                    scenario=None if name == "(ad hoc)" else unquote(name),
                    trigger=unquote(trigger.removeprefix("trigger ")),
                    counts=dict(zip(SEVERITIES, map(int, counts.groups()),
                                    strict=True)),
                    messages=messages), index
