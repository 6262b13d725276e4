"""In a real browser, the preview of a skill the first scenario does not use follows it:
typing in Relay Watch's dm-reply changes the Diff."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support.workspaces import SIMON
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

pytestmark = pytest.mark.browser

RELAY_WATCH = SIMON.with_name("relay_watch.json")


def test_typing_in_dm_reply_changes_the_diff(app, live_server, context):
    from playwright.sync_api import expect

    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(RELAY_WATCH))
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server}/agents/{quote('Relay Watch')}/skills/dm-reply")
    # The first scenario is the cron one: the preview says it follows the dm one instead.
    expect(page.get_by_role("note")).to_contain_text(
        "does not use dm-reply: showing “admin asks about latency”, whose trigger dm does.")

    content = page.get_by_label("Content")
    content.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("End")
    page.keyboard.type("\nTyped in the browser.")
    page.get_by_role("tab", name="Diff").click()
    diff = page.locator("#preview [data-panel=diff]")
    expect(diff).to_contain_text("Typed in the browser.")
    expect(diff).not_to_contain_text("No change: the draft")
    expect(page.get_by_role("tab", name="Diff")).to_contain_text("Δ")
    assert errors == []
