"""Finding `{{name}}` placeholders in a line of author text.

A name is a run of characters without whitespace or braces; spaces inside the braces
are allowed (`{{ name }}`). `{{}}`, `{{a b}}` and an unclosed `{{` are literal text, and
`\\{{` writes a literal `{{`. The pattern's parts match disjoint character classes, so
it cannot backtrack badly on long lines.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import NamedTuple

_PLACEHOLDER = re.compile(r"\{\{[ \t]*([^\s{}]+)[ \t]*\}\}")
ESCAPE = "\\{{"


class Placeholder(NamedTuple):
    start: int
    end: int
    name: str


def find_placeholders(line: str) -> Iterator[Placeholder]:
    """Yield the unescaped placeholders of `line`, left to right."""
    for match in _PLACEHOLDER.finditer(line):
        start = match.start()
        if start and line[start - 1] == "\\":
            continue
        yield Placeholder(start, match.end(), match.group(1))


def placeholder_names(text: str) -> set[str]:
    """The names of every unescaped placeholder of `text`, which may be many lines: a
    placeholder never spans a line break, so this is the union over its lines of
    `find_placeholders`, in one scan. The names are interned: the skills of a workspace
    use the same few names, and memo entries keep them."""
    return {sys.intern(match.group(1)) for match in _PLACEHOLDER.finditer(text)
            if not (match.start() and text[match.start() - 1] == "\\")}


def unescape(text: str) -> str:
    """Turn every `\\{{` of author text into a literal `{{`."""
    return text.replace(ESCAPE, "{{") if ESCAPE in text else text
