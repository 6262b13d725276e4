"""Finding things in a real browser: the skill list's filter, dragging a skill to a new
place in the adoption order, and the where-used page."""

from __future__ import annotations

import pytest

from tests.support.browser import cursor, wait_for_cursor_line

pytestmark = pytest.mark.browser


def open_editor(context, live_server, errors):
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    return page


def visible_skills(page) -> list[str]:
    return page.eval_on_selector_all(
        "#skill-items > li:not([hidden])", "items => items.map(li => li.dataset.dTag)")


def wait_for_visible(page, d_tags: list[str]) -> None:
    """Wait until the list shows exactly `d_tags` (a filter answer may still be on its way)."""
    page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('#skill-items > li:not([hidden])')]"
        ".map(li => li.dataset.dTag)) === JSON.stringify(want)", arg=d_tags)


def all_skills(page) -> list[str]:
    return page.eval_on_selector_all("#skill-items > li",
                                     "items => items.map(li => li.dataset.dTag)")


def test_filter_hides_what_does_not_match_and_survives_a_toggle(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_editor(context, live_server, errors)
    page.evaluate("window.__sameDocument = true")
    box = page.get_by_label("Filter skills")
    expect(page.locator("#skill-count")).to_have_text("3 skills")

    box.fill("PERSON")  # case-insensitive, the d_tag
    wait_for_visible(page, ["personality"])
    expect(page.locator("#skill-count")).to_have_text("1 of 3 skills")
    box.fill("helpfully")  # a word only chat's text has
    wait_for_visible(page, ["chat"])
    expect(page.locator("#skill-count")).to_have_text("1 of 3 skills")
    assert box.evaluate("el => el === document.activeElement")  # still typing in the box

    box.fill("dm")  # a trigger
    wait_for_visible(page, ["personality", "chat"])
    expect(page.locator("#skill-count")).to_have_text("2 of 3 skills")

    # A toggle re-renders the whole list: the filter and what it hides stay.
    page.locator("li[data-d-tag=personality] button.toggle").click()
    expect(page.locator("li[data-d-tag=personality]")).to_have_class("skill disabled")
    expect(page.get_by_label("Filter skills")).to_have_value("dm")
    assert visible_skills(page) == ["personality", "chat"]

    page.get_by_label("Filter skills").fill("no such words")
    wait_for_visible(page, [])
    expect(page.locator("#skill-count")).to_have_text("0 of 3 skills: none matches “no such words”")
    assert page.evaluate("window.__sameDocument") is True
    assert errors == []


def test_dragging_a_skill_reorders_and_the_order_persists(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_editor(context, live_server, errors)
    assert all_skills(page) == ["identity", "personality", "chat"]

    with page.expect_response(lambda r: r.url.endswith("/agents/Simon/order")) as response:
        page.locator("li[data-d-tag=chat] .drag-handle").drag_to(
            page.locator("li[data-d-tag=identity] .skill-link"),
            target_position={"x": 5, "y": 2})
    assert response.value.status == 200
    expect(page.locator("#skill-items > li").first).to_have_attribute("data-d-tag", "chat")
    assert all_skills(page) == ["chat", "identity", "personality"]

    page.reload()
    assert all_skills(page) == ["chat", "identity", "personality"]
    # The arrows still work after a drag, and the list can be dragged again after a swap.
    page.locator("li[data-d-tag=chat] button[title='Move down']").click()
    expect(page.locator("#skill-items > li").first).to_have_attribute("data-d-tag", "identity")
    with page.expect_response(lambda r: r.url.endswith("/agents/Simon/order")):
        page.locator("li[data-d-tag=personality] .drag-handle").drag_to(
            page.locator("li[data-d-tag=identity] .skill-link"),
            target_position={"x": 5, "y": 2})
    expect(page.locator("#skill-items > li").first).to_have_attribute("data-d-tag", "personality")
    page.reload()
    assert all_skills(page) == ["personality", "identity", "chat"]

    # Dragging in a filtered list orders every skill, and the list comes back filtered.
    page.get_by_label("Filter skills").fill("dm")
    wait_for_visible(page, ["personality", "chat"])
    with page.expect_response(lambda r: r.url.endswith("/agents/Simon/order")):
        page.locator("li[data-d-tag=chat] .drag-handle").drag_to(
            page.locator("li[data-d-tag=personality] .skill-link"),
            target_position={"x": 5, "y": 2})
    wait_for_visible(page, ["chat", "personality"])
    assert all_skills(page) == ["chat", "personality", "identity"]
    expect(page.get_by_label("Filter skills")).to_have_value("dm")
    expect(page.locator("#skill-count")).to_have_text("2 of 3 skills")
    page.reload()
    assert all_skills(page) == ["chat", "personality", "identity"]
    assert errors == []


def test_where_used_from_the_editor(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_editor(context, live_server, errors)
    page.goto(f"{live_server}/agents/Simon/skills/identity")
    page.click("text=Where used")
    expect(page.locator("#uses h1")).to_contain_text("{{identity}}")
    expect(page.locator("#uses-meaning")).to_contain_text("skill identity")
    # The page is parsed before htmx has bound its triggers: typing waits for it.
    page.wait_for_load_state("load")
    # Typing another name updates the report in place and the address follows.
    page.get_by_label("Where is this name used?").fill("message")
    expect(page.locator("#uses h1")).to_contain_text("{{message}}")
    expect(page.locator("#uses-meaning")).to_contain_text("built-in")
    expect(page).to_have_url(f"{live_server}/agents/Simon/uses?name=message")
    page.locator("#uses-text a", has_text="line").first.click()
    expect(page).to_have_url(f"{live_server}/agents/Simon/skills/chat#L8")
    wait_for_cursor_line(page, 8)
    assert cursor(page)["column"] == 1
    assert errors == []
