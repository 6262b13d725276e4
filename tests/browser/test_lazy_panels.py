"""In a real browser: typing sends the open panel alone, and opening another tab loads it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_a_tab_opened_after_typing_is_loaded(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    sizes: list[int] = []
    page.on("response", lambda r: sizes.append(len(r.body()))
            if r.request.method == "POST" and r.url.endswith("/preview") else None)
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    page.get_by_role("tab", name="Diff").click()
    content = page.get_by_label("Content", exact=True)
    content.click()
    page.keyboard.press("Control+End")
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.keyboard.type("Lazy line.\n")
    expect(page.locator("#panel-diff")).to_contain_text("Lazy line.")
    # The Document panel came as a placeholder; opening its tab asks for it.
    expect(page.locator("#panel-document [data-lazy]").first).to_be_attached()
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.get_by_role("tab", name="Document").click()
    expect(page.locator("#panel-document .doc-rendered")).to_contain_text("Lazy line.")
    expect(page.locator("#panel-document .doc-rendered [data-lazy]")).to_have_count(0)
    assert page.evaluate("document.activeElement.getAttribute('role')") == "tab"


def test_a_tab_opened_while_a_keystroke_s_preview_is_on_its_way_loads(context, live_server):
    """The keystroke's answer, held until the tab is open, brings the tab as a placeholder
    again: the placeholder loads itself, whichever answer came last."""
    from playwright.sync_api import expect

    page = context.new_page()
    held: list = []
    hold = {"next": False}

    def route(route):
        if hold["next"] and route.request.method == "POST":
            hold["next"] = False
            held.append(route)
        else:
            route.continue_()

    page.route("**/preview", route)
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    content = page.get_by_label("Content", exact=True)
    content.click()
    page.keyboard.press("Control+End")
    # A first keystroke: the Document tab is sent alone, Diff comes as a placeholder.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.keyboard.type("First.\n")
    expect(page.locator("#panel-diff [data-lazy]")).to_be_attached()
    # The next keystroke's preview is held; the Diff tab is opened meanwhile.
    hold["next"] = True
    # One input, so one request: typed a key at a time on a loaded machine, the keys could
    # come further apart than the form's delay, and a later keystroke's request would
    # replace (abort) the held one.
    with page.expect_request(lambda r: r.url.endswith("/preview") and r.method == "POST"):
        page.keyboard.insert_text("Quick line.")
    page.get_by_role("tab", name="Diff").click()
    expect(page.locator("#panel-diff")).to_contain_text("Quick line.")
    # The held answer (Document alone) arrives last: Diff is a placeholder in it, seen
    # at once, and loads again.
    with page.expect_response(lambda r: r.url.endswith("/preview")) as last:
        held[0].continue_()
    assert "shown=diff" not in (last.value.request.post_data or "")
    expect(page.locator("#panel-diff")).to_contain_text("Quick line.")
    expect(page.locator("#panel-diff [data-lazy]")).to_have_count(0)
    expect(page.locator("#panel-diff")).to_contain_text("saved → draft")


def test_the_pipeline_s_other_layout_loads_when_chosen(context, live_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    page.get_by_role("tab", name="Pipeline").click()
    page.get_by_label("Content", exact=True).click()
    page.keyboard.press("Control+End")
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.keyboard.type("Layout line.\n")
    pipeline = page.locator("#panel-pipeline")
    expect(pipeline.locator("table.diff-unified").first).to_be_visible()
    expect(pipeline.locator("table.diff-split")).to_have_count(0)
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        pipeline.get_by_role("button", name="Unified / Side by side").click()
    expect(pipeline.locator("table.diff-split").first).to_be_visible()
    expect(pipeline.locator("[data-lazy]:visible")).to_have_count(0)



@pytest.mark.parametrize("tab", ["Diff", "Messages", "Log", "Problems", "Pipeline"])
def test_a_tab_opened_after_typing_shows_the_typed_text_in_a_short_window(context, live_server,
                                                                         tab):
    """Type, then open a tab: it shows the change, also when its placeholder is below the
    fold of a short window, out of sight (it used to wait there for the next keystroke)."""
    from playwright.sync_api import expect

    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 300})
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    content = page.get_by_label("Content", exact=True)
    content.click()
    page.keyboard.press("Control+End")
    # Pasted in one go: typing `{{` opens the completion list. The unknown name is a
    # problem, and the word beside it is in the document.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.keyboard.insert_text("Typed zebrafinch {{zebrafinch}} line.\n")
    expect(page.locator("#panel-document-rendered")).to_contain_text("Typed zebrafinch")
    page.get_by_role("tab", name=tab).click()
    panel = page.get_by_role("tabpanel", name=tab)
    expect(panel).to_contain_text("zebrafinch")
    expect(panel.locator("[data-lazy]:visible")).to_have_count(0)
