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
