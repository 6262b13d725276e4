"""Assembly: the skills a trigger selects, turned into the agent's messages and document.

Each selected skill runs through four small stages, in the seed's order (resolve,
then bump):

    expand references -> split roles -> resolve variables -> bump headings

then its template sections are added as blocks, and the blocks become messages by
the agent's message mode. Every line carries its `Origin` through the stages, which
is how the document's provenance and the diagnostics' line numbers are known.
Assembly never raises on bad input: problems become diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import NamedTuple

from .formatters import FormatOptions, format_value
from .headings import bump_headings
from .placeholders import find_placeholders, unescape
from .result import Context, Diagnostic, Origin, SkillTrace, Stage
from .roles import FenceTracker, is_marker, marker_role
from .sections import Section, parse_template, split_template
from .variables import Resolver
from .workspace import Scenario, Skill, Variable, Workspace

MAX_REFERENCE_DEPTH = 8
SEPARATOR = Origin("separator")
ROLE_LINE = Origin("role")

Line = tuple[str, Origin]

#: Memoised results of standalone skills (see `_Run.skill_blocks`), oldest first.
_SKILL_MEMO: dict[tuple, tuple] = {}
_SKILL_MEMO_SIZE = 2048


@dataclass(slots=True)
class Block:
    """A run of lines of one role from one skill: the unit messages are made of."""

    role: str
    skill: str | None
    lines: list[Line] = field(default_factory=list)


class Piece(NamedTuple):
    """A finished block: its trimmed text and one origin per line of it."""

    role: str
    skill: str | None
    text: str
    origins: tuple[Origin, ...]

    @classmethod
    def of(cls, block: Block) -> Piece:
        lines = trim_blank(block.lines)
        return cls(block.role, block.skill, "\n".join(t for t, _ in lines), tuple(o for _, o in lines))


class _Message:
    """A message being laid out: text chunks joined by newlines, one origin per line."""

    __slots__ = ("chunks", "origins", "role")

    def __init__(self, role: str):
        self.role = role
        self.chunks: list[str] = []
        self.origins: list[Origin] = []

    def add(self, text: str, origins: tuple[Origin, ...] | list[Origin]) -> None:
        self.chunks.append(text)
        self.origins.extend(origins)

    @property
    def content(self) -> str:
        return "\n".join(self.chunks)


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """What depends only on a skill's text; cached so an edit re-parses one skill."""

    lines: tuple[Line, ...]  # the body (before `---template---`), with origins
    names: tuple[str, ...]  # every `{{name}}` the body uses, sorted
    roles: tuple[tuple[str, int, int], ...]  # the body's role split, valid when nothing is embedded
    template_text: str | None
    template_line: int  # 1-based line of the template's first YAML line


def split_roles(texts: list[str]) -> list[tuple[str, int, int]]:
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


@lru_cache(maxsize=2048)
def parse_skill(d_tag: str, content: str) -> ParsedSkill:
    """Split a skill's content into tagged body lines, its role ranges and its template part."""
    text = content.replace("\r\n", "\n")
    text = text.removesuffix("\n")
    raw = text.split("\n")
    cut = split_template(raw)
    body = raw if cut < 0 else raw[:cut]
    lines = tuple((line, Origin("skill", d_tag, number)) for number, line in enumerate(body, 1))
    names = tuple(sorted({p.name for line in body if "{{" in line for p in find_placeholders(line)}))
    roles = tuple(split_roles(body))
    if cut < 0:
        return ParsedSkill(lines, names, roles, None, 0)
    return ParsedSkill(lines, names, roles, "\n".join(raw[cut + 1:]), cut + 2)


def trim_blank(lines: list[Line]) -> list[Line]:
    """Drop the leading and trailing blank lines."""
    start, end = 0, len(lines)
    while start < end and not lines[start][0].strip():
        start += 1
    while end > start and not lines[end - 1][0].strip():
        end -= 1
    return lines if (start, end) == (0, len(lines)) else lines[start:end]


def format_log_entry(document: str, *, agent: str, scenario: str | None, trigger: str,
                     counts: Mapping[str, int], time: datetime | None = None) -> str:
    """The context-log entry: a one-line HTML comment header, then the document verbatim.

    The header stays out of the way when the log is rendered as markdown; the
    document follows byte for byte, so the log shows exactly what the agent saw.
    """
    stamp = (time or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    problems = ", ".join(f"{counts.get(k, 0)} {k}{'s' * (counts.get(k, 0) != 1)}"
                         for k in ("error", "warning", "info"))
    header = f"{stamp} · agent {agent} · scenario {scenario or '(ad hoc)'} · trigger {trigger} · {problems}"
    return f"<!-- context-log: {header.replace('--', '- -')} -->\n{document}"


class _Run:
    """The state of one assembly: the inputs, the diagnostics and the trace records."""

    def __init__(self, workspace: Workspace, scenario: Scenario, message: str,
                 overrides: Mapping[str, str]):
        self.ws = workspace
        self.scenario = scenario
        self.overrides = overrides
        self.diagnostics: list[Diagnostic] = []
        self.resolver = Resolver(workspace, scenario, message)
        self.records: list[SkillTrace] = []

    def diag(self, severity: str, code: str, message: str, origin: Origin | None = None) -> None:
        skill = origin.skill if origin else None
        line = origin.line if origin else None
        self.diagnostics.append(Diagnostic(severity, code, message, skill, line))

    def content_of(self, skill: Skill) -> str:
        return self.overrides.get(skill.d_tag, skill.content)

    # -- stage 1: expand references -------------------------------------------------

    def expand(self, lines: tuple[Line, ...] | list[Line], stack: tuple[str, ...]) -> list[Line]:
        """Replace each `{{d_tag}}` of a skill by that skill's content, recursively."""
        skills = self.ws.skills_by_tag
        out: list[Line] = []
        for text, origin in lines:
            if "{{" not in text or not any(p.name in skills for p in find_placeholders(text)):
                out.append((text, origin))
                continue
            current, current_origin, pos = "", origin, 0
            for ph in find_placeholders(text):
                if ph.name not in skills:
                    continue
                current += text[pos:ph.start]
                pos = ph.end
                embedded = self.embed(skills[ph.name], origin, stack)
                if not embedded:
                    continue
                if current == "":
                    current_origin = embedded[0][1]
                if len(embedded) == 1:
                    current += embedded[0][0]
                    continue
                out.append((current + embedded[0][0], current_origin))
                out.extend(embedded[1:-1])
                current, current_origin = embedded[-1]
            out.append((current + text[pos:], current_origin))
        return out

    def embed(self, skill: Skill, at: Origin, stack: tuple[str, ...]) -> list[Line]:
        """The lines `{{skill.d_tag}}` stands for at `at`, or [] with a diagnostic."""
        name = skill.d_tag
        if name in stack:
            chain = " → ".join((*stack[stack.index(name):], name))
            self.diag("error", "reference-cycle", f"reference cycle {chain}: `{{{{{name}}}}}` left empty", at)
            return []
        if len(stack) > MAX_REFERENCE_DEPTH:
            self.diag("error", "reference-depth",
                      f"`{{{{{name}}}}}` is nested more than {MAX_REFERENCE_DEPTH} references deep; left empty", at)
            return []
        if not skill.enabled:
            self.diag("warning", "reference-disabled", f"`{{{{{name}}}}}` refers to a disabled skill; left empty", at)
            return []
        parsed = parse_skill(name, self.content_of(skill))
        if parsed.template_text is not None:
            self.diag("warning", "template-in-embed",
                      f"the `---template---` part of `{name}` is ignored where it is embedded", at)
        if self.ws.skills_by_tag.keys().isdisjoint(parsed.names):
            return trim_blank(list(parsed.lines))
        return trim_blank(self.expand(parsed.lines, (*stack, name)))

    # -- stage 2: split roles ---------------------------------------------------------

    def split(self, lines: list[Line], d_tag: str) -> list[Block]:
        """Cut author text into blocks at role markers; text before the first is system."""
        texts = [text for text, _ in lines]
        return [Block(role, d_tag, lines[start:end]) for role, start, end in split_roles(texts)]

    # -- stage 3: resolve variables ---------------------------------------------------

    def resolve(self, block: Block) -> Block:
        out: list[Line] = []
        for text, origin in block.lines:
            if "{{" in text:
                self.resolve_line(text, origin, out)
            else:
                out.append((text, origin))
        return Block(block.role, block.skill, out)

    def resolve_line(self, text: str, origin: Origin, out: list[Line]) -> None:
        """Replace the placeholders of one author line; the values are never rescanned."""
        current, current_origin, pos = "", origin, 0
        for ph in find_placeholders(text):
            current += unescape(text[pos:ph.start])
            pos = ph.end
            resolved = self.resolver.resolve(ph.name)
            if resolved is None:
                self.unknown(ph.name, origin)
                continue
            for problem in resolved.problems:
                self.diag(problem.severity, problem.code, problem.message, origin)
            if not resolved.text:
                continue
            value_origin = Origin(resolved.kind, origin.skill, origin.line, ph.name)
            values = resolved.text.split("\n")
            self.check_markers(values, ph.name, origin, first_alone=current == "")
            if current == "":
                current_origin = value_origin
            if len(values) == 1:
                current += values[0]
                continue
            out.append((current + values[0], current_origin))
            out.extend((value, value_origin) for value in values[1:-1])
            current, current_origin = values[-1], value_origin
        out.append((current + unescape(text[pos:]), current_origin))

    def check_markers(self, values: list[str], name: str, at: Origin, first_alone: bool = True) -> None:
        """Warn when data holds a line that looks like a role marker (it stays plain text)."""
        for index, value in enumerate(values):
            if (index or first_alone) and is_marker(value):
                self.diag("warning", "marker-in-data",
                          f"`{name}` put a `{value.strip()}` line into the text; data cannot open "
                          f"a new message, so it stays plain text of this message", at)
                return

    def unknown(self, name: str, origin: Origin) -> None:
        close = self.resolver.suggestions(name)
        hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
        self.diag("warning", "unknown-variable",
                  f"`{{{{{name}}}}}` matches no skill, variable or tool and was left empty{hint}", origin)

    # -- stage 4: bump headings ---------------------------------------------------------

    def bump(self, block: Block) -> Block:
        def clamp(origin: Origin) -> None:
            self.diag("warning", "heading-clamped",
                      "a level-6 heading cannot be bumped further and stays level 6", origin)
        return Block(block.role, block.skill, bump_headings(block.lines, clamp))

    # -- template sections ----------------------------------------------------------------

    def sections(self, d_tag: str, parsed: ParsedSkill) -> list[Block]:
        template = parse_template(parsed.template_text or "", parsed.template_line)
        for line, problem in template.problems:
            self.diag("error", "template-invalid", problem, Origin("skill", d_tag, line))
        blocks: list[Block] = []
        for section in template.sections:
            blocks.extend(self.section(d_tag, section))
        return blocks

    def section(self, d_tag: str, section: Section) -> list[Block]:
        at = Origin("skill", d_tag, section.line)
        if section.role == "expand":
            return self.expand_history(d_tag, section, at)
        if section.content is not None:
            content = section.content
            if section.provider_content is not None and section.provider == self.scenario.provider:
                content = section.provider_content
            lines = [(text, at) for text in content.rstrip("\n").split("\n")]
            block = self.resolve(Block(section.role, d_tag, self.expand(lines, (d_tag,))))
        else:
            binding = Variable(name=section.name, tool=section.tool or "", args=section.args,
                               result_field=section.result_field, path=section.path,
                               format=section.format, limit=section.limit)
            text, problems = self.resolver.call(binding)
            for problem in problems:
                self.diag(problem.severity, problem.code, problem.message, at)
            values = text.split("\n") if text else []
            self.check_markers(values, section.name, at)
            origin = Origin("tool", d_tag, section.line, section.tool)
            block = Block(section.role, d_tag, [(value, origin) for value in values])
        if section.skip_if_empty and not trim_blank(block.lines):
            self.diag("info", "section-skipped", f"section `{section.name}` is empty and was skipped", at)
            return []
        return [self.bump(block)]

    def expand_history(self, d_tag: str, section: Section, at: Origin) -> list[Block]:
        history = list(self.scenario.history)
        if section.limit is not None:
            history = history[-section.limit:] if section.limit else []
        if not history and section.skip_if_empty:
            self.diag("info", "section-skipped", f"section `{section.name}` is empty and was skipped", at)
            return []
        origin = Origin("history", d_tag, section.line, "dm_history")
        if self.ws.agent.message_mode == "sequence":
            return [Block(entry.role, d_tag, [(text, origin) for text in entry.content.split("\n")])
                    for entry in history]
        options = FormatOptions(self.ws.agent.max_array_items, None, self.ws.agent.history_labels)
        entries = [{"role": h.role, "content": h.content, "created_at": h.created_at} for h in history]
        text = format_value("dm_history", entries, options)
        return [self.bump(Block("system", d_tag, [(value, origin) for value in text.split("\n")]))]

    # -- a whole skill ----------------------------------------------------------------------

    def skill_pieces(self, skill: Skill) -> list[Piece]:
        """Run one selected skill through the four stages, then add its sections.

        A skill that embeds nothing and has no template depends only on its text and
        the values of the names it uses, so its result is memoised on exactly those:
        while an author types, the other skills of the workspace are not redone.
        """
        content = self.content_of(skill)
        parsed = parse_skill(skill.d_tag, content)
        standalone = self.ws.skills_by_tag.keys().isdisjoint(parsed.names)
        if not standalone or parsed.template_text is not None:
            return self.run_skill(skill, content, parsed, standalone)
        key = (skill.d_tag, content, tuple(self.resolver.signature(name) for name in parsed.names))
        hit = _SKILL_MEMO.get(key)
        if hit is not None:
            pieces, diagnostics, record = hit
            self.diagnostics.extend(diagnostics)
            self.records.append(record)
            return pieces
        mark = len(self.diagnostics)
        pieces = self.run_skill(skill, content, parsed, standalone)
        if len(_SKILL_MEMO) >= _SKILL_MEMO_SIZE:
            del _SKILL_MEMO[next(iter(_SKILL_MEMO))]
        _SKILL_MEMO[key] = (pieces, tuple(self.diagnostics[mark:]), self.records[-1])
        return pieces

    def run_skill(self, skill: Skill, content: str, parsed: ParsedSkill, standalone: bool) -> list[Piece]:
        if standalone:  # nothing to embed: use the cached role split
            expanded = list(parsed.lines)
            blocks = [Block(role, skill.d_tag, expanded[start:end]) for role, start, end in parsed.roles]
        else:
            expanded = self.expand(parsed.lines, (skill.d_tag,))
            blocks = self.split(expanded, skill.d_tag)
        resolved = [self.resolve(block) for block in blocks]
        bumped = [self.bump(block) for block in resolved]
        if parsed.template_text is not None:
            bumped.extend(self.sections(skill.d_tag, parsed))
        self.records.append(_skill_trace(skill.d_tag, content, expanded, resolved, bumped))
        return [Piece.of(block) for block in bumped]


def _skill_trace(d_tag: str, content: str, expanded: list[Line], resolved: list[Block],
                 bumped: list[Block]) -> SkillTrace:
    """The stage texts of one skill, made when the skill is run (a few joins) so that a
    memoised skill carries its trace and no live line lists are kept."""
    def show(blocks: list[Block]) -> str:
        return "\n".join(f"{b.role}:\n" + "\n".join(t for t, _ in b.lines) for b in blocks)
    return SkillTrace(d_tag, (
        Stage("raw", content),
        Stage("references expanded", "\n".join(t for t, _ in expanded)),
        Stage("variables resolved", show(resolved)),
        Stage("headings bumped", show(bumped)),
    ))


_SAME_SKILL = (SEPARATOR,)
_NEW_SKILL = (SEPARATOR, SEPARATOR, SEPARATOR)


def _messages(run: _Run, pieces: list[Piece], title: str) -> list[_Message]:
    """Lay the pieces out as messages by the agent's message mode."""
    title_origins = (Origin("title"),)
    messages: list[_Message] = []
    if run.ws.agent.message_mode == "sequence":
        for piece in pieces:
            if not piece.text:
                run.diag("info", "empty-message",
                         f"an empty `{piece.role}` message of `{piece.skill}` was dropped",
                         Origin("skill", piece.skill, None))
                continue
            message = _Message(piece.role)
            message.add(piece.text, piece.origins)
            messages.append(message)
        first = _Message("system")
        first.add(f"# {title}", title_origins)
        if messages and messages[0].role == "system":
            first.add("", _SAME_SKILL)
            first.add(messages[0].content, messages[0].origins)
            messages[0] = first
        else:
            messages.insert(0, first)
        return messages

    grouped: dict[str, list[Piece]] = {"system": []}
    for piece in pieces:
        grouped.setdefault(piece.role, []).append(piece)
    for role, role_pieces in grouped.items():
        message = _Message(role)
        if role == "system":
            message.add(f"# {title}", title_origins)
        previous: str | None = None
        for piece in role_pieces:
            if not piece.text:
                continue
            if message.chunks:
                if previous is not None and piece.skill != previous:
                    message.add("\n---\n", _NEW_SKILL)  # a blank line, `---`, a blank line
                else:
                    message.add("", _SAME_SKILL)
            message.add(piece.text, piece.origins)
            previous = piece.skill
        if message.chunks:
            messages.append(message)
        else:
            run.diag("info", "empty-message", f"the `{role}` message is empty and was dropped")
    return messages


def _pick_scenario(workspace: Workspace, scenario: str | Scenario | None,
                   run_diags: list[Diagnostic]) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if scenario is None:
        return workspace.scenarios[0] if workspace.scenarios else Scenario(name="")
    found = workspace.scenarios_by_name.get(scenario)
    if found is None:
        known = ", ".join(f"`{s}`" for s in workspace.scenarios_by_name) or "none"
        run_diags.append(Diagnostic("error", "unknown-scenario",
                                    f"there is no scenario `{scenario}` (known: {known})"))
        return Scenario(name=scenario)
    return found


def assemble(
    workspace: Workspace,
    scenario: str | Scenario | None = None,
    *,
    trigger: str | None = None,
    message: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> Context:
    """Assemble the context the agent is given for a scenario.

    Args:
        workspace: the agent, skills, tools, variables and scenarios.
        scenario: a scenario name (default: the workspace's first scenario), or a
            `Scenario` built on the fly.
        trigger: use this trigger instead of the scenario's.
        message: use this incoming message instead of the scenario's.
        overrides: `d_tag` -> draft content, used wherever that skill is used.

    Returns:
        A `Context`. Never raises on bad input: problems are in `.diagnostics`.
    """
    early: list[Diagnostic] = []
    chosen = _pick_scenario(workspace, scenario, early)
    trigger = chosen.trigger if trigger is None else trigger
    message = chosen.message if message is None else message
    run = _Run(workspace, chosen, message, overrides or {})
    run.diagnostics.extend(early)

    selected = [s for s in workspace.skills if s.enabled and s.layer == 1 and trigger in s.triggers]
    if not selected:
        run.diag("info", "no-skills", f"no enabled layer-1 skill has the trigger `{trigger}`")
    pieces = [piece for skill in selected for piece in run.skill_pieces(skill)]

    messages = _messages(run, pieces, workspace.agent.title_text)
    if message.strip() and not any(m.role == "user" for m in messages):
        run.diag("info", "user-fallback",
                 "no skill wrote user text, so the incoming message is the user message")
        fallback = Piece.of(Block("user", None, [(text, Origin("message")) for text in message.split("\n")]))
        messages.append(_Message("user"))
        messages[-1].add(fallback.text, fallback.origins)

    api_messages = [{"role": msg.role, "content": msg.content} for msg in messages]
    parts: list[str] = []
    provenance: list[Origin] = []
    for index, (msg, api) in enumerate(zip(messages, api_messages)):
        if index:
            parts.append("")
            provenance.append(SEPARATOR)
        parts.append(f"{msg.role}:")
        provenance.append(ROLE_LINE)
        parts.append(api["content"])
        provenance.extend(msg.origins)
    document = "\n".join(parts) + "\n"
    context = Context(
        document=document,
        messages=api_messages,
        diagnostics=run.diagnostics,
        provenance=provenance,
        log_entry="",
        scenario=chosen.name or None,
        trigger=trigger,
        _trace_builder=run.records.copy,
    )
    context.log_entry = format_log_entry(document, agent=workspace.agent.name, scenario=context.scenario,
                                         trigger=trigger, counts=context.counts())
    return context
