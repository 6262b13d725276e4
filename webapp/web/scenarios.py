"""The Scenarios page: the sample inputs a preview runs on — trigger, incoming message, DM
history, triggering event and provider — each one a link to the whole-agent preview.

History and event are JSON, checked as the author types (`check`, an htmx POST that
saves nothing) with what the `dm_history` and `trigger_event` built-ins make of them; a
save with invalid JSON is a 422 with the line and column, and nothing is written.
"""

from __future__ import annotations

from flask import Blueprint, Response, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import Workspace

from .forms import request_data
from .responses import done, page_or_fragment
from .scenario_views import (
    ScenarioForm,
    blank_form,
    builtin_outputs,
    parse_scenario_form,
    saved_form,
)
from .workspace import load_workspace, original_name, write_form

bp = Blueprint("scenarios", __name__)

PROVIDERS = ("openai", "anthropic")


@bp.get("/agents/<agent>/scenarios")
def index(agent: str) -> Response:
    """The scenario list and a form for a new scenario."""
    workspace = load_workspace(agent)
    return scenarios_response(agent, workspace, None, blank_form(workspace))


@bp.get("/agents/<agent>/scenarios/<path:name>")
def edit(agent: str, name: str) -> Response:
    """One scenario's form."""
    store.get_scenario(get_session(), agent, name)
    workspace = load_workspace(agent)
    return scenarios_response(agent, workspace, name,
                              saved_form(workspace.scenarios_by_name[name]))


@bp.post("/agents/<agent>/scenario-check")
def check(agent: str) -> Response:
    """Check the submitted scenario and show what its history and event become; no save."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    original = original_name(data, agent, store.get_scenario)
    form = parse_scenario_form(data, workspace, original, from_form=from_form)
    return scenarios_response(agent, workspace, original, form,
                              fragment="_scenario_check.html")


@bp.post("/agents/<agent>/scenarios")
def create(agent: str) -> Response:
    """Add a scenario; 422 with the reasons (and nothing saved) when a field is not valid."""
    data, from_form = request_data()
    workspace = load_workspace(agent)
    form = parse_scenario_form(data, workspace, None, from_form=from_form)
    if not write_form(form, store.create_scenario, agent, **form.store_fields()):
        return scenarios_response(agent, workspace, None, form)
    return done(f"Created the scenario {form.item.name}.",
                url_for("scenarios.edit", agent=agent, name=form.item.name))


@bp.post("/agents/<agent>/scenarios/<path:name>")
def update(agent: str, name: str) -> Response:
    """Save a scenario (a new name renames it)."""
    store.get_scenario(get_session(), agent, name)
    data, from_form = request_data()
    workspace = load_workspace(agent)
    form = parse_scenario_form(data, workspace, name, from_form=from_form)
    if not write_form(form, store.update_scenario, agent, name, **form.store_fields()):
        return scenarios_response(agent, workspace, name, form)
    return done(f"Saved the scenario {form.item.name}.",
                url_for("scenarios.edit", agent=agent, name=form.item.name))


@bp.get("/agents/<agent>/scenarios/<path:name>/delete")
def confirm_delete(agent: str, name: str) -> Response:
    """Ask before deleting."""
    store.get_scenario(get_session(), agent, name)
    return page_or_fragment("scenarios_delete.html", "_scenario_delete.html", agent=agent,
                            name=name, uses=[])


@bp.post("/agents/<agent>/scenarios/<path:name>/delete")
def delete(agent: str, name: str) -> Response:
    """Delete the scenario (its context-log entries stay)."""
    store.delete_scenario(get_session(), agent, name)
    return done(f"Deleted the scenario {name}.", url_for("scenarios.index", agent=agent))



def scenarios_response(agent: str, workspace: Workspace, current: str | None,
                       form: ScenarioForm, *, fragment: str = "_scenarios.html") -> Response:
    """Render the scenarios page (or a fragment); errors make it a 422."""
    context = {
        "agent": agent,
        "scenarios": workspace.scenarios,
        "current": current,
        "form": form,
        "errors": form.errors,
        "triggers": workspace.triggers,
        "providers": PROVIDERS,
        "outputs": [] if form.errors else builtin_outputs(workspace, current, form.item),
    }
    return page_or_fragment("scenarios.html", fragment, 422 if form.errors else 200, **context)
