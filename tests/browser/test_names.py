"""Names and routes in a real browser: a d_tag that would be read as another skill's page is
refused with a clear message, Ctrl+S on a skill whose d_tag starts with another's saves
that skill alone, and a save after another session renamed the skill shows the conflict
page with the author's text."""

from __future__ import annotations

import pytest

from tests.support.browser import content_editor, open_page, type_at_end
from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser


def stored(app, d_tag: str):
    with app.app_context():
        return store.get_skill(db.get_session(), "Simon", d_tag)


def test_a_d_tag_ending_in_a_sub_route_is_refused_and_its_neighbour_saves_alone(
        app, context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, f"{live_server}/agents/Simon/new-skill", errors)
    page.get_by_label("d_tag").fill("chat/enabled")
    page.get_by_role("button", name="Create skill").click()
    expect(page.get_by_role("alert").first).to_contain_text("must not end in '/enabled'")

    # What the migration renames such a skill to (`chat/enabled-skill`) is its own address.
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "chat/enabled-skill", content="Mine.\n")
    chat = stored(app, "chat")
    page.goto(f"{live_server}/agents/Simon/skills/chat/enabled-skill")
    type_at_end(page, "More.\n")
    content_editor(page).focus()
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat/enabled-skill as version 2.")
    assert stored(app, "chat/enabled-skill").content == "Mine.\nMore.\n"
    after = stored(app, "chat")
    assert (after.version, after.enabled) == (chat.version, chat.enabled), "chat untouched"
    # The refused form's 422 is the one error the console saw, besides htmx's report of a
    # preview the save superseded (`hx-sync` aborts it), when typing and saving overlap.
    superseded = {"htmx:sendAbort", "htmx:afterRequest"}
    assert [e for e in errors if "422" not in e and e not in superseded] == []


def test_a_save_after_another_session_renamed_the_skill_keeps_the_text(app, context,
                                                                       live_server):
    from playwright.sync_api import expect

    page = open_page(context, f"{live_server}/agents/Simon/skills/chat")
    type_at_end(page, "\nTyped while it was renamed.\n")
    with app.app_context():  # another author, in another session
        store.rename_skill(db.get_session(), "Simon", "chat", "talk")
    content_editor(page).focus()
    page.keyboard.press("Control+s")
    expect(page.get_by_role("heading", level=1, name="Not saved: chat was renamed to talk "
                                              "while you were editing")).to_be_visible()
    mine = page.get_by_role("textbox").first
    expect(mine).to_have_value(stored(app, "talk").content + "\nTyped while it was renamed.\n")
    page.get_by_role("button", name="Keep mine (save as version 3)").click()
    expect(page).to_have_url(f"{live_server}/agents/Simon/skills/talk")
    assert stored(app, "talk").content.endswith("\nTyped while it was renamed.\n")
