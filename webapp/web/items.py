"""The item pages: an agent's mock tools, variable bindings and scenarios, served by one
blueprint registered once per kind, the way datasette serves every table with one view.

A kind (`KINDS`) is a configuration: its URL words, the store functions it calls, how
its form is read and what its page shows (`webapp.views.items`), its labels and templates. The
blueprint is registered under the kind's name, so the endpoints are `tools.index`,
`variables.show`, `scenarios.check`...; each kind has the same seven routes:

- the listing, and one item (for bindings, a row of the listing's table);
- the check of a draft, an htmx POST on each edit that saves nothing;
- create and update: a field that is not valid (invalid JSON with its line and column,
  a name taken, a rule of the bundle) is a 422 showing the form as typed, and nothing is
  written; a new name also renames a tool or binding where it is used (`store.renames`);
- delete, after a page that lists what uses the item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Flask, Response, abort, request, url_for
from flask.sansio.blueprints import BlueprintSetupState

from webapp import store
from webapp.pipeline import Scenario, Workspace, tool_uses, variable_uses
from webapp.schema.db import get_session
from webapp.views import items as views
from webapp.views.item_forms import (
    FieldError,
    ItemForm,
    optional_text,
    rename_message,
    store_errors,
    text_field,
)

from .access import AUTHOR, VIEWER, requires
from .forms import load_workspace, request_data
from .responses import done, page_or_fragment, wants_fragment

bp = Blueprint("items", __name__)


def _save_scenario(session: Any, agent: str, name: str, new_name: str, /,
                   **changes: Any) -> store.RenamedItem:
    """Save a scenario under `new_name`: nothing else names a scenario, so a rename is
    the scenario's alone."""
    return store.RenamedItem(store.update_scenario(session, agent, name, name=new_name,
                                                   **changes))


@dataclass(frozen=True)
class Kind:
    """One kind of item and how its pages differ from the others'."""

    name: str  #: URL word, endpoint prefix and `Workspace` section: `tools`
    noun: str  #: in flashes: "Created the tool weather."
    item_endpoint: str  #: the route of one item: `edit`, or `show` for a table's row
    check_rule: str  #: the draft check's URL word: `tool-preview`
    check_endpoint: str
    get: Callable[..., Any]  #: the store's `get_tool`...: a missing name is a 404
    create: Callable[..., Any]
    save: Callable[..., store.RenamedItem]  #: (session, agent, name, new_name, **fields)
    delete: Callable[..., None]
    parse: views.Parse
    page: views.Page
    uses: views.Uses  #: listed before a delete
    check_fragment: str  #: what the check answers an htmx request with
    #: A table of rows edited in place (bindings), whose previews follow the scenario
    #: of `?scenario=`; else a list beside one item's form.
    table: bool = False
    #: The listing's fragment and the one an item's page answers htmx with.
    listing: str = "_items.html"
    item_fragment: str = "_items.html"
    #: Words and ids the shared templates show, and the kind's own templates they include
    #: (`entry`: an item's line in the list; `form`: extends `_item_form.html`).
    labels: Mapping[str, str] = field(default_factory=dict)


KINDS = {kind.name: kind for kind in (
    Kind(name="tools", noun="tool", item_endpoint="edit",
         check_rule="tool-preview", check_endpoint="preview",
         get=store.get_tool, create=store.create_tool, save=store.rename_tool,
         delete=store.delete_tool, parse=views.parse_tool, page=views.tools_page,
         uses=tool_uses, check_fragment="_tool_preview.html",
         labels={"title": "Tools", "delete": "mock tool", "list": "Mock tools",
                 "list_id": "tool-list", "empty": "No mock tools yet.", "new": "New tool",
                 "heading": "New mock tool", "form_id": "tool-form",
                 "check": "Check and preview", "check_id": "tool-preview",
                 "entry": "_tool_entry.html", "form": "_tool_form.html"}),
    Kind(name="variables", noun="binding", item_endpoint="show",
         check_rule="variable-preview", check_endpoint="preview",
         get=store.get_variable, create=store.create_variable, save=store.rename_variable,
         delete=store.delete_variable, parse=views.parse_variable, page=views.variables_page,
         uses=variable_uses, check_fragment="_variable_output.html",
         table=True, listing="_variables.html", item_fragment="_variable_row.html",
         labels={"title": "Variables", "delete": "binding", "row_id": "variable-"}),
    Kind(name="scenarios", noun="scenario", item_endpoint="edit",
         check_rule="scenario-check", check_endpoint="check",
         get=store.get_scenario, create=store.create_scenario, save=_save_scenario,
         delete=store.delete_scenario, parse=views.parse_scenario, page=views.scenarios_page,
         uses=views.no_uses, check_fragment="_scenario_check.html",
         labels={"title": "Scenarios", "delete": "scenario", "list": "Scenarios",
                 "list_note": "the first is the default", "list_id": "scenario-list",
                 "empty": "No scenarios yet.", "new": "New scenario",
                 "heading": "New scenario", "form_id": "scenario-form", "check": "Check",
                 "check_id": "scenario-check", "entry": "_scenario_entry.html",
                 "form": "_scenario_form.html"}),
)}


def register(app: Flask) -> None:
    """Register the blueprint once per kind, under the kind's name."""
    for name in KINDS:
        app.register_blueprint(bp, name=name)


@bp.record
def _add_routes(state: BlueprintSetupState) -> None:
    """The kind's seven routes (the views find their kind by the blueprint's name)."""
    kind = KINDS[state.name]
    base, item = f"/agents/<agent>/{kind.name}", f"/agents/<agent>/{kind.name}/<path:name>"
    for rule, endpoint, view, method in (
            (base, "index", index, "GET"),
            (item, kind.item_endpoint, show, "GET"),
            (f"/agents/<agent>/{kind.check_rule}", kind.check_endpoint, check, "POST"),
            (base, "create", create, "POST"),
            (item, "update", update, "POST"),
            (f"{item}/delete", "confirm_delete", confirm_delete, "GET"),
            (f"{item}/delete", "delete", delete, "POST")):
        state.add_url_rule(rule, endpoint, view, methods=[method])


def this_kind() -> Kind:
    """The kind of this request's route: the name its blueprint is registered under."""
    return KINDS[request.blueprint or ""]


@requires(VIEWER)
def index(agent: str) -> Response:
    """The listing and a form for a new item."""
    workspace = load_workspace(agent)
    kind = this_kind()
    return item_response(kind, agent, workspace, picked(kind, workspace), None)


@requires(VIEWER)
def show(agent: str, name: str) -> Response:
    """One item's form, preview and users (for a table, its row, or the page with the row
    marked)."""
    config = this_kind()
    config.get(get_session(), agent, name)
    workspace = load_workspace(agent)
    return item_response(config, agent, workspace, picked(config, workspace), name,
                         fragment=config.item_fragment)


@requires(VIEWER)
def check(agent: str) -> Response:
    """Check the submitted draft and preview it; nothing is saved."""
    config = this_kind()
    data, from_form = request_data()
    workspace = load_workspace(agent)
    original = original_name(data, agent, config.get)
    scenario = picked(config, workspace, data)
    form = config.parse(data, workspace, original, from_form=from_form)
    return item_response(config, agent, workspace, scenario, original, form,
                         fragment=config.check_fragment)


@requires(AUTHOR)
def create(agent: str) -> Response:
    """Add an item; 422 with the reasons (and nothing saved) when a field is not valid."""
    config = this_kind()
    data, from_form = request_data()
    workspace = load_workspace(agent)
    scenario = picked(config, workspace, data)
    form = config.parse(data, workspace, None, from_form=from_form)
    if not write_form(form, config.create, agent, **form.store_fields()):
        return item_response(config, agent, workspace, scenario, None, form)
    return done(f"Created the {config.noun} {form.item.name}.",
                item_url(config, agent, workspace, scenario, form.item.name))


@requires(AUTHOR)
def update(agent: str, name: str) -> Response:
    """Save an item; a new name also renames it where it is used."""
    config = this_kind()
    config.get(get_session(), agent, name)
    data, from_form = request_data()
    workspace = load_workspace(agent)
    scenario = picked(config, workspace, data)
    form = config.parse(data, workspace, name, from_form=from_form)
    fields = form.store_fields()
    new = fields.pop("name")
    renamed = write_form(form, config.save, agent, name, new, **fields)
    if renamed is None:
        return item_response(config, agent, workspace, scenario, name, form)
    return done(f"Saved the {config.noun} {new}." + rename_message(renamed),
                item_url(config, agent, workspace, scenario, new))


@requires(AUTHOR)
def confirm_delete(agent: str, name: str) -> Response:
    """Ask before deleting, listing what uses the item."""
    config = this_kind()
    config.get(get_session(), agent, name)
    workspace = load_workspace(agent)
    back = item_url(config, agent, workspace, scenario_for(workspace, None), name)
    return page_or_fragment("items_delete.html", "_item_delete.html", kind=config,
                            agent=agent, name=name, back=back,
                            uses=config.uses(workspace, name))


@requires(AUTHOR)
def delete(agent: str, name: str) -> Response:
    """Delete the item; what used it then reports it missing (`missing-tool`,
    `unknown-variable`); a scenario's context-log entries stay."""
    config = this_kind()
    config.delete(get_session(), agent, name)
    return done(f"Deleted the {config.noun} {name}.", url_for(".index", agent=agent))


def picked(kind: Kind, workspace: Workspace, data: Mapping[str, Any] | None = None
           ) -> Scenario:
    """The scenario previews run on: for a table, the one the query (or the submitted
    form) names; else the default one."""
    if not kind.table:
        return scenario_for(workspace, None)
    if data is None:
        return scenario_for(workspace, request.args.get("scenario"))
    return scenario_for(workspace, optional_text(data, "scenario"))


def item_url(kind: Kind, agent: str, workspace: Workspace, scenario: Scenario,
             name: str) -> str:
    """Where an item is shown: its page, or for a table its row, in the listing for
    `scenario`."""
    if kind.table:
        args = views.scenario_args(workspace, scenario)
        return url_for(".index", agent=agent, **args) + f"#{kind.labels['row_id']}{name}"
    return url_for(f".{kind.item_endpoint}", agent=agent, name=name)


def item_response(kind: Kind, agent: str, workspace: Workspace, scenario: Scenario,
                  current: str | None, form: ItemForm[Any] | None = None, *,
                  fragment: str | None = None) -> Response:
    """Render the kind's page (or `fragment`, by default the listing's); a draft with
    errors makes it a 422."""
    fragment = fragment or kind.listing
    # A whole page holds the listing even when an htmx request would get a row or a check.
    listing = fragment == kind.listing or not wants_fragment()
    context = kind.page(workspace, scenario, current, form, listing=listing)
    status = 422 if form is not None and form.errors else 200
    return page_or_fragment("items.html", fragment, status, kind=kind, agent=agent, **context)


def original_name(data: Mapping[str, Any], agent: str, get: Callable[..., Any]) -> str | None:
    """The saved name a submitted draft edits (None for a new item); `get` (the store's
    `get_tool`, ...) makes a name that is gone a 404."""
    original = text_field(data, "original") or None
    if original is not None:
        get(get_session(), agent, original)
    return original


def write_form(form: Any, write: Callable[..., Any], agent: str, *args: Any,
               **fields: Any) -> Any:
    """Call the store's `write(session, agent, *args, **fields)` unless `form` has errors
    already, and return what it returns; a `store.ValidationError` becomes field errors,
    and a rename that met a skill saved meanwhile an error on `name`. None (and
    `form.errors` set) when nothing was written."""
    if form.errors:
        return None
    try:
        return write(get_session(), agent, *args, **fields)
    except store.ValidationError as exc:
        form.errors.update(store_errors(exc))
    except store.Conflict as exc:
        form.errors["name"] = FieldError(
            f"not renamed: skill {exc.d_tag} was saved meanwhile, and nothing was changed; "
            "save again")
    return None


def scenario_for(workspace: Workspace, name: str | None) -> Scenario:
    """The named scenario, the first one when no name is given, or a blank stand-in."""
    if name:
        if name not in workspace.scenarios_by_name:
            abort(422, description=f"scenario: no scenario named {name!r}")
        return workspace.scenarios_by_name[name]
    return workspace.scenarios[0] if workspace.scenarios else Scenario(name="(no scenario)")
