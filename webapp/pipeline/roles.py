"""Role markers and code fences: where one message's text ends and the next begins.

A role marker is a line that is `system:`, `user:` or `assistant:` alone (any letter
case, at column 0, trailing spaces allowed) outside a fenced code block. Markers are
only recognised in text written by skill authors; text that arrives through a variable
or tool is checked with `is_marker` only to warn about it.
"""

from __future__ import annotations

from .workspace import ROLES

_MARKERS = {f"{role}:": role for role in ROLES}
_MARKER_FIRST = frozenset("sSuUaA")


def marker_role(line: str) -> str | None:
    """Return the role a marker line opens, or None if `line` is not a marker.

    Plain string operations only: linear in the line's length.
    """
    if line[:1] not in _MARKER_FIRST or len(line) > 64:
        return None
    return _MARKERS.get(line.rstrip(" \t").lower())


def is_marker(line: str) -> bool:
    """Whether `line` of data would read as a role marker: also with a CR or other trailing
    whitespace left in it, since a reader of the document would take it for one."""
    return marker_role(line.rstrip(" \t\r\x0b\x0c")) is not None


def may_hold_marker(text: str) -> bool:
    """False when no line of `text` (however cut) can be a role marker for `is_marker` or
    `marker_role`: a marker line, lowercased, is `system:`, `user:` or `assistant:` plus
    blanks, and lowercasing maps each character alone, so the lowercased text holds that
    word. A few scans in C instead of a check per line."""
    lowered = text.lower()
    return "user:" in lowered or "system:" in lowered or "assistant:" in lowered


class FenceTracker:
    """Follows CommonMark fenced code blocks (``` or ~~~) line by line."""

    __slots__ = ("char", "length")

    def __init__(self) -> None:
        self.char = ""
        self.length = 0

    def feed(self, line: str) -> bool:
        """Account for `line`; return True if it is a fence line or inside a fence."""
        if self.char:
            if self.closes(line):
                self.char = ""
            return True
        first = line[:1]
        if first not in "`~ " or not line:
            return False
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3:
            return False
        char = stripped[:1]
        if char not in ("`", "~") or not stripped.startswith(char * 3):
            return False
        run = len(stripped) - len(stripped.lstrip(char))
        if char == "`" and "`" in stripped[run:]:
            return False  # a backtick fence's info string may not contain backticks
        self.char, self.length = char, run
        return True

    def closes(self, line: str) -> bool:
        """Whether `line` would close the open fence (without accounting for it)."""
        first = line[:1]
        if not self.char or (first != self.char and first != " "):
            return False  # a closing fence starts with its character or a space
        stripped = line.lstrip(" ")
        run = len(stripped) - len(stripped.lstrip(self.char))
        return (len(line) - len(stripped) <= 3 and run >= self.length
                and not stripped[run:].strip())


def role_sections(text: str) -> list[tuple[str | None, str]]:
    """`text` (a skill's, as written) cut at its role markers as the pipeline reads them,
    outside fenced code: each part's role (None for what comes before the first marker)
    and its lines after the marker line, which is left out. Text before the first marker
    that is only blank lines is no part.

    For showing a skill's text rendered: markdown would join a marker and the line after
    it into one paragraph ("user: {{message}}").
    """
    parts: list[tuple[str | None, list[str]]] = [(None, [])]
    fences = FenceTracker()
    for line in text.split("\n"):
        role = None if fences.feed(line) else marker_role(line)
        if role is not None:
            parts.append((role, []))
        else:
            parts[-1][1].append(line)
    if not any(line.strip() for line in parts[0][1]):
        parts = parts[1:]
    return [(role, "\n".join(lines)) for role, lines in parts]
