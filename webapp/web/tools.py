"""The Tools page: an agent's mock tools, their JSON results and what the default format
makes of them, and the skills and bindings that use each tool.

JSON fields are checked as the author types (`tool_preview`, an htmx POST that saves
nothing); a save with invalid JSON is a 422 with the line and column, and nothing is
written. Renaming a tool takes the bindings and skills that use it along.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import (
    Tool,
    ToolResult,
    Use,
    Variable,
    Workspace,
    call_binding,
    dump_tool,
    tool_uses,
)
from webapp.render import highlight_markdown_lines, markdown_to_html

from .forms import request_data
from .responses import done, page_or_fragment
from .workspace import (
    Errors,
    FieldError,
    check_item,
    json_field,
    load_workspace,
    original_name,
    rename_message,
    replace_in,
    scenario_for,
    text_field,
    write_form,
)

bp = Blueprint("tools", __name__)

JSON_FIELDS = ("result", "results_by_args")


@dataclass
class ToolForm:
    """A tool as submitted: the draft, the raw text of each field (shown back as typed),
    and the errors."""

    tool: Tool
    texts: dict[str, str]
    errors: Errors = field(default_factory=dict)

    def store_fields(self) -> dict[str, Any]:
        return dump_tool(self.tool)


@dataclass(frozen=True, slots=True)
class Output:
    """What a binding with default settings makes of one result: markdown and its HTML."""

    label: str
    text: str
    html: Any
    source: list[Any]
    problems: tuple[Any, ...]


@bp.get("/agents/<agent>/tools")
def index(agent: str) -> Response:
    """The tool list and a form for a new tool."""
    workspace = load_workspace(agent)
    return tools_response(agent, workspace, None, blank_form())


@bp.get("/agents/<agent>/tools/<path:name>")
def edit(agent: str, name: str) -> Response:
    """One tool's form, its preview and its users."""
    row = store.get_tool(get_session(), agent, name)
    workspace = load_workspace(agent)
    return tools_response(agent, workspace, row.name, saved_form(workspace.tools_by_name[name]))


@bp.post("/agents/<agent>/tool-preview")
def preview(agent: str) -> Response:
    """Check the submitted tool and preview it; nothing is saved."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    original = original_name(data, agent, store.get_tool)
    form = parse_tool_form(data, workspace, original, from_form=from_form)
    return tools_response(agent, workspace, original, form, fragment="_tool_preview.html")


@bp.post("/agents/<agent>/tools")
def create(agent: str) -> Response:
    """Add a tool; 422 with the reasons (and nothing saved) when a field is not valid."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    form = parse_tool_form(data, workspace, None, from_form=from_form)
    if not write_form(form, store.create_tool, agent, **form.store_fields()):
        return tools_response(agent, workspace, None, form)
    return done(f"Created the tool {form.tool.name}.",
                url_for("tools.edit", agent=agent, name=form.tool.name))


@bp.post("/agents/<agent>/tools/<path:name>")
def update(agent: str, name: str) -> Response:
    """Save a tool; a new name also renames it in the bindings and skills that use it."""
    store.get_tool(get_session(), agent, name)
    data, from_form = request_data()
    workspace = load_workspace(agent)
    form = parse_tool_form(data, workspace, name, from_form=from_form)
    fields = form.store_fields()
    new = fields.pop("name")
    renamed = write_form(form, store.rename_tool, agent, name, new, **fields)
    if renamed is None:
        return tools_response(agent, workspace, name, form)
    return done(f"Saved the tool {new}." + rename_message(renamed),
                url_for("tools.edit", agent=agent, name=new))


@bp.get("/agents/<agent>/tools/<path:name>/delete")
def confirm_delete(agent: str, name: str) -> Response:
    """Ask before deleting, listing what uses the tool."""
    store.get_tool(get_session(), agent, name)
    workspace = load_workspace(agent)
    return page_or_fragment("tools_delete.html", "_tool_delete.html", agent=agent, name=name,
                            uses=tool_uses(workspace, name))


@bp.post("/agents/<agent>/tools/<path:name>/delete")
def delete(agent: str, name: str) -> Response:
    """Delete the tool (bindings that call it then report `missing-tool`)."""
    store.delete_tool(get_session(), agent, name)
    return done(f"Deleted the tool {name}.", url_for("tools.index", agent=agent))


# -- helpers


def blank_form() -> ToolForm:
    default = {"success": True, "content": ""}
    return ToolForm(Tool(name="", result=default),
                    {"name": "", "description": "", "result": _dump(default),
                     "results_by_args": "[]"})


def saved_form(tool: Tool) -> ToolForm:
    by_args = [{"args": r.args, "result": r.result} for r in tool.results_by_args]
    return ToolForm(tool, {"name": tool.name, "description": tool.description,
                           "result": _dump(tool.result), "results_by_args": _dump(by_args)})


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


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
    return ToolForm(tool, {k: v if v is not None else shown[k] for k, v in texts.items()},
                    errors)


def outputs(workspace: Workspace, original: str | None, tool: Tool) -> list[Output]:
    """What a binding with default settings gives for the default result and each args entry.

    A mock tool's answer does not depend on the scenario; the first one stands in.
    """
    name = tool.name or "new_tool"
    draft = Tool(name, tool.description, tool.result, tool.results_by_args)
    workspace = replace_in(workspace, "tools", original, draft)
    scenario = scenario_for(workspace, None)
    calls = [("Default result", None)] + [
        (f"args {json.dumps(entry.args, ensure_ascii=False)}", entry.args)
        for entry in tool.results_by_args]
    result = []
    for label, args in calls:
        text, problems = call_binding(workspace, scenario,
                                      Variable(name=name, tool=name, args=args))
        result.append(Output(label, text, markdown_to_html(text),
                             highlight_markdown_lines(text), problems))
    return result


def tools_response(agent: str, workspace: Workspace, current: str | None, form: ToolForm, *,
                   fragment: str = "_tools.html") -> Response:
    """Render the tools page (or a fragment); errors make it a 422."""
    uses: list[Use] = tool_uses(workspace, current) if current else []
    context = {
        "agent": agent,
        "tools": workspace.tools,
        "current": current,
        "form": form,
        "errors": form.errors,
        "outputs": outputs(workspace, current, form.tool) if "result" not in form.errors
        else [],
        "uses": uses,
        "uses_by_tool": {t.name: len(tool_uses(workspace, t.name)) for t in workspace.tools},
    }
    return page_or_fragment("tools.html", fragment, 422 if form.errors else 200, **context)
