"""The code editor in a real browser: CodeMirror over the Content textarea (and the JSON
fields), with the pipeline's highlighting, completion from the names the page carries,
lint marks from the preview's diagnostics and their quick fixes, navigation between
skills, and the comforts (search, wrapping, Tab in YAML); without JavaScript the textarea
is the editor and still saves."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.support.browser import (
    content_editor,
    cursor,
    editor_has_focus,
    open_page,
    past_the_completion_delay,
    set_editor_text,
    type_at_end,
)

pytestmark = pytest.mark.browser

CHAT = "/agents/Simon/skills/chat"


def test_completion_after_braces_offers_the_names_with_kind_and_value(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, live_server + CHAT, errors)
    type_at_end(page, "Key: {{agent_")
    option = page.locator(".cm-tooltip-autocomplete li", has_text="agent_npub")
    expect(option).to_contain_text("binding · `npub1kfc89dlu9m05")
    expect(page.locator(".cm-tooltip-autocomplete li", has_text=re.compile("^agent_profile"))
           ).to_contain_text("binding · Simon")
    option.click()
    expect(page.locator("#content")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\nKey: {{agent_npub}}")
    at = cursor(page)
    assert at["head"] == at["length"]  # after the closing braces
    # The form is dirty and the preview follows the inserted name.
    expect(page.locator(".skill-form")).to_have_class("skill-form dirty")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Key: npub1kfc89dlu9m05")
    # Inside existing braces, accepting replaces the name and keeps the braces.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    for _ in "npub":
        page.keyboard.press("Backspace")
    page.keyboard.type("prof")
    expect(page.locator(".cm-tooltip-autocomplete li").first).to_contain_text("agent_profile")
    past_the_completion_delay(page)
    page.keyboard.press("Enter")
    expect(page.locator("#content")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\nKey: {{agent_profile}}")
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
    assert errors == []


def test_a_typo_is_marked_within_one_preview_and_its_quick_fix_corrects_it(context,
                                                                           live_server):
    from playwright.sync_api import expect

    page = open_page(context, live_server + CHAT)
    with page.expect_response(lambda r: r.url.endswith("/skills/chat/preview")):
        type_at_end(page, "\nNpub: {{agnt_npub}}")
    mark = page.locator(".cm-lintRange-warning")
    expect(mark).to_have_text("{{agnt_npub}}")
    expect(page.locator(".cm-lint-marker-warning")).to_have_count(1)  # in the gutter
    mark.hover()
    tooltip = page.locator(".cm-tooltip-lint")
    expect(tooltip).to_contain_text("did you mean `agent_npub`?")
    tooltip.get_by_role("button", name="Use agent_npub").click()
    expect(page.locator("#content")).to_have_value(
        "system:\n# Chat\n\nRespond helpfully to the admin.\nUse tools when a request requires "
        "taking action.\n\nuser:\n{{message}}\n\nNpub: {{agent_npub}}")
    # The next preview has no problem left, and the mark goes.
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Npub: npub1kfc89dlu9m05")
    expect(page.locator(".cm-lintRange")).to_have_count(0)


def test_role_markers_and_names_are_coloured_by_what_they_are(context, live_server):
    from playwright.sync_api import expect

    page = open_page(context, live_server + CHAT)
    expect(page.locator(".cm-role-marker")).to_have_text(["system:", "user:"])
    expect(page.locator(".cm-line.cm-role-line")).to_have_count(2)
    expect(page.locator(".cm-ref-builtin")).to_have_text("{{message}}")
    type_at_end(page, "\n```\nuser:\n```\nUSER:  \n{{identity}} {{agent_npub}} {{agent_identity}}"
                      " {{nope}} \\{{escaped}}\n# Heading *em* `code`")
    # A marker inside a fence is not one; any case and trailing spaces are.
    expect(page.locator(".cm-role-marker")).to_have_text(["system:", "user:", "USER:  "])
    expect(page.locator(".cm-ref-skill")).to_have_text("{{identity}}")
    expect(page.locator(".cm-ref-binding")).to_have_text("{{agent_npub}}")
    expect(page.locator(".cm-ref-tool")).to_have_text("{{agent_identity}}")
    expect(page.locator(".cm-ref-unknown")).to_have_text("{{nope}}")
    expect(page.locator(".cm-ref-escape")).to_have_text("\\{{")
    expect(page.locator(".cm-md-heading")).to_have_text(["# Chat", "# Heading *em* `code`"])
    set_editor_text(page, "Plain *em* and **strong** and `code`, [a link](https://x.org)\n"
                          "- a list\n> a quote\n---template---\n- section: a\n  content: x\n")
    expect(page.locator(".cm-md-emphasis")).to_have_text("*em*")
    expect(page.locator(".cm-md-strong")).to_have_text("**strong**")
    expect(page.locator(".cm-md-code")).to_have_text("`code`")
    expect(page.locator(".cm-md-link")).to_have_text("[a link](https://x.org)")
    expect(page.locator(".cm-md-list")).to_have_text("-")
    expect(page.locator(".cm-template-marker")).to_have_text("---template---")
    expect(page.locator(".cm-line", has_text="section: a").locator(".cm-tok-key")).to_have_count(1)


def test_hover_shows_the_value_for_the_scenario_and_follows_the_picker(context, live_server,
                                                                       app):
    from playwright.sync_api import expect

    from tests.support.workspaces import SIMON
    from webapp import store
    from webapp.pipeline import load_bundle
    from webapp.schema import db

    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(SIMON.with_name("relay_watch.json")))
    page = open_page(context, f"{live_server}/agents/{quote('Relay Watch')}/skills/debug-dump")
    type_at_end(page, "\nAsked: {{message}}")
    page.locator(".cm-ref-builtin", has_text="{{message}}").hover()
    tip = page.locator(".cm-tooltip-hover .cm-name-info")
    expect(tip).to_contain_text("message · built-in")
    expect(tip).to_contain_text("(empty for this scenario)")  # the cron scenario's message
    page.mouse.move(0, 0)
    with page.expect_response(lambda r: "/names?scenario=" in r.url):
        page.locator("select[name=scenario]").select_option("admin asks about latency")
    page.locator(".cm-ref-builtin", has_text="{{message}}").hover()
    expect(tip).to_contain_text("Is damus slow again?")


def test_ctrl_click_and_f12_on_a_skill_open_it(context, live_server):
    from playwright.sync_api import expect

    page = open_page(context, live_server + "/agents/Simon/skills/personality")
    page.locator(".cm-ref-skill", has_text="{{identity}}").click(modifiers=["Control"])
    expect(page).to_have_url(live_server + "/agents/Simon/skills/identity")
    expect(page.locator(".form-head h1")).to_contain_text("Identity")
    # F12 with the cursor in a reference; a name that is no skill does nothing.
    page.go_back()
    page.locator(".cm-ref-skill", has_text="{{identity}}").click()
    page.keyboard.press("F12")
    expect(page).to_have_url(live_server + "/agents/Simon/skills/identity")
    # Opening a skill is `location.assign` in the key's handler, which dispatches
    # `beforeunload` before the key press returns: no event, no navigation.
    page.evaluate("() => { window.leaving = false;"
                  " addEventListener('beforeunload', () => { window.leaving = true; }); }")
    page.locator(".cm-ref-binding").first.click(modifiers=["Control"])
    page.keyboard.press("F12")
    assert page.evaluate("() => window.leaving") is False
    assert page.url == live_server + "/agents/Simon/skills/identity"


def test_search_wrapping_and_tab_in_the_template(context, live_server, app):
    from playwright.sync_api import expect

    from tests.support.workspaces import SIMON
    from webapp import store
    from webapp.pipeline import load_bundle
    from webapp.schema import db

    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(SIMON.with_name("relay_watch.json")))
    url = f"{live_server}/agents/{quote('Relay Watch')}/skills/dm-reply"
    page = open_page(context, url)
    editor = content_editor(page)
    # Search and replace: CodeMirror's panel, whose fields are not the form's.
    editor.click()
    page.keyboard.press("Control+f")
    search = page.get_by_role("textbox", name="Find")
    expect(search).to_be_focused()
    assert page.evaluate("new FormData(document.getElementById('skill-form')).has('search')") \
        is False
    page.keyboard.press("Escape")
    # Template completion: role values after `role:`.
    page.locator(".cm-line", has_text="role: user").click()
    page.keyboard.press("End")
    for _ in "user":
        page.keyboard.press("Backspace")
    page.keyboard.type("ass")
    option = page.locator(".cm-tooltip-autocomplete li").first
    expect(option).to_have_text("assistant")
    past_the_completion_delay(page)
    page.keyboard.press("Enter")
    assert "  role: assistant\n  content" in page.locator("#content").input_value()
    # Tab indents in the YAML; Escape then Tab leaves the editor.
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert "    role: assistant\n" in page.locator("#content").input_value()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not editor_has_focus(page)
    # Above the template, Tab moves on as in a textarea.
    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")
    assert not editor_has_focus(page)
    assert page.locator("#content").input_value().startswith("system:\n")
    # Wrapping lines: off by default, remembered per browser.
    wrap = page.get_by_role("button", name="Wrap lines")
    expect(wrap).to_have_attribute("aria-pressed", "false")
    wrap.click()
    expect(page.locator(".cm-content.cm-lineWrapping")).to_have_count(1)
    page.once("dialog", lambda dialog: dialog.accept())  # the unsaved edits
    page.reload()
    expect(page.get_by_role("button", name="Wrap lines")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".cm-content.cm-lineWrapping")).to_have_count(1)


def test_the_editor_is_named_content_and_the_textarea_stays_the_value(context, live_server):
    from playwright.sync_api import expect

    page = open_page(context, live_server + CHAT)
    assert page.get_by_label("Content", exact=True).count() == 1
    assert content_editor(page).get_attribute("aria-label") == "Content"
    expect(page.locator("#content")).to_be_hidden()
    type_at_end(page, "x")
    assert page.locator("#content").input_value().endswith("{{message}}\nx")


def test_without_javascript_the_textarea_still_saves(browser, live_server):
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(live_server + CHAT)
        assert page.locator(".cm-editor").count() == 0
        area = page.get_by_label("Content", exact=True)
        expect(area).to_be_visible()
        area.fill("system:\nSaved without JavaScript.\n")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".flashes")).to_contain_text("Saved chat as version 2")
        expect(page.get_by_label("Content", exact=True)).to_have_value(
            "system:\nSaved without JavaScript.\n")
    finally:
        context.close()


def test_json_mode_on_the_scenarios_page_marks_a_syntax_error(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, live_server + "/agents/Simon/scenarios/" +
                     quote("admin asks about mentions"), errors)
    history = content_editor(page, "DM history")
    expect(history).to_have_attribute("data-language", "json")
    set_editor_text(page, '[\n  {"role": "user", "content": "hi"},\n  oops\n]', "DM history")
    expect(page.locator(".json-editor .cm-lintRange-error")).to_have_count(1)
    expect(page.locator(".json-editor .cm-lint-marker-error")).to_have_count(1)
    assert cursor(page, "DM history")["line"] == 1
    page.locator(".json-editor .cm-lintRange-error").hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("invalid JSON at line 3")
    assert not [e for e in errors if "Content Security Policy" in e], errors
