"""In a real browser: a presenter steps through the agent-level pipeline of both demo
agents with the arrow keys, from the agent preview's Pipeline tab; every step is reached
by keyboard, and each step's address opens that step."""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

import pytest

from tests.support.browser import open_page
from tests.support.workspaces import RELAY_WATCH
from webapp import store
from webapp.pipeline import STEP_WORDS, load_bundle
from webapp.schema import db

pytestmark = pytest.mark.browser

DEMOS = [("Simon", "admin asks about mentions"), ("Relay Watch", "admin asks about latency"),
         ("Relay Watch", "nightly relay check")]


@pytest.fixture
def both_demos(app, live_server) -> str:
    """The live server with Relay Watch beside Simon; yields its URL."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(RELAY_WATCH))
    return live_server


def heading(step: str) -> re.Pattern[str]:
    number = list(STEP_WORDS).index(step) + 1
    return re.compile(rf"^{number}\. {re.escape(STEP_WORDS[step][0])}$")


@pytest.mark.parametrize("agent, scenario", DEMOS, ids=[f"{a}-{s}" for a, s in DEMOS])
def test_every_step_is_reached_by_keyboard_and_its_address_opens_it(context, both_demos, agent,
                                                                     scenario):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, f"{both_demos}/agents/{quote(agent)}/preview"
                              f"?scenario={quote_plus(scenario)}", errors)
    page.get_by_role("tab", name="Pipeline").click()
    panel = page.get_by_role("tabpanel", name="Pipeline")
    panel.get_by_role("link", name="Step through").click()

    addresses = {}
    steps = list(STEP_WORDS)
    for index, step in enumerate(steps):
        expect(page.get_by_role("heading", level=1)).to_have_text(heading(step))
        expect(page).to_have_url(re.compile(rf"/pipeline/{step}\?scenario="))
        addresses[step] = page.url
        # The keys are the page's deferred script's, in place once the document is loaded.
        page.wait_for_load_state("domcontentloaded")
        if index + 1 < len(steps):
            page.keyboard.press("ArrowRight")
    # The last step has no next one: the key does nothing.
    expect(page.get_by_role("link", name=re.compile("^Next"))).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("heading", level=1)).to_have_text(heading(steps[-1]))
    # ← goes back, and Previous does the same.
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_role("heading", level=1)).to_have_text(heading(steps[-2]))
    page.wait_for_load_state("domcontentloaded")
    page.get_by_role("link", name=re.compile("^← Previous")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(heading(steps[-3]))

    # Each address opens its step, in a fresh tab (another session's scenario memory aside).
    fresh = context.new_page()
    for step, address in addresses.items():
        assert f"scenario={quote_plus(scenario)}" in address
        fresh.goto(address)
        expect(fresh.get_by_role("heading", level=1)).to_have_text(heading(step))
        expect(fresh.locator("#pipeline-step")).to_contain_text(scenario)
    assert not errors, errors


def test_the_arrows_leave_a_field_alone(context, both_demos):
    """A key pressed in the scenario's field changes the field, not the step."""
    from playwright.sync_api import expect

    page = open_page(context, f"{both_demos}/agents/Simon/pipeline/roles"
                              f"?scenario={quote_plus('admin asks about mentions')}")
    page.wait_for_load_state("domcontentloaded")
    page.get_by_label("Scenario").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("heading", level=1)).to_have_text(heading("roles"))


def test_a_skill_stage_folds_each_skill(context, both_demos):
    from playwright.sync_api import expect

    page = open_page(context, f"{both_demos}/agents/Simon/pipeline/variables"
                              f"?scenario={quote_plus('admin asks about mentions')}")
    personality = page.locator("details#skill-personality")
    expect(personality).to_have_attribute("open", "")
    expect(personality.get_by_role("table", name="personality: Variables resolved")).to_be_visible()
    personality.locator("> summary").click()
    expect(personality.get_by_role("table", name="personality: Variables resolved")).to_be_hidden()


def test_screenshot(context, both_demos, screenshots):
    """The presentation layout of a step, for docs/screenshots/pipeline.png."""
    from playwright.sync_api import expect

    page = open_page(context, f"{both_demos}/agents/Simon/pipeline/variables"
                              f"?scenario={quote_plus('admin asks about mentions')}&view=present")
    expect(page.locator(".pipeline-step.present")).to_be_visible()
    expect(page.locator(".topbar")).to_be_hidden()
    page.locator("details#skill-chat").evaluate("el => el.open = false")
    path = screenshots / "pipeline.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
