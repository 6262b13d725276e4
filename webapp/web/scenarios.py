"""The Scenarios page: the sample inputs a preview runs on — trigger, incoming message, DM
history, triggering event and provider — each one a link to the whole-agent preview.

History and event are JSON, checked as the author types (`check`, an htmx POST that
saves nothing) with what the `dm_history` and `trigger_event` built-ins make of them; a
save with invalid JSON is a 422 with the line and column, and nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import HistoryEntry, Scenario, Variable, Workspace, call_binding, dump_scenario
from webapp.render import highlight_markdown_lines

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
    replace_in,
    text_field,
    write_form,
)

bp = Blueprint("scenarios", __name__)

#: What the check shows: the built-ins a skill would use to put these fields in its text.
SHOWN_BUILTINS = ("dm_history", "trigger_event")
PROVIDERS = ("openai", "anthropic")


@dataclass
class ScenarioForm:
    """A scenario as submitted, the raw text of each field, and the errors."""

    scenario: Scenario
    texts: dict[str, str]
    errors: Errors = field(default_factory=dict)

    def store_fields(self) -> dict[str, Any]:
        return dump_scenario(self.scenario)


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
    return done(f"Created the scenario {form.scenario.name}.",
                url_for("scenarios.edit", agent=agent, name=form.scenario.name))


@bp.post("/agents/<agent>/scenarios/<path:name>")
def update(agent: str, name: str) -> Response:
    """Save a scenario (a new name renames it)."""
    store.get_scenario(get_session(), agent, name)
    data, from_form = request_data()
    workspace = load_workspace(agent)
    form = parse_scenario_form(data, workspace, name, from_form=from_form)
    if not write_form(form, store.update_scenario, agent, name, **form.store_fields()):
        return scenarios_response(agent, workspace, name, form)
    return done(f"Saved the scenario {form.scenario.name}.",
                url_for("scenarios.edit", agent=agent, name=form.scenario.name))


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


# -- helpers


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _history(entries: Any) -> list[dict[str, Any]]:
    return [{"role": h.role, "content": h.content, "created_at": h.created_at}
            if isinstance(h, HistoryEntry) else h for h in entries]


def saved_form(scenario: Scenario) -> ScenarioForm:
    texts = {"name": scenario.name, "trigger": scenario.trigger, "message": scenario.message,
             "history": _dump(_history(scenario.history)),
             "event": "" if scenario.event is None else _dump(scenario.event),
             "provider": scenario.provider or ""}
    return ScenarioForm(scenario, texts)


def blank_form(workspace: Workspace) -> ScenarioForm:
    trigger = workspace.triggers[0] if workspace.triggers else "dm"
    return saved_form(Scenario(name="", trigger=trigger))


def parse_scenario_form(data: Any, workspace: Workspace, original: str | None, *,
                        from_form: bool) -> ScenarioForm:
    """Read and check a scenario with the bundle's rules; names must stay unique."""
    errors: Errors = {}
    saved = workspace.scenarios_by_name.get(original or "") or Scenario(name="")
    name = text_field(data, "name", saved.name).strip()
    trigger = text_field(data, "trigger", saved.trigger).strip()
    message = text_field(data, "message", saved.message)
    history = json_field(data, "history", errors, default=[], from_form=from_form) if (
        "history" in data) else _history(saved.history)
    event = json_field(data, "event", errors, from_form=from_form) if "event" in data else (
        saved.event)
    provider = optional_text(data, "provider") if "provider" in data else saved.provider
    item = {"name": name, "trigger": trigger, "message": message, "history": history,
            "event": event, "provider": provider}
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
                        event=event, provider=provider)
    texts = saved_form(scenario).texts
    if from_form:
        texts.update({key: text_field(data, key) for key in texts if key in data})
    return ScenarioForm(scenario, texts, errors)


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
        "outputs": [] if form.errors else builtin_outputs(workspace, current, form.scenario),
    }
    return page_or_fragment("scenarios.html", fragment, 422 if form.errors else 200, **context)
