"""The Scenarios page: list, edit, the live check of history and event, create, rename,
delete, the link to the agent preview, and every error path."""

from __future__ import annotations

import json

import pytest

from tests.support.pages import HTMX, executable_markup, is_page, starts_with
from tests.support.xss import CORPUS, XSS
from webapp import store
from webapp.schema import db

SCENARIOS = "/agents/Simon/scenarios"
MENTIONS = f"{SCENARIOS}/admin%20asks%20about%20mentions"
CHECK = "/agents/Simon/scenario-check"
HISTORY = [{"role": "user", "content": "Hello", "created_at": 1},
           {"role": "assistant", "content": "Hi, admin.", "created_at": 2}]


@pytest.fixture
def scenario(app):
    """Read a scenario as saved now: `scenario(agent, name)` -> store row."""

    def read(agent: str, name: str):
        with app.app_context():
            return store.get_scenario(db.get_session(), agent, name)

    return read


def form(csrf: str, **fields) -> dict:
    data = {"csrf_token": csrf, "original": "", "name": "cron run", "trigger": "cron",
            "message": "", "history": json.dumps(HISTORY),
            "event": json.dumps({"kind": 1, "content": "tick"}), "provider": "openai"}
    data.update(fields)
    return data


# -- pages and fragments


def test_index_page_and_fragment(client, simon):
    page = client.get(SCENARIOS)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert "New scenario" in html and "admin asks about mentions" in html
    assert 'href="/agents/Simon/preview?scenario=admin+asks+about+mentions"' in html
    fragment = client.get(SCENARIOS, headers=HTMX)
    assert starts_with(fragment, b'<div id="scenarios"')


def test_edit_page_shows_fields_and_the_preview_link(client, simon):
    page = client.get(MENTIONS)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert "Hey Simon, who mentioned me on Nostr today?</textarea>" in html
    assert "&#34;Good morning&#34;" in html  # the history, as JSON
    assert ">Preview this scenario</a>" in html
    # What the built-ins make of the history.
    assert "## Conversation History" in html.replace('<span class="gh">', "").replace(
        "</span>", "")
    assert starts_with(client.get(MENTIONS, headers=HTMX), b'<div id="scenarios"')


def test_preview_this_scenario_opens_the_agent_preview(client, simon):
    response = client.get("/agents/Simon/preview?scenario=admin+asks+about+mentions")
    assert response.status_code == 200
    assert b"Hey Simon, who mentioned me on Nostr today?" in response.data


# -- the live check


def test_check_fragment(client, simon, csrf):
    response = client.post(CHECK, headers=HTMX, data=form(csrf))
    assert response.status_code == 200 and starts_with(response, b'<section id="scenario-check"')
    html = response.data.decode()
    assert "Hi, admin." in html and "Triggering event:" in html


def test_check_without_javascript_is_the_whole_page(client, simon, csrf):
    response = client.post(CHECK, data=form(csrf, original="admin asks about mentions",
                                            name="admin asks about mentions"))
    assert response.status_code == 200 and is_page(response)
    assert b'<section id="scenario-check"' in response.data


def test_a_refused_save_from_htmx_gets_the_fragment(client, simon, csrf):
    response = client.post(SCENARIOS, data=form(csrf, history="[1,"), headers=HTMX)
    assert response.status_code == 422
    assert starts_with(response, b'<div id="scenarios"')


@pytest.mark.parametrize("field, text, where", [
    ("history", '[\n  {"role": "user", "content": "hi"}\n  {"role": "user"}\n]',
     "line 3, column 3"),
    ("event", '{"kind": 1', "line 1, column 11"),
])
def test_bad_json_names_line_and_column(client, simon, csrf, scenario, field, text, where):
    response = client.post(CHECK, headers=HTMX, data=form(csrf, **{field: text}))
    assert response.status_code == 422
    html = response.data.decode()
    assert f"invalid JSON at {where}" in html
    line, column = where.removeprefix("line ").split(", column ")
    assert f'data-goto-field="{field}" data-line="{line}" data-column="{column}"' in html
    saved = client.post(MENTIONS, data=form(csrf, name="admin asks about mentions",
                                            **{field: text}))
    assert saved.status_code == 422 and is_page(saved)
    assert text.replace('"', "&#34;") in saved.data.decode()  # the author's text is kept
    assert scenario("Simon", "admin asks about mentions").trigger == "dm"


@pytest.mark.parametrize("fields, field, reason", [
    ({"history": '{"role": "user"}'}, "history", "must be an array"),
    ({"history": '[{"role": "robot", "content": "x"}]'}, "history",
     "must be one of user, assistant"),
    ({"history": '[{"content": "x"}]'}, "history", "history[0].role: is required"),
    ({"history": '[{"role": "user", "content": 5}]'}, "history", "must be a string"),
    ({"name": ""}, "name", "must not be empty"),
    ({"name": "admin asks about mentions"}, "name", "already exists"),
    ({"trigger": "  "}, "trigger", "must not be empty"),
])
def test_bad_fields_are_422_and_create_nothing(client, simon, csrf, fields, field, reason):
    check = client.post(CHECK, headers=HTMX, data=form(csrf, **fields))
    assert check.status_code == 422 and reason in check.data.decode()
    response = client.post(SCENARIOS, data=form(csrf, **fields))
    assert response.status_code == 422
    assert f"<strong>{field}</strong>" in response.data.decode()
    with client.application.app_context():
        names = [s.name for s in store.list_scenarios(db.get_session(), "Simon")]
    assert names == ["admin asks about mentions"]


# -- create, update, delete


def test_create_scenario(client, simon, csrf, scenario):
    response = client.post(SCENARIOS, data=form(csrf))
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{SCENARIOS}/cron%20run")
    saved = scenario("Simon", "cron run")
    assert (saved.trigger, saved.provider, saved.event) == ("cron", "openai",
                                                           {"kind": 1, "content": "tick"})
    assert saved.history == HISTORY
    assert "Created the scenario cron run." in client.get(f"{SCENARIOS}/cron%20run").data.decode()


def test_blank_event_and_history_and_provider(client, simon, csrf, scenario):
    client.post(SCENARIOS, data=form(csrf, history="", event="  ", provider=""))
    saved = scenario("Simon", "cron run")
    assert (saved.history, saved.event, saved.provider) == ([], None, None)


def test_create_from_a_json_body(client, simon, csrf, scenario):
    body = {"name": "api", "trigger": "dm", "message": "Hi", "history": HISTORY,
            "event": {"a": 1}}
    response = client.post(SCENARIOS, json=body, headers={"X-CSRFToken": csrf})
    assert response.status_code == 303
    assert scenario("Simon", "api").event == {"a": 1}


def test_update_and_rename(client, simon, csrf, scenario):
    data = form(csrf, original="admin asks about mentions", name="mentions", trigger="dm",
                message="Anything new?", provider="anthropic")
    response = client.post(MENTIONS, data=data)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{SCENARIOS}/mentions")
    saved = scenario("Simon", "mentions")
    assert (saved.message, saved.provider) == ("Anything new?", "anthropic")
    preview = client.get("/agents/Simon/preview?scenario=mentions").data.decode()
    assert "Anything new?" in preview


def test_delete_asks_first(client, simon, csrf, scenario):
    ask = client.get(f"{MENTIONS}/delete")
    assert ask.status_code == 200 and is_page(ask)
    assert "Delete the scenario <code>admin asks about mentions</code>?" in ask.data.decode()
    assert starts_with(client.get(f"{MENTIONS}/delete", headers=HTMX),
                       b'<section id="confirm-delete"')
    scenario("Simon", "admin asks about mentions")
    response = client.post(f"{MENTIONS}/delete", data={"csrf_token": csrf})
    assert response.status_code == 303 and response.headers["Location"].endswith(SCENARIOS)
    with pytest.raises(store.NotFound):
        scenario("Simon", "admin asks about mentions")


# -- errors


@pytest.mark.parametrize("method, url", [
    ("get", f"{SCENARIOS}/nope"),
    ("get", f"{SCENARIOS}/nope/delete"),
    ("post", f"{SCENARIOS}/nope"),
    ("post", f"{SCENARIOS}/nope/delete"),
    ("get", "/agents/Nobody/scenarios"),
    ("post", "/agents/Nobody/scenario-check"),
])
def test_missing_entries_are_404(client, simon, csrf, method, url):
    response = getattr(client, method)(url, data=form(csrf) if method == "post" else None)
    assert response.status_code == 404
    assert b"Traceback" not in response.data


def test_check_of_a_missing_scenario_is_404(client, simon, csrf):
    response = client.post(CHECK, data=form(csrf, original="nope"), headers=HTMX)
    assert response.status_code == 404


@pytest.mark.parametrize("url", [SCENARIOS, MENTIONS, f"{MENTIONS}/delete", CHECK])
def test_csrf_failure_changes_nothing(client, simon, scenario, url):
    response = client.post(url, data=form("forged", name="admin asks about mentions"))
    assert response.status_code == 400
    assert scenario("Simon", "admin asks about mentions").trigger == "dm"


# -- untrusted text


def test_hostile_messages_history_and_event_reach_nothing_executable(client, simon, csrf):
    history = [{"role": role, "content": payload}
               for role, payload in zip(["user", "assistant"] * len(XSS), XSS, strict=False)]
    data = form(csrf, name="<img src=x onerror=alert('name')>", trigger="dm", message=CORPUS,
                history=json.dumps(history), event=json.dumps({"content": XSS, "x": CORPUS}),
                provider="<script>alert(1)</script>")
    for headers in ({}, HTMX):
        assert executable_markup(client.post(CHECK, data=data, headers=headers)
                                 .data.decode()) == []
    response = client.post(SCENARIOS, data=data)
    assert response.status_code == 303
    location = response.headers["Location"]
    for url in (location, SCENARIOS, f"{location}/delete"):
        html = client.get(url).data.decode()
        assert executable_markup(html) == []
    html = client.get(location).data.decode()
    assert "&lt;script&gt;alert(&#39;script&#39;)&lt;/script&gt;" in html  # the message, as text
    # The agent preview of that scenario, every tab.
    from urllib.parse import quote

    preview = client.get(f"/agents/Simon/preview?scenario={quote(data['name'])}")
    assert preview.status_code == 200
    assert executable_markup(preview.data.decode()) == []
