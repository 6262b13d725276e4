"""What the tools, variables and scenarios pages share: JSON fields, checks and usage.

- `json_field` reads a JSON textarea; a syntax error names its line and column and the
  value is never saved.
- `check_item` applies the bundle loader's own rules to one tool, binding or scenario,
  so the pages can say what is wrong while the author types (the store applies the same
  rules again when saving).
- `uses_of` says which skills (and bindings) use a name, read from the skills' text:
  a skill only shows up in an assembly when a trigger selects it, so usage cannot be
  learned from assembling alone.
- `rename_placeholders` keeps skills working when a tool or binding they name is renamed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Response, abort, flash, redirect

from webapp import store
from webapp.db import get_session
from webapp.pipeline import (
    BUILTIN_TOOLS,
    BundleError,
    Scenario,
    Skill,
    Variable,
    Workspace,
    assemble,
    load_bundle,
    parse_json,
)

# The parsers assembly itself uses, so "used by" agrees with what assembly resolves.
from webapp.pipeline.assemble import parse_skill
from webapp.pipeline.sections import parse_template
from webapp.pipeline.variables import Problem, Resolver
from webapp.pipeline.workspace import BUILTIN_ALIASES, BUNDLE_FORMAT

#: Names a binding's `tool` may have without a mock tool of that name.
BUILTIN_TOOL_NAMES = (*BUILTIN_TOOLS, *BUILTIN_ALIASES)

_POSITION = re.compile(r"line (\d+), column (\d+)")


@dataclass(frozen=True, slots=True)
class FieldError:
    """Why a field is not valid, and where in its text when it is JSON with a syntax error."""

    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return self.message


Errors = dict[str, FieldError]


def json_field(data: Mapping[str, Any], name: str, errors: Errors, *, default: Any = None,
               from_form: bool = True) -> Any:
    """The JSON value of field `name`: text in a form, any value in a JSON body.

    Blank text is `default`. Invalid JSON records an error with its line and column and
    returns `default`.
    """
    if name not in data:
        return default
    raw = data.get(name)
    if not from_form:
        return raw
    if not isinstance(raw, str):
        errors[name] = FieldError("must be JSON text")
        return default
    if not raw.strip():
        return default
    try:
        return parse_json(raw, name)
    except BundleError as exc:
        message = exc.problems[0].message
        match = _POSITION.search(message)
        line, column = (int(match[1]), int(match[2])) if match else (None, None)
        errors[name] = FieldError(message, line, column)
        return default


def text_field(data: Mapping[str, Any], name: str, default: str = "") -> str:
    """A text field; CRLF from a browser's textarea becomes LF."""
    value = data.get(name, default)
    if value is None:
        return default
    return (value if isinstance(value, str) else str(value)).replace("\r\n", "\n")


def optional_text(data: Mapping[str, Any], name: str) -> str | None:
    """A text field where blank means "not set" (None)."""
    value = text_field(data, name).strip()
    return value or None


def check_item(section: str, item: dict[str, Any], errors: Errors) -> None:
    """Record the bundle loader's problems with one entry of `section` (by field name)."""
    bundle = {"format": BUNDLE_FORMAT, "agent": {"name": "_"}, section: [item]}
    prefix = f"$.{section}[0]."
    try:
        load_bundle(bundle)
    except BundleError as exc:
        for problem in exc.problems:
            rest = problem.path.removeprefix(prefix)
            field = re.split(r"[.\[]", rest, maxsplit=1)[0] or rest
            # Say where inside a JSON field the problem is: `results_by_args[1].args`.
            message = problem.message if rest == field else f"{rest}: {problem.message}"
            errors.setdefault(field, FieldError(message))
    for key, value in item.items():
        if isinstance(value, str) and "\x00" in value:
            errors.setdefault(key, FieldError("must not contain NUL characters (U+0000)"))


def store_errors(exc: store.ValidationError) -> Errors:
    """A store `ValidationError` (also `AlreadyExists`) as field errors."""
    return {field: FieldError(message) for field, message in exc.errors.items()}


def original_name(data: Mapping[str, Any], agent: str, get: Callable[..., Any]) -> str | None:
    """The saved name a submitted draft edits (None for a new item); `get` (the store's
    `get_tool`, ...) makes a name that is gone a 404."""
    original = text_field(data, "original") or None
    if original is not None:
        get(get_session(), agent, original)
    return original


def write_form(form: Any, write: Callable[..., Any], agent: str, *args: Any,
               **fields: Any) -> bool:
    """Call the store's `write(session, agent, *args, **fields)` unless `form` has errors
    already; a `store.ValidationError` becomes field errors. True when it was written."""
    if not form.errors:
        try:
            write(get_session(), agent, *args, **fields)
        except store.ValidationError as exc:
            form.errors.update(store_errors(exc))
    return not form.errors


def done(message: str, url: str) -> Response:
    """Flash `message` and send the browser to `url` with a 303, so a reload does not post."""
    flash(message)
    return redirect(url, 303)


def load_workspace(agent: str) -> Workspace:
    """The agent's saved workspace (a missing agent is a 404 via `store.NotFound`)."""
    return store.load_workspace(get_session(), agent)


def scenario_for(workspace: Workspace, name: str | None) -> Scenario:
    """The named scenario, the first one when no name is given, or a blank stand-in."""
    if name:
        if name not in workspace.scenarios_by_name:
            abort(422, description=f"scenario: no scenario named {name!r}")
        return workspace.scenarios_by_name[name]
    return workspace.scenarios[0] if workspace.scenarios else Scenario(name="(no scenario)")


def call_binding(workspace: Workspace, scenario: Scenario, binding: Variable
                 ) -> tuple[str, tuple[Problem, ...]]:
    """What `binding` resolves to for `scenario`: its text and the problems met."""
    return Resolver(workspace, scenario, scenario.message).call(binding)


# -- usage


@dataclass(frozen=True, slots=True)
class Use:
    """One place a name is used: `kind` is `skill` or `variable`, `how` says in which way."""

    kind: str
    name: str
    how: str


def skill_names(skill: Skill) -> tuple[set[str], set[str]]:
    """The `{{names}}` a skill writes (body and template `content`) and the tools its
    template sections call."""
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
    return names, tools


def _canonical(tool: str) -> str:
    return BUILTIN_ALIASES.get(tool, tool)


def tool_uses(workspace: Workspace, tool: str) -> list[Use]:
    """The bindings that call `tool` and the skills that use it, directly or through one."""
    uses = [Use("variable", v.name, "binds it") for v in workspace.variables
            if _canonical(v.tool) == _canonical(tool)]
    bound = {use.name for use in uses}
    # `{{tool}}` reaches the tool only when no skill or binding has that name.
    direct = tool not in workspace.skills_by_tag and tool not in workspace.variables_by_name
    for skill in workspace.skills:
        names, tools = skill_names(skill)
        hows = []
        if direct and tool in names:
            hows.append(f"{{{{{tool}}}}}")
        if tool in tools:
            hows.append("a template section")
        hows += [f"through {{{{{name}}}}}" for name in sorted(bound & names)
                 if name not in workspace.skills_by_tag]
        if hows:
            uses.append(Use("skill", skill.d_tag, ", ".join(hows)))
    return uses


def variable_uses(workspace: Workspace, name: str) -> list[Use]:
    """The skills that write `{{name}}` (a skill of that `d_tag` would win instead)."""
    if name in workspace.skills_by_tag:
        return []
    return [Use("skill", skill.d_tag, f"{{{{{name}}}}}") for skill in workspace.skills
            if name in skill_names(skill)[0]]


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


# -- renaming


def _placeholder(name: str) -> re.Pattern[str]:
    """`{{name}}` or `{{ name }}`, not the escaped literal `\\{{name}}` (as the store's
    skill rename matches references)."""
    return re.compile(r"(?<!\\)(\{\{[ \t]*)" + re.escape(name) + r"([ \t]*\}\})")


def _template_tool(name: str) -> re.Pattern[str]:
    """A template section's `tool: name` line (optionally quoted)."""
    return re.compile(r"(?m)^([ \t]*(?:-[ \t]+)?tool:[ \t]*)([\"']?)" + re.escape(name)
                      + r"\2([ \t]*(?:#.*)?)$")


def renamed_text(content: str, old: str, new: str, *, placeholders: bool = True,
                 template_tools: bool = False) -> str:
    """`content` with `{{old}}` written `{{new}}` and, with `template_tools`, its template
    sections' `tool: old` written `tool: new`."""
    text = content
    if placeholders:
        text = _placeholder(old).sub(lambda m: f"{m[1]}{new}{m[2]}", text)
    if template_tools:
        lines = text.split("\n")
        marker = next((i for i, line in enumerate(lines)
                       if line.rstrip(" \t") == "---template---"), None)
        if marker is not None:
            head, tail = "\n".join(lines[:marker + 1]), "\n".join(lines[marker + 1:])
            tail = _template_tool(old).sub(lambda m: f"{m[1]}{m[2]}{new}{m[2]}{m[3]}", tail)
            text = f"{head}\n{tail}"
    return text


def rename_in_skills(agent: str, workspace: Workspace, old: str, new: str, *, tool: bool
                     ) -> tuple[list[str], list[str]]:
    """Rewrite the skills that use `old` (as resolved in `workspace`, before the rename) to
    use `new`, each as a new version; returns the `d_tag`s changed and those skipped
    because someone saved them meanwhile.

    `{{old}}` is rewritten only where it meant what was renamed: a skill named `old`
    wins over a binding or tool, and a binding wins over a tool.
    """
    shadowed = old in workspace.skills_by_tag or (tool and old in workspace.variables_by_name)
    session = get_session()
    what = "tool" if tool else "variable"
    changed, skipped = [], []
    for skill in workspace.skills:
        updated = renamed_text(skill.content, old, new, placeholders=not shadowed,
                               template_tools=tool)
        if updated == skill.content:
            continue
        row = store.get_skill(session, agent, skill.d_tag)
        if row.content != skill.content:  # saved since `workspace` was read
            skipped.append(skill.d_tag)
            continue
        try:
            store.save_skill(session, agent, skill.d_tag, expected_version=row.version,
                             content=updated, note=f"{what} {old} renamed to {new}")
        except store.Conflict:
            skipped.append(skill.d_tag)
        else:
            changed.append(skill.d_tag)
    return changed, skipped


def rename_message(moved: list[str], skipped: list[str], new: str) -> str:
    """What a rename changed besides the item itself, for the flash."""
    message = f" Renamed it in {', '.join(moved)}." if moved else ""
    if skipped:
        message += (f" Not in skill {', '.join(skipped)}: it changed meanwhile; "
                    f"write {{{{{new}}}}} there by hand.")
    return message


def with_replaced(items: tuple[Any, ...], old_name: str | None, new: Any) -> tuple[Any, ...]:
    """`items` with the one named `old_name` replaced by `new` (or `new` added)."""
    out = list(items)
    for i, item in enumerate(out):
        if item.name == old_name:
            out[i] = new
            return tuple(out)
    return (*out, new)


def replace_in(workspace: Workspace, section: str, old_name: str | None, new: Any) -> Workspace:
    """`workspace` with one tool, variable or scenario replaced by a draft."""
    return dataclasses.replace(workspace, **{section: with_replaced(
        getattr(workspace, section), old_name, new)})
