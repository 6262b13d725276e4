"""Context tests in a real browser: typing a change makes the approved snapshot fail in
the Tests tab (its badge counts it), and Approve the new output makes it pass."""

from __future__ import annotations

import pytest

from tests.support.browser import open_page, type_at_end
from webapp import store
from webapp.pipeline import assemble
from webapp.schema import db

pytestmark = pytest.mark.browser

SCENARIO = "admin asks about mentions"


def test_typing_fails_a_snapshot_and_approving_passes_it(app, context, live_server):
    from playwright.sync_api import expect

    with app.app_context():
        session = db.get_session()
        workspace = store.load_workspace(session, "Simon")
        entry = assemble(workspace, workspace.scenarios_by_name[SCENARIO]).log_entry
        store.update_scenario(session, "Simon", SCENARIO,
                              expect=[{"snapshot": entry, "name": "approved context"}])
    errors: list[str] = []
    page = open_page(context, f"{live_server}/agents/Simon/skills/chat", errors)
    tab = page.get_by_role("tab", name="Tests")
    expect(tab).to_contain_text("✓ 4")

    type_at_end(page, "\nA promise nobody reviewed.\n")
    expect(tab.locator(".badge")).to_have_text("1")  # one failing test
    tab.click()
    failing = page.locator("#panel-tests .test.failed", has_text="approved context")
    expect(failing).to_contain_text("the context-log entry is not the approved one")
    expect(failing.locator(".diff-unified")).to_contain_text("A promise nobody reviewed.")

    failing.get_by_role("button", name="Approve the new output").click()
    expect(tab).to_contain_text("✓ 4")
    expect(page.locator("#panel-tests .test.failed")).to_have_count(0)
    with app.app_context():
        [approved] = store.get_scenario(db.get_session(), "Simon", SCENARIO).expect
        assert "A promise nobody reviewed." in approved["snapshot"]
    assert errors == []
