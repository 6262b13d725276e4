"""The whole-agent preview: the editor's tabs for a scenario, the log, and the comparison
of two scenarios or two triggers."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX, executable_markup, is_page, starts_with
from webapp import store
from webapp.schema import db

PREVIEW = "/agents/Simon/preview"
COMPARE = "/agents/Simon/preview/compare"
RELAY = "/agents/Relay%20Watch/preview"


# -- the preview


def test_page_has_the_editors_tabs(client, simon):
    page = client.get(PREVIEW)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    for tab in ("document", "messages", "log", "problems"):
        assert f'data-tab-button="{tab}"' in html and f'data-panel="{tab}"' in html
    assert 'id="scenario-picker"' in html  # the editor's picker
    assert "Simon — Didactyl Agent</h1>" in html  # rendered document
    assert "Hey Simon, who mentioned me on Nostr today?" in html
    assert 'id="body-openai"' in html and 'id="body-anthropic"' in html
    assert "&lt;!-- context-log:" in html  # the log entry, verbatim
    # The source view links every line to the skill line it came from.
    assert 'href="/agents/Simon/skills/chat#L2"' in html
    assert "HX-Request" in page.headers["Vary"]


def test_fragment(client, simon):
    fragment = client.get(PREVIEW, headers=HTMX)
    assert fragment.status_code == 200 and starts_with(fragment, b'<section id="agent-preview"')


def test_history_restore_gets_the_whole_page(client, simon):
    response = client.get(PREVIEW, headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert is_page(response)


def test_overrides_of_the_picker(client, relay_watch):
    html = client.get(f"{RELAY}?scenario=admin+asks+about+latency&message=Is+nos.lol+up%3F"
                      "&provider=openai", headers=HTMX).data.decode()
    assert "Is nos.lol up?" in html
    # provider=openai: the anthropic-only section text is not used.
    assert "Reply in plain sentences." in html and "no XML tags" not in html
    cron = client.get(f"{RELAY}?scenario=admin+asks+about+latency&trigger=cron").data.decode()
    assert "Scheduled relay check" in cron


def test_problems_tab(client, relay_watch):
    html = client.get(f"{RELAY}?scenario=nightly+relay+check").data.decode()
    assert "unknown-variable" in html and "did you mean `admin_notes`" in html
    assert 'href="/agents/Relay%20Watch/skills/relay-check?scenario=nightly+relay+check#L16"' \
        not in html  # the default scenario is left out of links
    assert 'href="/agents/Relay%20Watch/skills/relay-check#L16"' in html


def test_unknown_scenario_is_422_with_the_reason(client, simon):
    response = client.get(f"{PREVIEW}?scenario=nope")
    assert response.status_code == 422
    assert b"no scenario named" in response.data


def test_agent_without_scenarios(client, app):
    with app.app_context():
        store.create_agent(db.get_session(), "Empty")
    response = client.get("/agents/Empty/preview")
    assert response.status_code == 200
    assert b"no-skills" in response.data or b"no messages" in response.data


def test_append_to_the_log(client, simon, csrf, app):
    data = {"csrf_token": csrf, "scenario": "admin asks about mentions", "message": "Logged?"}
    fragment = client.post(f"{PREVIEW}/log", data=data, headers=HTMX)
    assert fragment.status_code == 200 and starts_with(fragment, b'<span id="log-status"')
    assert b"Appended at" in fragment.data
    page = client.post(f"{PREVIEW}/log", data=data)
    assert page.status_code == 303 and "message=Logged" in page.headers["Location"]
    with app.app_context():
        entries = store.list_log(db.get_session(), "Simon")
    assert len(entries) == 2 and "Logged?" in entries[0].document
    assert entries[0].scenario == "admin asks about mentions"


def test_append_to_the_log_refuses_bad_input_and_forgeries(client, simon, csrf, app):
    assert client.post(f"{PREVIEW}/log", data={"csrf_token": csrf, "scenario": "nope"}
                       ).status_code == 422
    assert client.post(f"{PREVIEW}/log", data={"csrf_token": "forged"}).status_code == 400
    assert client.post("/agents/Nobody/preview/log", data={"csrf_token": csrf}
                       ).status_code == 404
    with app.app_context():
        assert store.list_log(db.get_session(), "Simon") == []


@pytest.mark.parametrize("url", ["/agents/Nobody/preview", "/agents/Nobody/preview/compare"])
def test_missing_agent_is_404(client, simon, url):
    response = client.get(url)
    assert response.status_code == 404 and b"Traceback" not in response.data


# -- the comparison


def test_compare_two_scenarios(client, relay_watch):
    page = client.get(f"{RELAY}/compare")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    # By default the first scenario against the second.
    assert ('Left: <span class="muted">nightly relay check</span> · trigger '
            '<strong>cron</strong>') in html
    assert ('Right: <span class="muted">admin asks about latency</span> · trigger '
            '<strong>dm</strong>') in html
    assert 'class="diff diff-split"' in html and 'class="diff diff-unified"' in html
    assert 'data-diff-view="split"' in html
    assert '<td class="code line-del">' in html and '<td class="code line-add">' in html
    # Problems that only one side has.
    assert "Problems only here:" in html and "section-skipped" in html
    fragment = client.get(f"{RELAY}/compare", headers=HTMX)
    assert starts_with(fragment, b'<section id="compare"')


def test_compare_two_triggers_of_one_scenario(client, relay_watch):
    url = (f"{RELAY}/compare?a=admin+asks+about+latency&a_trigger=dm"
           "&b=admin+asks+about+latency&b_trigger=cron")
    html = client.get(url, headers=HTMX).data.decode()
    assert "trigger <strong>dm</strong>" in html and "trigger <strong>cron</strong>" in html
    # Only the cron side has the relay-check skill: an added line, its words marked.
    assert '<span class="word-changed">Scheduled</span>' in html


def test_compare_the_same_thing(client, simon):
    html = client.get(f"{COMPARE}?a=admin+asks+about+mentions&b=admin+asks+about+mentions"
                      ).data.decode()
    assert "The two documents are the same." in html
    assert "The two message lists are the same." in html


def test_compare_with_an_unknown_scenario_is_422(client, simon):
    response = client.get(f"{COMPARE}?b=nope")
    assert response.status_code == 422
    assert b"<strong>b</strong>: no scenario named" in response.data


# -- untrusted text


def test_every_tab_and_the_comparison_are_safe(client, mallory, csrf):  # noqa: F811
    for headers in ({}, HTMX):
        for url in ("/agents/Mallory/preview", "/agents/Mallory/preview/compare",
                    ("/agents/Mallory/preview?trigger=%3Cscript%3Ealert(1)%3C/script%3E"
                     "&message=%3Cimg%20src=x%20onerror=alert(1)%3E")):
            response = client.get(url, headers=headers)
            assert response.status_code == 200
            assert executable_markup(response.data.decode()) == [], url
    logged = client.post("/agents/Mallory/preview/log", headers=HTMX,
                         data={"csrf_token": csrf, "message": "<script>alert(1)</script>"})
    assert executable_markup(logged.data.decode()) == []
