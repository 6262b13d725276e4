"""The Variables page: the bindings table, each row's live output, usage, unknown names,
unused bindings, and every way a binding can be refused."""

from __future__ import annotations

import json

import pytest

from tests.support.pages import HTMX, executable_markup, is_page, starts_with
from tests.support.xss import CORPUS, XSS
from webapp import store
from webapp.schema import db

VARIABLES = "/agents/Simon/variables"
PREVIEW = "/agents/Simon/variable-preview"
RELAY = "/agents/Relay%20Watch/variables"


@pytest.fixture
def variable(app):
    """Read a binding as saved now: `variable(agent, name)` -> store row."""

    def read(agent: str, name: str):
        with app.app_context():
            return store.get_variable(db.get_session(), agent, name)

    return read


def row(csrf: str, **fields) -> dict:
    data = {"csrf_token": csrf, "original": "", "scenario": "", "name": "npub_text",
            "tool": "agent_identity", "args": "", "result_field": "", "path": "npub",
            "format": "text", "limit": ""}
    data.update(fields)
    return data


# -- the page


def test_page_and_fragment(client, simon):
    page = client.get(VARIABLES)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert '<form id="variable-agent_npub"' in html and '<form id="new-variable"' in html
    # Each binding's output for the default scenario, as source and rendered.
    assert "<code>npub1kfc89dlu9m05tvfnry4l3jjacqpp930sz4kaghcmg9vrrrceg44qf80xae</code>" in html
    assert '<option value="inline_code" selected>inline_code</option>' in html
    # The skills that use each binding.
    used_by = '<a href="/agents/Simon/skills/identity"><code>identity</code></a>'
    assert f"Used by\n        {used_by}" in html
    assert "HX-Request" in page.headers["Vary"]
    fragment = client.get(VARIABLES, headers=HTMX)
    assert not is_page(fragment) and starts_with(fragment, b'<div id="variables"')


def test_format_select_offers_every_formatter(client, simon):
    from webapp.pipeline import FORMATTERS

    html = client.get(VARIABLES).data.decode()
    for name in FORMATTERS:
        assert f'<option value="{name}"' in html


def test_one_binding_page_and_row_fragment(client, simon):
    page = client.get(f"{VARIABLES}/agent_npub")
    assert is_page(page) and b'class="binding-row focus"' in page.data
    fragment = client.get(f"{VARIABLES}/agent_npub", headers=HTMX)
    assert starts_with(fragment, b'<form id="variable-agent_npub"')


def test_output_follows_the_selected_scenario(client, relay_watch, csrf):
    data = row(csrf, name="incoming", tool="message", path="", format="")
    assert client.post(RELAY, data=data).status_code == 303
    default = client.get(RELAY).data.decode()  # nightly relay check: no message
    assert "Empty text for the scenario <strong>nightly relay check</strong>" in default
    chosen = client.get(f"{RELAY}?scenario=admin+asks+about+latency", headers=HTMX)
    assert starts_with(chosen, b'<div id="variables"')
    assert "Is damus slow again?" in chosen.data.decode()


def test_unknown_scenario_is_422(client, simon):
    response = client.get(f"{VARIABLES}?scenario=nope")
    assert response.status_code == 422
    assert b"no scenario named" in response.data


def test_unknown_variables_with_suggestions_and_unused_bindings(client, relay_watch):
    html = client.get(RELAY).data.decode()
    unknown = html[html.index('id="unknown-variables"'):html.index('id="unused-variables"')]
    assert "relay-check:16" in unknown
    assert "did you mean `admin_notes`" in unknown
    assert "in nightly relay check" in unknown
    assert 'href="/agents/Relay%20Watch/skills/relay-check#L16"' in unknown
    unused = html[html.index('id="unused-variables"'):]
    assert '<a href="#variable-admin_notes"><code>admin_notes</code></a>' in unused
    assert "<code>agent_npub</code>" not in unused


def test_nothing_unknown_and_nothing_unused(client, simon):
    html = client.get(VARIABLES).data.decode()
    assert "resolves." in html and "Every binding is used." in html


# -- the live preview of a row


def test_row_preview_fragment(client, simon, csrf):
    response = client.post(PREVIEW, headers=HTMX, data=row(csrf))
    assert response.status_code == 200 and starts_with(response, b'<div class="binding-output"')
    assert b"npub1kfc89dlu9m05tvfnry4l3jjacqpp930sz4kaghcmg9vrrrceg44qf80xae" in response.data
    edited = client.post(PREVIEW, headers=HTMX, data=row(
        csrf, original="agent_npub", name="agent_npub", path="", format="json_block"))
    assert b"```json" in edited.data and b"pubkey" in edited.data


def test_row_preview_reports_tool_errors(client, simon, csrf):
    html = client.post(PREVIEW, headers=HTMX, data=row(csrf, path="nope")).data.decode()
    assert "tool-error" in html and "the path <code>nope</code> does not exist" in html


def test_row_preview_without_javascript_is_the_whole_page(client, simon, csrf):
    response = client.post(PREVIEW, data=row(csrf, original="agent_npub", name="agent_npub",
                                             format="json_block", path=""))
    assert response.status_code == 200 and is_page(response)
    assert '<option value="json_block" selected>' in response.data.decode()


@pytest.mark.parametrize("fields, field, reason", [
    ({"args": '{"a": 1,}'}, "args", "invalid JSON at line 1, column 9"),
    ({"tool": "no_such_tool"}, "tool", "no mock tool or built-in tool is named"),
    ({"format": "fancy"}, "format", "unknown format"),
    ({"limit": "many"}, "limit", "must be a whole number"),
    ({"limit": "-1"}, "limit", "must be at least 0"),
    ({"name": "two words"}, "name", "must not contain whitespace or braces"),
    ({"name": "agent_npub"}, "name", "a binding named &#39;agent_npub&#39; already exists"),
    ({"tool": ""}, "tool", "must not be empty"),
])
def test_bad_fields_preview_422_and_create_nothing(client, simon, csrf, fields, field, reason):
    response = client.post(PREVIEW, headers=HTMX, data=row(csrf, **fields))
    assert response.status_code == 422
    html = response.data.decode()
    assert f'data-field-error="{field}"' in html and reason in html
    created = client.post(VARIABLES, data=row(csrf, **fields))
    assert created.status_code == 422 and is_page(created)
    assert f"<strong>{field}</strong>" in created.data.decode()
    with client.application.app_context():
        names = [v.name for v in store.list_variables(db.get_session(), "Simon")]
    assert names == ["agent_profile", "agent_npub"]


# -- create, update, rename, delete


def test_create_binding(client, simon, csrf, variable):
    response = client.post(VARIABLES, data=row(csrf))
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{VARIABLES}#variable-npub_text")
    saved = variable("Simon", "npub_text")
    assert (saved.tool, saved.path, saved.format, saved.args, saved.result_field) == (
        "agent_identity", "npub", "text", None, "content")
    html = client.get(VARIABLES).data.decode()
    assert "Created the binding npub_text." in html
    assert '<a href="#variable-npub_text"><code>npub_text</code></a>' in html  # unused yet


@pytest.mark.parametrize("tool", ["message_current", "message", "dm_history", "trigger_event",
                                  "triggering_event", "tool_list"])
def test_built_in_tools_are_accepted(client, simon, csrf, variable, tool):
    response = client.post(VARIABLES, data=row(csrf, name="b", tool=tool, path="", format=""))
    assert response.status_code == 303
    assert variable("Simon", "b").tool == tool


def test_create_from_a_json_body(client, simon, csrf, variable):
    body = {"name": "probe", "tool": "agent_identity", "args": {"x": [1, 2]}, "limit": 3}
    response = client.post(VARIABLES, json=body, headers={"X-CSRFToken": csrf})
    assert response.status_code == 303
    saved = variable("Simon", "probe")
    assert saved.args == {"x": [1, 2]} and saved.limit == 3


def test_unknown_tool_in_a_json_body_is_422(client, simon, csrf):
    response = client.post(VARIABLES, json={"name": "x", "tool": "agent_identiti"},
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 422
    assert b"<strong>tool</strong>" in response.data


def test_update_binding(client, simon, csrf, variable):
    data = row(csrf, original="agent_npub", name="agent_npub", path="", format="json_block",
               args='{"who": "me"}', limit="2")
    response = client.post(f"{VARIABLES}/agent_npub", data=data)
    assert response.status_code == 303
    saved = variable("Simon", "agent_npub")
    assert (saved.format, saved.args, saved.limit, saved.path) == (
        "json_block", {"who": "me"}, 2, None)


def test_update_with_unknown_tool_is_422_and_changes_nothing(client, simon, csrf, variable):
    data = row(csrf, original="agent_npub", name="agent_npub", tool="agent_identty")
    response = client.post(f"{VARIABLES}/agent_npub", data=data)
    assert response.status_code == 422
    html = response.data.decode()
    assert "<strong>tool</strong>: no mock tool or built-in tool is named" in html
    assert 'value="agent_identty"' in html and 'aria-invalid="true"' in html  # kept, marked
    assert variable("Simon", "agent_npub").tool == "agent_identity"


def test_rename_updates_the_skills_that_use_it(client, simon, csrf, variable, app):
    data = row(csrf, original="agent_npub", name="npub", path="npub", format="inline_code")
    response = client.post(f"{VARIABLES}/agent_npub", data=data)
    assert response.status_code == 303
    assert variable("Simon", "npub").tool == "agent_identity"
    with app.app_context():
        content = store.get_skill(db.get_session(), simon, "identity").content
    assert "{{npub}}" in content and "{{agent_npub}}" not in content
    html = client.get(VARIABLES).data.decode()
    assert "Renamed it in skill identity." in html
    assert "Every binding is used." in html


def test_delete_asks_first(client, simon, csrf, variable):
    ask = client.get(f"{VARIABLES}/agent_npub/delete")
    assert ask.status_code == 200 and is_page(ask)
    assert "Delete the binding <code>agent_npub</code>?" in ask.data.decode()
    assert "skill <code>identity</code>" in ask.data.decode()
    assert starts_with(client.get(f"{VARIABLES}/agent_npub/delete", headers=HTMX),
                       b'<section id="confirm-delete"')
    variable("Simon", "agent_npub")
    response = client.post(f"{VARIABLES}/agent_npub/delete", data={"csrf_token": csrf})
    assert response.status_code == 303
    with pytest.raises(store.NotFound):
        variable("Simon", "agent_npub")
    # The skill now uses a name that resolves to nothing.
    html = client.get(VARIABLES).data.decode()
    assert "`{{agent_npub}}` matches no skill" in html


# -- errors


@pytest.mark.parametrize("method, url", [
    ("get", f"{VARIABLES}/nope"),
    ("get", f"{VARIABLES}/nope/delete"),
    ("post", f"{VARIABLES}/nope"),
    ("post", f"{VARIABLES}/nope/delete"),
    ("get", "/agents/Nobody/variables"),
    ("post", "/agents/Nobody/variable-preview"),
])
def test_missing_entries_are_404(client, simon, csrf, method, url):
    response = getattr(client, method)(url, data=row(csrf) if method == "post" else None)
    assert response.status_code == 404
    assert b"Traceback" not in response.data


def test_preview_of_a_missing_binding_is_404(client, simon, csrf):
    response = client.post(PREVIEW, data=row(csrf, original="nope"), headers=HTMX)
    assert response.status_code == 404


@pytest.mark.parametrize("url", [VARIABLES, f"{VARIABLES}/agent_npub",
                                 f"{VARIABLES}/agent_npub/delete", PREVIEW])
def test_csrf_failure_changes_nothing(client, simon, variable, url):
    data = row("forged", original="agent_npub", name="agent_npub", tool="message")
    response = client.post(url, data=data)
    assert response.status_code == 400
    assert variable("Simon", "agent_npub").tool == "agent_identity"


# -- untrusted text


def test_hostile_outputs_reach_nothing_executable(client, simon, csrf, app):
    with app.app_context():
        session = db.get_session()
        store.create_tool(session, simon, "evil", description=CORPUS, result={
            "success": True, "content": json.dumps({"html": XSS, "nested": {"<b>k</b>": CORPUS}})})
        store.update_scenario(session, simon, "admin asks about mentions", message=CORPUS)
        row_ = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=row_.version,
                         content=row_.content + "\n{{<img/src=x/onerror=alert(1)>}}\n")
    for fields in ({"tool": "evil", "format": ""}, {"tool": "evil", "format": "json_block"},
                   {"tool": "message", "format": "text"}, {"tool": "evil", "format": "list"}):
        assert client.post(VARIABLES, data=row(csrf, name=fields["format"] + fields["tool"],
                                               path="", **fields)).status_code == 303
    for headers in ({}, HTMX):
        html = client.get(VARIABLES, headers=headers).data.decode()
        assert executable_markup(html) == []
        assert "&lt;script&gt;alert(" in html  # shown as text
    preview = client.post(PREVIEW, headers=HTMX, data=row(csrf, tool="evil", path="", format=""))
    assert executable_markup(preview.data.decode()) == []
    bad = client.post(VARIABLES, data=row(csrf, name='"><script>alert(1)</script>',
                                          tool="<img src=x onerror=alert(1)>"))
    assert bad.status_code == 422
    assert executable_markup(bad.data.decode()) == []
