"""What the item pages show of a mock tool, a variable binding or a scenario: the form as
submitted (checked with the store's rules, each field's text kept as typed), what the
item gives in a preview, and the context of each kind's page.

No request is read here: `items` parses it, calls the store and renders what these build;
each kind's page builder takes the same arguments (`Page`), so one set of routes serves all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from webapp import store
from webapp.pipeline import (
    BUILTIN_TOOL_NAMES,
    FORMATTERS,
    LISTED_PER_KIND,
    HistoryEntry,
    Scenario,
    Tool,
    ToolResult,
    Use,
    Variable,
    Workspace,
    call_binding,
    dumps_json,
    tool_uses,
    unknown_variables,
    variable_uses,
)
from webapp.render import highlight_markdown_lines, markdown_to_html

from .item_forms import (
    Errors,
    FieldError,
    ItemForm,
    check_item,
    expectations_text,
    history_dicts,
    json_field,
    json_text,
    optional_text,
    replace_in,
    text_field,
)

#: The providers a scenario's field offers (any other name may be typed).
PROVIDERS = ("openai", "anthropic")
#: What the scenario check shows: the built-ins a skill would use to put its history and
#: event in its text.
SHOWN_BUILTINS = ("dm_history", "trigger_event")


class Parse(Protocol):
    """Read and check a submitted item: `original` is the saved name it edits (None for a
    new one); `from_form` says whether fields are form text or JSON values."""

    def __call__(self, data: Mapping[str, Any], workspace: Workspace, original: str | None, *,
                 from_form: bool) -> ItemForm[Any]: ...


class Page(Protocol):
    """A kind's page context: `current` is the item shown (None: a new one), `form` the
    draft (None: as saved, or blank), `scenario` the one previews run on, and `listing`
    whether the whole listing is rendered (where a costly report is worth it)."""

    def __call__(self, workspace: Workspace, scenario: Scenario, current: str | None,
                 form: ItemForm[Any] | None, *, listing: bool) -> dict[str, Any]: ...


# -- mock tools


@dataclass(frozen=True, slots=True)
class Output:
    """What a binding with default settings makes of one result: markdown and its HTML."""

    label: str
    text: str
    html: Any
    source: list[Any]
    problems: tuple[Any, ...]


def blank_tool() -> ItemForm[Tool]:
    default = {"success": True, "content": ""}
    return ItemForm(Tool(name="", result=default),
                    {"name": "", "description": "", "result": json_text(default),
                     "results_by_args": "[]"})


def saved_tool(tool: Tool) -> ItemForm[Tool]:
    by_args = [{"args": r.args, "result": r.result} for r in tool.results_by_args]
    return ItemForm(tool, {"name": tool.name, "description": tool.description,
                           "result": json_text(tool.result), "results_by_args": json_text(by_args)})


def parse_tool(data: Mapping[str, Any], workspace: Workspace, original: str | None, *,
               from_form: bool) -> ItemForm[Tool]:
    """Read and check a submitted tool with the bundle's rules; names must stay unique."""
    errors: Errors = {}
    saved = workspace.tools_by_name.get(original or "")
    name = text_field(data, "name", saved.name if saved else "").strip()
    description = text_field(data, "description", saved.description if saved else "")
    # A field left out of a JSON body keeps its saved value; a blank textarea is null.
    result = json_field(data, "result", errors, from_form=from_form) if "result" in data else (
        saved.result if saved else None)
    by_args = json_field(data, "results_by_args", errors, default=[], from_form=from_form)
    if "results_by_args" not in data and saved:
        by_args = [{"args": r.args, "result": r.result} for r in saved.results_by_args]
    item = {"name": name, "description": description, "result": result,
            "results_by_args": by_args}
    check_item("tools", item, errors)
    if name != original and name in workspace.tools_by_name:
        errors.setdefault("name", FieldError(f"a tool named {name!r} already exists"))
    entries = by_args if isinstance(by_args, list) and "results_by_args" not in errors else []
    tool = Tool(name=name, description=description, result=result,
                results_by_args=tuple(ToolResult(e.get("args"), e.get("result"))
                                      for e in entries if isinstance(e, dict)))
    texts = {key: text_field(data, key) if from_form and key in data else None
             for key in ("name", "description", "result", "results_by_args")}
    shown = saved_tool(tool).texts
    return ItemForm(tool, {k: v if v is not None else shown[k] for k, v in texts.items()},
                    errors)


def tool_outputs(workspace: Workspace, scenario: Scenario, original: str | None, tool: Tool
                 ) -> list[Output]:
    """What a binding with default settings gives for the default result and the first
    `LISTED_PER_KIND` args entries (`left_out` counts the others); a mock tool's answer
    does not depend on the scenario, any one stands in."""
    name = tool.name or "new_tool"
    draft = Tool(name, tool.description, tool.result, tool.results_by_args)
    workspace = replace_in(workspace, "tools", original, draft)
    calls = [("Default result", None)] + [
        (f"args {dumps_json(entry.args)}", entry.args)
        for entry in tool.results_by_args[:LISTED_PER_KIND]]
    result = []
    for label, args in calls:
        text, problems = call_binding(workspace, scenario,
                                      Variable(name=name, tool=name, args=args))
        result.append(Output(label, text, markdown_to_html(text),
                             highlight_markdown_lines(text), problems))
    return result


def left_out(tool: Tool) -> int:
    """How many of the tool's results by args its preview does not show (`tool_outputs`)."""
    return max(0, len(tool.results_by_args) - LISTED_PER_KIND)


def tools_page(workspace: Workspace, scenario: Scenario, current: str | None,
               form: ItemForm[Any] | None, *, listing: bool) -> dict[str, Any]:
    """The tool list, one tool's form with its preview, and what uses it."""
    if form is None:
        form = saved_tool(workspace.tools_by_name[current]) if current else blank_tool()
    return {
        "items": workspace.tools,
        "current": current,
        "form": form,
        "errors": form.errors,
        "outputs": [] if "result" in form.errors
        else tool_outputs(workspace, scenario, current, form.item),
        "outputs_left": left_out(form.item),
        "uses": tool_uses(workspace, current) if current else [],
        "uses_by_tool": {t.name: len(tool_uses(workspace, t.name)) for t in workspace.tools},
    }


# -- variable bindings


VARIABLE_FIELDS = ("name", "tool", "args", "result_field", "path", "format", "limit")


@dataclass
class Row:
    """One row of the table: the form, what the binding gives for the scenario, its users."""

    original: str | None
    form: ItemForm[Variable]
    text: str = ""
    html: Any = ""
    source: list[Any] = field(default_factory=list)
    problems: tuple[Any, ...] = ()
    uses: list[Use] = field(default_factory=list)

    @property
    def errors(self) -> Errors:
        return self.form.errors


def known_tools(workspace: Workspace) -> list[str]:
    return [*workspace.tools_by_name, *BUILTIN_TOOL_NAMES]


def saved_variable(variable: Variable) -> ItemForm[Variable]:
    texts = {
        "name": variable.name, "tool": variable.tool,
        "args": "" if variable.args is None else dumps_json(variable.args),
        "result_field": variable.result_field, "path": variable.path or "",
        "format": variable.format or "",
        "limit": "" if variable.limit is None else str(variable.limit),
    }
    return ItemForm(variable, texts)


def blank_variable() -> ItemForm[Variable]:
    form = saved_variable(Variable(name="", tool=""))
    form.texts["result_field"] = ""
    return form


def parse_variable(data: Mapping[str, Any], workspace: Workspace, original: str | None, *,
                   from_form: bool) -> ItemForm[Variable]:
    """Read and check a binding: bundle rules, a known tool and format, a unique name.

    A tool that is neither a mock tool nor a built-in is refused, though a bundle may hold
    one (it then reports `missing-tool`): typed on this page, it is almost always a typo.
    """
    errors: Errors = {}
    saved = workspace.variables_by_name.get(original or "") or Variable(name="", tool="")
    name = text_field(data, "name", saved.name).strip()
    tool = text_field(data, "tool", saved.tool).strip()
    args = json_field(data, "args", errors, from_form=from_form) if "args" in data else saved.args
    result_field = optional_text(data, "result_field") if "result_field" in data else (
        saved.result_field)
    path = optional_text(data, "path") if "path" in data else saved.path
    format_name = optional_text(data, "format") if "format" in data else saved.format
    limit: Any = data.get("limit", saved.limit)
    if isinstance(limit, str):
        limit = limit.strip() or None
        if limit is not None:
            limit, problem = store.parse_integer("limit", limit)
            if problem:
                errors["limit"] = FieldError(problem)
    item = {"name": name, "tool": tool, "args": args, "result_field": result_field or "content",
            "path": path, "format": format_name, "limit": limit}
    check_item("variables", item, errors)
    if tool and tool not in known_tools(workspace):
        known = ", ".join(known_tools(workspace))
        errors.setdefault("tool", FieldError(
            f"no mock tool or built-in tool is named {tool!r} (known: {known})"))
    if format_name is not None and format_name not in FORMATTERS:
        errors.setdefault("format", FieldError(
            f"unknown format {format_name!r} (known: {', '.join(sorted(FORMATTERS))})"))
    if name != original and name in workspace.variables_by_name:
        errors.setdefault("name", FieldError(f"a binding named {name!r} already exists"))
    variable = Variable(name=name, tool=tool, args=args, result_field=result_field or "content",
                        path=path, format=format_name,
                        limit=limit if isinstance(limit, int) and not isinstance(limit, bool)
                        else None)
    texts = saved_variable(variable).texts
    if from_form:
        texts.update({key: text_field(data, key) for key in VARIABLE_FIELDS if key in data})
    return ItemForm(variable, texts, errors)


def make_row(workspace: Workspace, scenario: Scenario, original: str | None,
             form: ItemForm[Variable]) -> Row:
    """A table row: the binding's output for `scenario` (unless its fields are invalid)."""
    row = Row(original, form, uses=variable_uses(workspace, original) if original else [])
    if form.errors:
        return row
    variable = form.item
    draft = Variable(variable.name or "new_variable", variable.tool, variable.args,
                     variable.result_field, variable.path, variable.format, variable.limit)
    text, problems = call_binding(replace_in(workspace, "variables", original, draft),
                                  scenario, draft)
    row.text, row.problems = text, problems
    row.html, row.source = markdown_to_html(text), highlight_markdown_lines(text)
    return row


def scenario_args(workspace: Workspace, scenario: Scenario) -> dict[str, str]:
    """The scenario as a query argument, left out for the default (first) one."""
    if workspace.scenarios and scenario.name != workspace.scenarios[0].name:
        return {"scenario": scenario.name}
    return {}


def variables_page(workspace: Workspace, scenario: Scenario, current: str | None,
                   form: ItemForm[Any] | None, *, listing: bool) -> dict[str, Any]:
    """Every row with its output for `scenario` (the draft in place of the row it edits,
    or in the new row), the `{{names}}` that resolve to nothing and the unused bindings."""
    rows = [make_row(workspace, scenario, v.name,
                     form if form is not None and current == v.name else saved_variable(v))
            for v in workspace.variables]
    drafting_new = form is not None and current is None
    # A blank new row has no output to show; a draft typed into it has.
    new_row = make_row(workspace, scenario, None, form) if drafting_new and form is not None \
        else Row(None, blank_variable())
    return {
        "rows": rows,
        "new_row": new_row,
        "row": next((r for r in rows if r.original == current), new_row),
        "focus": current,
        "errors": form.errors if form is not None else {},
        "scenario": scenario,
        "scenarios": [sc.name for sc in workspace.scenarios],
        "scenario_args": scenario_args(workspace, scenario),
        "tool_names": known_tools(workspace),
        "formats": sorted(FORMATTERS),
        # Assembling every scenario is only worth it where the report is shown.
        "unknown": unknown_variables(workspace) if listing else [],
        "unused": [r.original for r in rows if not r.uses],
        "shadowed": [v.name for v in workspace.variables if v.name in workspace.skills_by_tag],
    }


# -- scenarios


def saved_scenario(scenario: Scenario) -> ItemForm[Scenario]:
    texts = {"name": scenario.name, "trigger": scenario.trigger, "message": scenario.message,
             "history": json_text(history_dicts(scenario.history)),
             "event": "" if scenario.event is None else json_text(scenario.event),
             "provider": scenario.provider or "", "expect": expectations_text(scenario.expect)}
    return ItemForm(scenario, texts)


def blank_scenario(workspace: Workspace) -> ItemForm[Scenario]:
    trigger = workspace.triggers[0] if workspace.triggers else "dm"
    return saved_scenario(Scenario(name="", trigger=trigger))


def parse_scenario(data: Mapping[str, Any], workspace: Workspace, original: str | None, *,
                   from_form: bool) -> ItemForm[Scenario]:
    """Read and check a scenario with the bundle's rules; names must stay unique."""
    errors: Errors = {}
    saved = workspace.scenarios_by_name.get(original or "") or Scenario(name="")
    name = text_field(data, "name", saved.name).strip()
    trigger = text_field(data, "trigger", saved.trigger).strip()
    message = text_field(data, "message", saved.message)
    history = json_field(data, "history", errors, default=[], from_form=from_form) if (
        "history" in data) else history_dicts(saved.history)
    event = json_field(data, "event", errors, from_form=from_form) if "event" in data else (
        saved.event)
    provider = optional_text(data, "provider") if "provider" in data else saved.provider
    expect = json_field(data, "expect", errors, default=[], from_form=from_form) if (
        "expect" in data) else list(saved.expect)
    item = {"name": name, "trigger": trigger, "message": message, "history": history,
            "event": event, "provider": provider, "expect": expect}
    check_item("scenarios", item, errors)
    if not trigger:
        errors.setdefault("trigger", FieldError("must not be empty"))
    if name != original and name in workspace.scenarios_by_name:
        errors.setdefault("name", FieldError(f"a scenario named {name!r} already exists"))
    entries = history if isinstance(history, list) and "history" not in errors else []
    scenario = Scenario(name=name, trigger=trigger, message=message,
                        history=tuple(HistoryEntry(e.get("role", ""), e.get("content", ""),
                                                   e.get("created_at"))
                                      for e in entries if isinstance(e, dict)),
                        event=event, provider=provider,
                        expect=tuple(expect) if isinstance(expect, list) else ())
    texts = saved_scenario(scenario).texts
    if from_form:
        texts.update({key: text_field(data, key) for key in texts if key in data})
    return ItemForm(scenario, texts, errors)


def builtin_outputs(workspace: Workspace, original: str | None, scenario: Scenario
                    ) -> list[tuple[str, Any]]:
    """What `{{dm_history}}` and `{{trigger_event}}` give for the scenario, highlighted."""
    draft = Scenario(scenario.name or "new scenario", scenario.trigger, scenario.message,
                     scenario.history, scenario.event, scenario.provider)
    workspace = replace_in(workspace, "scenarios", original, draft)
    shown = []
    for name in SHOWN_BUILTINS:
        text, _ = call_binding(workspace, draft, Variable(name=name, tool=name))
        shown.append((name, highlight_markdown_lines(text)))
    return shown


def scenarios_page(workspace: Workspace, scenario: Scenario, current: str | None,
                   form: ItemForm[Any] | None, *, listing: bool) -> dict[str, Any]:
    """The scenario list, one scenario's form and what the built-ins make of it (a
    scenario is its own preview: `scenario` is not used)."""
    if form is None:
        form = saved_scenario(workspace.scenarios_by_name[current]) if current \
            else blank_scenario(workspace)
    return {
        "items": workspace.scenarios,
        "current": current,
        "form": form,
        "errors": form.errors,
        "triggers": workspace.triggers,
        "providers": PROVIDERS,
        "outputs": [] if form.errors else builtin_outputs(workspace, current, form.item),
    }


#: What uses an item, listed before it is deleted (`no_uses`: nothing names a scenario).
Uses = Callable[[Workspace, str], list[Use]]


def no_uses(_workspace: Workspace, _name: str) -> list[Use]:
    return []
