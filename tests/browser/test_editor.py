"""The editor in a real browser: live preview while typing, save, reload, stale save in a
second tab. Typing goes into the code editor (CodeMirror, named Content), whose text the
textarea `#content` keeps as the form's value."""

from __future__ import annotations

import pytest

from tests.support.browser import content_editor, cursor, editor_has_focus, open_page, type_at_end

pytestmark = pytest.mark.browser


def open_editor(context, live_server, errors=None):
    return open_page(context, f"{live_server}/agents/Simon/skills/chat", errors)


def test_live_preview_save_reload_and_conflict(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_editor(context, live_server, errors)
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Simon — Didactyl Agent")
    page.evaluate("window.__sameDocument = true")

    # Type a heading and a {{variable}} with a typo: Document, Diff and Problems follow.
    type_at_end(page, "\n# Typed heading\nNpub: {{agent_npubb}}\n")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Typed heading")
    expect(page.locator(".skill-form")).to_have_class("skill-form dirty")
    # The swap replaced only the preview: the editor kept focus and cursor.
    assert editor_has_focus(page)
    at = cursor(page)
    assert at["head"] == at["length"] == len(page.locator("#content").input_value())
    page.click("[data-tab-button=diff]")
    expect(page.locator("#preview .diff-unified").first).to_contain_text("## Typed heading")
    page.click("[data-tab-button=problems]")
    problem = page.locator("#preview .problem", has_text="unknown-variable")
    expect(problem).to_contain_text("did you mean")
    assert page.evaluate("window.__sameDocument") is True  # updated without a reload

    # Clicking the problem puts the cursor at the start of that line, selecting nothing.
    problem.locator("a").click()
    assert editor_has_focus(page)
    assert cursor(page) | {"head": 0, "length": 0} == {
        "head": 0, "length": 0, "line": 11, "column": 1, "empty": True}

    # The source view names the skill and line of every line.
    page.click("[data-tab-button=document]")
    page.click("[data-view-toggle=doc-view]")
    expect(page.locator("#preview tr.mine").first).to_contain_text("chat:")

    # Ctrl+S saves in place: the page stays, and so do the focus, the cursor and the
    # editor's undo history; a reload shows the saved text.
    content_editor(page).focus()
    page.keyboard.press("Control+End")
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat as version 2.")
    expect(page.locator(".skill-form")).not_to_have_class("skill-form dirty")
    expect(page.locator(".form-version")).to_have_text("version 2")
    assert page.evaluate("window.__sameDocument") is True
    assert editor_has_focus(page)
    at = cursor(page)
    assert at["head"] == at["length"]
    page.keyboard.press("Control+z")  # the undo history survived the save
    assert not page.evaluate("document.getElementById('content').value").endswith(
        "{{agent_npubb}}\n")
    page.keyboard.press("Control+Shift+z")
    page.reload()
    expect(page.locator("#content")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\n\n# Typed heading\nNpub: {{agent_npubb}}\n")
    expect(page.locator(".skill-form")).not_to_have_class("skill-form dirty")

    # A second tab opens version 2; the first saves version 3; the second's save is stale.
    second = context.new_page()
    second.goto(f"{live_server}/agents/Simon/skills/chat")
    type_at_end(page, "First tab wins.\n")
    page.click("button.primary")
    expect(page.locator(".flashes")).to_contain_text("version 3")
    type_at_end(second, "Second tab's words.\n")
    # The in-place save answers 409; app.js then sends the form as an ordinary submission,
    # whose page (also a 409) is the conflict page.
    with second.expect_response(lambda r: r.request.method == "POST"
                                and r.request.resource_type == "document"
                                and r.url.endswith("/skills/chat"), timeout=20_000) as page_answer:
        with second.expect_response(lambda r: r.request.method == "POST"
                                    and r.request.resource_type == "fetch"
                                    and r.url.endswith("/skills/chat")) as response:
            second.keyboard.press("Control+s")
        assert response.value.status == 409
    assert page_answer.value.status == 409
    expect(second.locator("h1")).to_contain_text("changed while you were editing")
    expect(second.locator("#mine")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\n\n# Typed heading\nNpub: {{agent_npubb}}\n"
        "Second tab's words.\n")
    expect(second.locator("#saved-text")).to_contain_text("First tab wins.")

    # Keep mine: saved over version 3.
    second.click("text=Keep mine")
    expect(second.locator(".flashes")).to_contain_text("version 4")
    expect(second.locator("#content")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\n\n# Typed heading\nNpub: {{agent_npubb}}\n"
        "Second tab's words.\n")

    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors


def test_leaving_with_unsaved_edits_asks_first(context, live_server):
    page = open_editor(context, live_server)
    type_at_end(page, "unsaved\n")
    dialogs = []

    def on_dialog(dialog):
        dialogs.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    with page.expect_event("dialog"):
        page.click(".skill-link >> text=personality")
    # Dismissed: the page stays.
    assert dialogs == ["beforeunload"]
    assert page.url.endswith("/skills/chat")


def test_tabs_messages_and_log(context, live_server):
    from playwright.sync_api import expect

    page = open_editor(context, live_server)
    page.click("[data-tab-button=messages]")
    expect(page.locator("#body-anthropic")).to_contain_text('"system"')
    expect(page.locator("#body-openai")).to_contain_text('"messages"')
    page.click("[data-tab-button=log]")
    page.click("text=Append to context log")
    expect(page.locator("#log-status")).to_contain_text("Appended at")
    page.click("[data-tab-button=pipeline]")
    expect(page.locator("#preview [data-panel=pipeline]")).to_contain_text("Variables resolved")


def test_screenshot(context, live_server, screenshots):
    from playwright.sync_api import expect

    page = open_editor(context, live_server)
    type_at_end(page, "\n# Sources\nCite {{agent_npub}} when asked who you are.\n")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Sources")
    page.click("[data-tab-button=diff]")
    expect(page.locator("#preview .diff-unified").first).to_contain_text("## Sources")
    path = screenshots / "editor.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


def test_delete_from_the_editor_asks_then_moves_the_skill_to_the_trash(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    page.get_by_role("link", name="Delete…").click()
    expect(page.get_by_role("heading", name="Move chat to the trash?")).to_be_visible()
    page.get_by_role("button", name="Move chat to the trash").click()
    expect(page).to_have_url(f"{live_server}/agents/Simon/trash")
    expect(page.locator(".flashes")).to_contain_text("Moved chat to the trash.")
    page.goto(f"{live_server}/agents/Simon")
    expect(page.locator("#skill-list")).not_to_contain_text("chat")


def test_a_note_typed_with_a_save_in_place_goes_to_history(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/skills/chat", wait_until="load")
    type_at_end(page, "\nNoted line.")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Noted line.")
    page.get_by_label("Note for this save").fill("Why: a test")
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat as version 2.")
    expect(page.get_by_label("Note for this save")).to_have_value("")
    page.goto(f"{live_server}/agents/Simon/skills/chat/history")
    expect(page.locator("body")).to_contain_text("Why: a test")
