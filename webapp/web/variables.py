"""The Variables page: the bindings table with each binding's output for a scenario, the
skills that use each binding, the `{{names}}` that resolve to nothing, and the bindings
no skill uses.

Each row is its own form: typing in it previews that row (an htmx POST that saves
nothing), Save writes it. A binding whose tool is neither a mock tool nor a built-in is
refused with a 422 naming `tool`, though a bundle may hold one (it then reports
`missing-tool`): on this page it is almost always a typo.
"""

from __future__ import annotations

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import FORMATTERS, Scenario, Workspace, unknown_variables, variable_uses

from .forms import request_data
from .responses import done, page_or_fragment
from .variable_views import (
    Row,
    VariableForm,
    blank_form,
    known_tools,
    make_row,
    parse_variable_form,
    saved_form,
)
from .workspace import (
    load_workspace,
    optional_text,
    original_name,
    rename_message,
    scenario_for,
    write_form,
)

bp = Blueprint("variables", __name__)


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
    return done(f"Created the binding {form.item.name}.",
                row_url(agent, workspace, scenario, form.item.name))


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



def row_url(agent: str, workspace: Workspace, scenario: Scenario, name: str) -> str:
    """The table's URL for `scenario`, scrolled to the binding's row."""
    args = scenario_args(workspace, scenario)
    return url_for("variables.index", agent=agent, **args) + f"#variable-{name}"


def scenario_args(workspace: Workspace, scenario: Scenario) -> dict[str, str]:
    """The scenario as a query argument, left out for the default (first) one."""
    if workspace.scenarios and scenario.name != workspace.scenarios[0].name:
        return {"scenario": scenario.name}
    return {}


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
