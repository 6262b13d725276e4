"""The Tools page in a real browser: edit a tool's result in the code editor's JSON mode,
see the live check (its error marked where it is) and the preview, save, and see the
preview of a skill that uses the tool change."""

from __future__ import annotations

import json

import pytest

from tests.support.browser import content_editor, cursor, editor_has_focus, set_editor_text

pytestmark = pytest.mark.browser

NEW_NPUB = "npub1changedbythebrowsertest"


def test_edit_a_tool_result_and_see_the_skill_preview_change(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    # Before: the identity skill's preview shows the seeded npub.
    page.goto(f"{live_server}/agents/Simon/skills/identity")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("npub1kfc89dlu9m05")

    page.goto(f"{live_server}/agents/Simon/tools/agent_identity")
    expect(page.locator("#tool-preview")).to_contain_text("npub1kfc89dlu9m05")
    page.evaluate("window.__sameDocument = true")
    result = page.locator("textarea[name=result]")
    editor = content_editor(page, "Default result")

    # Invalid JSON: the live check names the line and column, and the editor marks it there;
    # the button puts the cursor there.
    set_editor_text(page, '{\n  "success": true,\n  "content": oops\n}', "Default result")
    expect(page.locator("#tool-preview .form-errors")).to_contain_text("line 3, column 14")
    expect(result).to_have_value('{\n  "success": true,\n  "content": oops\n}')
    expect(result).to_have_attribute("aria-invalid", "true")
    expect(editor).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".json-editor .cm-lintRange-error")).to_have_text("o")
    # No live check in flight, whose answer would replace the button being clicked.
    page.wait_for_function("!document.querySelector('.htmx-request')")
    page.click("#tool-preview button.goto")
    assert editor_has_focus(page, "Default result")
    start = len('{\n  "success": true,\n') + 13
    assert cursor(page, "Default result")["head"] == start

    # Valid JSON: the preview shows what the default format makes of it, while typing.
    content = json.dumps({"pubkey": "ab12", "npub": NEW_NPUB})
    set_editor_text(page, json.dumps({"success": True, "content": content}, indent=2),
                    "Default result")
    expect(page.locator("#tool-preview")).to_contain_text(NEW_NPUB)
    expect(page.locator("#tool-preview .form-errors")).to_have_count(0)
    expect(result).not_to_have_attribute("aria-invalid", "true")
    expect(editor).to_have_attribute("aria-invalid", "false")
    expect(page.locator(".json-editor .cm-lintRange")).to_have_count(0)
    assert page.evaluate("window.__sameDocument") is True  # updated without a reload

    page.click("#tool-form button.primary")
    expect(page.locator(".flashes")).to_contain_text("Saved the tool agent_identity.")

    # The skill that uses the tool (through the agent_npub binding) now shows the new value.
    # No live check in flight, whose answer would replace the link being clicked.
    page.wait_for_function("!document.querySelector('.htmx-request')")
    page.click("#tool-uses a >> text=identity")
    expect(page.locator("#preview .doc-rendered")).to_contain_text(NEW_NPUB)
    expect(page.locator("#preview .doc-rendered")).not_to_contain_text("npub1kfc89dlu9m05")

    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
