"""The item pages' shape: one blueprint serves tools, bindings and scenarios with the same
views, each kind a configuration; and their view data is built without an app."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.support.pages import HTMX
from tests.support.workspaces import RELAY_WATCH, SIMON
from webapp.pipeline import load_bundle
from webapp.views import items as item_views
from webapp.web import items

#: Every route of the item pages, written out: (method, path, endpoint).
ROUTES = [
    ("GET", "/agents/<agent>/tools", "tools.index"),
    ("GET", "/agents/<agent>/tools/<path:name>", "tools.edit"),
    ("POST", "/agents/<agent>/tool-preview", "tools.preview"),
    ("POST", "/agents/<agent>/tools", "tools.create"),
    ("POST", "/agents/<agent>/tools/<path:name>", "tools.update"),
    ("GET", "/agents/<agent>/tools/<path:name>/delete", "tools.confirm_delete"),
    ("POST", "/agents/<agent>/tools/<path:name>/delete", "tools.delete"),
    ("GET", "/agents/<agent>/variables", "variables.index"),
    ("GET", "/agents/<agent>/variables/<path:name>", "variables.show"),
    ("POST", "/agents/<agent>/variable-preview", "variables.preview"),
    ("POST", "/agents/<agent>/variables", "variables.create"),
    ("POST", "/agents/<agent>/variables/<path:name>", "variables.update"),
    ("GET", "/agents/<agent>/variables/<path:name>/delete", "variables.confirm_delete"),
    ("POST", "/agents/<agent>/variables/<path:name>/delete", "variables.delete"),
    ("GET", "/agents/<agent>/scenarios", "scenarios.index"),
    ("GET", "/agents/<agent>/scenarios/<path:name>", "scenarios.edit"),
    ("POST", "/agents/<agent>/scenario-check", "scenarios.check"),
    ("POST", "/agents/<agent>/scenarios", "scenarios.create"),
    ("POST", "/agents/<agent>/scenarios/<path:name>", "scenarios.update"),
    ("GET", "/agents/<agent>/scenarios/<path:name>/delete", "scenarios.confirm_delete"),
    ("POST", "/agents/<agent>/scenarios/<path:name>/delete", "scenarios.delete"),
]


def test_the_item_routes_are_these_and_no_others(app):
    served = {(method, rule.rule, rule.endpoint) for rule in app.url_map.iter_rules()
              if rule.endpoint.split(".")[0] in items.KINDS
              for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert served == set(ROUTES)


def test_every_kind_is_served_by_the_same_views(app):
    views = {}
    for _, _, endpoint in ROUTES:
        kind, name = endpoint.split(".")
        # A kind's own word for one item or its check is the same view as the others'.
        role = {"edit": "show", "check": "preview"}.get(name, name)
        views.setdefault(role, set()).add(app.view_functions[endpoint])
    assert len(views) == 7
    assert all(len(functions) == 1 for functions in views.values())
    assert {f.__module__ for fs in views.values() for f in fs} == {"webapp.web.items"}


@pytest.mark.parametrize(("kind", "name"), [
    ("tools", "agent_identity"), ("scenarios", load_bundle(SIMON).scenarios[0].name)])
def test_an_item_s_delete_page_goes_back_to_it(client, simon, kind, name):
    name = quote(name)
    html = client.get(f"/agents/Simon/{kind}/{name}/delete").data.decode()
    assert f'<a class="button" href="/agents/Simon/{kind}/{name}">Cancel</a>' in html
    fragment = client.get(f"/agents/Simon/{kind}/{name}/delete", headers=HTMX)
    assert fragment.data.lstrip().startswith(b'<section id="confirm-delete"')


def test_a_binding_s_delete_page_goes_back_to_its_row(client, simon):
    html = client.get("/agents/Simon/variables/agent_npub/delete").data.decode()
    assert 'href="/agents/Simon/variables#variable-agent_npub">Cancel</a>' in html
    assert "<span>delete agent_npub</span>" in html


def test_every_whole_page_of_bindings_reports_the_names_resolving_to_nothing(
        client, relay_watch, csrf):
    row = "/agents/Relay%20Watch/variables/agent_npub"
    draft = {"csrf_token": csrf, "original": "agent_npub", "name": "agent_npub",
             "tool": "nostr_agent_profile"}
    for response in (client.get("/agents/Relay%20Watch/variables"), client.get(row),
                     client.post("/agents/Relay%20Watch/variable-preview", data=draft)):
        assert response.status_code == 200
        assert "<code class=\"code\">unknown-variable</code>" in response.data.decode()
    # The row alone, asked on each keystroke, does not assemble every scenario.
    assert b'id="unknown-variables"' not in client.get(row, headers=HTMX).data


# -- view data, without an app


def test_a_tool_draft_is_checked_and_previewed_without_an_app():
    workspace = load_bundle(SIMON)
    data = {"name": "weather", "result": json.dumps({"success": True, "content": "Sun."}),
            "results_by_args": "[1, 2"}
    form = item_views.parse_tool(data, workspace, None, from_form=True)
    assert str(form.errors["results_by_args"]).startswith("invalid JSON at line 1, column 6")
    assert form.texts["results_by_args"] == "[1, 2"  # kept as typed
    page = item_views.tools_page(workspace, workspace.scenarios[0], None, form, listing=True)
    assert [o.label for o in page["outputs"]] == ["Default result"]
    assert page["outputs"][0].text == "Sun."


def test_a_binding_draft_takes_the_place_of_its_row_without_an_app():
    workspace = load_bundle(RELAY_WATCH)
    saved = workspace.variables[0]
    draft = item_views.parse_variable({"tool": "no_such_tool"}, workspace, saved.name,
                                      from_form=True)
    assert "no mock tool or built-in tool is named 'no_such_tool'" in str(draft.errors["tool"])
    page = item_views.variables_page(workspace, workspace.scenarios[0], saved.name, draft,
                                     listing=False)
    assert page["row"].original == saved.name and page["row"].form is draft
    assert [r.original for r in page["rows"]] == [v.name for v in workspace.variables]
    assert page["new_row"].form.texts["name"] == "" and page["errors"] is draft.errors
    assert page["unknown"] == []  # only the listing assembles every scenario for its report
    listing = item_views.variables_page(workspace, workspace.scenarios[0], None, None,
                                        listing=True)
    assert listing["unknown"] and listing["errors"] == {}


def test_a_scenario_draft_shows_what_the_built_ins_make_of_it_without_an_app():
    workspace = load_bundle(SIMON)
    data = {"name": "new", "trigger": "dm", "message": "hi",
            "history": json.dumps([{"role": "user", "content": "earlier"}]), "event": ""}
    form = item_views.parse_scenario(data, workspace, None, from_form=True)
    assert form.errors == {}
    page = item_views.scenarios_page(workspace, workspace.scenarios[0], None, form,
                                     listing=True)
    shown = dict(page["outputs"])
    assert set(shown) == set(item_views.SHOWN_BUILTINS)
    assert "earlier" in "\n".join(str(line) for line in shown["dm_history"])
