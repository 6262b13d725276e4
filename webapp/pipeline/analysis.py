"""Questions about a workspace that the pages ask besides "what does it assemble to".

Which skills use a name, which `{{names}}` resolve to nothing, what one binding gives,
and how to rename a `{{reference}}`: each answered with the parsers assembly itself
uses, so "used by" agrees with what assembly resolves. A skill only shows up in an
assembly when a trigger selects it, so usage is read from the skills' text, not learned
from assembling.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .assemble import assemble
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

