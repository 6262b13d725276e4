"""A reviewer publishes from the Changes page in a real browser, sees the changes of the
next edit with where each line came from, and rolls back to the first snapshot."""

from __future__ import annotations

import re

import pytest

from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser


def test_a_reviewer_publishes_and_rolls_back_from_the_changes_page(context, live_server, app):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    page.goto(f"{live_server}/agents/Simon/skills/chat")
    nav = page.get_by_role("navigation", name="Agent pages")
    expect(nav).to_contain_text("unpublished changes")
    nav.get_by_role("link", name=re.compile(r"^Changes")).click()
    expect(page.get_by_role("heading", name=re.compile("Changes since published"))).to_be_visible()
    expect(page.get_by_text("Nothing has been published yet")).to_be_visible()

    page.get_by_label("Note").fill("First reviewed context")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.get_by_text("Published snapshot #1.")).to_be_visible()
    expect(nav).not_to_contain_text("unpublished changes")
    snapshots = page.locator("table.snapshots")
    expect(snapshots).to_contain_text("First reviewed context")
    expect(page.get_by_role("button", name="Publish", exact=True)).to_have_count(0)

    # An author changes a skill: the review shows the new line and where it came from.
    with app.app_context():
        session = db.get_session()
        row = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=row.version,
                         content=row.content + "\nAlways sign with your npub.\n")
    page.reload()
    expect(nav).to_contain_text("unpublished changes")
    added = page.locator("table.diff-labelled tr.line-add", has_text="Always sign with your npub.")
    expect(added.first).to_contain_text(re.compile(r"chat:\d+"))
    page.get_by_label("Note").fill("Sign messages")
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.get_by_text("Published snapshot #2.")).to_be_visible()

    # The rollback: snapshot #1 published again, as #3.
    first = snapshots.locator("tr", has_text="First reviewed context")
    first.get_by_role("button", name="Publish again").click()
    expect(page.get_by_text("Published snapshot #1 again as #3.")).to_be_visible()
    expect(snapshots.locator("tbody tr").first).to_contain_text("#1 again")
    expect(nav).to_contain_text("unpublished changes")  # the draft still has the new line
    assert not errors, errors


def test_a_scenario_past_the_first_few_loads_when_scrolled_to(context, live_server, app):
    from playwright.sync_api import expect

    with app.app_context():
        session = db.get_session()
        for name in ("second", "third"):
            store.create_scenario(session, "Simon", name, trigger="dm", message=f"Hi, {name}")
        store.publish(session, "Simon", "", expected_latest=0)
        row = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=row.version,
                         content=row.content + "\nNew for every scenario.\n")
    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/changes")
    third = page.get_by_role("region", name="Scenario third")
    third.scroll_into_view_if_needed()
    expect(third.locator("table.diff-labelled tr.line-add",
                         has_text="New for every scenario.").first).to_be_visible()
    expect(page.get_by_role("link", name="Show the diff of third")).to_have_count(0)
