"""The units assembly works on: lines that carry their origin, blocks of them, and a
skill's text parsed once.

Every line of author text is a `(text, Origin)` pair from the moment a skill is parsed,
so whatever the stages do to it, the document knows where each of its lines came from.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .memo import memo, str_bytes, tuple_bytes
from .placeholders import placeholder_names
from .result import Origin
from .roles import FenceTracker, marker_role, may_hold_marker
from .sections import TEMPLATE_MARKER, split_template

Line = tuple[str, Origin]

#: The byte budget of `parse_skill`'s memo (docs/performance.md, "Caches at real size and
#: the cold path").
PARSE_SKILL_BYTES = 48 << 20
#: The byte budget of the shared line origins (`skill_origins`).
ORIGIN_BYTES = 64 << 20


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
        texts, origins = zip(*lines, strict=True) if lines else ((), ())
        return cls(block.role or "system", block.skill, "\n".join(texts), origins)


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """What depends only on a skill's text, parsed once per text.

    Kept small, since a memo holds one per skill: the body is one string (the skill's
    own content when it has no template), and its lines with their origins are made
    when a stage needs them (`lines`), from origins every version of the skill shares.
    """

    d_tag: str
    body: str  # the text before `---template---` (all of it when there is none)
    count: int  # the body's number of lines
    names: tuple[str, ...]  # every `{{name}}` the body uses, sorted
    roles: tuple[tuple[str, int, int], ...]  # the body's role split (see `split_roles`)
    template_text: str | None
    template_line: int  # 1-based line of the template's first YAML line

    @property
    def lines(self) -> tuple[Line, ...]:
        """The body's lines, each with its origin (`skill`, the d_tag, its line): made on
        each use, so a stage run keeps them (`SkillRun.lines`)."""
        if not self.count:  # the text opens with `---template---`
            return ()
        return tuple(zip(self.body.split("\n"), skill_origins(self.d_tag, self.count),
                         strict=True))


#: Origins are shared in runs of this many lines (see `skill_origins`).
ORIGIN_RUN = 64
_ORIGIN_BYTES = sys.getsizeof(Origin("skill", "", 1))


def _run_weight(args: tuple[Hashable, ...], run: tuple[Origin, ...]) -> int:
    return tuple_bytes(ORIGIN_RUN) + ORIGIN_RUN * _ORIGIN_BYTES


#: A pure function of its arguments. The budget holds about 13,000 runs (830,000
#: lines): three agents of 4,000 skills of 60 lines.
@memo(max_bytes=ORIGIN_BYTES, weight=_run_weight)
def _origin_run(d_tag: str, start: int) -> tuple[Origin, ...]:
    return tuple(Origin("skill", d_tag, number)
                 for number in range(start + 1, start + ORIGIN_RUN + 1))


def skill_origins(d_tag: str, count: int) -> tuple[Origin, ...]:
    """The origins of lines 1 to `count` of skill `d_tag`.

    Shared: every version of a skill's text (a keystroke makes a new one) and every
    memo entry made from them point at the same `Origin` objects, instead of one
    per line per version (what most of a memo entry weighed before).
    """
    if count <= ORIGIN_RUN:
        return _origin_run(d_tag, 0)[:count]
    runs = [_origin_run(d_tag, start) for start in range(0, count, ORIGIN_RUN)]
    return tuple(itertools.chain.from_iterable(runs))[:count]


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


def _parsed_weight(args: tuple[Hashable, ...], parsed: ParsedSkill) -> int:
    d_tag, content = args
    weight = (tuple_bytes(2) + str_bytes(d_tag) + str_bytes(content) + 120
              + tuple_bytes(len(parsed.names)) + sum(str_bytes(n) for n in parsed.names)
              + tuple_bytes(len(parsed.roles)) + 64 * len(parsed.roles))
    if parsed.body is not content:
        weight += str_bytes(parsed.body)
    if parsed.template_text is not None:
        weight += str_bytes(parsed.template_text)
    return weight


#: A pure function of its arguments. An entry of a 2 KB skill weighs about 3.7 KB (its
#: text counted), so the budget keeps some 13,000 such skills: three agents of 4,000.
@memo(max_bytes=PARSE_SKILL_BYTES, weight=_parsed_weight)
def parse_skill(d_tag: str, content: str) -> ParsedSkill:
    """Split a skill's content into its body, its role ranges and its template part."""
    text = content.replace("\r\n", "\n") if "\r" in content else content
    text = text.removesuffix("\n")
    cut = split_template(text.split("\n")) if TEMPLATE_MARKER in text else -1
    if cut < 0:
        body, template_text, template_line = text, None, 0
    else:
        raw = text.split("\n")
        body, template_text, template_line = "\n".join(raw[:cut]), "\n".join(raw[cut + 1:]), cut + 2
    count = body.count("\n") + 1 if cut != 0 else 0
    names = tuple(sorted(placeholder_names(body))) if "{{" in body else ()
    if may_hold_marker(body):
        roles = tuple(split_roles(body.split("\n")))
    else:  # no marker: one system range, left out when blank (as `split_roles` does)
        roles = (("system", 0, count),) if body.strip() else ()
    return ParsedSkill(d_tag, body, count, names, roles, template_text, template_line)


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
