"""What the Tools page shows of a tool: the form as submitted (checked with the store's
rules, the text of each field kept as typed) and what a binding with default settings
makes of each of its results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.pipeline import (
    LISTED_PER_KIND,
    Tool,
    ToolResult,
    Variable,
    Workspace,
    call_binding,
    dumps_json,
)
from webapp.render import highlight_markdown_lines, markdown_to_html

from .workspace import (
    Errors,
    FieldError,
    ItemForm,
    check_item,
    json_field,
    json_text,
    replace_in,
    scenario_for,
    text_field,
)

JSON_FIELDS = ("result", "results_by_args")


ToolForm = ItemForm[Tool]


@dataclass(frozen=True, slots=True)
class Output:
    """What a binding with default settings makes of one result: markdown and its HTML."""

    label: str
    text: str
    html: Any
    source: list[Any]
    problems: tuple[Any, ...]


def blank_form() -> ToolForm:
    default = {"success": True, "content": ""}
    return ItemForm(Tool(name="", result=default),
                    {"name": "", "description": "", "result": json_text(default),
                     "results_by_args": "[]"})


def saved_form(tool: Tool) -> ToolForm:
    by_args = [{"args": r.args, "result": r.result} for r in tool.results_by_args]
    return ItemForm(tool, {"name": tool.name, "description": tool.description,
                           "result": json_text(tool.result), "results_by_args": json_text(by_args)})


def parse_tool_form(data: Any, workspace: Workspace, original: str | None, *,
                    from_form: bool) -> ToolForm:
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
             for key in ("name", "description", *JSON_FIELDS)}
    shown = saved_form(tool).texts
    return ItemForm(tool, {k: v if v is not None else shown[k] for k, v in texts.items()},
                    errors)


def outputs(workspace: Workspace, original: str | None, tool: Tool) -> list[Output]:
    """What a binding with default settings gives for the default result and the first
    `LISTED_PER_KIND` args entries (`left_out` counts the others).

    A mock tool's answer does not depend on the scenario; the first one stands in.
    """
    name = tool.name or "new_tool"
    draft = Tool(name, tool.description, tool.result, tool.results_by_args)
    workspace = replace_in(workspace, "tools", original, draft)
    scenario = scenario_for(workspace, None)
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
    """How many of the tool's results by args its preview does not show (`outputs`)."""
    return max(0, len(tool.results_by_args) - LISTED_PER_KIND)
