"""From an empty database to a saved skill, in a real browser: create an agent and a
skill, type and see the preview follow, save with Ctrl+S, reload. Also: a skill made with
the keyboard alone, every demo skill's draft reaching its preview, an expired security
token renewed without losing a keystroke, and the leave-page warning of other forms."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support.browser import content_editor, editor_has_focus
from tests.support.workspaces import SIMON
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

pytestmark = pytest.mark.browser

RELAY_WATCH = SIMON.with_name("relay_watch.json")


def watch_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and "400" not in m.text else None)
    return errors


def test_from_an_empty_database_to_a_saved_skill(context, empty_server):
    from playwright.sync_api import expect

    page = context.new_page()
    errors = watch_errors(page)
    page.goto(empty_server)
    expect(page.locator("#agents")).to_contain_text("No agents yet")
    page.get_by_role("link", name="New agent").first.click()
    page.get_by_label("Name", exact=True).fill("Scout")
    page.get_by_role("button", name="Create agent").click()
    expect(page.locator("#agent-empty")).to_contain_text("Scout has no skills yet")

    page.get_by_role("link", name="New skill").click()
    # The form is there before the page's scripts have run: typing earlier than a person
    # can would go unheard by the d_tag check, so wait for them.
    page.wait_for_url(f"{empty_server}/agents/Scout/new-skill", wait_until="load")
    page.get_by_label("d_tag", exact=True).fill("greet")
    expect(page.locator("#d_tag-check")).to_contain_text("greet is free")
    page.get_by_label("Name", exact=True).fill("Greeting")
    page.get_by_label("Triggers, one per line").fill("dm")
    page.get_by_role("button", name="Create skill").click()
    expect(page).to_have_url(f"{empty_server}/agents/Scout/skills/greet")
    expect(page.locator(".flashes")).to_contain_text("Created the skill greet.")

    # The first editor page of a browser session compiles the code editor's bundle cold:
    # on a loaded two-core machine that can take longer than an assertion's usual wait.
    expect(page.locator(".cm-editor .cm-content")).to_be_visible(timeout=30_000)
    content = content_editor(page)
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("Hello {{agnt_name}}!\n")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Hello")
    page.get_by_role("tab", name="Problems").click()
    expect(page.locator("#preview .problem", has_text="unknown-variable")).to_be_visible()
    page.get_by_role("tab", name="Diff").click()
    expect(page.locator("#preview [data-panel=diff]")).to_contain_text("Hello")

    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved greet as version 2")
    page.reload()
    expect(page.locator("#content")).to_have_value(
        "system:\n# Greeting\n\nSay what the agent should do here.\n\nuser:\n{{message}}\n"
        "Hello {{agnt_name}}!\n")
    assert errors == []


def tab_to(page, focused: str, most: int = 40) -> None:
    """Press Tab until the JavaScript condition `focused` holds (at most `most` times)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            return
    raise AssertionError(f"never focused: {focused}")


def test_a_skill_made_with_the_keyboard_alone(context, empty_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(empty_server)
    tab_to(page, "document.activeElement.textContent.trim() === 'New agent'")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{empty_server}/new-agent")
    tab_to(page, "document.activeElement.name === 'name'")
    page.keyboard.type("Keys")
    page.keyboard.press("Enter")  # submits the form: Create agent
    expect(page.locator("#agent-empty")).to_be_visible()
    tab_to(page, "document.activeElement.textContent.trim() === 'New skill'")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{empty_server}/agents/Keys/new-skill")
    expect(page.get_by_label("d_tag", exact=True)).to_be_focused()  # opens on its first field
    page.keyboard.type("by-keys")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{empty_server}/agents/Keys/skills/by-keys")


@pytest.mark.parametrize("bundle", [SIMON, RELAY_WATCH], ids=["Simon", "Relay Watch"])
def test_every_demo_skill_s_draft_reaches_its_preview(app, context, empty_server, bundle):
    from playwright.sync_api import expect

    with app.app_context():
        workspace = load_bundle(bundle)
        store.import_bundle(db.get_session(), workspace)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # leaving each draft unsaved
    for skill in workspace.skills:
        page.goto(f"{empty_server}/agents/{quote(workspace.agent.name)}/skills/{skill.d_tag}")
        content = content_editor(page)
        content.click()
        page.keyboard.press("Control+Home")
        page.keyboard.type(f"Draft of {skill.d_tag} ZQX\n")
        page.get_by_role("tab", name="Diff").click()
        expect(page.locator("#preview [data-panel=diff]")).to_contain_text(
            f"Draft of {skill.d_tag} ZQX")


def test_an_expired_token_is_renewed_without_losing_a_keystroke(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    stale = ("document.body.setAttribute('hx-headers', JSON.stringify({'X-CSRFToken': 'stale'}));"
             "document.querySelectorAll('input[name=csrf_token]').forEach(i => i.value = 'stale');")
    page.evaluate(stale)
    content = content_editor(page)
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("After the restart.\n")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("After the restart.")
    # The in-place save renews a stale token too, and saves.
    page.evaluate(stale)
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat as version 2")
    assert editor_has_focus(page)


def test_a_tool_form_asks_before_leaving_with_edits(context, live_server):
    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/tools/agent_identity")
    page.get_by_label("Description").fill("Edited, not saved.")
    dialogs: list[str] = []

    def on_dialog(dialog):
        dialogs.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    with page.expect_event("dialog"):
        page.get_by_role("link", name="Variables").first.click()
    # Dismissed: the page stays.
    assert dialogs == ["beforeunload"] and page.url.endswith("/tools/agent_identity")
