"""Resolving a `{{name}}` that is not a skill reference: bindings, built-in tools, mock tools.

First match wins: a variable binding, then a built-in context tool (the scenario and
workspace provide these), then a mock tool of the same name formatted as markdown.
A name that matches nothing resolves to empty text and an `unknown-variable` warning.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .formatters import FORMATTERS, FormatOptions, coerce_json, format_value, register_formatter
from .result import Diagnostic
from .untrusted import whole_number
from .workspace import BUILTIN_ALIASES, BUILTIN_TOOLS, Scenario, Variable, Workspace

#: The format a built-in tool's output gets when a binding names none.
BUILTIN_FORMATS = {
    "message_current": "text",
    "dm_history": "dm_history",
    "trigger_event": "trigger_event",
    "tool_list": "tool_list",
}


@register_formatter("tool_list")
def format_tool_list(value: Any, options: FormatOptions) -> str:
    """The workspace's tools as `- **name**: description` bullets."""
    value = coerce_json(value)
    if not isinstance(value, list):
        return format_value("markdown", value, options)
    lines = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            description = str(item.get("description") or "").strip().replace("\n", "\n  ")
            lines.append(f"- **{item['name']}**: {description}".rstrip())
    return "\n".join(lines)


class Resolved(NamedTuple):
    """The text a name resolves to, what kind of source gave it, and what went wrong.

    A named tuple: memo keys hold one per name a skill uses, and tuples hash and
    compare in C.
    """

    text: str
    kind: str  # "variable" or "tool"
    problems: tuple[Diagnostic, ...] = ()  # without a place: the caller knows where


class Source(NamedTuple):
    """What a `{{name}}` that is no skill calls: `kind` (`binding`, `built-in` or `mock
    tool`, the first that has the name) and the binding called, the workspace's or the
    tool's with default settings."""

    kind: str
    binding: Variable


def source_of(workspace: Workspace, name: str) -> Source | None:
    """What `{{name}}` calls, first match wins: a binding, a built-in tool (or an alias of
    one), a mock tool; None when nothing has the name."""
    binding = workspace.variables_by_name.get(name)
    if binding is not None:
        return Source("binding", binding)
    if name in BUILTIN_TOOLS or name in BUILTIN_ALIASES:
        return Source("built-in", Variable(name=name, tool=name))
    if name in workspace.tools_by_name:
        return Source("mock tool", Variable(name=name, tool=name))
    return None


def formatter_of(binding: Variable) -> str:
    """The formatter a call of `binding` uses: its `format`, else its tool's default (a
    built-in's own, `markdown` for a mock tool); an unknown one falls back to `markdown`."""
    tool_name = BUILTIN_ALIASES.get(binding.tool, binding.tool)
    name = binding.format or BUILTIN_FORMATS.get(tool_name, "markdown")
    return name if name in FORMATTERS else "markdown"


_MISSING = object()
#: How many unknown names of one assembly get suggestions: each costs a comparison with
#: every known name, and a skill may write 40,000 unknown names (the problem list shows
#: the first `budgets.LISTED_PER_KIND` of them anyway).
MAX_SUGGESTED = 200


class Resolver:
    """Resolves names for one assembly; each name is computed once per run."""

    def __init__(self, workspace: Workspace, scenario: Scenario, message: str,
                 met: Callable[[int], None] | None = None):
        """`met(n)` is told the length of each value when it is first resolved."""
        self.workspace = workspace
        self.met = met
        self.scenario = scenario
        self.message = message
        self.options = FormatOptions(
            max_items=workspace.agent.max_array_items,
            history_labels=workspace.agent.history_labels,
        )
        self._memo: dict[str, Resolved | None] = {}
        self._suggestions: dict[str, list[str]] = {}

    def resolve(self, name: str) -> Resolved | None:
        """Resolve `name`, or return None when nothing has that name."""
        try:
            return self._memo[name]
        except KeyError:
            pass
        source = source_of(self.workspace, name)
        resolved: Resolved | None = None
        if source is not None:
            text, problems = self.call(source.binding)
            resolved = Resolved(text, "variable" if source.kind == "binding" else "tool",
                                problems)
        if resolved is not None and self.met is not None:
            self.met(len(resolved.text))
        self._memo[name] = resolved
        return resolved

    def call(self, binding: Variable) -> tuple[str, tuple[Diagnostic, ...]]:
        """Call the binding's tool, select its field and path, and format the value."""
        tool_name = BUILTIN_ALIASES.get(binding.tool, binding.tool)
        if tool_name in BUILTIN_TOOLS:
            result: Any = {"success": True, "content": self.builtin_value(tool_name)}
        else:
            tool = self.workspace.tools_by_name.get(tool_name)
            if tool is None:
                return "", (Diagnostic("warning", "missing-tool",
                                       f"`{binding.name}` calls the tool `{binding.tool}`, "
                                       f"which does not exist"),)
            if not tool.called:
                return "", (Diagnostic("warning", "tool-not-called",
                                       f"`{binding.name}` calls the tool `{binding.tool}`, "
                                       f"which was not called: this run has no result for it"),)
            result = tool.call(binding.args)
        value, problem = select(result, binding)
        if problem is not None:
            return "", (problem,)
        format_name = formatter_of(binding)
        problems: tuple[Diagnostic, ...] = ()
        if binding.format and binding.format != format_name:
            problems = (Diagnostic("warning", "unknown-format",
                                f"`{binding.name}` asks for the unknown format `{binding.format}`; "
                                f"used `markdown` (known: {', '.join(sorted(FORMATTERS))})"),)
        options = self.options
        if binding.limit is not None:
            options = FormatOptions(options.max_items, binding.limit, options.history_labels)
        try:
            return format_value(format_name, value, options), problems
        except Exception as exc:  # noqa: BLE001 -- a registered formatter is third-party code
            return "", (*problems, Diagnostic(
                "warning", "tool-error",
                f"formatter `{format_name}` failed on `{binding.name}`: {exc}"))

    def builtin_value(self, tool_name: str) -> Any:
        scenario = self.scenario
        if tool_name == "message_current":
            return self.message
        if tool_name == "dm_history":
            return [{"role": h.role, "content": h.content, "created_at": h.created_at}
                    for h in scenario.history]
        if tool_name == "trigger_event":
            return scenario.event
        return [{"name": t.name, "description": t.description} for t in self.workspace.tools]

    def suggestions(self, name: str) -> list[str]:
        """The known names closest to `name`, best first."""
        try:
            return self._suggestions[name]
        except KeyError:
            pass
        if len(self._suggestions) >= MAX_SUGGESTED:
            return []
        close = self._suggestions[name] = close_names(self.workspace, name)
        return close


def close_names(workspace: Workspace, name: str) -> list[str]:
    """The names `workspace` knows (bindings, built-ins, mock tools, skills) closest to
    `name`, best first: what an unknown `{{name}}` may have meant."""
    return closest(name, [*workspace.variables_by_name, *BUILTIN_TOOLS, *BUILTIN_ALIASES,
                          *workspace.tools_by_name, *workspace.skills_by_tag])


def closest(name: str, known: Iterable[str]) -> list[str]:
    """The names of `known` closest to `name`, best first (at most three): the
    did-you-mean of every unknown name, in a skill or in a request."""
    return difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)


def select(result: Any, binding: Variable) -> tuple[Any, Diagnostic | None]:
    """Take the binding's `result_field` from a tool result, then follow its `path`."""
    def error(message: str) -> tuple[Any, Diagnostic]:
        return None, Diagnostic("warning", "tool-error", f"`{binding.name}`: {message}")

    if isinstance(result, dict):
        if result.get("success") is False or result.get("error"):
            detail = result.get("error") or "success is false"
            return error(f"the tool `{binding.tool}` failed: {detail}")
        value = result.get(binding.result_field, _MISSING)
        if value is _MISSING:
            return error(f"the result of `{binding.tool}` has no field `{binding.result_field}`")
    else:
        value = result  # a bare value is its own content
    if binding.path:
        value = coerce_json(value)
        for part in binding.path.split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and (at := whole_number(part)) is not None \
                    and at < len(value):
                value = value[at]
            else:
                return error(f"the path `{binding.path}` does not exist in the result "
                             f"(stopped at `{part}`)")
    return value, None
