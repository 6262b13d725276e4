"""The Variables page: the bindings table with each binding's output for a scenario, the
skills that use each binding, the `{{names}}` that resolve to nothing, and the bindings
no skill uses.

Each row is its own form: typing in it previews that row (an htmx POST that saves
nothing), Save writes it. A binding whose tool is neither a mock tool nor a built-in is
refused with a 422 naming `tool`, though a bundle may hold one (it then reports
`missing-tool`): on this page it is almost always a typo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import (
    BUILTIN_TOOL_NAMES,
    FORMATTERS,
    Scenario,
    Use,
    Variable,
    Workspace,
    call_binding,
    dump_variable,
    unknown_variables,
    variable_uses,
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
    optional_text,
    original_name,
    rename_message,
    replace_in,
    scenario_for,
    text_field,
    write_form,
)

bp = Blueprint("variables", __name__)

FIELDS = ("name", "tool", "args", "result_field", "path", "format", "limit")


@dataclass
class VariableForm:
    """A binding as submitted, the raw text of each field, and the errors."""

    variable: Variable
    texts: dict[str, str]
    errors: Errors = field(default_factory=dict)

    def store_fields(self) -> dict[str, Any]:
        return dump_variable(self.variable)


@dataclass
class Row:
    """One row of the table: the form, what the binding gives for the scenario, its users."""

    original: str | None
    form: VariableForm
    text: str = ""
    html: Any = ""
    source: list[Any] = field(default_factory=list)
    problems: tuple[Any, ...] = ()
    uses: list[Use] = field(default_factory=list)

    @property
    def errors(self) -> Errors:
        return self.form.errors


@bp.get("/agents/<agent>/variables")
def index(agent: str) -> Response:
    """The bindings table, the unknown `{{names}}` and the unused bindings."""
    workspace = load_workspace(agent)
    scenario = scenario_for(workspace, request.args.get("scenario"))
    return variables_response(agent, workspace, scenario)


@bp.get("/agents/<agent>/variables/<path:name>")
def show(agent: str, name: str) -> Response:
    """One binding: its row for htmx, else the whole page with the row marked."""
    store.get_variable(get_session(), agent, name)
    workspace = load_workspace(agent)
    scenario = scenario_for(workspace, request.args.get("scenario"))
    return variables_response(agent, workspace, scenario, focus=name,
                              fragment="_variable_row.html")


@bp.post("/agents/<agent>/variable-preview")
def preview(agent: str) -> Response:
    """The submitted row's output for the scenario; nothing is saved."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    original = original_name(data, agent, store.get_variable)
    scenario = scenario_for(workspace, optional_text(data, "scenario"))
    form = parse_variable_form(data, workspace, original, from_form=from_form)
    return variables_response(agent, workspace, scenario, draft=(original, form),
                              focus=original, fragment="_variable_output.html")


@bp.post("/agents/<agent>/variables")
def create(agent: str) -> Response:
    """Add a binding; 422 with the reasons (and nothing saved) when a field is not valid."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    scenario = scenario_for(workspace, optional_text(data, "scenario"))
    form = parse_variable_form(data, workspace, None, from_form=from_form)
    if not write_form(form, store.create_variable, agent, **form.store_fields()):
        return variables_response(agent, workspace, scenario, draft=(None, form))
    return done(f"Created the binding {form.variable.name}.",
                row_url(agent, workspace, scenario, form.variable.name))


@bp.post("/agents/<agent>/variables/<path:name>")
def update(agent: str, name: str) -> Response:
    """Save a binding; a new name is also written into the skills that use it."""
    store.get_variable(get_session(), agent, name)
    data, from_form = request_data()
    workspace = load_workspace(agent)
    scenario = scenario_for(workspace, optional_text(data, "scenario"))
    form = parse_variable_form(data, workspace, name, from_form=from_form)
    fields = form.store_fields()
    new = fields.pop("name")
    renamed = write_form(form, store.rename_variable, agent, name, new, **fields)
    if renamed is None:
        return variables_response(agent, workspace, scenario, draft=(name, form), focus=name)
    return done(f"Saved the binding {new}." + rename_message(renamed),
                row_url(agent, workspace, scenario, new))


@bp.get("/agents/<agent>/variables/<path:name>/delete")
def confirm_delete(agent: str, name: str) -> Response:
    """Ask before deleting, listing the skills that use the binding."""
    store.get_variable(get_session(), agent, name)
    workspace = load_workspace(agent)
    return page_or_fragment("variables_delete.html", "_variable_delete.html", agent=agent,
                            name=name, uses=variable_uses(workspace, name))


@bp.post("/agents/<agent>/variables/<path:name>/delete")
def delete(agent: str, name: str) -> Response:
    """Delete the binding (skills that use it then get `unknown-variable`)."""
    store.delete_variable(get_session(), agent, name)
    return done(f"Deleted the binding {name}.", url_for("variables.index", agent=agent))


# -- helpers


def row_url(agent: str, workspace: Workspace, scenario: Scenario, name: str) -> str:
    """The table's URL for `scenario`, scrolled to the binding's row."""
    args = scenario_args(workspace, scenario)
    return url_for("variables.index", agent=agent, **args) + f"#variable-{name}"


def scenario_args(workspace: Workspace, scenario: Scenario) -> dict[str, str]:
    """The scenario as a query argument, left out for the default (first) one."""
    if workspace.scenarios and scenario.name != workspace.scenarios[0].name:
        return {"scenario": scenario.name}
    return {}


def known_tools(workspace: Workspace) -> list[str]:
    return [*workspace.tools_by_name, *BUILTIN_TOOL_NAMES]


def saved_form(variable: Variable) -> VariableForm:
    texts = {
        "name": variable.name, "tool": variable.tool,
        "args": "" if variable.args is None else json.dumps(variable.args, ensure_ascii=False),
        "result_field": variable.result_field, "path": variable.path or "",
        "format": variable.format or "",
        "limit": "" if variable.limit is None else str(variable.limit),
    }
    return VariableForm(variable, texts)


def blank_form() -> VariableForm:
    form = saved_form(Variable(name="", tool=""))
    form.texts["result_field"] = ""
    return form


def parse_variable_form(data: Any, workspace: Workspace, original: str | None, *,
                        from_form: bool) -> VariableForm:
    """Read and check a binding: bundle rules, a known tool and format, a unique name."""
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
            try:
                limit = int(limit)
            except ValueError:
                errors["limit"] = FieldError(f"must be a whole number, not {limit!r}")
                limit = None
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
    texts = saved_form(variable).texts
    if from_form:
        texts.update({key: text_field(data, key) for key in FIELDS if key in data})
    return VariableForm(variable, texts, errors)


def make_row(workspace: Workspace, scenario: Scenario, original: str | None,
             form: VariableForm) -> Row:
    """A table row: the binding's output for `scenario` (unless its fields are invalid)."""
    row = Row(original, form, uses=variable_uses(workspace, original) if original else [])
    if form.errors:
        return row
    variable = form.variable
    draft = Variable(variable.name or "new_variable", variable.tool, variable.args,
                     variable.result_field, variable.path, variable.format, variable.limit)
    text, problems = call_binding(replace_in(workspace, "variables", original, draft),
                                  scenario, draft)
    row.text, row.problems = text, problems
    row.html, row.source = markdown_to_html(text), highlight_markdown_lines(text)
    return row


def variables_response(agent: str, workspace: Workspace, scenario: Scenario, *,
                       draft: tuple[str | None, VariableForm] | None = None,
                       focus: str | None = None, fragment: str = "_variables.html") -> Response:
    """Render the page (or a fragment) with every row; a draft with errors makes it a 422."""
    draft_name, draft_form = draft if draft else (None, None)
    rows = []
    for variable in workspace.variables:
        if draft_form is not None and draft_name == variable.name:
            rows.append(make_row(workspace, scenario, variable.name, draft_form))
        else:
            rows.append(make_row(workspace, scenario, variable.name, saved_form(variable)))
    new_form = draft_form if draft_form is not None and draft_name is None else blank_form()
    new_row = make_row(workspace, scenario, None, new_form) if new_form is draft_form else Row(
        None, new_form)
    focused = next((r for r in rows if r.original == focus), new_row)
    errors = draft_form.errors if draft_form is not None else {}
    context = {
        "agent": agent,
        "rows": rows,
        "new_row": new_row,
        "row": focused,
        "focus": focus,
        "scenario": scenario,
        "scenarios": [sc.name for sc in workspace.scenarios],
        "scenario_args": scenario_args(workspace, scenario),
        "tool_names": known_tools(workspace),
        "formats": sorted(FORMATTERS),
        # Assembling every scenario is only worth it where the report is shown.
        "unknown": unknown_variables(workspace) if fragment == "_variables.html" else [],
        "unused": [r.original for r in rows if not r.uses],
        "shadowed": [v.name for v in workspace.variables if v.name in workspace.skills_by_tag],
    }
    return page_or_fragment("variables.html", fragment, 422 if errors else 200, **context)
