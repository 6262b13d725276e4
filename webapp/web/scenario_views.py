"""What the Scenarios page shows of a scenario: the form as submitted (checked with the
store's rules, each field's text kept as typed) and what the `dm_history` and
`trigger_event` built-ins make of its history and event."""

from __future__ import annotations

from typing import Any

from webapp.pipeline import HistoryEntry, Scenario, Variable, Workspace, call_binding
from webapp.render import highlight_markdown_lines

from .workspace import (
    Errors,
    FieldError,
    ItemForm,
    check_item,
    json_field,
    json_text,
    optional_text,
    replace_in,
    text_field,
)

#: What the check shows: the built-ins a skill would use to put these fields in its text.
SHOWN_BUILTINS = ("dm_history", "trigger_event")


ScenarioForm = ItemForm[Scenario]


def _history(entries: Any) -> list[dict[str, Any]]:
    return [{"role": h.role, "content": h.content, "created_at": h.created_at}
            if isinstance(h, HistoryEntry) else h for h in entries]


def saved_form(scenario: Scenario) -> ScenarioForm:
    texts = {"name": scenario.name, "trigger": scenario.trigger, "message": scenario.message,
             "history": json_text(_history(scenario.history)),
             "event": "" if scenario.event is None else json_text(scenario.event),
             "provider": scenario.provider or ""}
    return ItemForm(scenario, texts)


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
