"""The units assembly works on: lines that carry their origin, blocks of them, and a
skill's text parsed once.

Every line of author text is a `(text, Origin)` pair from the moment a skill is parsed,
so whatever the stages do to it, the document knows where each of its lines came from.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .memo import memo, str_bytes, tuple_bytes
from .origins import Origins, OriginsBuilder, origin_spans
from .placeholders import Placeholder, placeholder_counts
from .result import Diagnostic, Origin, SkillTrace
from .roles import FenceTracker, marker_role, may_hold_marker
from .sections import TEMPLATE_MARKER, split_template
from .typed import lf_line_ends

Line = tuple[str, Origin]

#: The byte budget of `parse_skill`'s memo (docs/performance.md, "Caches at real size and
#: the cold path").
PARSE_SKILL_BYTES = 48 << 20


@dataclass(slots=True)
class Block:
    """A run of lines from one skill (of one role once roles are split: `role` is None
    before that), kept as its text and one origin per line.

    Whole text, not a tuple per line: a stage finds the few places it must change with
    scans in C (`splice`, `headings.bump_text`) and copies the rest as it is, text and
    origins in runs, which is most of what makes a cold assembly cheap.
    """

    role: str | None
    skill: str | None
    text: str  # the lines joined by "\n" ("" for no lines, and for one empty line)
    origins: Sequence[Origin]  # one per line, a tuple or `Origins`: how many lines there are

    @property
    def lines(self) -> list[Line]:
        """The block line by line, for the stages that must look at every line."""
        return list(zip(self.text.split("\n"), self.origins, strict=True)) if self.origins else []

    def traced(self) -> str:
        """The block as the stage trace shows it: its role marker (once known), its lines."""
        return self.text if self.role is None else f"{self.role}:\n{self.text}"

    def trimmed(self) -> tuple[str, Sequence[Origin]]:
        """The text and origins without the leading and trailing blank lines, looking at
        those lines only."""
        text, origins = self.text, self.origins
        first, last, start, end = 0, len(origins), 0, len(text)  # lines [first, last)
        while first < last:
            cut = text.find("\n", start, end)
            line_end = end if cut < 0 else cut
            if text[start:line_end].strip():
                break
            first, start = first + 1, line_end + 1
        while last > first:
            cut = text.rfind("\n", start, end)
            line_start = start if cut < 0 else cut + 1
            if text[line_start:end].strip():
                break
            last, end = last - 1, line_start - 1
        if first == last:
            return "", ()
        if first == 0 and last == len(origins):
            return text, origins
        return text[start:end], origins[first:last]


_MARKER_LINE = Origin("role")


def traced(blocks: Sequence[Block]) -> tuple[str, Origins]:
    """The blocks as the stage trace shows them (each `Block.traced`, joined by newlines)
    and the origin of each line of that text: a role's marker line is `Origin("role")`,
    and the one empty line of a block without lines is its skill's, with no line number.
    The origins are put together by runs, not line by line."""
    out = OriginsBuilder()
    for block in blocks:
        if block.role is not None:
            out.append(_MARKER_LINE)
        if block.origins:
            out.extend(block.origins)
        else:
            out.append(Origin("skill", block.skill))
    return "\n".join(block.traced() for block in blocks), out.build()


class Piece(NamedTuple):
    """A finished block: its role, its trimmed text and one origin per line of it."""

    role: str
    skill: str | None
    text: str
    origins: Sequence[Origin]

    @classmethod
    def of(cls, block: Block) -> Piece:
        text, origins = block.trimmed()
        return cls(block.role or "system", block.skill, text, origins)


class SkillResult(NamedTuple):
    """What one skill adds to the context: its pieces, the diagnostics found, its trace,
    its author's headings (`blocks.author_headings`, kept with a memoised result)."""

    pieces: tuple[Piece, ...]
    diagnostics: tuple[Diagnostic, ...]
    trace: SkillTrace
    headings: tuple[str, ...] = ()

    @classmethod
    def of(cls, pieces: tuple[Piece, ...], diagnostics: tuple[Diagnostic, ...],
           trace: SkillTrace) -> SkillResult:
        return cls(pieces, diagnostics, trace, author_headings(pieces))


def author_headings(pieces: Sequence[Piece]) -> tuple[str, ...]:
    """The lines of `pieces` that start with `#` and that a skill's text gave (not a value,
    not a template's output), in order."""
    found: list[str] = []
    for piece in pieces:
        if "#" not in piece.text:
            continue
        lines = piece.text.split("\n")
        found += (line for start, count, kind, _ in origin_spans(piece.origins)
                  if kind == "skill" for line in lines[start:start + count]
                  if line.startswith("#"))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """What depends only on a skill's text, parsed once per text.

    Kept small, since a memo holds one per skill: the body is one string (the skill's
    own content when it has no template), and its lines' origins are one run
    (`Origins.of_skill`), whatever their number.
    """

    d_tag: str
    body: str  # the text before `---template---` (all of it when there is none)
    count: int  # the body's number of lines
    names: tuple[str, ...]  # every `{{name}}` the body uses, sorted
    uses: tuple[int, ...]  # how many times the body writes each of `names`
    roles: tuple[tuple[str, int, int], ...]  # the body's role split (see `split_roles`)
    template_text: str | None
    template_line: int  # 1-based line of the template's first YAML line

    @property
    def lines(self) -> tuple[Line, ...]:
        """The body's lines, each with its origin (`skill`, the d_tag, its line)."""
        return tuple(zip(self.body.split("\n"), self.origins, strict=True)) if self.count else ()

    @property
    def origins(self) -> Origins:
        """The origin of each line of the body (none when the text opens with
        `---template---`)."""
        return Origins.of_skill(self.d_tag, self.count)

    def block(self) -> Block:
        """The body as one block, before any stage."""
        return Block(None, self.d_tag, self.body, self.origins)


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
    # The names are interned, shared by every skill that uses them: a pointer each.
    weight = (tuple_bytes(2) + str_bytes(d_tag) + str_bytes(content) + 120
              + tuple_bytes(len(parsed.names)) + tuple_bytes(len(parsed.uses))
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
    text = lf_line_ends(content).removesuffix("\n")
    cut = split_template(text.split("\n")) if TEMPLATE_MARKER in text else -1
    if cut < 0:
        body, template_text, template_line = text, None, 0
    else:
        raw = text.split("\n")
        body, template_text, template_line = "\n".join(raw[:cut]), "\n".join(raw[cut + 1:]), cut + 2
    count = body.count("\n") + 1 if cut != 0 else 0
    counts = placeholder_counts(body) if "{{" in body else {}
    names = tuple(sorted(counts))
    if may_hold_marker(body):
        roles = tuple(split_roles(body.split("\n")))
    else:  # no marker: one system range, left out when blank (as `split_roles` does)
        roles = (("system", 0, count),) if body.strip() else ()
    return ParsedSkill(d_tag, body, count, names, tuple(map(counts.__getitem__, names)), roles,
                       template_text, template_line)


#: Lines as their texts and their origins, one each.
Lines = tuple[Sequence[str], Sequence[Origin]]


def _same(text: str) -> str:
    return text


def splice(block: Block, found: Iterable[Placeholder],
           replace: Callable[[Placeholder, Origin], Lines | None], *,
           literal: Callable[[str], str] = _same,
           check: Callable[[Sequence[str], Origin, bool], None] | None = None) -> Block:
    """`block` with each placeholder of `found` (of its text, left to right) replaced by
    the lines `replace(placeholder, origin of its line)` gives, or left as it is when
    that is None.

    The first replacement line joins the text before the placeholder and the last one
    the text after it; the lines in between stand alone. A line keeps its origin unless
    it begins with a replacement (after indentation at most), whose origin it then
    takes: a fence or underline a value puts after the author's indentation is still the
    value's. `literal` maps the author's text around the placeholders (the unescaping of
    `\\{{`), never a replacement's; `check(texts, first origin, starts_line)` sees each
    non-empty replacement before it is spliced in.

    The lines between placeholders are copied in runs, text and origins, so the cost is
    in the placeholders, not in the lines.
    """
    text, origins = block.text, block.origins
    chunks: list[str] = []  # each one line or more; joined by "\n" at the end
    out = OriginsBuilder()
    current, current_origin = "", origins[0] if origins else None
    pos = index = 0  # where the text not yet out starts, and its line's number
    spliced = False
    for ph in found:
        start = ph.start
        if pos < start:
            cut = text.find("\n", pos, start)
            if cut < 0:
                current += literal(text[pos:start])
            else:  # the line ends before this span: out, with whole lines after it
                last = text.rfind("\n", cut, start)
                chunks.append(current + literal(text[pos:cut]))
                out.append(current_origin)  # type: ignore[arg-type]
                count = text.count("\n", cut, start)
                if count > 1:
                    chunks.append(literal(text[cut + 1:last]))
                    out.extend_between(origins, index + 1, index + count)
                index += count
                current, current_origin = literal(text[last + 1:start]), origins[index]
            pos = start
        lines = replace(ph, origins[index])
        if lines is None:
            continue
        spliced, pos = True, ph.end
        texts, value_origins = lines
        if not texts:
            continue
        if check is not None:
            check(texts, value_origins[0], current == "")
        if not current.strip(" \t"):  # indentation alone: the line is the value's
            current_origin = value_origins[0]
        if len(texts) == 1:
            current += texts[0]
            continue
        chunks.append(current + texts[0])
        out.append(current_origin)  # type: ignore[arg-type]
        chunks.extend(texts[1:-1])
        out.extend_between(value_origins, 1, len(value_origins) - 1)
        current, current_origin = texts[-1], value_origins[-1]
    if not spliced:
        whole = literal(text)
        return block if whole is text else Block(block.role, block.skill, whole, origins)
    cut = text.find("\n", pos)
    if cut < 0:
        chunks.append(current + literal(text[pos:]))
        out.append(current_origin)  # type: ignore[arg-type]
    else:
        chunks.append(current + literal(text[pos:cut]))
        out.append(current_origin)  # type: ignore[arg-type]
        chunks.append(literal(text[cut + 1:]))
        out.extend_between(origins, index + 1, len(origins))
    return Block(block.role, block.skill, "\n".join(chunks), out.build())
