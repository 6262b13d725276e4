"""The context window as a budget, in a real browser: the agent's window set on its
Settings page, the meter and the `over-budget` problem in the editor's live preview, and
the agent preview's chart whose bars open their skills."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import open_page, type_at_end

pytestmark = pytest.mark.browser


def set_window(page, live_server, tokens: int) -> None:
    """Give Simon a context window of `tokens` on its Settings page."""
    from playwright.sync_api import expect

    page.goto(f"{live_server}/agents/Simon/settings")
    page.get_by_label("Context window, in tokens").fill(str(tokens))
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".flashes")).to_be_visible()


def test_past_the_window_the_meter_and_the_problems_say_so(context, live_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, f"{live_server}/agents/Simon/skills/chat", errors)
    meter = page.get_by_role("meter", name="Context window used")
    expect(meter).to_have_attribute("max", "128000")
    expect(page.locator("#preview .budget")).to_have_class(re.compile(r"\bbudget-ok\b"))

    set_window(page, live_server, 100)
    page.goto(f"{live_server}/agents/Simon/skills/chat")
    expect(meter).to_have_attribute("max", "100")
    expect(page.locator("#preview .budget")).to_have_class(re.compile(r"\bbudget-over\b"))
    expect(page.locator("#preview .budget")).to_contain_text("of 100 tokens")
    page.get_by_role("tab", name=re.compile("^Problems")).click()
    problem = page.locator("#preview .problem", has_text="over-budget")
    expect(problem).to_contain_text("-token context window of gpt-4o (over it)")

    # The live preview measures the draft: typing more makes the count grow.
    before = int(meter.get_attribute("value") or 0)
    shown = page.locator("#preview .budget").inner_text()
    type_at_end(page, "\nMore words for the window to hold, and more still.\n")
    expect(page.locator("#preview .budget")).not_to_have_text(shown)
    assert int(meter.get_attribute("value") or 0) == before  # the meter stops at its max
    assert errors == []


def test_the_chart_s_bars_open_their_skills(context, live_server):
    from playwright.sync_api import expect

    page = open_page(context, f"{live_server}/agents/Simon/preview")
    page.get_by_role("tab", name="Budget").click()
    chart = page.get_by_role("img", name="Tokens by skill, tool and variable, largest first")
    expect(chart).to_be_visible()
    bars = chart.locator("a")
    assert bars.count() >= 2
    values = [int(text.replace(",", ""))
              for text in chart.locator("text.value").all_text_contents()]
    assert values == sorted(values, reverse=True)

    chat = chart.locator("a", has=page.locator("text", has_text=re.compile("^chat")))
    chat.locator("rect").click()
    expect(page).to_have_url(re.compile(r"/agents/Simon/skills/chat(\?|$)"))
    expect(page.get_by_role("textbox", name="Content", exact=True)).to_be_visible()
