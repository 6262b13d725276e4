"""Finding `{{name}}` placeholders in a line of author text.

A name is a run of characters without whitespace or braces; spaces inside the braces
are allowed (`{{ name }}`). `{{}}`, `{{a b}}` and an unclosed `{{` are literal text, and
`\\{{` writes a literal `{{`. The pattern's parts match disjoint character classes, so
it cannot backtrack badly on long lines.
"""

from __future__ import annotations

import re
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


def unescape(text: str) -> str:
    """Turn every `\\{{` of author text into a literal `{{`."""
    return text.replace(ESCAPE, "{{") if ESCAPE in text else text
