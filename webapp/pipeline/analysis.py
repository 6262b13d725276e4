"""Questions about a workspace that the pages ask besides "what does it assemble to".

Which skills use a name, which `{{names}}` resolve to nothing, what one binding gives,
how to rename a `{{reference}}`, and where to preview a skill so that it is in the
assembly (`preview_target`): each answered with the parsers assembly itself
uses, so "used by" agrees with what assembly resolves. A skill only shows up in an
assembly when a trigger selects it, so usage is read from the skills' text, not learned
from assembling.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .assemble import assemble, selects
from .blocks import parse_skill
from .placeholders import find_placeholders
from .result import Diagnostic
from .sections import parse_template, split_template
from .variables import Resolver
from .workspace import BUILTIN_ALIASES, BUILTIN_TOOLS, Scenario, Skill, Variable, Workspace

#: Names a binding's `tool` may have without a mock tool of that name.
BUILTIN_TOOL_NAMES = (*BUILTIN_TOOLS, *BUILTIN_ALIASES)


@dataclass(frozen=True, slots=True)
class Use:
    """One place a name is used: `kind` is `skill` or `variable`, `how` says in which way."""

    kind: str
    name: str
    how: str


@dataclass(frozen=True, slots=True)
class SkillNames:
    """The `{{names}}` a skill writes (body and template `content`) and the tools its
    template sections call."""

    names: frozenset[str]
    tools: frozenset[str]


def skill_names(skill: Skill) -> SkillNames:
    """What `skill` refers to, as assembly reads it."""
    parsed = parse_skill(skill.d_tag, skill.content)
    names, tools = set(parsed.names), set()
    if parsed.template_text is not None:
        for section in parse_template(parsed.template_text, parsed.template_line).sections:
            if section.tool:
                tools.add(section.tool)
            for text in (section.content, section.provider_content):
                if text:
                    names |= set(parse_skill(skill.d_tag, text).names)
            if section.role == "expand" and not section.tool:
                tools.add("dm_history")
    return SkillNames(frozenset(names), frozenset(tools))


def canonical_tool(name: str) -> str:
    """The built-in tool an alias stands for; any other name is itself."""
    return BUILTIN_ALIASES.get(name, name)


def tool_uses(workspace: Workspace, tool: str) -> list[Use]:
    """The bindings that call `tool` and the skills that use it, directly or through one."""
    uses = [Use("variable", v.name, "binds it") for v in workspace.variables
            if canonical_tool(v.tool) == canonical_tool(tool)]
    bound = {use.name for use in uses}
    # `{{tool}}` reaches the tool only when no skill or binding has that name.
    direct = tool not in workspace.skills_by_tag and tool not in workspace.variables_by_name
    for skill in workspace.skills:
        found = skill_names(skill)
        hows = []
        if direct and tool in found.names:
            hows.append(f"{{{{{tool}}}}}")
        if tool in found.tools:
            hows.append("a template section")
        hows += [f"through {{{{{name}}}}}" for name in sorted(bound & found.names)
                 if name not in workspace.skills_by_tag]
        if hows:
            uses.append(Use("skill", skill.d_tag, ", ".join(hows)))
    return uses


def variable_uses(workspace: Workspace, name: str) -> list[Use]:
    """The skills that write `{{name}}` (a skill of that `d_tag` would win instead)."""
    if name in workspace.skills_by_tag:
        return []
    return [Use("skill", skill.d_tag, f"{{{{{name}}}}}") for skill in workspace.skills
            if name in skill_names(skill).names]


@dataclass(frozen=True, slots=True)
class Unknown:
    """An `unknown-variable` diagnostic: where, the message with its suggestions, and for
    which scenarios it was found."""

    skill: str | None
    line: int | None
    message: str
    scenarios: tuple[str, ...]


def unknown_variables(workspace: Workspace) -> list[Unknown]:
    """The `unknown-variable` diagnostics of assembling every scenario, each once."""
    found: dict[tuple[Any, ...], list[str]] = {}
    scenarios = workspace.scenarios or (None,)
    for scenario in scenarios:
        context = assemble(workspace, scenario)
        for d in context.diagnostics:
            if d.code == "unknown-variable":
                names = found.setdefault((d.skill, d.line, d.message), [])
                label = scenario.name if scenario else "(no scenario)"
                if label not in names:
                    names.append(label)
    return [Unknown(skill, line, message, tuple(names))
            for (skill, line, message), names in found.items()]


def call_binding(workspace: Workspace, scenario: Scenario, binding: Variable
                 ) -> tuple[str, tuple[Diagnostic, ...]]:
    """What `binding` resolves to for `scenario`: its text and the problems met (which
    carry no place: the binding is not in a skill)."""
    return Resolver(workspace, scenario, scenario.message).call(binding)


# -- references and renaming


def refers_to(content: str, name: str) -> bool:
    """Whether `content` writes `{{name}}` (or `{{ name }}`; not the escaped `\\{{name}}`)."""
    return any(ph.name == name for ph in find_placeholders(content))


def references_to(skills: Iterable[Skill], d_tag: str) -> list[str]:
    """The `d_tag`s of the other skills whose text has `{{d_tag}}`, in order."""
    return [s.d_tag for s in skills if s.d_tag != d_tag and refers_to(s.content, d_tag)]


def rename_placeholders(content: str, old: str, new: str) -> str:
    """`content` with every `{{old}}` written `{{new}}`, the spacing inside the braces kept."""
    parts, pos = [], 0
    for ph in find_placeholders(content):
        if ph.name == old:
            parts.append(content[pos:ph.start])
            parts.append(content[ph.start:ph.end].replace(old, new))
            pos = ph.end
    if not parts:
        return content
    parts.append(content[pos:])
    return "".join(parts)


def _template_tool(name: str) -> re.Pattern[str]:
    """A template section's `tool: name` line (optionally quoted)."""
    return re.compile(r"(?m)^([ \t]*(?:-[ \t]+)?tool:[ \t]*)([\"']?)" + re.escape(name)
                      + r"\2([ \t]*(?:#.*)?)$")


def rename_template_tool(content: str, old: str, new: str) -> str:
    """`content` with its template sections' `tool: old` lines written `tool: new`."""
    lines = content.split("\n")
    marker = split_template(lines)
    if marker < 0:
        return content
    head, tail = "\n".join(lines[:marker + 1]), "\n".join(lines[marker + 1:])
    tail = _template_tool(old).sub(lambda m: f"{m[1]}{m[2]}{new}{m[2]}{m[3]}", tail)
    return f"{head}\n{tail}"


def renamed_uses(workspace: Workspace, old: str, new: str, *, tool: bool) -> dict[str, str]:
    """The skills of `workspace` that use the tool or binding `old`, with their text
    rewritten to use `new`: `d_tag` -> new content.

    `{{old}}` is rewritten only where it meant what is renamed: a skill named `old` wins
    over a binding or tool, and a binding wins over a tool. For a tool, the template
    sections that call it are rewritten too.
    """
    shadowed = old in workspace.skills_by_tag or (tool and old in workspace.variables_by_name)
    changed = {}
    for skill in workspace.skills:
        text = skill.content if shadowed else rename_placeholders(skill.content, old, new)
        if tool:
            text = rename_template_tool(text, old, new)
        if text != skill.content:
            changed[skill.d_tag] = text
    return changed



# -- where the editor previews a skill


@dataclass(frozen=True, slots=True)
class PreviewTarget:
    """Where to assemble the preview of skill `d_tag` so that the skill is in it.

    `scenario` and `trigger` are what to give `assemble` (`trigger` None: the scenario's
    own). `host` is the skill the trigger selects that embeds `d_tag`, when the trigger
    does not select `d_tag` itself. `alone` is true when nothing selects or embeds the
    skill: assemble `workspace_for(workspace)`, where it is the only skill `trigger`
    selects. `note` says why the target is not what was asked for (None when it is).
    """

    d_tag: str
    scenario: str | None
    trigger: str | None
    host: str | None = None
    alone: bool = False
    note: str | None = None

    def workspace_for(self, workspace: Workspace) -> Workspace:
        """The workspace to assemble: `workspace`, or for a skill previewed alone a copy
        in which it is an enabled layer-1 skill of `trigger` and the skills `trigger`
        selects have no trigger (so nothing else is selected; they can still be embedded)."""
        trigger = self.trigger
        if not self.alone or trigger is None:
            return workspace
        skills = tuple(
            dataclasses.replace(s, layer=1, enabled=True, triggers=(trigger,))
            if s.d_tag == self.d_tag else
            dataclasses.replace(s, triggers=()) if selects(s, trigger) else s
            for s in workspace.skills)
        return dataclasses.replace(workspace, skills=skills)


def preview_target(workspace: Workspace, d_tag: str, scenario: str | None = None,
                   trigger: str | None = None) -> PreviewTarget:
    """Where to preview skill `d_tag` for the scenario and trigger the author picked.

    A trigger uses the skill when it selects it, or selects a skill that embeds it
    (directly or through other enabled skills; the first such skill in adoption order is
    the host). The first of these that uses the skill is the target:

    1. the scenario asked for, under `trigger` if given, else under its own trigger;
    2. the first scenario (in order) whose own trigger does;
    3. the scenario asked for under the first trigger that does: the skill's own
       triggers, then every trigger of the workspace (`Workspace.triggers`).

    If none does, the skill is previewed alone (`PreviewTarget.alone`) under its first
    trigger, else the trigger asked for. The same arguments always give the same target.

    Args:
        workspace: the skills as previewed (a draft in place of its saved skill).
        d_tag: the skill being edited.
        scenario: the scenario asked for; None means the first (or none, if there is none).
        trigger: the trigger asked for instead of the scenario's; None means its own.

    Returns:
        A `PreviewTarget`; its `note` says why it differs from what was asked for.
    """
    skill = workspace.skills_by_tag.get(d_tag)
    asked = workspace.scenarios_by_name.get(scenario) if scenario is not None else (
        workspace.scenarios[0] if workspace.scenarios else None)
    name = asked.name if asked is not None else scenario
    # What `assemble` does with an unknown scenario, or none: the defaults of `Scenario`.
    wanted = trigger if trigger is not None else (asked or Scenario(name="")).trigger
    uses = _Uses(workspace, d_tag)
    via = uses.via(wanted)
    if skill is None or via:
        return PreviewTarget(d_tag, name, trigger, _host(via, d_tag))
    what = f"Trigger {wanted}" if trigger is not None or name is None else f"Scenario “{name}”"
    # The scenario asked for keeps its place if only the trigger asked for is the matter.
    others = ((asked,) if trigger is not None and asked else ()) + workspace.scenarios
    for other in others:
        via = uses.via(other.trigger)
        if via:
            return PreviewTarget(d_tag, other.name, None, _host(via, d_tag), note=(
                f"{what} does not use {d_tag}: showing “{other.name}”, whose trigger "
                f"{other.trigger} does."))
    if trigger is not None:
        why = f"Trigger {trigger} does not use {d_tag}, nor does any scenario's trigger"
    elif workspace.scenarios:
        why = f"No scenario's trigger uses {d_tag}"
    else:
        why = f"There is no scenario, and trigger {wanted} does not use {d_tag}"
    shown = f"“{name}” under trigger" if name is not None else "trigger"
    for candidate in (*skill.triggers, *workspace.triggers):
        via = uses.via(candidate)
        if via:
            return PreviewTarget(d_tag, name, candidate, _host(via, d_tag),
                                 note=f"{why}: showing {shown} {candidate}, which does.")
    alone = skill.triggers[0] if skill.triggers else wanted
    return PreviewTarget(d_tag, name, alone, alone=True, note=(
        f"{_unused_because(skill)}: previewed on its own, as the only skill of "
        f"trigger {alone}."))


def _host(via: str | None, d_tag: str) -> str | None:
    return via if via != d_tag else None


def _unused_because(skill: Skill) -> str:
    if not skill.enabled:
        return f"{skill.d_tag} is disabled"
    if skill.layer != 1:
        return f"{skill.d_tag} is layer {skill.layer} and no skill a trigger selects embeds it"
    return f"{skill.d_tag} has no trigger and no skill a trigger selects embeds it"


class _Uses:
    """Through which skill each trigger uses one skill, worked out once per trigger.

    Embedding follows what assembly expands: a selected skill's `{{names}}` (body and
    template sections), then the bodies of the enabled skills it reaches (an embedded
    skill's template part is ignored, a disabled one is left empty).
    """

    def __init__(self, workspace: Workspace, d_tag: str):
        self.workspace = workspace
        self.d_tag = d_tag
        self.by_trigger: dict[str, str | None] = {}
        self.embeds: dict[str, bool] = {}  # by host

    def via(self, trigger: str) -> str | None:
        """`d_tag` if `trigger` selects it, else the first selected skill that embeds it,
        else None."""
        if trigger not in self.by_trigger:
            selected = [s for s in self.workspace.skills if selects(s, trigger)]
            found = next((s.d_tag for s in selected if s.d_tag == self.d_tag), None)
            target = self.workspace.skills_by_tag.get(self.d_tag)
            if found is None and target is not None and target.enabled:
                found = next((s.d_tag for s in selected if self._embeds(s)), None)
            self.by_trigger[trigger] = found
        return self.by_trigger[trigger]

    def _embeds(self, host: Skill) -> bool:
        if host.d_tag not in self.embeds:
            skills = self.workspace.skills_by_tag
            seen: set[str] = set()
            todo = [name for name in skill_names(host).names if name in skills]
            while todo and self.d_tag not in seen:
                name = todo.pop()
                if name in seen or not skills[name].enabled:
                    continue
                seen.add(name)
                todo += [n for n in parse_skill(name, skills[name].content).names if n in skills]
            self.embeds[host.d_tag] = self.d_tag in seen
        return self.embeds[host.d_tag]
