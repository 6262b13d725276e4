"""Layout points a newcomer tripped on, measured in a real browser: check boxes and radio
buttons on their labels' line, hints that do not look like warnings, a placeholder that
does not look like a value, the open skill's "on" as plain as the others', the top bar on
one row from 1280 px, and one message at a time under it."""

from __future__ import annotations

import pytest

from tests.support.browser import content_editor, type_at_end
from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def rgb(css_colour: str) -> tuple[int, ...]:
    return tuple(int(float(part)) for part in css_colour.split("(")[1].split(")")[0].split(",")[:3])


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two CSS rgb() colours."""
    def luminance(colour: str) -> float:
        channels = [value / 255 for value in rgb(colour)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def style(locator, prop: str, pseudo: str | None = None) -> str:
    return locator.evaluate(f"(el) => getComputedStyle(el, {pseudo!r} || null)[{prop!r}]"
                            if pseudo else f"(el) => getComputedStyle(el)[{prop!r}]")


@pytest.fixture
def admin_page(app, browser, live_server, cheap_hashes):
    """A page signed in as `alice`, an admin (the widest top bar), at the given width."""
    with app.app_context():
        store.accounts.create_user(db.get_session(), store.NewUser("alice", "admin", PASSWORD))
    contexts = []

    def open_at(path: str, width: int = 1280):
        context = browser.new_context(viewport={"width": width, "height": 800})
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server}/login?next={path}")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server}{path}")
        return page

    yield open_at
    for context in contexts:
        context.close()


def test_check_boxes_and_radio_buttons_sit_before_their_words(context, live_server):
    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/new-skill")
    for name in ("dm", "Blank", "A role-marked skill (system and user messages)"):
        control = page.get_by_label(name, exact=True)
        label = page.locator("label.check", has=control)
        words = label.evaluate("""(label) => { const range = document.createRange();
            range.selectNodeContents(label); range.setStartAfter(label.querySelector('input'));
            const box = range.getClientRects()[0];
            return {x: box.x, y: box.y, height: box.height}; }""")
        box = control.bounding_box()
        assert box["x"] + box["width"] <= words["x"], name  # before the words
        middle = box["y"] + box["height"] / 2
        assert words["y"] <= middle <= words["y"] + words["height"], name  # on their line


def test_hints_are_neutral_not_amber_like_warnings(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/new-skill")
    hint = page.locator(".note").first
    expect(hint).to_contain_text("The skill's id")
    colour = style(hint, "color")
    red, green, blue = rgb(colour)
    assert blue > red and blue >= green, colour  # grey-blue, not amber
    # The Pipeline's note (a skill shown through the one embedding it) is a hint too, in
    # another colour than a warning's (the unsaved marker's).
    page.goto(f"{live_server}/agents/Simon/skills/identity")
    page.get_by_role("tab", name="Pipeline").click()
    note = page.locator("#pipeline-host")
    expect(note).to_contain_text("is shown through")
    assert style(note, "color") == colour
    assert style(page.locator(".unsaved-marker"), "color") != colour


@pytest.mark.parametrize("path", ["/agents/Simon/new-skill", "/agents/Simon/skills/identity"])
def test_the_trigger_placeholder_reads_as_an_example(context, live_server, path):
    page = context.new_page()
    page.goto(live_server + path)
    triggers = page.locator("textarea[name=triggers]")
    assert triggers.get_attribute("placeholder").startswith("e.g. ")
    assert style(triggers, "fontStyle", "::placeholder") == "italic"
    ink = style(triggers, "color")
    placeholder = style(triggers, "color", "::placeholder")
    background = style(triggers, "backgroundColor")
    # Lighter than what is typed: less contrast with the field.
    assert contrast(placeholder, background) < contrast(ink, background)


def test_the_open_skill_s_on_reads_as_on(context, live_server):
    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    mine = page.get_by_role("button", name="Enabled: chat", exact=True)
    other = page.get_by_role("button", name="Enabled: personality", exact=True)
    assert mine.is_disabled() and mine.get_attribute("aria-pressed") == "true"
    assert style(mine, "opacity") == "1"
    assert style(mine, "color") == style(other, "color")
    assert style(mine, "backgroundColor") == style(other, "backgroundColor")
    assert contrast(style(mine, "color"), style(mine, "backgroundColor")) >= 4.5


@pytest.mark.parametrize("width", [1280, 1440])
def test_the_top_bar_stays_one_row_with_a_save_message_and_the_account(admin_page, width):
    from playwright.sync_api import expect

    page = admin_page("/agents/Simon/skills/chat", width)
    type_at_end(page, "\nMore.")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("More.")  # typed in
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat as version 2.")
    rows = page.evaluate("""Array.from(document.querySelector('.topbar').children)
        .filter(el => el.getClientRects().length)
        .map(el => { const box = el.getBoundingClientRect(); return [box.top, box.bottom]; })""")
    tops, bottoms = [top for top, _ in rows], [bottom for _, bottom in rows]
    assert max(tops) < min(bottoms), rows  # every part shares one line
    assert page.locator(".topbar").bounding_box()["height"] < 50
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # The account's links are a click away, and Escape closes them.
    account = page.get_by_role("navigation", name="Account")
    account.get_by_text("alice").click()
    expect(account.get_by_role("button", name="Sign out")).to_be_visible()
    expect(account.get_by_role("link", name="API keys")).to_be_visible()
    page.keyboard.press("Escape")
    expect(account.get_by_role("button", name="Sign out")).to_be_hidden()


def test_one_message_at_a_time(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/new-skill")
    page.get_by_label("d_tag").fill("fresh")
    page.get_by_role("button", name="Create skill").click()
    page.wait_for_url(f"{live_server}/agents/Simon/skills/fresh", wait_until="load")
    messages = page.locator(".messages")
    expect(messages).to_have_text("Created the skill fresh.")
    expect(content_editor(page)).to_be_visible()
    type_at_end(page, "\nMore.")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("More.")  # typed in
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved fresh as version 2.")
    expect(messages).not_to_contain_text("Created the skill")


@pytest.mark.parametrize("path, editors", [
    ("/agents/Simon/tools/agent_identity", ["Default result", "Results by args"]),
    ("/agents/Simon/scenarios/admin asks about mentions",
     ["DM history", "Triggering event", "Tests"]),
])
def test_the_tools_and_scenarios_forms_use_the_width(browser, live_server, path, editors):
    """At 1440 px the form and its preview share the page beside the list (the form was
    squeezed into a fifth of it, its JSON editors 160 px wide)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(live_server + path)
        form = page.locator(".item-form")
        column = form.locator(".form-column").bounding_box()
        preview = form.locator(".preview-wrap").bounding_box()
        whole = form.bounding_box()
        assert column["width"] >= 0.45 * whole["width"], (column, whole)
        assert abs(column["width"] - preview["width"]) < 0.1 * whole["width"]
        assert column["x"] + column["width"] <= preview["x"] + 1  # side by side
        for name in editors:
            editor = page.get_by_role("textbox", name=name, exact=True)
            assert editor.bounding_box()["width"] >= 0.8 * column["width"], name
    finally:
        context.close()
