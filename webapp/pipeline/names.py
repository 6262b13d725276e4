"""What an author may write: every `{{name}}` a workspace resolves, what each is and what
it gives for a scenario, and the words of a template section (`resolvable_names`).

The editor completes, colours and explains `{{names}}` with this, so what it offers is
what assembly resolves, in the same order: a skill, then a binding, a built-in (or one of
its aliases), a mock tool. A name that is several things is listed once, as what wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from .formatters import FORMATTERS
from .roles import marker_role
from .sections import SECTION_KEYS, SECTION_ROLES
from .usage import meanings_of
from .variables import Resolver
from .workspace import BUILTIN_ALIASES, BUILTIN_TOOLS, Scenario, Workspace

#: How much of a value `ResolvableName.value` keeps: enough for a tooltip, and a 200-skill
#: workspace's names stay a small page block.
VALUE_CHARS = 600
SUMMARY_CHARS = 80

#: The kinds, in the order `{{name}}` tries them (as `where_used` names them).
KINDS = ("skill", "binding", "built-in", "mock tool")


@dataclass(frozen=True, slots=True)
class ResolvableName:
    """One name `{{name}}` resolves: `kind` is one of `KINDS` (what wins when the name is
    several things; `hides` lists the others), `detail` says what it is ("layer 2, enabled:
    Identity", "calls the tool agent_identity"), `value` the start of what it gives for the
    scenario (a skill: its text) and `summary` that value's first non-blank line (a
    skill's first that is not a role marker), cut short."""

    name: str
    kind: str
    detail: str
    value: str
    summary: str
    hides: tuple[str, ...] = ()
    title: str = ""  # a skill's name, when it has one


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Everything an author may write for one agent and scenario: the resolvable names, and
    the words of a template section: its keys, `role` values, `tool` names and formats."""

    scenario: str | None
    names: tuple[ResolvableName, ...]
    section_keys: tuple[str, ...]
    section_roles: tuple[str, ...]
    tools: tuple[str, ...]
    formats: tuple[str, ...]


def resolvable_names(workspace: Workspace, scenario: str | None = None) -> Vocabulary:
    """Every name `workspace` resolves as `{{name}}`, with what it gives for `scenario`.

    :param workspace: the agent's skills, tools and bindings.
    :param scenario: the scenario whose message, history and event the built-ins and
        bindings read; None, or a name the workspace has not, means the first scenario
        (an empty one when there is none), as `assemble` picks it.
    :returns: a `Vocabulary`: skills in adoption order, then bindings, built-ins and their
        aliases, and mock tools, each name once; the template words.
    """
    picked = workspace.scenarios_by_name.get(scenario or "") or (
        workspace.scenarios[0] if workspace.scenarios else Scenario(name=""))
    resolver = Resolver(workspace, picked, picked.message)
    candidates = [*workspace.skills_by_tag, *workspace.variables_by_name, *BUILTIN_TOOLS,
                  *BUILTIN_ALIASES, *workspace.tools_by_name]
    names = []
    for name in dict.fromkeys(candidates):
        meanings = meanings_of(workspace, name)
        kind = meanings[0].kind
        skill = workspace.skills_by_tag.get(name)
        if skill is not None:
            value, title = skill.content, skill.name if skill.name != name else ""
        else:
            resolved = resolver.resolve(name)
            value, title = (resolved.text if resolved else ""), ""
        names.append(ResolvableName(
            name, kind, meanings[0].detail, _cut(value, VALUE_CHARS),
            _summary(value, skill is not None), tuple(m.kind for m in meanings[1:]), title))
    tools = (*BUILTIN_TOOLS, *BUILTIN_ALIASES,
             *(t for t in workspace.tools_by_name if t not in BUILTIN_TOOLS))
    return Vocabulary(picked.name or None, tuple(names), SECTION_KEYS, SECTION_ROLES,
                      tuple(dict.fromkeys(tools)), tuple(sorted(FORMATTERS)))


def _summary(value: str, skill: bool) -> str:
    line = next((line.strip() for line in value.split("\n")
                 if line.strip() and not (skill and marker_role(line))), "")
    return _cut(line, SUMMARY_CHARS)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
