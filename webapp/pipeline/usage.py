"""Finding things in a workspace: everywhere a name is used and what it is
(`where_used`), the names some skills use that are nothing (`unknown_names`), and which
skills a filter matches (`find_skills`).

Usage is read from the skills' text with the parsers assembly uses (`parse_skill`,
`parse_template`, `find_placeholders`), as `analysis` reads it for "used by", so a skill
no trigger selects is found too.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from .analysis import canonical_tool, skill_names, variable_uses
from .blocks import parse_skill
from .placeholders import find_placeholders
from .sections import Template, parse_template
from .variables import close_names
from .workspace import BUILTIN_ALIASES, BUILTIN_TOOLS, Skill, Workspace

#: How many of a skill's lines `where_used` lists (it counts them all), and how much of
#: each line it keeps: a generated skill may write a name on every one of 20,000 lines.
MAX_LINES_SHOWN = 50
LINE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Meaning:
    """One thing a name is: `kind` is `skill`, `binding`, `built-in` or `mock tool`."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class LineUse:
    """A line that writes `{{name}}`: its 1-based number in the skill, its text (stripped,
    cut to `LINE_CHARS`), and the template section it is in (None: the skill's own text)."""

    line: int
    text: str
    section: str | None = None


@dataclass(frozen=True, slots=True)
class SkillUse:
    """The lines of one skill that write `{{name}}`: the first `MAX_LINES_SHOWN` of them,
    and how many there are."""

    skill: str
    lines: tuple[LineUse, ...]
    count: int


@dataclass(frozen=True, slots=True)
class SectionUse:
    """A template section (`section`, starting on `line` of `skill`) whose `tool` is the
    name or an alias of the same built-in."""

    skill: str
    line: int
    section: str
    tool: str


@dataclass(frozen=True, slots=True)
class BindingUse:
    """A binding whose `tool` is the name (or an alias of the same built-in), and the
    skills that write `{{binding}}` (none when a skill of that d_tag wins over it)."""

    name: str
    tool: str
    skills: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WhereUsed:
    """Everything `where_used` found for `name`."""

    name: str
    meanings: tuple[Meaning, ...]  # in the order `{{name}}` tries them; empty: unknown
    skills: tuple[SkillUse, ...]  # `{{name}}` in a skill's text or a section's content
    sections: tuple[SectionUse, ...]  # template sections calling the tool `name`
    bindings: tuple[BindingUse, ...]  # bindings calling the tool `name`
    suggestions: tuple[str, ...]  # for an unknown name: the known names closest to it


def where_used(workspace: Workspace, name: str) -> WhereUsed:
    """Where `workspace` uses `name`, and what `name` is.

    `{{name}}` is looked for as written (an alias is a different placeholder) in each
    skill's own text and in its template sections' `content` and `provider_content`; a
    section's or a binding's `tool` matches the name or an alias of the same built-in.

    :param workspace: the agent's skills, tools and bindings, in adoption order.
    :param name: any text; one that no `{{placeholder}}` can hold matches no line.
    :returns: a `WhereUsed`; its `meanings` put a skill first, then a binding, a built-in
        and a mock tool, the order in which assembly resolves `{{name}}`.
    """
    tool = canonical_tool(name)
    skills: list[SkillUse] = []
    sections: list[SectionUse] = []
    for skill in workspace.skills:
        used = _lines_using(skill, name)
        if used:
            skills.append(SkillUse(skill.d_tag, tuple(used[:MAX_LINES_SHOWN]), len(used)))
        sections += [SectionUse(skill.d_tag, s.line, s.name, s.tool)
                     for s in _template(skill).sections
                     if s.tool and canonical_tool(s.tool) == tool]
    bindings = tuple(
        BindingUse(v.name, v.tool, tuple(use.name for use in variable_uses(workspace, v.name)))
        for v in workspace.variables if canonical_tool(v.tool) == tool)
    meanings = meanings_of(workspace, name)
    suggestions = () if meanings else tuple(close_names(workspace, name))
    return WhereUsed(name, meanings, tuple(skills), tuple(sections), bindings, suggestions)


def unknown_names(workspace: Workspace, skills: Iterable[Skill]) -> list[str]:
    """The `{{names}}` that `skills` write (in their text or a template section's content)
    and that are nothing in `workspace`: no skill, binding, built-in or mock tool. Assembly
    leaves each of them empty, with an `unknown-variable` warning.

    Read from the text, like `where_used`, so a skill no trigger selects (one just imported,
    say) is checked too; `unknown_variables` sees only the skills scenarios select.

    :param workspace: the agent the names are resolved in (the skills may be in it).
    :param skills: the skills whose names to check.
    :returns: the unknown names, sorted, each once.
    """
    names: set[str] = set()
    for skill in skills:
        names |= skill_names(skill).names
    return sorted(name for name in names if not meanings_of(workspace, name))


def value_names(workspace: Workspace) -> list[str]:
    """The `{{names}}` the skills of `workspace` write (in their text or a template
    section's content) that a value given from outside may fill: those no skill, binding
    or built-in has (unknown names, and mock tools written directly). A runtime's turn may
    post a value for these and no other.

    :returns: the names, sorted, each once.
    """
    names: set[str] = set()
    for skill in workspace.skills:
        names |= skill_names(skill).names
    return sorted(name for name in names
                  if not {m.kind for m in meanings_of(workspace, name)} - {"mock tool"})


def find_skills(skills: Iterable[Skill], query: str) -> list[str]:
    """The d_tags of `skills` whose d_tag, name, a trigger or text contains `query`,
    ignoring case (Unicode case folding), in order; all of them for a blank query.

    :param skills: the skills to look through, in the order to answer in.
    :param query: the text to look for; whitespace around it is ignored.
    """
    needle = query.strip().casefold()
    if not needle:
        return [s.d_tag for s in skills]
    return [s.d_tag for s in skills
            if any(needle in text.casefold() for text in (s.d_tag, s.name, *s.triggers, s.content))]


# -- helpers


def meanings_of(workspace: Workspace, name: str) -> tuple[Meaning, ...]:
    """What `name` is in `workspace`, in the order `{{name}}` tries them (empty: nothing)."""
    found = []
    skill = workspace.skills_by_tag.get(name)
    if skill is not None:
        state = "enabled" if skill.enabled else "disabled"
        title = f": {skill.name}" if skill.name and skill.name != name else ""
        found.append(Meaning("skill", f"layer {skill.layer}, {state}{title}"))
    binding = workspace.variables_by_name.get(name)
    if binding is not None:
        found.append(Meaning("binding", f"calls the tool {binding.tool}"))
    if name in BUILTIN_TOOLS:
        found.append(Meaning("built-in", BUILTIN_TOOLS[name]))
    elif name in BUILTIN_ALIASES:
        target = BUILTIN_ALIASES[name]
        found.append(Meaning("built-in", f"another name for {target}: {BUILTIN_TOOLS[target]}"))
    mock = workspace.tools_by_name.get(name)
    if mock is not None:
        found.append(Meaning("mock tool", mock.description))
    return tuple(found)


def _template(skill: Skill) -> Template:
    parsed = parse_skill(skill.d_tag, skill.content)
    if parsed.template_text is None:
        return Template((), ())
    return parse_template(parsed.template_text, parsed.template_line)


def _lines_using(skill: Skill, name: str) -> list[LineUse]:
    """The lines of `skill` that write `{{name}}` where assembly reads it: its own text,
    and the lines of a template section whose `content` or `provider_content` uses it.

    A template line is not parsed alone: a line of a section that fills in `{{name}}`
    counts even as a YAML comment, and none of a section that does not (where `{{name}}`
    can only be in an `args` value or a comment, which assembly does not fill in) or of
    an item the template parser dropped.
    """
    if name not in skill_names(skill).names:
        return []
    parsed = parse_skill(skill.d_tag, skill.content)
    found = [LineUse(origin.line or 0, _cut(text)) for text, origin in parsed.lines
             if _writes(text, name)]
    if parsed.template_text is None:
        return found
    template = _template(skill)
    using = {s.line: s.name for s in template.sections
             if any(name in parse_skill(skill.d_tag, text).names
                    for text in (s.content, s.provider_content) if text)}
    # A line belongs to the list item that starts last before it, valid or not.
    starts = sorted({*(s.line for s in template.sections),
                     *(line for line, _ in template.problems)})
    for offset, text in enumerate(parsed.template_text.split("\n")):
        number = parsed.template_line + offset
        index = bisect.bisect_right(starts, number) - 1
        start = starts[index] if index >= 0 else None
        if start in using and _writes(text, name):
            found.append(LineUse(number, _cut(text), using[start]))
    return found


def _writes(text: str, name: str) -> bool:
    return "{{" in text and any(p.name == name for p in find_placeholders(text))


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"
