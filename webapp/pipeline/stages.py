"""The stages a skill runs through, as a table, and the one loop that runs them.

    STAGES = (references expanded, roles split, variables resolved, headings bumped,
              template sections added)

Each stage is a plain function `stage(skill, blocks) -> blocks`: it reads the skill
being run (its parsed text, what its names resolve to) and returns new blocks. The loop
records the text after every stage, which is the stage trace the Pipeline tab shows, so
adding a stage is one line of the table. The seed's order holds: references are
expanded and variables resolved before headings are bumped, so embedded text is bumped
once, with the skill that embeds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from typing import Any, Protocol

from .blocks import Block, Lines, ParsedSkill, Piece, SkillResult, splice, split_roles, traced
from .budgets import Allowance, over_budget_message
from .formatters import FormatOptions, format_value
from .headings import bump_headings, bump_text
from .origins import Origins, data_lines, picked, with_values
from .placeholders import Placeholder, find_placeholders, split_placeholders, unescape
from .result import Diagnostic, Origin, SkillTrace, Stage
from .roles import is_marker, may_hold_marker
from .sections import Section, parse_template
from .untrusted import excerpt
from .variables import Resolved
from .workspace import Variable

_new = tuple.__new__  # `_new(Origin, fields)` makes the named tuple in C, at a third the cost


class Lookups(Protocol):
    """What the stages may ask about the world outside the skill being run."""

    #: What every copy of a value is taken from (None: values checked before the run).
    allowance: Allowance | None

    def embeds(self, names: Sequence[str]) -> bool:
        """Whether any of `names` is a skill (so references must be expanded)."""

    def embed(self, skill: SkillRun, name: str, at: Origin,
              stack: tuple[str, ...]) -> Lines | None:
        """The lines `{{name}}` stands for at `at`, or None when `name` is no skill."""

    def resolve(self, name: str) -> Resolved | None:
        """What a `{{name}}` that is no skill resolves to, or None for nothing."""

    def suggestions(self, name: str) -> Sequence[str]:
        """The known names closest to an unknown `name`."""

    def template(self) -> Any:
        """The run's `Template` settings (see `TemplateInputs`), for template sections."""


@dataclass(frozen=True, slots=True)
class TemplateInputs:
    """What template sections read besides the skill: the scenario and layout settings,
    and how to call a binding."""

    provider: str | None
    history: tuple[Any, ...]
    sequence: bool  # the agent's message mode is `sequence`
    options: FormatOptions
    call: Callable[[Variable], tuple[str, tuple[Diagnostic, ...]]]


@dataclass(slots=True)
class SkillRun:
    """One skill being run: its `d_tag`, parsed text, lookups and the diagnostics found,
    and its body as the block the stages start from."""

    d_tag: str
    parsed: ParsedSkill
    lookups: Lookups
    diagnostics: list[Diagnostic] = field(default_factory=list)
    quiet: bool = False  # no diagnostic is made, nor looked for (`plain_skill_shape`'s runs)
    body: Block = field(init=False)

    def __post_init__(self) -> None:
        self.body = self.parsed.block()

    def diag(self, severity: str, code: str, message: str, origin: Origin | None = None, *,
             name: str | None = None, suggestions: Sequence[str] = ()) -> None:
        if self.quiet:
            return
        self.diagnostics.append(Diagnostic(severity, code, message,
                                           origin.skill if origin else None,
                                           origin.line if origin else None,
                                           name, tuple(suggestions)))

    def afford(self, name: str, chars: int, at: Origin | None) -> bool:
        """Whether the budget has room for `chars` more of `name`'s value; if not, a
        `value-budget` error (said once with its count by `budgets.limit_problems`)."""
        allowance = self.lookups.allowance
        if allowance is None or allowance.spend(chars):
            return True
        self.diag("error", "value-budget",
                  over_budget_message(name, self.d_tag, allowance.limit), at, name=name)
        return False


# -- stage 1: expand references


def expand_references(skill: SkillRun, blocks: list[Block]) -> list[Block]:
    """Replace each `{{d_tag}}` of a skill by that skill's text, recursively."""
    if not skill.lookups.embeds(skill.parsed.names):
        return blocks
    return [expand_block(skill, block, (skill.d_tag,)) for block in blocks]


def expand_block(skill: SkillRun, block: Block, stack: tuple[str, ...]) -> Block:
    """`block` with every skill reference replaced by the lines it stands for."""
    def embedded(ph: Placeholder, origin: Origin) -> Lines | None:
        return skill.lookups.embed(skill, ph.name, origin, stack)

    return splice(block, find_placeholders(block.text), embedded)


# -- stage 2: split roles


def split_into_roles(skill: SkillRun, blocks: list[Block]) -> list[Block]:
    """Cut author text into blocks at role markers; text before the first is system."""
    out = []
    for block in blocks:
        text, origins = block.text, block.origins
        texts = None if block is skill.body else (text.split("\n") if origins else [])
        # The body as parsed (nothing was embedded): its split is parsed already.
        ranges = skill.parsed.roles if texts is None else split_roles(texts)
        for role, start, end in ranges:
            if start == 0 and end == len(origins):  # the whole block: nothing to cut
                out.append(Block(role, block.skill, text, origins))
                continue
            if texts is None:
                texts = text.split("\n")
            out.append(Block(role, block.skill, "\n".join(texts[start:end]),
                             origins[start:end]))
    return out


# -- stage 3: resolve variables


def resolve_variables(skill: SkillRun, blocks: list[Block]) -> list[Block]:
    """Replace every `{{name}}` left by its value; the values are never rescanned."""
    return [resolve_block(skill, block) for block in blocks]


def resolve_block(skill: SkillRun, block: Block) -> Block:
    if "{{" not in block.text:
        return block
    return resolve_apart(skill, block) or resolve_by_splice(skill, block)


def resolve_apart(skill: SkillRun, block: Block) -> Block | None:
    """The block resolved as `resolve_by_splice` resolves it, when its lines are one run
    of an author's lines, every placeholder is on a line of its own and resolves to a
    text without problems, holding nothing that may be a role marker, and no `{{` is
    escaped: most skills. None otherwise.

    Then the text is the pieces around the placeholders and the values joined, in C, and
    the origins are the run cut at the values (`origins.with_values`). A cold assembly
    spent half its time splicing before this; `test_stages` holds the two ways together.
    """
    run = block.origins.run if type(block.origins) is Origins else None
    if run is None:
        return None
    parts = split_placeholders(block.text)
    if parts is None:
        return None
    pieces, names = parts[0::2], parts[1::2]
    breaks = list(map(str.count, pieces[:-1], repeat("\n")))
    if 0 in breaks[1:]:  # two placeholders on one line
        return None
    texts: dict[str, str] = {}
    shapes: dict[str, tuple[str, int]] = {}  # name -> its kind, its line breaks
    for name in set(names):
        resolved = skill.lookups.resolve(name)
        if resolved is None or (resolved.problems and not skill.quiet) or not resolved.text:
            return None
        texts[name] = resolved.text
        shapes[name] = resolved.kind, resolved.text.count("\n")
    if not skill.quiet and may_hold_marker("\n".join(texts.values())):  # warned of: one scan
        return None
    allowance = skill.lookups.allowance  # past it, `resolve_by_splice` decides each copy
    if allowance is not None and not allowance.spend(sum(len(texts[n]) for n in names)):
        return None
    origins = with_values(run, zip(accumulate(breaks), pieces, names, strict=False), shapes)
    parts[1::2] = map(texts.__getitem__, names)
    return Block(block.role, block.skill, "".join(parts), origins)


def resolve_by_splice(skill: SkillRun, block: Block) -> Block:
    """The block with each placeholder replaced by its value's lines (`splice`), the
    problems of each reported at its line."""
    lookups = skill.lookups

    def value(ph: Placeholder, origin: Origin) -> Lines:
        resolved = lookups.resolve(ph.name)
        if resolved is None:
            close = lookups.suggestions(ph.name)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            skill.diag("warning", "unknown-variable",
                       f"`{{{{{ph.name}}}}}` matches no skill, variable or tool and was left "
                       f"empty{hint}", origin, name=ph.name, suggestions=close)
            return _NOTHING
        for problem in resolved.problems:
            skill.diag(problem.severity, problem.code, problem.message, origin, name=ph.name)
        if not resolved.text or not skill.afford(ph.name, len(resolved.text), origin):
            return _NOTHING
        values = resolved.text.split("\n")
        return values, (_new(Origin, (resolved.kind, origin.skill, origin.line, ph.name)),
                        ) * len(values)

    def check(values: Sequence[str], first: Origin, starts_line: bool) -> None:
        if may_hold_marker("\n".join(values)):  # most values hold none: one scan
            check_markers(skill, values, first.name or "", first, first_alone=starts_line)

    return splice(block, find_placeholders(block.text), value, literal=unescape,
                  check=None if skill.quiet else check)


_NOTHING: Lines = ((), ())


def check_markers(skill: SkillRun, values: Sequence[str], name: str, at: Origin,
                  first_alone: bool = True) -> None:
    """Warn when data holds a line that looks like a role marker (it stays plain text).

    Lines are cut as a reader would cut them (`str.splitlines`: a lone CR too).
    """
    for index, value in enumerate(values):
        for part_index, part in enumerate(value.splitlines() or [value]):
            if (index or part_index or first_alone) and is_marker(part):
                skill.diag("warning", "marker-in-data",
                           f"`{name}` put a `{excerpt(part.strip())}` line into the text; data "
                           f"cannot open a new message, so it stays plain text of this "
                           f"message", at)
                return


# -- stage 4: bump headings


def bump_block_headings(skill: SkillRun, blocks: list[Block]) -> list[Block]:
    """Move every heading down one level: the runtime owns the `#` title."""
    return [bump_block(skill, block) for block in blocks]


def bump_block(skill: SkillRun, block: Block) -> Block:
    def clamp(origin: Origin) -> None:
        skill.diag("warning", "heading-clamped",
                   "a level-6 heading cannot be bumped further and stays level 6", origin)

    warned: set[tuple[Origin, bool]] = set()

    def data_fence(origin: Origin, closes_authors: bool) -> None:
        if (origin, closes_authors) in warned:  # once per value, however many fence lines
            return
        warned.add((origin, closes_authors))
        if closes_authors:
            skill.diag("warning", "fence-in-data",
                       f"`{origin.name}` holds a line that closes the code fence the author "
                       f"opened; the author's lines stay code up to the author's own closing "
                       f"fence", origin)
            return
        skill.diag("warning", "fence-in-data",
                   f"`{origin.name}` opened a code fence it does not close; it ends with the "
                   f"value, and the author's lines after it are read as written", origin)

    bumped = bump_text(block.text)  # most text: no line needs a look of its own
    if bumped is not None:
        return Block(block.role, block.skill, bumped, block.origins)
    # Line by line, each line named by its index, not its origin: the origins stay runs,
    # and an `Origin` is made only for a line a diagnostic names.
    origins = block.origins
    texts = block.text.split("\n") if origins else []
    warn = not skill.quiet  # a quiet run looks no origin up for a warning
    out, kept = bump_headings(
        texts, (lambda at: clamp(origins[at])) if warn else None, data_lines(origins),
        (lambda at, closes: data_fence(origins[at], closes)) if warn else None)
    text = "\n".join(out)
    if kept is None:  # no setext heading joined lines: every line kept, in order
        return Block(block.role, block.skill, text, origins)
    return Block(block.role, block.skill, text, picked(origins, kept))


# -- stage 5: template sections


def add_template_sections(skill: SkillRun, blocks: list[Block]) -> list[Block]:
    """Add a block for each section of the skill's `---template---` part."""
    parsed = skill.parsed
    if parsed.template_text is None:
        return blocks
    template = parse_template(parsed.template_text, parsed.template_line)
    for line, problem in template.problems:
        skill.diag("error", "template-invalid", problem, Origin("skill", skill.d_tag, line))
    inputs = skill.lookups.template()
    return blocks + [block for section in template.sections
                     for block in section_blocks(skill, section, inputs)]


def section_blocks(skill: SkillRun, section: Section, inputs: TemplateInputs) -> list[Block]:
    d_tag = skill.d_tag
    at = Origin("skill", d_tag, section.line)
    if section.role == "expand":
        return history_blocks(skill, section, inputs, at)
    if section.content is not None:
        content = section.content
        if section.provider_content is not None and section.provider == inputs.provider:
            content = section.provider_content
        text = content.rstrip("\n")
        lines = Block(section.role, d_tag, text, (at,) * (text.count("\n") + 1))
        block = resolve_block(skill, expand_block(skill, lines, (d_tag,)))
    else:
        binding = Variable(name=section.name, tool=section.tool or "", args=section.args,
                           result_field=section.result_field, path=section.path,
                           format=section.format, limit=section.limit)
        text, problems = inputs.call(binding)
        for problem in problems:
            skill.diag(problem.severity, problem.code, problem.message, at)
        text = text if skill.afford(section.name, len(text), at) else ""
        values = text.split("\n") if text else []
        check_markers(skill, values, section.name, at)
        origin = Origin("tool", d_tag, section.line, section.tool)
        block = Block(section.role, d_tag, text, (origin,) * len(values))
    if section.skip_if_empty and not block.trimmed()[1]:
        skill.diag("info", "section-skipped",
                   f"section `{section.name}` is empty and was skipped", at)
        return []
    return [bump_block(skill, block)]


def history_blocks(skill: SkillRun, section: Section, inputs: TemplateInputs,
                   at: Origin) -> list[Block]:
    """`role: expand`: the DM history as one message per entry (sequence mode) or as one
    formatted system block."""
    history = list(inputs.history)
    if section.limit is not None:
        history = history[-section.limit:] if section.limit else []
    if not history and section.skip_if_empty:
        skill.diag("info", "section-skipped",
                   f"section `{section.name}` is empty and was skipped", at)
        return []
    origin = Origin("history", skill.d_tag, section.line, "dm_history")
    if not skill.afford(section.name, sum(len(entry.content) for entry in history), at):
        return []
    if inputs.sequence:
        blocks = []
        for entry in history:
            values = entry.content.split("\n")
            check_markers(skill, values, section.name, at)
            blocks.append(Block(entry.role, skill.d_tag, entry.content, (origin,) * len(values)))
        return blocks
    entries = [{"role": h.role, "content": h.content, "created_at": h.created_at} for h in history]
    text = format_value("dm_history", entries, inputs.options)
    return [bump_block(skill, Block("system", skill.d_tag, text,
                                    (origin,) * (text.count("\n") + 1)))]


#: The stages, in order: (the name the trace shows, the function).
STAGES: tuple[tuple[str, Callable[[SkillRun, list[Block]], list[Block]]], ...] = (
    ("references expanded", expand_references),
    ("roles split", split_into_roles),
    ("variables resolved", resolve_variables),
    ("headings bumped", bump_block_headings),
    ("template sections added", add_template_sections),
)


def run_stages(skill: SkillRun, content: str,
               later: Callable[[], tuple[Stage, ...]] | None = None) -> SkillResult:
    """Run `skill` through every stage of `STAGES`, recording the text after each, or,
    given `later` (what makes the same trace again), recording nothing: the trace is
    `later`'s, made when it is asked for."""
    blocks = [skill.body]
    trace = [Stage("raw", content, Origins.of_skill(skill.d_tag, content.count("\n") + 1))]
    for name, stage in STAGES:
        blocks = stage(skill, blocks)
        if later is None:
            trace.append(Stage(name, *traced(blocks)))
    last_lines = (sum(len(block.origins) or 1 for block in blocks),
                  sum(block.role is not None for block in blocks))
    return SkillResult.of(tuple(Piece.of(block) for block in blocks), tuple(skill.diagnostics),
                          SkillTrace(skill.d_tag, tuple(trace), last_lines=last_lines)
                          if later is None else
                          SkillTrace(skill.d_tag, build=later, last_lines=last_lines))
