"""Finding `{{name}}` placeholders in a line of author text.

A name is a run of characters without whitespace or braces; spaces inside the braces
are allowed (`{{ name }}`). `{{}}`, `{{a b}}` and an unclosed `{{` are literal text, and
`\\{{` writes a literal `{{`. The pattern's parts match disjoint character classes, so
it cannot backtrack badly on long lines.
"""

from __future__ import annotations

import re
import sys
from typing import NamedTuple

_PLACEHOLDER = re.compile(r"\{\{[ \t]*([^\s{}]+)[ \t]*\}\}")
ESCAPE = "\\{{"


class Placeholder(NamedTuple):
    start: int
    end: int
    name: str


_new = tuple.__new__  # makes a named tuple from a tuple in C (`Placeholder(...)` is Python)


def find_placeholders(text: str) -> list[Placeholder]:
    """The unescaped placeholders of `text`, left to right. `text` may be many lines: a
    placeholder never spans a line break."""
    found = [_new(Placeholder, (*match.span(), match.group(1)))
             for match in _PLACEHOLDER.finditer(text)]
    if ESCAPE not in text:
        return found
    return [ph for ph in found if not (ph.start and text[ph.start - 1] == "\\")]


def split_placeholders(text: str) -> list[str] | None:
    """`text` cut at its placeholders, in C: the text before the first, its name, the text
    up to the next, ..., the text after the last; None when `text` holds an escaped `{{`
    (then `find_placeholders` must judge each match)."""
    return None if ESCAPE in text else _PLACEHOLDER.split(text)


def placeholder_counts(text: str) -> dict[str, int]:
    """How many times `text` writes each name, counting the unescaped placeholders (as
    `find_placeholders`) in one scan. The names are interned: the skills of a workspace
    use the same few names, and memo entries keep them."""
    counts: dict[str, int] = {}
    found = (_PLACEHOLDER.findall(text) if ESCAPE not in text
             else [ph.name for ph in find_placeholders(text)])
    for name in map(sys.intern, found):
        counts[name] = counts.get(name, 0) + 1
    return counts


def unescape(text: str) -> str:
    """Turn every `\\{{` of author text into a literal `{{`."""
    return text.replace(ESCAPE, "{{") if ESCAPE in text else text
