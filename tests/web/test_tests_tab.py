"""The editor's Tests tab: the tests of every scenario whose context holds the skill, run
on the draft, with pass/fail counts in the tab's badge, a failing test's message and diff,
Approve the new output for a snapshot; and the scenario form that holds the tests."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.support.pages import HTMX
from webapp import store
from webapp.pipeline import assemble
from webapp.schema import db

SCENARIO = "admin asks about mentions"


@pytest.fixture
def tested(app, simon) -> str:
    """Simon's first scenario with a passing test and a snapshot test of today's output."""
    with app.app_context():
        session = db.get_session()
        workspace = store.load_workspace(session, simon)
        entry = assemble(workspace, workspace.scenarios_by_name[SCENARIO]).log_entry
        store.update_scenario(session, simon, SCENARIO, expect=[
            {"contains": "Simon", "in": "system", "name": "names the agent"},
            {"snapshot": entry, "name": "approved context"}])
    return simon


def draft(client, csrf, agent: str, extra: str = ""):
    """The preview of chat with `extra` typed at its end, the Tests tab open."""
    return client.post(f"/agents/{agent}/skills/chat/preview", headers=HTMX,
                       data={"csrf_token": csrf, **_draft_fields(client, agent, extra)})


def test_the_tab_shows_the_tests_and_counts_them(client, csrf, tested):
    answer = draft(client, csrf, tested)
    assert answer.status_code == 200
    assert 'id="tab-tests"' in answer.text and "✓ 5" in answer.text
    assert "names the agent" in answer.text and "Open the scenario" in answer.text


def test_typing_a_change_fails_the_snapshot_and_approving_passes_it(app, client, csrf, tested):
    changed = draft(client, csrf, tested, "\nA new promise.\n")
    assert "1 failed" in changed.text and "approved context" in changed.text
    assert "the context-log entry is not the approved one" in changed.text
    assert re.search(r'<tr class="line-add">.*?A new promise\.', changed.text, re.DOTALL)
    assert "Approve the new output" in changed.text
    approved = client.post(f"/agents/{tested}/skills/chat/tests/approve", headers=HTMX,
                           data={"csrf_token": csrf, "test_scenario": SCENARIO,
                                 "test_index": "1",
                                 **_draft_fields(client, tested, "\nA new promise.\n")})
    assert approved.status_code == 200 and "0 failed" in approved.text
    with app.app_context():
        expect = store.get_scenario(db.get_session(), tested, SCENARIO).expect
        assert "A new promise." in expect[1]["snapshot"]
        assert expect[1]["approved"]["by"] == "local"


def test_approving_nothing_is_a_422(client, csrf, tested):
    fields = _draft_fields(client, tested, "")
    for index in ("9", "x", "0"):  # none, not a number, not a snapshot test
        answer = client.post(f"/agents/{tested}/skills/chat/tests/approve", data={
            "csrf_token": csrf, "test_scenario": SCENARIO, "test_index": index, **fields})
        assert answer.status_code == 422
    answer = client.post(f"/agents/{tested}/skills/chat/tests/approve", data={
        "csrf_token": csrf, "test_scenario": "nope", "test_index": "0", **fields})
    assert answer.status_code == 422


def test_the_scenario_form_saves_tests_and_refuses_a_bad_one(app, client, csrf, simon):
    url = f"/agents/{simon}/scenarios/{SCENARIO}"
    page = client.get(url).text
    assert 'name="expect"' in page
    refused = client.post(url, data={"csrf_token": csrf, "expect": '[{"regex": "("}]'})
    assert refused.status_code == 422 and "is not a pattern RE2 accepts" in refused.text
    saved = client.post(url, data={"csrf_token": csrf,
                                   "expect": '[{"not_contains": "{{", "name": "no raw"}]'})
    assert saved.status_code == 303
    with app.app_context():
        assert store.get_scenario(db.get_session(), simon, SCENARIO).expect == [
            {"not_contains": "{{", "name": "no raw"}]
    assert '{"not_contains": "{{", "name": "no raw"}' in client.get(url).text.replace(
        "&#34;", '"')


def _draft_fields(client, agent: str, extra: str) -> dict[str, str]:
    """The editor form's fields for chat as saved, with `extra` typed at its end."""
    page = client.get(f"/agents/{agent}/skills/chat").text
    content = re.search(r'<textarea[^>]*name="content"[^>]*>\n?(.*?)</textarea>', page,
                        re.DOTALL)[1]
    version = re.search(r'name="version" value="(\d+)"', page)[1]
    return {"content": unescape(content) + extra, "version": version, "name": "chat",
            "d_tag": "chat", "triggers": "dm", "enabled": "on", "shown": "tests",
            "scenario": SCENARIO}


def test_the_settings_switch_the_built_in_tests(app, client, csrf, simon):
    page = client.get(f"/agents/{simon}/settings").text
    assert re.search(r'name="builtin_tests" checked', page)
    form = {"csrf_token": csrf, "name": simon, "title": "{name}", "message_mode": "grouped",
            "max_array_items": "8", "model": "gpt-4o", "context_window": "0"}
    assert client.post(f"/agents/{simon}/settings", data=form).status_code == 303
    with app.app_context():
        assert store.get_agent(db.get_session(), simon).builtin_tests is False
        exported = store.export_bundle(db.get_session(), simon)
        assert exported["agent"]["builtin_tests"] is False
    assert not re.search(r'name="builtin_tests" checked',
                         client.get(f"/agents/{simon}/settings").text)


def test_the_agent_preview_shows_the_draft_beside_the_published(app, client, tested):
    with app.app_context():
        store.publish(db.get_session(), tested, "", 0)
        chat = store.get_skill(db.get_session(), tested, "chat")
        store.save_skill(db.get_session(), tested, "chat", expected_version=chat.version,
                         content=chat.content + "\nUnreviewed.\n")
    page = client.get(f"/agents/{tested}/preview").text
    panel = page[page.index('id="panel-tests"'):]
    assert "Draft: 4 passed, 1 failed" in panel and "Production #1: 5 passed, 0 failed" in panel
    assert 'id="tab-tests"' in page


def test_the_guide_is_served_and_linked(client, simon):
    assert 'href="/help/tests"' in client.get("/help").text
    assert 'href="/help/tests"' in client.get(f"/agents/{simon}/scenarios/{SCENARIO}").text
    for headers in ({}, HTMX):
        page = client.get("/help/tests", headers=headers)
        assert page.status_code == 200 and "Approve the new output" in page.text


def test_the_history_hint_offers_the_roles_the_validator_takes(client, simon):
    from webapp.pipeline.workspace import HISTORY_ROLES

    page = client.get(f"/agents/{simon}/scenarios/{SCENARIO}").text
    hint = re.search(r'\{"role": ([^,]*), "content"', unescape(page))[1]
    assert hint.split("|") == [f'"{role}"' for role in HISTORY_ROLES]


def test_the_assembly_guide_is_served_where_help_points(client, simon):
    assert 'href="/help/context"' in client.get("/help").text
    page = client.get("/help/context")
    assert page.status_code == 200 and "How the context is assembled" in page.text


def test_the_variables_page_without_scenarios_says_so(app, client):
    with app.app_context():
        store.create_agent(db.get_session(), "bare")
    page = client.get("/agents/bare/variables").text
    assert "No scenario yet" in page and "resolves." not in page


def test_the_agent_preview_runs_the_tests_only_for_their_tab(client, tested):
    other = client.get(f"/agents/{tested}/preview?shown=messages", headers=HTMX).text
    assert "Draft:" not in other and "shown=tests" in other  # a loader in its place
    tests = client.get(f"/agents/{tested}/preview?shown=tests", headers=HTMX).text
    assert "Draft: 5 passed, 0 failed" in tests
