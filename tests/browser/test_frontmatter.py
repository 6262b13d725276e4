"""Editing a skill's SKILL.md frontmatter in a real browser: open it in the skill editor's
dialog, change a key and add one the editor has no field for, save, and land back in the
editor with the field changed, the new key kept and its lint shown; close the dialog."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_edit_every_key_of_the_frontmatter(context, live_server, screenshots):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    page.goto(f"{live_server}/agents/Simon/skills/chat")
    page.get_by_role("link", name="Frontmatter", exact=True).click()
    dialog = page.get_by_role("dialog", name="Frontmatter of chat")
    expect(dialog).to_be_visible()
    yaml = dialog.get_by_role("textbox", name="Frontmatter of chat")
    expect(yaml).to_contain_text("description:")
    text = yaml.input_value()
    lines = [line for line in text.splitlines() if not line.startswith("description:")]
    yaml.fill("\n".join(lines[:1] + ["description: Talks with the user, kindly"] + lines[1:]
                        + ["x-team: 'ops'", ""]))
    dialog.get_by_role("button", name="Save the frontmatter").click()

    expect(page.get_by_text("Saved the frontmatter of chat.")).to_be_visible()
    expect(page.get_by_label("Description")).to_have_value("Talks with the user, kindly")
    # The editor the save landed on opens the dialog once its scripts have run: a click
    # before them follows the link to the frontmatter's own page.
    page.wait_for_load_state("load")
    page.get_by_role("link", name="Frontmatter", exact=True).click()
    expect(dialog.get_by_role("textbox", name="Frontmatter of chat")).to_contain_text(
        "x-team: 'ops'")
    lint = dialog.get_by_role("complementary", name="SKILL.md for Agent Skills specification")
    expect(lint).to_contain_text("key-unknown")
    page.screenshot(path=str(screenshots / "frontmatter-dialog.png"))
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    assert errors == []
