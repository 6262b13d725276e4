"""The formatter registry: named functions that turn a tool's value into markdown.

A binding (or a section) names a format; `format_value` looks it up in `FORMATTERS`
and calls it with the raw value the pipeline selected, which may be a `str` holding
JSON or an already parsed value. `markdown` (rule 1) is the default; the others are
the few places where a small dedicated formatter reads better than the generic one.

Every built-in formatter returns "" for empty input (None, "", [], {}, or a string of
whitespace), never raises (a value of the wrong shape degrades to rule 1 output or
"") and never ends with a newline. A new format is one function:
`@register_formatter("name")`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .json_markdown import json_to_markdown
from .untrusted import dumps_json, loads_json
from .workspace import DEFAULT_HISTORY_LABELS

__all__ = [
    "FORMATTERS",
    "FormatOptions",
    "Formatter",
    "coerce_json",
    "format_value",
    "register_formatter",
]


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """What a formatter may be told besides the value.

    `max_items` is the agent's `max_array_items` (rule 1's truncation, 0 for none);
    `limit` is a binding's or section's `limit`: how many items `list` and
    `admin_relays` keep from the start and `dm_history` and `admin_notes` keep from
    the end (None keeps all, 0 keeps none); `history_labels` maps a history role to its
    `dm_history` label.
    """

    max_items: int = 8
    limit: int | None = None
    history_labels: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_HISTORY_LABELS))


Formatter = Callable[[Any, FormatOptions], str]

#: Every known format, by name.
FORMATTERS: dict[str, Formatter] = {}


def register_formatter(
    name: str, fn: Formatter | None = None
) -> Formatter | Callable[[Formatter], Formatter]:
    """Register `fn` as the format `name`, replacing any formatter of that name.

    Usable as a call, `register_formatter("x", fn)`, which returns `fn`, or as a
    decorator, `@register_formatter("x")`.
    """
    if fn is None:
        def decorator(fn: Formatter) -> Formatter:
            FORMATTERS[name] = fn
            return fn
        return decorator
    FORMATTERS[name] = fn
    return fn


def format_value(name: str, value: Any, options: FormatOptions) -> str:
    """Format `value` with the formatter registered as `name`.

    Raises:
        KeyError: no formatter is registered as `name`.
    """
    formatter = FORMATTERS[name]
    return formatter(value, options)


_LEADING_SPACE = re.compile(r"[ \t\n\r]*").match
_BACKTICK_RUN = re.compile("`+")


def coerce_json(value: Any) -> Any:
    """Parse a `str` that holds a JSON object or array; return anything else as is.

    Text that starts (after whitespace) with `{` or `[` but is not valid JSON is
    returned unchanged too: this never raises.
    """
    if not isinstance(value, str):
        return value
    start = _LEADING_SPACE(value).end()
    if value[start:start + 1] not in ("{", "["):
        return value
    try:
        return loads_json(value)
    except ValueError:
        return value


def _is_empty(value: Any) -> bool:
    """None, an empty (or whitespace-only) string, an empty array or object."""
    if isinstance(value, str):
        return not value.strip()
    return value is None or (isinstance(value, (list, tuple, Mapping)) and not value)


def _chomp(text: str) -> str:
    return text.rstrip("\r\n")


def _dumps(value: Any, **options: Any) -> str | None:
    """`dumps_json(value, ...)`, or None for a value JSON cannot hold (a cycle, an integer
    beyond Python's digit limit, nesting deeper than the stack)."""
    try:
        return dumps_json(value, default=str, **options)
    except (ValueError, TypeError, RecursionError):
        return None


def _first(items: list, limit: int | None) -> list:
    return items if limit is None else items[:max(limit, 0)]


def _last(items: list, limit: int | None) -> list:
    if limit is None:
        return items
    return items[-limit:] if limit > 0 else []


def _as_list(value: Any) -> list:
    """A list for a list or tuple, a one-item list for any other value."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _bullet(text: str) -> str:
    """`- text`, further lines of `text` indented two spaces (as rule 1 does)."""
    lines = text.rstrip().splitlines() or [""]
    return "\n".join([f"- {lines[0]}".rstrip(), *(f"  {line}".rstrip() for line in lines[1:])])


def _item_bullet(item: Any, options: FormatOptions) -> str:
    """One bullet for a note or a list item: a string's lines, anything else as rule 1
    renders it as an array item."""
    if isinstance(item, str):
        return _bullet(item)
    return json_to_markdown([item], options.max_items)


@register_formatter("markdown")
def format_markdown(value: Any, options: FormatOptions) -> str:
    """Rule 1: any JSON value (or JSON text) as markdown; other text unchanged."""
    if _is_empty(value):
        return ""
    return _chomp(json_to_markdown(value, options.max_items))


@register_formatter("text")
def format_text(value: Any, options: FormatOptions) -> str:
    """A string as is, a scalar as its JSON text, an object or array as compact JSON."""
    if _is_empty(value):
        return ""
    if isinstance(value, str):
        return _chomp(value)
    if isinstance(value, (Mapping, list, tuple)):
        text = _dumps(value, separators=(",", ":"))
        if text is not None:
            return text
    return _chomp(json_to_markdown(value, options.max_items))


@register_formatter("inline_code")
def format_inline_code(value: Any, options: FormatOptions) -> str:
    """The `text` form in a code span, on one line, with a fence longer than any
    run of backticks inside it."""
    text = " ".join(format_text(value, options).splitlines())
    if not text:
        return ""
    fence = "`" * (max(map(len, _BACKTICK_RUN.findall(text)), default=0) + 1)
    # CommonMark strips one space from each end of a span that begins and ends with a
    # space, and a backtick at either end would merge with the fence: pad with a space.
    if text[0] == "`" or text[-1] == "`" or (text[0] == text[-1] == " " and text.strip(" ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


@register_formatter("json_block")
def format_json_block(value: Any, options: FormatOptions) -> str:
    """The value as 2-space-indented JSON in a ```json fence."""
    value = coerce_json(value)
    if _is_empty(value):
        return ""
    text = _dumps(value, indent=2)
    if text is None:
        return format_markdown(value, options)
    return f"```json\n{text}\n```"


@register_formatter("list")
def format_list(value: Any, options: FormatOptions) -> str:
    """One bullet per item of an array (objects and arrays nested by rule 1), per
    non-empty line of a string, or one bullet for any other value."""
    value = coerce_json(value)
    if _is_empty(value):
        return ""
    if isinstance(value, str):
        lines = [line for line in value.splitlines() if line.strip()]
        return "\n".join(f"- {line.strip()}" for line in _first(lines, options.limit))
    # Each item rendered as a one-item array is exactly rule 1's bullet for it.
    items = _first(_as_list(value), options.limit)
    return "\n".join(json_to_markdown([item], options.max_items) for item in items)


@register_formatter("dm_history")
def format_dm_history(value: Any, options: FormatOptions) -> str:
    """`## Conversation History` and one `- **Label**: content` bullet per message."""
    value = coerce_json(value)
    if _is_empty(value):
        return ""
    labels = options.history_labels
    bullets = []
    for entry in _last(_as_list(value), options.limit):
        if isinstance(entry, Mapping):
            role, content = entry.get("role"), entry.get("content")
        else:  # not a message: show it by rule 1, without a label
            role, content = None, entry
        if not (isinstance(role, str) and role):
            if not _is_empty(content):
                bullets.append(_item_bullet(content, options))
            continue
        label = labels.get(role) or role[:1].upper() + role[1:]
        if isinstance(content, (Mapping, list, tuple)):  # its rule 1 list, under the label
            text = "\n" + json_to_markdown(content, options.max_items)
        else:
            text = " " + format_text(content, options)
        bullets.append(_bullet(f"**{label}**:{text}"))
    if not bullets:
        return ""
    return "## Conversation History\n\n" + "\n".join(bullets)


@register_formatter("trigger_event")
def format_trigger_event(value: Any, options: FormatOptions) -> str:
    """`Triggering event:` and the event as one line of JSON in a ```json fence."""
    value = coerce_json(value)
    if _is_empty(value):
        return ""
    text = _dumps(value, separators=(",", ":"))
    if text is None:
        return format_markdown(value, options)
    return f"Triggering event:\n\n```json\n{text}\n```"


@register_formatter("agent_identity")
def format_agent_identity(value: Any, options: FormatOptions) -> str:
    """`- **npub**: `npub1…`` from `{"pubkey": …, "npub": …}`; "" without an npub."""
    value = coerce_json(value)
    npub = value.get("npub") if isinstance(value, Mapping) else None
    if _is_empty(npub):
        return ""
    return f"- **npub**: {format_inline_code(npub, options)}"


def _profile(value: Any) -> dict:
    """The kind-0 profile in a profile object, a kind-0 event (its `content` holds the
    profile as JSON), a list of such, or JSON text of any of these; {} if none."""
    value = coerce_json(value)
    candidates = value if isinstance(value, (list, tuple)) else [value]
    for candidate in candidates:
        candidate = coerce_json(candidate)
        if isinstance(candidate, Mapping):
            content = coerce_json(candidate.get("content"))
            return dict(content) if isinstance(content, Mapping) else dict(candidate)
    return {}


@register_formatter("agent_profile")
def format_agent_profile(value: Any, options: FormatOptions) -> str:
    """The `name` of a kind-0 profile; "" if it has none."""
    name = _profile(value).get("name")
    return "" if _is_empty(name) else format_text(name, options)


@register_formatter("admin_profile")
def format_admin_profile(value: Any, options: FormatOptions) -> str:
    """`- **name**: …` and `- **about**: …` from a kind-0 profile, each if present."""
    profile = _profile(value)
    shown = {key: profile[key] for key in ("name", "about") if not _is_empty(profile.get(key))}
    return json_to_markdown(shown, options.max_items)


@register_formatter("admin_notes")
def format_admin_notes(value: Any, options: FormatOptions) -> str:
    """One bullet per note (a kind-1 event's `content`, or a plain string); notes
    with empty content are left out."""
    value = coerce_json(value)
    if _is_empty(value):
        return ""
    bullets = []
    for note in _last(_as_list(value), options.limit):
        if isinstance(note, Mapping) and "content" in note:
            note = note["content"]
        if not _is_empty(note):
            bullets.append(_item_bullet(note, options))
    return "\n".join(bullets)


@register_formatter("admin_relays")
def format_admin_relays(value: Any, options: FormatOptions) -> str:
    """One bullet per relay URL of the `["r", url, ...]` tags of a kind-10002 event,
    a list of such events, or a bare tags list; in order, without duplicates."""
    value = coerce_json(value)
    tags: list = []
    for item in _as_list(value):
        if isinstance(item, Mapping):
            tags.extend(_as_list(item.get("tags") or []))
        elif isinstance(item, (list, tuple)):
            tags.append(item)
    urls: dict[str, None] = {}
    for tag in tags:
        if (isinstance(tag, (list, tuple)) and len(tag) > 1 and tag[0] == "r"
                and isinstance(tag[1], str) and tag[1].strip()):
            urls.setdefault(tag[1].strip())
    return "\n".join(_bullet(url) for url in _first(list(urls), options.limit))
