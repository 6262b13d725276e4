"""The Tools page: an agent's mock tools, their JSON results and what the default format
makes of them, and the skills and bindings that use each tool.

JSON fields are checked as the author types (`tool_preview`, an htmx POST that saves
nothing); a save with invalid JSON is a 422 with the line and column, and nothing is
written. Renaming a tool takes the bindings and skills that use it along.
"""

from __future__ import annotations

from flask import Blueprint, Response, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import Use, Workspace, tool_uses

from .forms import request_data
from .responses import done, page_or_fragment
from .tool_views import ToolForm, blank_form, left_out, outputs, parse_tool_form, saved_form
from .workspace import load_workspace, original_name, rename_message, write_form

bp = Blueprint("tools", __name__)


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
    return done(f"Created the tool {form.item.name}.",
                url_for("tools.edit", agent=agent, name=form.item.name))


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
        "outputs": outputs(workspace, current, form.item) if "result" not in form.errors
        else [],
        "outputs_left": left_out(form.item),
        "uses": uses,
        "uses_by_tool": {t.name: len(tool_uses(workspace, t.name)) for t in workspace.tools},
    }
    return page_or_fragment("tools.html", fragment, 422 if form.errors else 200, **context)
