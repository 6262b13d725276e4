"""A JSON value with its long strings cut, for showing a large request body.

The Messages tab shows the request bodies a provider would be sent; a 200-skill agent's
system message is one string of 400,000 characters, in two bodies: over a megabyte of
highlighted JSON per keystroke. A large document's bodies are shown with each string
longer than `BODY_CUT` characters cut to its start and a note of how long it is; the
whole body is one link away (`agent_preview.body`).
"""

from __future__ import annotations

from typing import Any

#: Characters of a long string a cut body shows.
BODY_CUT = 2_000


def cut_strings(value: Any, limit: int) -> Any:
    """`value` with each string longer than `limit` cut to `limit` characters and
    `… [412,345 characters in all]` (dicts and lists are copied, the rest kept)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}… [{len(value):,} characters in all]"
    if isinstance(value, dict):
        return {key: cut_strings(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [cut_strings(item, limit) for item in value]
    return value
