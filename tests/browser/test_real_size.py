"""In a real browser, on a workspace of real size (200 skills of about 2 KB, a document of
21,000 lines): a keystroke's answer stays small, the open tab shows the draft, the others
load it when opened, a fold opens in place and stays open while the author types, a
Pipeline stage and the comparison page show a page of rows and load more, and the agent
preview's budget chart comes with its tab."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from benchmarks.workspaces import scale_workspace
from tests.support.browser import open_page, type_at_end
from tests.support.server import serve
from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser

#: What one keystroke's answer may weigh, uncompressed (the whole document was megabytes).
KEYSTROKE_BYTES = 100_000
EDITOR = "/agents/Bench/skills/skill_100"


@pytest.fixture
def big_server(app) -> Iterator[str]:
    """The app with agent `Bench`: 200 skills `skill_0`..`skill_199`, scenario `bench`."""
    with app.app_context():
        store.import_bundle(db.get_session(), scale_workspace(200))
    yield from serve(app)


def preview_sizes(page) -> list[int]:
    """The uncompressed size of every draft preview the page is answered, as they come."""
    sizes: list[int] = []
    page.on("response", lambda r: sizes.append(len(r.body()))
            if r.request.method == "POST" and r.url.endswith("/preview") else None)
    return sizes


def test_a_keystroke_is_answered_with_the_open_tab_alone(context, big_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, big_server + EDITOR, errors)
    sizes = preview_sizes(page)
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        type_at_end(page, "\nDraft line typed now.")
    rendered = page.locator("#panel-document .doc-rendered")
    expect(rendered).to_contain_text("Draft line typed now.")
    assert sizes and max(sizes) <= KEYSTROKE_BYTES, sizes
    # The Source view and the Diff tab came as placeholders; each loads the draft's.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.get_by_role("button", name="Rendered / Source").click()
    expect(page.locator("#panel-document .doc-source")).to_contain_text("Draft line typed now.")
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.get_by_role("tab", name="Diff").click()
    expect(page.get_by_role("tabpanel", name="Diff")).to_contain_text("Draft line typed now.")
    # The Messages tab shows the bodies cut; the whole one is a button away.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.get_by_role("tab", name="Messages").click()
    messages = page.get_by_role("tabpanel", name="Messages")
    expect(messages).to_contain_text("characters in all]")
    expect(messages.get_by_role("button", name="Whole body")).to_have_count(2)
    with context.expect_page() as opened:
        messages.get_by_role("button", name="Whole body").first.click()
    whole = opened.value
    whole.wait_for_load_state()
    assert "Draft line typed now." in whole.content() and '"model"' in whole.content()
    whole.close()
    assert max(sizes) <= KEYSTROKE_BYTES, sizes
    assert errors == []


def test_a_fold_opens_in_place_with_the_hidden_lines(context, big_server):
    from playwright.sync_api import expect

    page = open_page(context, big_server + EDITOR)
    rendered = page.locator("#panel-document .doc-rendered")
    expect(rendered.get_by_role("heading", name="Skill 100", exact=True)).to_be_visible()
    expect(rendered.get_by_role("heading", name="Skill 0", exact=True)).to_have_count(0)
    fold = rendered.get_by_role("link", name=re.compile(r"lines from 100 other skills"))
    expect(fold).to_be_visible()
    with page.expect_response(lambda r: "/preview/lines?" in r.url):
        fold.click()
    expect(rendered.get_by_role("heading", name="Skill 0", exact=True)).to_be_visible()
    # The rest of the range is a fold again, and the page stayed where it was.
    expect(rendered.get_by_role("link", name=re.compile(r"lines from \d+ other skills"))
           ).to_have_count(2)
    assert page.url == big_server + EDITOR


def test_the_compare_page_shows_hunks_and_loads_more(context, big_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    with page.expect_response(lambda r: "/preview/compare?" in r.url) as answer:
        page.goto(f"{big_server}/agents/Bench/preview/compare?a=bench&b=bench&b_trigger=cron")
    assert len(answer.value.body()) <= KEYSTROKE_BYTES * 2
    document = page.get_by_role("table", name="Document, side by side")
    expect(document.locator("tr.hunk").first).to_contain_text("@@ -1,")
    expect(document).to_contain_text("# Skill 0")
    more = document.get_by_role("link", name=re.compile(r"more rows of this diff"))
    before = document.locator("tr").count()
    with page.expect_response(lambda r: "/preview/compare/lines?" in r.url):
        more.click()
    # The answer arrives before htmx swaps it in: wait for the rows, not the response.
    expect(document.locator("tr")).not_to_have_count(before)
    assert document.locator("tr").count() > before
    expect(document).to_contain_text("# Skill 1")
    expect(more).to_have_count(1)  # the next fold
    assert errors == []


def test_the_lists_buttons_share_one_form(context, big_server):
    from playwright.sync_api import expect

    page = open_page(context, big_server + EDITOR)
    toggle = page.get_by_role("button", name="Enabled: skill_5", exact=True)
    expect(toggle).to_have_attribute("aria-pressed", "true")
    with page.expect_response(lambda r: r.url.endswith("/skills/skill_5/enabled")):
        toggle.click()
    expect(page.get_by_role("button", name="Enabled: skill_5", exact=True)).to_have_attribute(
        "aria-pressed", "false")
    with page.expect_response(lambda r: r.url.endswith("/skills/skill_5/move")):
        page.get_by_role("button", name="Move skill_5 up", exact=True).click()
    items = page.locator("#skill-items .skill-tag")
    expect(items.nth(4)).to_have_text("skill_5")
    assert page.url == big_server + EDITOR


def test_an_opened_fold_stays_open_while_typing(context, big_server):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(context, big_server + EDITOR, errors)
    rendered = page.locator("#panel-document .doc-rendered")
    skill_0 = rendered.get_by_role("heading", name="Skill 0", exact=True)
    with page.expect_response(lambda r: "/preview/lines?" in r.url):
        rendered.get_by_role("link", name=re.compile(r"lines from 100 other skills")).click()
    expect(skill_0).to_be_visible()
    # The next keystrokes render the preview again: the fold stays open, with the draft.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        type_at_end(page, "\nKept open.")
    expect(rendered).to_contain_text("Kept open.")
    expect(skill_0).to_be_visible()
    expect(rendered.get_by_role("link", name=re.compile(r"lines from \d+ other skills"))
           ).to_have_count(2)
    assert errors == []


def test_the_pipeline_tab_opens_a_stage_s_next_rows(context, big_server):
    from playwright.sync_api import expect

    page = open_page(context, big_server + EDITOR)
    with page.expect_response(lambda r: "/preview" in r.url):
        page.get_by_role("tab", name="Pipeline").click()
    stage = page.get_by_role("table", name="Variables resolved, unified")
    expect(stage).to_contain_text("item 3")
    expect(stage).not_to_contain_text("item 24")
    with page.expect_response(lambda r: "/preview/stage?" in r.url):
        stage.get_by_role("link", name=re.compile(r"\b9\d more rows of this diff")).click()
    expect(stage).to_contain_text("item 24")
    expect(stage.get_by_role("link", name=re.compile(r"\b6\d more rows of this diff"))
           ).to_be_visible()
    # The side-by-side layout came as a placeholder; switching to it loads it.
    with page.expect_response(lambda r: r.url.endswith("/preview")):
        page.get_by_role("tabpanel", name="Pipeline").get_by_role(
            "button", name="Unified / Side by side").click()
    split = page.get_by_role("table", name="Variables resolved, side by side")
    expect(split).to_contain_text("item 3")
    expect(stage).to_be_hidden()


def test_the_budget_chart_loads_with_its_tab(context, big_server):
    from playwright.sync_api import expect

    page = open_page(context, big_server + "/agents/Bench/preview")
    expect(page.locator("#agent-preview .budget meter")).to_be_attached()
    chart = page.get_by_role("img", name="Tokens by skill, tool and variable, largest first")
    expect(chart).to_have_count(0)
    with page.expect_response(lambda r: "/agents/Bench/preview?" in r.url):
        page.get_by_role("tab", name="Budget").click()
    expect(chart).to_be_visible()
    expect(chart.locator("g.bar")).to_have_count(40)  # the largest parts (here the tools)
    page.get_by_role("link", name=re.compile(r"^Chart all \d+ parts$")).click()
    expect(chart.locator("a")).to_have_count(200)
