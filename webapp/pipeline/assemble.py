"""Assembly: the skills a trigger selects, turned into the agent's messages and document.

    select skills -> run each through the stages (`stages.STAGES`) -> lay the pieces
    out as messages (`messages.MESSAGE_MODES`) -> the document, its provenance and
    the log entry

Every line carries its `Origin` through the stages, which is how the document's
provenance and the diagnostics' line numbers are known. Assembly never raises on bad
input: problems become diagnostics.

While an author types, one skill changes and the others do not. A skill that embeds
no other skill and has no template depends only on its `d_tag`, its text and what
each name it uses resolves to, so it is run by `run_plain_skill`, a pure function of
exactly those, memoised on its arguments: the memo cannot return a stale result,
because the function can see nothing that is not in its key.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple

from .blocks import Lines, ParsedSkill, Piece, parse_skill
from .budgets import Allowance, limit_problems, over_budget_message
from .formatters import FormatOptions
from .log_entry import format_log_entry
from .memo import memo, str_bytes, tuple_bytes
from .messages import MESSAGE_MODES, Message, document_of, user_fallback
from .origins import origins_bytes
from .result import Context, Diagnostic, Origin, SkillTrace, Stage
from .stages import SkillResult, SkillRun, TemplateInputs, expand_block, run_stages
from .variables import Resolved, Resolver
from .workspace import Scenario, Skill, Workspace

MAX_REFERENCE_DEPTH = 8
#: The most embeddings of one assembly, whatever their size: each costs a splice. What
#: they add in characters is bounded by the expansion budget (`budgets`), with values.
MAX_EMBEDDINGS = 5_000


def selects(skill: Skill, trigger: str) -> bool:
    """Whether `trigger` selects `skill`: an enabled layer-1 skill with that trigger."""
    return skill.enabled and skill.layer == 1 and trigger in skill.triggers


class Unresolved(NamedTuple):
    """A name that resolves to nothing, and the known names closest to it."""

    suggestions: tuple[str, ...]


class _PlainLookups:
    """The lookups of a skill that embeds nothing: what its names resolve to, and no more."""

    __slots__ = ("values",)
    #: Its values were checked against the assembly's budget before it ran.
    allowance = None

    def __init__(self, values: Mapping[str, Resolved | Unresolved]):
        self.values = values

    def embeds(self, names: Sequence[str]) -> bool:
        return False

    def embed(self, skill: SkillRun, name: str, at: Origin, stack: tuple[str, ...]) -> None:
        return None

    def resolve(self, name: str) -> Resolved | None:
        value = self.values[name]
        return value if isinstance(value, Resolved) else None

    def suggestions(self, name: str) -> Sequence[str]:
        value = self.values[name]
        return value.suggestions if isinstance(value, Unresolved) else ()

    def template(self) -> TemplateInputs:
        raise AssertionError("a plain skill has no template")


Values = tuple[tuple[str, "Resolved | Unresolved"], ...]

#: The byte budget of `run_plain_skill`'s memo (see docs/performance.md, "Caches at real
#: size and the cold path").
RUN_PLAIN_BYTES = 128 << 20
_ORIGIN_BYTES = sys.getsizeof(Origin("skill", "", 1))


def _result_weight(args: tuple[Hashable, ...], result: SkillResult) -> int:
    """The bytes an entry keeps: its key (the text, a pair per name; not the `Resolved`
    values, which an assembly makes once per name for all its skills) and its pieces
    (text, its origins as runs: `origins.Origins`, and the origins of values)."""
    d_tag, content, values = args
    weight = (tuple_bytes(3) + str_bytes(d_tag) + str_bytes(content)  # type: ignore[arg-type]
              + tuple_bytes(len(values))  # type: ignore[arg-type]
              + len(values) * tuple_bytes(2)  # type: ignore[arg-type]
              + tuple_bytes(3) * 2 + 200)  # the result, its trace's recipe
    # At most one origin of its own per `{{name}}`, whatever the number of the value's lines.
    weight += _ORIGIN_BYTES * content.count("{{")  # type: ignore[union-attr]
    for piece in result.pieces:
        weight += tuple_bytes(4) + str_bytes(piece.text) + origins_bytes(piece.origins)
    for diagnostic in result.diagnostics:
        weight += 200 + str_bytes(diagnostic.message)
    return weight


def plain_trace(d_tag: str, content: str, values: Values) -> tuple[Stage, ...]:
    """The stage trace of `run_plain_skill(d_tag, content, values)`, run again."""
    run = SkillRun(d_tag, parse_skill(d_tag, content), _PlainLookups(dict(values)))
    return run_stages(run, content).trace.stages


def _run_plain(d_tag: str, content: str, values: Values, quiet: bool = False) -> SkillResult:
    run = SkillRun(d_tag, parse_skill(d_tag, content), _PlainLookups(dict(values)),
                   quiet=quiet)
    return run_stages(run, content, later=functools.partial(plain_trace, d_tag, content, values))


#: A pure function of its arguments, so its memo is keyed on everything it reads. The
#: bound holds every skill of a few large workspaces for the few scenarios a preview uses.
@memo(max_bytes=RUN_PLAIN_BYTES, weight=_result_weight)
def run_plain_skill(d_tag: str, content: str, values: Values) -> SkillResult:
    """Run a skill that embeds no skill and has no template, whose names resolve to
    `values` (each name the skill uses, in sorted order, with what it resolves to).

    The result's trace is made again when asked for (`plain_trace`), not kept."""
    return _run_plain(d_tag, content, values)


#: The byte budget of `plain_skill_shape`'s memo: a shape is a few tuples, its key the
#: skill's text (counted, though the workspace holds the same string).
SHAPE_BYTES = 48 << 20


def _shape_weight(args: tuple[Hashable, ...], result: SkillResult) -> int:
    d_tag, content, values = args
    return (str_bytes(d_tag) + str_bytes(content)  # type: ignore[arg-type]
            + tuple_bytes(len(values)) * 2 + 400 * len(result.pieces)  # type: ignore[arg-type]
            + sum(map(str_bytes, result.headings)))


@memo(max_bytes=SHAPE_BYTES, weight=_shape_weight)
def plain_skill_shape(d_tag: str, content: str, values: Values) -> SkillResult:
    """`run_plain_skill`'s result reduced to what decides the messages' roles and the
    author's headings: each piece's role and skill, its text `x` or empty, no origins, no
    problems. The built-in injection check lays out every skill with hostile tool data
    (`expectations.builtin_checks`, eight lines a `{{name}}`): kept this small, an agent's
    shapes stay in their own memo, so a change makes one skill's again, and the hostile
    runs do not push the real ones out of `run_plain_skill`'s."""
    result = _run_plain(d_tag, content, values, quiet=True)  # its problems are dropped
    pieces = tuple(Piece(p.role, p.skill, "x" if p.text else "", ()) for p in result.pieces)
    return SkillResult(pieces, (), result.trace, result.headings)


class _Run:
    """The lookups of one assembly: the workspace, the scenario, the drafts, the resolver."""

    def __init__(self, workspace: Workspace, scenario: Scenario, message: str,
                 overrides: Mapping[str, str], shapes: bool = False):
        self.workspace = workspace
        self.run_plain = plain_skill_shape if shapes else run_plain_skill
        self.scenario = scenario
        self.overrides = overrides
        # What references and values may add: the skills' text is input, and so is each
        # value when it is first resolved (the resolver says how long it is).
        self.allowance = Allowance(sum(len(self.content_of(s)) for s in workspace.skills))
        self.resolver = Resolver(workspace, scenario, message, self.allowance.grow)
        # Each embedded skill is expanded once per assembly (with its d_tag on the stack
        # of the place it is first embedded) and reused: cost is linear in the skills.
        self.expanded: dict[str, tuple[Lines, int]] = {}
        self.embeddings = 0
        self.building: dict[tuple[str, ...], int] = {}  # characters of each expansion
        self.over_budget: set[str] = set()
        self.resolve = self.resolver.resolve  # a lookup (`stages.Lookups`), called per name

    def content_of(self, skill: Skill) -> str:
        return self.overrides.get(skill.d_tag, skill.content)

    def skill_result(self, skill: Skill) -> SkillResult:
        """Run one selected skill; a plain one through the memoised `run_plain_skill` (or
        `plain_skill_shape`, when only the shape of the assembly is asked for)."""
        content = self.content_of(skill)
        parsed = parse_skill(skill.d_tag, content)
        if parsed.template_text is None and not self.embeds(parsed.names):
            resolver = self.resolver
            found = list(map(self.resolve, parsed.names))
            cost = sum(uses * len(value.text)
                       for uses, value in zip(parsed.uses, found, strict=True) if value)
            if not self.allowance.spend(cost):  # not every copy fits: value by value
                found = [self.afforded(skill.d_tag, name, value, uses)
                         for name, value, uses in zip(parsed.names, found, parsed.uses,
                                                      strict=True)]
            values = tuple((name, value or Unresolved(tuple(resolver.suggestions(name))))
                           for name, value in zip(parsed.names, found, strict=True))
            return self.run_plain(skill.d_tag, content, values)
        return run_stages(SkillRun(skill.d_tag, parsed, self), content)

    def afforded(self, d_tag: str, name: str, resolved: Resolved | None,
                 uses: int) -> Resolved | None:
        """What `name` (`resolved`) gives skill `d_tag`, which writes it `uses` times: its
        value, if the budget has room for every copy (a plain skill is memoised on its
        values, so the decision is made before it runs), else nothing and a
        `value-budget` error."""
        if resolved is None or self.allowance.spend(uses * len(resolved.text)):
            return resolved
        problem = Diagnostic("error", "value-budget",
                             over_budget_message(name, d_tag, self.allowance.limit))
        return Resolved("", resolved.kind, (*resolved.problems, problem))

    # -- the lookups the stages use (see `stages.Lookups`)

    def embeds(self, names: Sequence[str]) -> bool:
        return not self.workspace.skills_by_tag.keys().isdisjoint(names)

    def embed(self, skill: SkillRun, name: str, at: Origin,
              stack: tuple[str, ...]) -> Lines | None:
        embedded = self.workspace.skills_by_tag.get(name)
        if embedded is None:
            return None
        if name in stack:
            chain = " → ".join((*stack[stack.index(name):], name))
            skill.diag("error", "reference-cycle",
                       f"reference cycle {chain}: `{{{{{name}}}}}` left empty", at, name=name)
            return (), ()
        if len(stack) > MAX_REFERENCE_DEPTH:
            skill.diag("error", "reference-depth",
                       f"`{{{{{name}}}}}` is nested more than {MAX_REFERENCE_DEPTH} references "
                       f"deep; left empty", at, name=name)
            return (), ()
        if not embedded.enabled:
            skill.diag("warning", "reference-disabled",
                       f"`{{{{{name}}}}}` refers to a disabled skill; left empty", at, name=name)
            return (), ()
        parsed: ParsedSkill = parse_skill(name, self.content_of(embedded))
        if parsed.template_text is not None:
            skill.diag("warning", "template-in-embed",
                       f"the `---template---` part of `{name}` is ignored where it is embedded",
                       at, name=name)
        found = self.expanded.get(name)
        if found is None:
            block = parsed.block()
            if self.embeds(parsed.names):
                block = expand_block(skill, block, (*stack, name))
            text, origins = block.trimmed()
            found = self.expanded[name] = (
                (text.split("\n") if origins else (), origins), len(text) + 1 if origins else 0)
        lines, chars = found
        # Into the skill being run (output), or into an embedded skill's expansion
        # (work, and that expansion may not pass the budget on its own either).
        inner = len(stack) > 1
        size = self.building.get(stack, 0) + chars if inner else 0
        if (self.embeddings >= MAX_EMBEDDINGS or size > self.allowance.limit
                or not self.allowance.spend(chars, inner=inner)):
            if skill.d_tag not in self.over_budget:
                self.over_budget.add(skill.d_tag)
                skill.diag("error", "reference-budget",
                           f"`{skill.d_tag}` embeds more than the budget allows "
                           f"({self.allowance.limit:,} characters added by references and "
                           f"values, {MAX_EMBEDDINGS:,} embeddings); `{{{{{name}}}}}` and the "
                           f"references past it are left empty", at, name=name)
            return (), ()
        if inner:
            self.building[stack] = size
        self.embeddings += 1
        return lines

    def suggestions(self, name: str) -> Sequence[str]:
        return self.resolver.suggestions(name)

    def template(self) -> TemplateInputs:
        agent = self.workspace.agent
        return TemplateInputs(
            provider=self.scenario.provider, history=self.scenario.history,
            sequence=agent.message_mode == "sequence",
            options=FormatOptions(agent.max_array_items, None, agent.history_labels),
            call=self.resolver.call)


def pick_scenario(workspace: Workspace, scenario: str | Scenario | None,
                  diagnostics: list[Diagnostic]) -> Scenario:
    """The scenario `assemble` uses for `scenario` (a name, a `Scenario`, or None for the
    first); an unknown name is an `unknown-scenario` error in `diagnostics`."""
    if isinstance(scenario, Scenario):
        return scenario
    if scenario is None:
        return workspace.scenarios[0] if workspace.scenarios else Scenario(name="")
    found = workspace.scenarios_by_name.get(scenario)
    if found is None:
        known = ", ".join(f"`{s}`" for s in workspace.scenarios_by_name) or "none"
        diagnostics.append(Diagnostic("error", "unknown-scenario",
                                      f"there is no scenario `{scenario}` (known: {known})"))
        return Scenario(name=scenario)
    return found


class Laid(NamedTuple):
    """An assembly laid out as messages, before its document is made (`lay_out`)."""

    scenario: Scenario
    trigger: str
    messages: list[Message]
    pieces: list[Piece]
    #: The author's headings, in order (`stages.author_headings`, each skill's memoised).
    headings: list[str]
    traces: list[SkillTrace]
    #: Every problem found, not yet limited for the list (`budgets.limit_problems`).
    diagnostics: list[Diagnostic]


def lay_out(
    workspace: Workspace,
    scenario: str | Scenario | None = None,
    *,
    trigger: str | None = None,
    message: str | None = None,
    overrides: Mapping[str, str] | None = None,
    shapes: bool = False,
) -> Laid:
    """The skills `assemble` selects, run through the stages and laid out as messages,
    without the document, its provenance or the log entry: what the built-in injection
    check compares (`expectations.builtin_checks`) costs this much and no more. The
    arguments are `assemble`'s; with `shapes`, each plain skill's pieces are its shape
    (`plain_skill_shape`): the messages' roles and the headings are right, their text
    is not."""
    diagnostics: list[Diagnostic] = []

    def note(severity: str, code: str, text: str, origin: Origin | None = None) -> None:
        diagnostics.append(Diagnostic(severity, code, text, origin.skill if origin else None,
                                      origin.line if origin else None))

    chosen = pick_scenario(workspace, scenario, diagnostics)
    trigger = chosen.trigger if trigger is None else trigger
    message = chosen.message if message is None else message
    run = _Run(workspace, chosen, message, overrides or {}, shapes)

    selected = [s for s in workspace.skills if selects(s, trigger)]
    if not selected:
        note("info", "no-skills", f"no enabled layer-1 skill has the trigger `{trigger}`")
    pieces: list[Piece] = []
    traces: list[SkillTrace] = []
    headings: list[str] = []
    for skill in selected:
        result = run.skill_result(skill)
        pieces += result.pieces
        diagnostics += result.diagnostics
        traces.append(result.trace)
        headings += result.headings

    layout = MESSAGE_MODES[workspace.agent.message_mode]
    messages: list[Message] = layout(pieces, workspace.agent.title_text, note)
    if message.strip() and not any(m.role == "user" for m in messages):
        note("info", "user-fallback",
             "no skill wrote user text, so the incoming message is the user message")
        messages.append(user_fallback(message))
    return Laid(chosen, trigger, messages, pieces, headings, traces, diagnostics)


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
    laid = lay_out(workspace, scenario, trigger=trigger, message=message, overrides=overrides)
    document, origins = document_of(laid.messages)
    traces = laid.traces
    context = Context(
        document=document,
        messages=[{"role": msg.role, "content": msg.content} for msg in laid.messages],
        diagnostics=limit_problems(laid.diagnostics),
        origins=origins,
        log_entry="",
        scenario=laid.scenario.name or None,
        trigger=laid.trigger,
        pieces=tuple(laid.pieces),
        author_headings=tuple(laid.headings),
        # Each trace copied, so the stages made for the Pipeline tab stay out of the memo.
        _trace_builder=lambda: [trace.fresh() for trace in traces],
    )
    context.log_entry = format_log_entry(document, agent=workspace.agent.name,
                                         scenario=context.scenario, trigger=laid.trigger,
                                         counts=context.counts(), messages=context.messages)
    return context
