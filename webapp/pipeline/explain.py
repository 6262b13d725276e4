"""The pipeline stage by stage, read back from one assembly: what each stage does, what
came in and what went out, for someone watching an agent's context being assembled.

    skills selected by the trigger -> adoption order -> each skill through `STAGES`
    -> the runtime title -> roles split into messages -> parts joined with `---`
    -> the provider request -> the context-log entry

`explain` reads what `assemble` returned (the selected skills' stage traces, the pieces,
the document and its provenance, the messages, the log entry): nothing is assembled a
second time. The steps are one table (`STEPS`); the skills' stages come from the
pipeline's own table (`stages.STAGES`), each read by `explain_skills.READERS`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .assemble import _pick_scenario, assemble, selects
from .blocks import parse_skill
from .explain_skills import (
    EMPTY,
    LISTED,
    READERS,
    SkillReading,
    SkillStep,
    TracedText,
    body_text,
    joined,
    listed,
)
from .explain_words import STEP_WORDS
from .origins import Origins, OriginsBuilder
from .placeholders import find_placeholders
from .result import Context, Origin
from .stages import STAGES
from .untrusted import dumps_json
from .variables import Resolver
from .workspace import Scenario, Skill, Workspace


@dataclass(frozen=True, slots=True)
class Selection:
    """A skill of the agent (or of its trash) and why the trigger selects it or not."""

    d_tag: str
    name: str
    position: int | None  # 1-based in the skill list (the adoption order); None: in the trash
    selected: bool
    reason: str


@dataclass(frozen=True, slots=True)
class MessageShape:
    """A message as the layout made it: its role, lines, and where its lines came from
    (`title`, skills' d_tags, `incoming message`), in order."""

    number: int
    role: str
    lines: int
    sources: tuple[str, ...]
    content: str


@dataclass(frozen=True, slots=True)
class Step:
    """One stage of the whole pipeline: `key` (its address), its name, one sentence on
    what it does, the anchor of its rule in docs/CONTEXT.md, what came in and went out,
    and in words what it did or why it changed nothing. A skill stage holds each
    selected skill's part (`skills`); the others the data they show."""

    key: str
    name: str
    does: str
    rule: str
    before: TracedText
    after: TracedText
    note: str
    skills: tuple[SkillStep, ...] = ()
    selection: tuple[Selection, ...] = ()
    messages: tuple[MessageShape, ...] = ()

    @property
    def changed(self) -> bool:
        if self.skills:
            return any(skill.changed for skill in self.skills)
        return self.before.text != self.after.text or self.before.lines != self.after.lines


@dataclass(frozen=True, slots=True)
class Explanation:
    """Every step of one assembly, in order, and the assembly itself."""

    agent: str
    scenario: str | None
    trigger: str
    mode: str
    steps: tuple[Step, ...]
    context: Context = field(repr=False)

    def index(self, key: str) -> int | None:
        """Where the step `key` is in `steps` (None: there is no such step)."""
        return next((i for i, step in enumerate(self.steps) if step.key == key), None)


@dataclass
class _Reading:
    """What the steps read: the workspace, the assembly and its inputs."""

    workspace: Workspace
    context: Context
    scenario: Scenario
    resolver: Resolver
    contents: Mapping[str, str]  # each skill's text as assembled (drafts in place)
    trashed: Sequence[Skill]
    selected: list[Skill]
    #: Each selected skill's text after each stage: "body" (its own text, the template
    #: part set aside), then one per stage of `STAGES`.
    texts: dict[str, list[TracedText]]

    @functools.cached_property
    def document(self) -> TracedText:
        return TracedText(self.context.document.removesuffix("\n"), self.context.origins)

    @functools.cached_property
    def unjoined(self) -> TracedText:
        """The document without what the layout added: the title and the blank lines and
        `---` rules that join parts and separate messages."""
        texts = self.document.texts()
        kept, origins = [], OriginsBuilder()
        for at, count, kind, _ in self.document.spans():
            if kind not in ("title", "separator"):
                kept += texts[at:at + count]
                origins.extend(self.document.origins[at:at + count])
        return TracedText("\n".join(kept), origins.build())


def _skills_text(skills: Sequence[Skill], contents: Mapping[str, str]) -> TracedText:
    texts = []
    for skill in skills:
        text = contents.get(skill.d_tag, skill.content).removesuffix("\n")
        count = text.count("\n") + 1
        texts.append(TracedText(text, Origins(((skill.d_tag, 1, count),), count)))
    return joined(texts)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# -- the steps before and after the skills' own stages


def _why_not(skill: Skill, trigger: str, reading: _Reading) -> str:
    if selects(skill, trigger):
        return f"selected: enabled, layer 1, trigger `{trigger}`"
    if not skill.enabled:
        return "not selected: disabled"
    if skill.layer != 1:
        hosts = [s.d_tag for s in reading.selected
                 if any(ph.name == skill.d_tag
                        for ph in find_placeholders(reading.contents.get(s.d_tag, s.content)))]
        where = f" (embedded by {', '.join(hosts)})" if hosts else ""
        return f"not selected: layer {skill.layer}, used only where a skill embeds it{where}"
    triggers = ", ".join(f"`{t}`" for t in skill.triggers)
    return (f"not selected: other trigger ({triggers})" if triggers
            else "not selected: no trigger")


def trigger_step(r: _Reading) -> Step:
    trigger = r.context.trigger
    rows = [Selection(s.d_tag, s.name, i, selects(s, trigger), _why_not(s, trigger, r))
            for i, s in enumerate(r.workspace.skills, 1)]
    for skill in r.trashed:
        would = ", its trigger would select it" if selects(skill, trigger) else ""
        rows.append(Selection(skill.d_tag, skill.name, None, False,
                              f"not selected: in the trash{would}"))
    chosen = [s.d_tag for s in r.selected]
    note = (f"Trigger `{trigger}` selects {len(chosen)} of {_plural(len(rows), 'skill')}: "
            f"{listed(chosen)}." if chosen else
            f"Trigger `{trigger}` selects no skill, so the document is the title alone.")
    return Step("trigger", "", "", "", _skills_text([*r.workspace.skills, *r.trashed],
                                                    r.contents),
                _skills_text(r.selected, r.contents), note, selection=tuple(rows))


def order_step(r: _Reading) -> Step:
    position = {s.d_tag: i for i, s in enumerate(r.workspace.skills, 1)}
    rows = tuple(Selection(s.d_tag, s.name, position[s.d_tag], True,
                           f"number {position[s.d_tag]} of the skill list")
                 for s in r.selected)
    if len(rows) > 1:
        note = (f"The skills run in the order of the agent's skill list, its adoption list: "
                f"{listed([s.d_tag for s in rows])}. Selecting keeps that order, so "
                f"nothing moves here; it is the order their parts take in each message.")
    else:
        note = f"{'One skill' if rows else 'No skill'} selected: there is nothing to order."
    text = _skills_text(r.selected, r.contents)
    return Step("order", "", "", "", text, text, note, selection=rows)


def skill_step(name: str) -> Callable[[_Reading], Step]:
    """The step of stage `name` of `STAGES`: each selected skill's part, read by its reader."""
    index = [stage for stage, _ in STAGES].index(name) + 1
    reader = READERS[name]

    def step(r: _Reading) -> Step:
        parts = []
        for skill in r.selected:
            texts = r.texts[skill.d_tag]
            content = r.contents.get(skill.d_tag, skill.content)
            parts.append(reader(SkillReading(
                skill.d_tag, parse_skill(skill.d_tag, content), texts[index - 1],
                texts[index], r.workspace, r.resolver, r.context.diagnostics)))
        changed = [p.d_tag for p in parts if p.changed]
        if not parts:
            note = "No skill is selected, so no skill runs through this stage."
        elif changed:
            note = f"Changed {listed(changed)}; each skill's part says how."
        else:
            note = "Nothing changed in any skill; each skill's part says why."
        return Step(name.split()[0], "", "", "", joined([p.before for p in parts]),
                    joined([p.after for p in parts]), note, skills=tuple(parts))
    return step


_TITLE = Origin("title")
_ROLE = Origin("role")


def title_step(r: _Reading) -> Step:
    agent = r.workspace.agent
    filled = (f"`{{name}}` is the agent's name, {agent.name}. " if "{name}" in agent.title
              else "")
    note = (f"The title template `{agent.title}` gives “{agent.title_text}”. {filled}It "
            f"opens the system message; every skill's headings were bumped below it.")
    return Step("title", "", "", "", TracedText(agent.title, (_TITLE,)),
                TracedText(f"# {agent.title_text}", (_TITLE,)), note)


def _parts(r: _Reading) -> TracedText:
    """The selected skills' parts in order, each under its role's marker line."""
    texts, origins = [], OriginsBuilder()
    for piece in r.context.pieces:
        texts.append(f"{piece.role}:")
        origins.append(_ROLE)
        if piece.origins:
            texts.append(piece.text)
            origins.extend(piece.origins)
    return TracedText("\n".join(texts), origins.build())


def _shapes(r: _Reading) -> tuple[MessageShape, ...]:
    """Each message and where its lines came from, read from the document's runs."""
    spans = list(r.document.spans())
    starts = [index for index, (_, _, kind, _) in enumerate(spans) if kind == "role"]
    shapes = []
    for number, (start, message) in enumerate(zip(starts, r.context.messages, strict=True), 1):
        end = starts[number] if number < len(starts) else len(spans)
        sources: dict[str, None] = {}
        for _, _, kind, skill in spans[start + 1:end]:
            label = {"title": "title", "message": "incoming message",
                     "history": "DM history"}.get(kind, skill)
            if kind != "separator" and label:
                sources[label] = None
        shapes.append(MessageShape(number, message["role"],
                                   message["content"].count("\n") + 1, tuple(sources),
                                   message["content"]))
    return tuple(shapes)


def _joining(r: _Reading) -> list[str]:
    """`chat's system part joins personality's`: each part that goes into a message an
    earlier part of its role began (grouped mode)."""
    first: dict[str, str] = {}
    joining = []
    for piece in r.context.pieces:
        if not piece.text:
            continue
        if piece.role in first:
            joining.append(f"{piece.skill}'s {piece.role} part joins {first[piece.role]}'s")
        else:
            first[piece.role] = piece.skill or "the incoming message"
    return joining


def messages_step(r: _Reading) -> Step:
    shapes = _shapes(r)
    roles = "; ".join(f"{m.role}: {listed(m.sources)}" for m in shapes[:LISTED])
    if len(shapes) > LISTED:
        roles += f"; and {len(shapes) - LISTED} more"
    if r.workspace.agent.message_mode == "grouped":
        note = (f"Grouped mode: one message per role, system first, then the other roles in "
                f"the order they first appear; same-role parts go into one message. "
                f"{_plural(len(shapes), 'message')} ({roles}).")
        joining = _joining(r)
        if joining:
            note += (f" Same-role parts concatenated: {listed(joining)} (each such part's "
                     f"marker line goes).")
    else:
        note = (f"Sequence mode: every part is a message of its own, in order, so the parts "
                f"keep their order and their markers. {_plural(len(shapes), 'message')} "
                f"({roles}).")
    note += " Blank lines around each part are trimmed, and an empty part is dropped."
    if any(d.code == "user-fallback" for d in r.context.diagnostics):
        note += " No skill wrote user text, so the incoming message is the user message."
    return Step("messages", "", "", "", _parts(r), r.unjoined, note, messages=shapes)


def joined_step(r: _Reading) -> Step:
    document = r.document
    texts = document.texts()
    rules = sum(1 for at, count, kind, _ in document.spans() if kind == "separator"
                for line in texts[at:at + count] if line == "---")
    if r.workspace.agent.message_mode == "grouped":
        note = (f"Within each message, parts of different skills are joined by a blank line, "
                f"`---` and a blank line ({_plural(rules, 'rule')} here), parts of one skill "
                f"by a blank line; the title opens the system message.")
    else:
        note = ("Sequence mode: each part is a message of its own, so nothing is joined and no "
                "`---` is added; the title heads the first message when it is a system "
                "message, else it is a system message of its own.")
    note += " In the document, each message is under its `role:` line, a blank line between."
    return Step("joined", "", "", "", r.unjoined, document, note)


def request_step(r: _Reading) -> Step:
    messages = r.context.messages
    body = dumps_json(messages, indent=2)
    verb = "is" if len(messages) == 1 else "are"
    note = (f"The {_plural(len(messages), 'message')} {verb} sent as the provider's messages "
            f"array: the markdown is the content within the messages, not the transport "
            f"format. The provider's request body wraps them with the model's name.")
    provider = r.scenario.provider
    if provider:
        note += f" This scenario names the provider {provider}."
    return Step("request", "", "", "", r.document,
                TracedText(body, (Origin("request"),) * (body.count("\n") + 1)), note)


def log_step(r: _Reading) -> Step:
    entry = r.context.log_entry.removesuffix("\n")
    note = ("One comment line (the time, agent, scenario, trigger, problem counts and each "
            "message's role and lines), then the document verbatim: the log reads as the "
            "documents the agent saw, and parses back to exactly these messages.")
    origins = OriginsBuilder()
    origins.append(Origin("log"))
    origins.extend(r.context.origins)
    return Step("log", "", "", "", r.document, TracedText(entry, origins.build()), note)


#: The steps, in order: (key, what makes the step). The skills' stages are `STAGES`'.
STEPS: tuple[tuple[str, Callable[[_Reading], Step]], ...] = (
    ("trigger", trigger_step),
    ("order", order_step),
    *((name.split()[0], skill_step(name)) for name, _ in STAGES),
    ("title", title_step),
    ("messages", messages_step),
    ("joined", joined_step),
    ("request", request_step),
    ("log", log_step),
)


def _stage_texts(context: Context) -> dict[str, list[TracedText]]:
    texts = {}
    for trace in context.trace:
        parsed = parse_skill(trace.d_tag, trace.stages[0].text)  # its text as assembled
        texts[trace.d_tag] = [body_text(trace.d_tag, parsed), *(
            TracedText(stage.text, stage.origins) if stage.origins else EMPTY
            for stage in trace.stages[1:])]
    return texts


def explain(workspace: Workspace, scenario: str | Scenario | None = None, *,
            trigger: str | None = None, message: str | None = None,
            overrides: Mapping[str, str] | None = None, trashed: Sequence[Skill] = (),
            assembled: Context | None = None) -> Explanation:
    """The pipeline stage by stage for one assembly, as `Step`s in order.

    Args:
        workspace, scenario, trigger, message, overrides: as `assemble` takes them.
        trashed: the agent's skills in the trash, listed as not selected.
        assembled: what `assemble` returned for exactly these arguments, when the caller
            has it already (else `explain` assembles).

    Returns:
        An `Explanation`. Never raises on bad input, as `assemble` does not.
    """
    overrides = overrides or {}
    context = assembled or assemble(workspace, scenario, trigger=trigger, message=message,
                                    overrides=overrides)
    chosen = _pick_scenario(workspace, scenario, [])
    resolver = Resolver(workspace, chosen, chosen.message if message is None else message)
    contents = {s.d_tag: overrides.get(s.d_tag, s.content) for s in workspace.skills}
    selected = [s for s in workspace.skills if selects(s, context.trigger)]
    reading = _Reading(workspace, context, chosen, resolver, contents, trashed, selected,
                       _stage_texts(context))
    steps = []
    for key, make in STEPS:
        name, does, rule = STEP_WORDS[key]
        steps.append(dataclasses.replace(make(reading), key=key, name=name, does=does,
                                         rule=rule))
    return Explanation(workspace.agent.name, context.scenario, context.trigger,
                       workspace.agent.message_mode, tuple(steps), context)

