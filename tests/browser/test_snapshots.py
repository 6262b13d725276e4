"""A reviewer reads a snapshot and compares two in a real browser: from the Changes page to
snapshot #1's page, its document line by line with where each line came from, then the
comparison of #1 and #2 picked in the form."""

from __future__ import annotations

import re

import pytest

from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser


def test_a_reviewer_reads_a_snapshot_and_compares_two(context, live_server, app):
    from playwright.sync_api import expect

    with app.app_context():
        session = db.get_session()
        store.publish(session, "Simon", "First reviewed context", expected_latest=0)
        row = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=row.version,
                         content=row.content + "\nAlways sign with your npub.\n")
        store.publish(session, "Simon", "Sign messages", expected_latest=1)

    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server}/agents/Simon/changes")

    # Snapshot #1's page: who published it and why, its scenario's context.
    page.locator("table.snapshots").get_by_role("link", name="#1", exact=True).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Snapshot #1"))).to_be_visible()
    expect(page.get_by_text("First reviewed context", exact=True)).to_be_visible()
    scenario = page.get_by_role("region", name="Scenario admin asks about mentions")
    expect(scenario.locator("article.message-card").first).to_be_visible()
    scenario.get_by_role("button", name="Rendered / Source").click()
    source = scenario.get_by_role("table", name=re.compile("line by line"))
    expect(source).to_be_visible()
    expect(source.locator("tr", has_text="personality:3").first).to_be_visible()

    # Pick the two sides in the form: #1 → #2.
    page.get_by_role("combobox", name="From").select_option("1")
    page.get_by_role("combobox", name="To").select_option("2")
    page.get_by_role("button", name="Compare", exact=True).click()
    expect(page).to_have_url(re.compile(r"/agents/Simon/snapshots/compare\?a=1&b=2$"))
    expect(page.get_by_role("heading", name=re.compile("Compare #1 → #2"))).to_be_visible()
    skill = page.get_by_role("region", name="Skill chat")
    expect(skill.locator("tr.line-add", has_text="Always sign with your npub.").first
           ).to_be_visible()
    context_diff = page.get_by_role("region", name="Scenario admin asks about mentions")
    added = context_diff.locator("table.diff-labelled tr.line-add",
                                 has_text="Always sign with your npub.").first
    expect(added).to_contain_text(re.compile(r"chat:\d+"))

    # The address is the comparison: opened again, it shows the same.
    page.goto(page.url)
    expect(page.get_by_role("combobox", name="From")).to_have_value("1")
    expect(page.get_by_role("combobox", name="To")).to_have_value("2")
    assert not errors, errors
