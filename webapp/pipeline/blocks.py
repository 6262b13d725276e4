"""The units assembly works on: lines that carry their origin, blocks of them, and a
skill's text parsed once.

Every line of author text is a `(text, Origin)` pair from the moment a skill is parsed,
so whatever the stages do to it, the document knows where each of its lines came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from .placeholders import find_placeholders
from .result import Origin
from .roles import FenceTracker, marker_role
from .sections import split_template

Line = tuple[str, Origin]


@dataclass(slots=True)
class Block:
    """A run of lines from one skill: of one role once roles are split (`role` is None
    before that)."""

    role: str | None
    skill: str | None
    lines: Sequence[Line]

    def text(self) -> str:
        """The block as the stage trace shows it: its role marker (once known), its lines."""
        body = "\n".join(text for text, _ in self.lines)
        return body if self.role is None else f"{self.role}:\n{body}"


class Piece(NamedTuple):
    """A finished block: its role, its trimmed text and one origin per line of it."""

    role: str
    skill: str | None
    text: str
    origins: tuple[Origin, ...]

    @classmethod
    def of(cls, block: Block) -> Piece:
        lines = trim_blank(block.lines)
        return cls(block.role or "system", block.skill, "\n".join(t for t, _ in lines),
                   tuple(o for _, o in lines))


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """What depends only on a skill's text, parsed once per text."""

    lines: tuple[Line, ...]  # the body (before `---template---`), with origins
    names: tuple[str, ...]  # every `{{name}}` the body uses, sorted
    roles: tuple[tuple[str, int, int], ...]  # the body's role split (see `split_roles`)
    template_text: str | None
    template_line: int  # 1-based line of the template's first YAML line


def split_roles(texts: Sequence[str]) -> list[tuple[str, int, int]]:
    """Cut author text at role markers: (role, start, end) ranges, markers excluded.

    Text before the first marker is system; that range is left out when it is blank.
    """
    ranges: list[tuple[str, int, int]] = []
    role, start = "system", 0
    fence = FenceTracker()
    for index, text in enumerate(texts):
        if not fence.feed(text):
            new_role = marker_role(text)
            if new_role is not None:
                ranges.append((role, start, index))
                role, start = new_role, index + 1
    ranges.append((role, start, len(texts)))
    _, first_start, first_end = ranges[0]
    if not any(text.strip() for text in texts[first_start:first_end]):
        del ranges[0]
    return ranges


#: A pure function of its arguments; the bound keeps the texts of a large workspace and
#: the drafts typed last (a keystroke parses one new text).
@lru_cache(maxsize=4096)
def parse_skill(d_tag: str, content: str) -> ParsedSkill:
    """Split a skill's content into tagged body lines, its role ranges and its template part."""
    text = content.replace("\r\n", "\n").removesuffix("\n")
    raw = text.split("\n")
    cut = split_template(raw)
    body = raw if cut < 0 else raw[:cut]
    lines = tuple((line, Origin("skill", d_tag, number)) for number, line in enumerate(body, 1))
    names = tuple(sorted({p.name for line in body if "{{" in line
                          for p in find_placeholders(line)}))
    roles = tuple(split_roles(body))
    if cut < 0:
        return ParsedSkill(lines, names, roles, None, 0)
    return ParsedSkill(lines, names, roles, "\n".join(raw[cut + 1:]), cut + 2)


def trim_blank(lines: Sequence[Line]) -> Sequence[Line]:
    """Drop the leading and trailing blank lines."""
    start, end = 0, len(lines)
    while start < end and not lines[start][0].strip():
        start += 1
    while end > start and not lines[end - 1][0].strip():
        end -= 1
    return lines if (start, end) == (0, len(lines)) else lines[start:end]


#: A replacement of `text[start:end]` by lines (possibly none) with their own origins.
Replacement = tuple[int, int, Sequence[Line]]


def _same(text: str) -> str:
    return text


def splice(text: str, origin: Origin, replacements: Iterable[Replacement], out: list[Line],
           *, literal: Callable[[str], str] = _same,
           check: Callable[[Sequence[Line], bool], None] | None = None) -> None:
    """Append to `out` the lines `text` becomes when each replacement's span (left to
    right, not overlapping) is replaced by its lines.

    The first replacement line joins the text before the span and the last one the text
    after it; the lines in between stand alone. A line keeps `origin` unless it begins
    with a replacement (after indentation at most), whose origin it then takes: a fence
    or underline a value puts after the author's indentation is still the value's.
    `literal` maps the text between the spans (the unescaping of `\\{{`);
    `check(lines, starts_line)` sees each non-empty replacement before it is spliced in.
    `replacements` may be a generator: it is read one replacement at a time, in order.
    """
    current, current_origin, pos = "", origin, 0
    for start, end, lines in replacements:
        current += literal(text[pos:start])
        pos = end
        if not lines:
            continue
        if check is not None:
            check(lines, current == "")
        if not current.strip(" \t"):  # indentation alone: the line is the value's
            current_origin = lines[0][1]
        if len(lines) == 1:
            current += lines[0][0]
            continue
        out.append((current + lines[0][0], current_origin))
        out.extend(lines[1:-1])
        current, current_origin = lines[-1]
    out.append((current + literal(text[pos:]), current_origin))
