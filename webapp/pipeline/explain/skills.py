"""What each stage of `stages.STAGES` did to one selected skill, in words and as data:
the part of the pipeline explainer (`explain`) that reads a skill's stage trace.

One reader per stage, keyed by the stage's name in `STAGES` (`READERS`): a stage added
to the table without a reader fails a test, so the explainer never skips one silently.
A reader gets the text before and after the stage (with each line's origin) and says
what changed, and when nothing did, why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ..blocks import ParsedSkill, split_roles
from ..origins import Origins, OriginsBuilder
from ..placeholders import find_placeholders
from ..result import Diagnostic, Origin
from ..roles import marker_role
from ..sections import Section, parse_template
from ..variables import Resolver, formatter_of, source_of
from ..workspace import Workspace


@dataclass(frozen=True, slots=True)
class TracedText:
    """A text and the origin of each of its lines (`text.split("\\n")`); no origins is
    no lines, the empty text."""

    text: str
    origins: Sequence[Origin]

    @property
    def lines(self) -> int:
        return len(self.origins)

    def rows(self) -> Iterator[tuple[str, Origin]]:
        """Each line with its origin."""
        return zip(self.text.split("\n"), self.origins, strict=True) if self.origins \
            else iter(())

    def texts(self) -> list[str]:
        """The lines, without their origins."""
        return self.text.split("\n") if self.origins else []

    def spans(self) -> Iterator[tuple[int, int, str, str | None]]:
        """`(first line, count, kind, skill)` for each run of lines of one kind and skill,
        without making an `Origin` a line (`Origins.spans`): what a long text is read by."""
        if isinstance(self.origins, Origins):
            return self.origins.spans()
        return ((at, 1, o.kind, o.skill) for at, o in enumerate(self.origins))


EMPTY = TracedText("", ())


def joined(texts: Sequence[TracedText]) -> TracedText:
    """The texts one after another, as lines."""
    kept = [t for t in texts if t.origins]
    origins = OriginsBuilder()
    for text in kept:
        origins.extend(text.origins)
    return TracedText("\n".join(t.text for t in kept), origins.build())


@dataclass(frozen=True, slots=True)
class ValueUse:
    """A `{{name}}` the stage filled in: where it is written (an embedded skill's line
    too), what it called and with which formatter, and the value it gave."""

    name: str
    skill: str | None
    line: int | None
    kind: str  # `binding`, `built-in`, `mock tool`, or `unknown` (left empty)
    tool: str
    formatter: str
    value: str


@dataclass(frozen=True, slots=True)
class SectionStep:
    """A template section of the skill: what it reads, and whether it was skipped."""

    name: str
    role: str
    line: int
    source: str  # "tool relay_alerts, format list", "content", "the DM history"
    skipped: bool


@dataclass(frozen=True, slots=True)
class BlockUse:
    """A block the role markers cut: its role and its lines in the stage's output."""

    role: str
    first: int  # 1-based line of the output where the block's text starts
    lines: int


@dataclass(frozen=True, slots=True)
class SkillStep:
    """One selected skill through one stage: its text before and after, and in words what
    the stage did (or why it changed nothing)."""

    d_tag: str
    before: TracedText
    after: TracedText
    note: str
    #: The values the stage filled in, the first `VALUES_KEPT` (the note counts them all).
    values: tuple[ValueUse, ...] = ()
    sections: tuple[SectionStep, ...] = ()
    blocks: tuple[BlockUse, ...] = ()
    #: The `---template---` part, set aside by the first stage and read by the last.
    template: TracedText | None = None

    @property
    def changed(self) -> bool:
        return self.before.text != self.after.text or self.before.lines != self.after.lines


@dataclass(frozen=True, slots=True)
class SkillReading:
    """What a reader gets: the skill, its text before and after the stage, and the run's
    workspace, resolver and diagnostics."""

    d_tag: str
    parsed: ParsedSkill
    before: TracedText
    after: TracedText
    workspace: Workspace
    resolver: Resolver
    diagnostics: Sequence[Diagnostic]

    def step(self, note: str, **data: object) -> SkillStep:
        return SkillStep(self.d_tag, self.before, self.after, note, **data)  # type: ignore[arg-type]

    def template(self) -> TracedText | None:
        """The skill's template part, each line with its line in the skill."""
        parsed = self.parsed
        if parsed.template_text is None:
            return None
        count = parsed.template_text.count("\n") + 1
        return TracedText(parsed.template_text,
                    Origins(((self.d_tag, parsed.template_line, count),), count))


def body_text(d_tag: str, parsed: ParsedSkill) -> TracedText:
    """The skill's own text, before any stage: without its template part."""
    return TracedText(parsed.body, parsed.origins)


def plural(count: int, word: str) -> str:
    """`1 line`, `2 lines`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


#: Names a sentence lists before it counts the rest: a 200-skill agent's notes stay short.
LISTED = 8


def listed(items: Sequence[str], limit: int = LISTED, total: int | None = None) -> str:
    """`a, b and c`; past `limit` items, `a, b, ... and 192 more` (`total`: how many
    there are, when `items` are only the first `limit` of them)."""
    total = len(items) if total is None else total
    if total > limit:
        return ", ".join(items[:limit]) + f" and {total - limit} more"
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


_names = listed

#: Characters of a `{{name}}` a note shows (a name is any run of characters but blanks
#: and braces, so it may be a megabyte long).
NAME_CHARS = 80


def short(name: str) -> str:
    """`name`, cut to `NAME_CHARS` characters."""
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


# -- one reader per stage


def read_references(r: SkillReading) -> SkillStep:
    embedded: dict[str, int] = {}
    for _, count, kind, skill in r.after.spans():
        if kind == "skill" and skill != r.d_tag and skill:
            embedded[skill] = embedded.get(skill, 0) + count
    if embedded:
        note = "Put in place of each `{{d_tag}}` the text of that skill: " + _names(
            [f"{skill} ({plural(n, 'line')})" for skill, n in embedded.items()]) + "."
    else:
        note = f"{r.d_tag} embeds no skill, so its text goes on as written."
    left = [d for d in r.diagnostics if d.code.startswith("reference-") and d.skill == r.d_tag]
    if left:
        more = f" (and {len(left) - 3} more, see Problems)" if len(left) > 3 else ""
        note += " Left empty: " + "; ".join(d.message for d in left[:3]) + more + "."
    template = r.template()
    if template is not None:
        first = r.parsed.template_line - 1
        note += (f" The template part (line {first}, `---template---`, and the "
                 f"{plural(template.lines, 'line')} after it) is set aside here, not lost: "
                 f"it becomes blocks at “template sections added”.")
    return r.step(note, template=template)


def _blocks(after: TracedText) -> tuple[BlockUse, ...]:
    """The blocks of a stage's output: each `role:` line (origin `role`) opens one."""
    texts = after.texts()
    markers = [line for at, count, kind, _ in after.spans() if kind == "role"
               for line in range(at, at + count)]
    ends = [*markers[1:], len(texts)] if markers else []
    return tuple(BlockUse(marker_role(texts[at]) or texts[at].rstrip(":"), at + 2, end - at - 1)
                 for at, end in zip(markers, ends, strict=True))


def read_roles(r: SkillReading) -> SkillStep:
    blocks = _blocks(r.after)
    # Marker lines as `split_roles` finds them (outside code fences): each range after one.
    markers = sum(1 for _, start, _ in split_roles(r.before.texts()) if start)
    cut = _names([f"{b.role} ({plural(b.lines, 'line')})" for b in blocks])
    if not blocks:
        note = f"{r.d_tag} has no text here, so there is no block to cut."
    elif markers:
        note = (f"The author's {plural(markers, 'marker line')} cut {r.d_tag} into "
                f"{plural(len(blocks), 'block')}: {cut}. The text stays the same; each "
                f"`role:` line now opens a block instead of being text.")
    else:
        note = (f"{r.d_tag} has no marker line, so all of it is one system block: {cut} "
                f"(the `system:` line shows where it starts).")
    note += (" Markers are read here, before any value is put in, so data can never open "
             "a message.")
    return r.step(note, blocks=blocks)


#: The values a skill's part keeps to list (the first; its note counts them all, and its
#: diff shows every one): a 100 KB skill with a `{{name}}` a line fills in a thousand.
VALUES_KEPT = 50


def read_variables(r: SkillReading) -> SkillStep:
    # A value is a name at a place (an embedded skill's line too): each counted once.
    seen: set[tuple[str, str | None, int | None]] = set()
    kept: list[ValueUse] = []
    # What a name calls and gives is the same wherever it is written: found once a name
    # (a 100 KB skill with a `{{name}}` a line writes a few names ten thousand times).
    filled: dict[str, tuple[str, str, str, str]] = {}
    text = r.before.text if r.before.lines else ""
    # One scan of the text (a placeholder never spans a line break), each line's origin
    # made once: a 100 KB skill with a `{{name}}` a line was a search a line and a
    # search of its runs a placeholder.
    placeholders = find_placeholders(text) if "{{" in text else []
    origins = list(r.before.origins) if placeholders else []
    at = since = 0  # the line of the last placeholder, and where it starts
    for ph in placeholders:
        at, since = at + text.count("\n", since, ph.start), ph.start
        origin = origins[at]
        key = (ph.name, origin.skill, origin.line)
        if key in seen:
            continue
        seen.add(key)
        if len(kept) < VALUES_KEPT:
            if ph.name not in filled:
                filled[ph.name] = _filled(r, ph.name)
            kept.append(ValueUse(ph.name, origin.skill, origin.line, *filled[ph.name]))
    found = tuple(kept)
    if not found:
        note = f"{r.d_tag} uses no `{{{{name}}}}` here: nothing to fill in."
    else:
        named = listed([f"`{{{{{short(v.name)}}}}}`" + (
            f" ({short(v.tool)}, {v.formatter})" if v.kind != "unknown" else " (unknown: empty)")
            for v in found[:LISTED]], total=len(seen))
        note = (f"Filled in {plural(len(seen), 'value')}: {named}. Each comes from a "
                f"binding, a built-in or a mock tool, turned into markdown by its "
                f"formatter; values are not scanned again.")
    return r.step(note, values=found)


def read_headings(r: SkillReading) -> SkillStep:
    before, after = r.before.texts(), r.after.texts()
    moved = (sum(1 for a, b in zip(before, after, strict=True) if a != b)
             if len(before) == len(after) else None)
    if moved == 0:
        note = f"{r.d_tag} has no heading, so nothing moves."
    elif moved is None:
        note = ("Every heading went down one level (an underlined heading became a `##` "
                "line), so the runtime's `#` title stays the only `#`.")
    else:
        note = (f"Moved {plural(moved, 'heading')} down one level (`#` → `##`), so the "
                f"runtime's `#` title stays the only `#`. Embedded text and values were put "
                f"in first, so they move once, with the skill around them.")
    return r.step(note)


def _section_source(section: Section) -> str:
    if section.role == "expand":
        return "the DM history"
    if section.content is not None:
        return "content"
    return f"tool {section.tool}" + (f", format {section.format}" if section.format else "")


def read_sections(r: SkillReading) -> SkillStep:
    template = r.template()
    if template is None or r.parsed.template_text is None:
        return r.step(f"{r.d_tag} has no `---template---` part: nothing to add.")
    parsed = parse_template(r.parsed.template_text, r.parsed.template_line)
    skipped = {d.line for d in r.diagnostics
               if d.code == "section-skipped" and d.skill == r.d_tag}
    sections = tuple(SectionStep(s.name, s.role, s.line, _section_source(s), s.line in skipped)
                     for s in parsed.sections)
    added = [s.name for s in sections if not s.skipped]
    note = (f"Each template section became a block after the skill's text: "
            f"{_names(added) or 'none'}; it calls its tool or writes its content, expanded, "
            f"resolved and bumped like the text.")
    gone = [s.name for s in sections if s.skipped]
    if gone:
        note += f" Empty and skipped: {_names(gone)}."
    if parsed.problems:
        note += f" {plural(len(parsed.problems), 'section')} could not be read (see Problems)."
    return r.step(note, sections=sections, template=template)


def _filled(r: SkillReading, name: str) -> tuple[str, str, str, str]:
    """What `{{name}}` calls (its kind, tool and formatter) and the value it gives."""
    source = source_of(r.workspace, name)
    resolved = r.resolver.resolve(name)
    return (source.kind if source else "unknown", source.binding.tool if source else "",
            formatter_of(source.binding) if source else "", resolved.text if resolved else "")


#: A reader for each stage of `STAGES`, by the stage's name.
READERS: dict[str, Callable[[SkillReading], SkillStep]] = {
    "references expanded": read_references,
    "roles split": read_roles,
    "variables resolved": read_variables,
    "headings bumped": read_headings,
    "template sections added": read_sections,
}
