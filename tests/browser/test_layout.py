"""The editor's layout and keyboard access in a real browser: no sideways scrolling from
390 to 1440 px, the preview beside the form where there is room, ARIA tabs, the skip link,
the splitter, dark mode, and the Source view's line numbers."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import content_editor, editor_has_focus

pytestmark = pytest.mark.browser

EDITOR = "/agents/Simon/skills/chat"
TAB_NAMES = ["Document", "Diff", "Messages", "Log", "Problems", "Tests", "Pipeline"]


@pytest.fixture
def page_at(browser):
    """Open a path of the live server in a fresh context of the given viewport and scheme."""
    contexts = []

    def open_page(url: str, width: int = 1440, height: int = 900, color_scheme: str = "light",
                  javascript: bool = True):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      color_scheme=color_scheme, java_script_enabled=javascript)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(url)
        return page

    yield open_page
    for context in contexts:
        context.close()


def box(page, selector: str) -> dict[str, float]:
    return page.locator(selector).first.bounding_box()


def overflow(page) -> tuple[int, int]:
    return tuple(page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))


@pytest.mark.parametrize("width, height", [(390, 844), (1024, 768), (1440, 900)])
def test_no_sideways_scrolling_and_columns(page_at, live_server, screenshots, width, height):
    from playwright.sync_api import expect

    page = page_at(live_server + EDITOR, width, height)
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Simon — Didactyl Agent")
    scroll_width, inner_width = overflow(page)
    assert scroll_width <= inner_width, f"the page is {scroll_width} px wide at {inner_width} px"

    skills, form = box(page, "#skill-list"), box(page, "#form-column")
    preview = box(page, ".preview-wrap")
    if width >= 1024:
        # Three columns: list | form | preview, the preview on the form's right, level with it.
        assert skills["x"] + skills["width"] <= form["x"] + 1
        assert form["x"] + form["width"] <= preview["x"] + 1
        assert abs(form["y"] - preview["y"]) < 2
        assert preview["width"] >= 300 and form["width"] >= 300
    else:
        # Stacked: list, then form, then preview, each the page's width.
        assert skills["y"] + skills["height"] <= form["y"] + 1
        assert form["y"] + form["height"] <= preview["y"] + 1
        assert form["width"] > width - 20 and preview["width"] > width - 20
        assert not page.locator(".pane-handle").is_visible()
    # The preview's panels fit too: the Source view and the side-by-side diff.
    page.get_by_role("button", name="Rendered / Source").click()
    page.get_by_role("tab", name="Diff").click()
    page.get_by_role("button", name="Unified / Side by side").click()
    assert overflow(page)[0] <= inner_width

    page.get_by_role("tab", name="Document").click()
    page.get_by_role("button", name="Rendered / Source").click()
    path = screenshots / f"editor-{width}.png"
    page.mouse.move(0, height - 1)  # no hover styles in the picture
    page.evaluate("window.scrollTo(0, 0)")
    # At 390 px the whole page, to show how the columns stack; else what the window shows.
    page.screenshot(path=str(path), full_page=width < 1024)
    assert 10_000 < path.stat().st_size < 400_000
    assert page.errors == []


def test_without_javascript_the_columns_stay_and_the_skip_link_works(page_at, live_server):
    page = page_at(live_server + EDITOR, 1024, 768, javascript=False)
    assert overflow(page)[0] <= 1024
    form, preview = box(page, "#form-column"), box(page, ".preview-wrap")
    assert form["x"] + form["width"] <= preview["x"] + 1
    assert abs(form["width"] - preview["width"]) < 2  # an even split, not resizable
    assert not page.locator(".pane-handle").is_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the fragment link focuses the textarea
    assert page.evaluate("document.activeElement.id") == "content"


@pytest.mark.parametrize("path", ["/help", "/agents/Simon/preview",
                                  "/agents/Simon/preview/compare"])
def test_other_pages_fit_a_phone(page_at, live_server, path):
    page = page_at(live_server + path, 390, 844)
    assert overflow(page)[0] <= 390


def test_preview_tabs_are_aria_tabs(page_at, live_server):
    from playwright.sync_api import expect

    page = page_at(live_server + EDITOR)
    tablist = page.get_by_role("tablist", name="Preview tabs")
    tabs = tablist.get_by_role("tab")
    # Each tab's name is its first word; a badge (Problems, Tests) may follow it.
    assert [text.split()[0] for text in tabs.all_inner_texts()] == TAB_NAMES
    for name in TAB_NAMES:
        expect(page.get_by_role("tab", name=name, exact=True)).to_have_count(1)

    def selected() -> list[str]:
        return page.evaluate("""Array.from(document.querySelectorAll('#preview [role=tab]'))
            .filter(t => t.getAttribute('aria-selected') === 'true').map(t => t.id)""")

    def tab_stops() -> list[str]:
        return page.evaluate("""Array.from(document.querySelectorAll('#preview [role=tab]'))
            .filter(t => t.tabIndex === 0).map(t => t.id)""")

    assert selected() == ["tab-document"] and tab_stops() == ["tab-document"]
    document_tab = page.get_by_role("tab", name="Document")
    document_tab.focus()
    page.keyboard.press("ArrowRight")
    assert selected() == ["tab-diff"] and tab_stops() == ["tab-diff"]
    assert page.evaluate("document.activeElement.id") == "tab-diff"
    expect(page.get_by_role("tabpanel", name="Diff")).to_be_visible()
    expect(page.locator("#panel-document")).to_be_hidden()
    page.keyboard.press("End")
    assert selected() == ["tab-pipeline"]
    page.keyboard.press("ArrowRight")  # wraps around
    assert selected() == ["tab-document"]
    page.keyboard.press("ArrowLeft")
    assert selected() == ["tab-pipeline"]
    page.keyboard.press("Home")
    assert selected() == ["tab-document"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert selected() == ["tab-messages"]
    assert page.locator("#tab-messages").get_attribute("aria-controls") == "panel-messages"
    expect(page.get_by_role("tabpanel", name="Messages")).to_be_visible()

    # A preview refreshed while a tab has the focus (the list changed) leaves it there.
    page.evaluate("document.getElementById('tab-messages').dataset.old = 'yes'")
    page.evaluate("htmx.trigger(document.body, 'workspace-changed')")
    expect(page.locator("#tab-messages[data-old]")).to_have_count(0)  # swapped
    assert page.evaluate("document.activeElement.id") == "tab-messages"
    assert selected() == ["tab-messages"]

    # A live preview swaps the tabs: the new ones say the same.
    content_editor(page).click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nMore.\n")
    expect(page.locator("#tab-diff .badge")).to_be_attached()
    assert selected() == ["tab-messages"] and tab_stops() == ["tab-messages"]
    # And a reload restores the tab with its ARIA state.
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_contain_text("Saved chat")
    page.reload()
    expect(page.locator("#tab-messages")).to_have_attribute("aria-selected", "true")
    assert selected() == ["tab-messages"]
    assert page.errors == []


def test_tab_choice_is_kept_per_kind_of_page(page_at, live_server):
    page = page_at(live_server + EDITOR)
    page.get_by_role("tab", name="Diff").click()
    page.get_by_role("button", name="Unified / Side by side").click()
    page.get_by_role("tab", name="Problems").click()
    assert page.locator(".preview-wrap").get_attribute("data-diff-view") == "split"

    page.goto(live_server + "/agents/Simon/preview/compare")
    assert page.locator(".preview-wrap").get_attribute("data-diff-view") == "split"
    page.get_by_role("button", name="Side by side / Unified").click()
    assert page.locator(".preview-wrap").get_attribute("data-diff-view") == "unified"

    page.goto(live_server + "/agents/Simon/preview")
    assert page.locator(".preview-wrap").get_attribute("data-tab") == "document"
    assert page.locator("#tab-document").get_attribute("aria-selected") == "true"

    page.goto(live_server + EDITOR)  # the editor kept its own choice
    assert page.locator(".preview-wrap").get_attribute("data-tab") == "problems"
    assert page.locator(".preview-wrap").get_attribute("data-diff-view") == "split"
    page.goto(live_server + "/agents/Simon/preview/compare")  # and so did the comparison
    assert page.locator(".preview-wrap").get_attribute("data-diff-view") == "unified"


def test_skip_link_is_the_first_tab_stop(page_at, live_server):
    page = page_at(live_server + EDITOR)
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.className,"
                            " document.activeElement.textContent]")
    assert focused == ["skip-link", "Skip to editor"]
    assert page.locator(".skip-link").is_visible()  # shown while focused
    page.keyboard.press("Enter")  # focuses the code editor
    assert editor_has_focus(page)
    page.keyboard.type("typed ")
    assert page.locator("#content").input_value().startswith("typed ")


def test_every_control_has_a_name_and_focus_shows(page_at, live_server):
    page = page_at(live_server + EDITOR)
    unnamed = page.evaluate("""(() => {
      const name = (el) => (el.getAttribute('aria-label') || '').trim()
        || (el.labels && Array.from(el.labels).map(l => l.textContent).join('').trim())
        || (el.getAttribute('aria-labelledby') || '').split(' ').map(id => {
             const ref = document.getElementById(id);
             return ref ? ref.textContent : ''; }).join('').trim()
        || (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent.trim() : '');
      // (A tabindex of -1 without a role is a scroll container, such as the code editor's.)
      return Array.from(document.querySelectorAll('a[href], button, input:not([type=hidden]),'
          + ' select, textarea, [tabindex]:not([tabindex="-1"]:not([role])), [contenteditable]'))
        .filter(el => el.getClientRects().length && !name(el))
        .map(el => el.outerHTML.slice(0, 120));
    })()""")
    assert unnamed == []
    for name in ("Move personality up", "Move personality down", "Move chat down",
                 "Enabled: personality"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1
    assert page.get_by_role("button", name="Save", exact=True).count() == 1
    assert page.get_by_role("textbox", name="Content", exact=True).count() == 1
    assert page.get_by_role("combobox", name="Scenario").count() == 1

    # Tab from the skip link to a control: its outline is drawn.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    outline = page.evaluate("(() => { const s = getComputedStyle(document.activeElement);"
                            " return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()")
    assert outline[0] != "none" and outline[1] >= 2


def test_splitter_resizes_with_the_keyboard_and_is_remembered(page_at, live_server):
    page = page_at(live_server + EDITOR, 1440, 900)
    handle = page.get_by_role("separator", name="Resize the editor and the preview")
    assert handle.get_attribute("aria-valuenow") == "50"
    before = box(page, "#form-column")["width"]
    handle.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert handle.get_attribute("aria-valuenow") == "60"
    wider = box(page, "#form-column")["width"]
    assert wider > before + 80
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("Shift+ArrowLeft")
    assert handle.get_attribute("aria-valuenow") == "40"
    assert box(page, "#form-column")["width"] < before - 80
    page.keyboard.press("Home")
    low = int(handle.get_attribute("aria-valuenow"))
    assert low == int(handle.get_attribute("aria-valuemin")) and low >= 20
    assert box(page, "#form-column")["width"] >= 240 - 1
    page.keyboard.press("End")
    assert box(page, ".preview-wrap")["width"] >= 240 - 1
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    remembered = handle.get_attribute("aria-valuenow")
    assert page.evaluate("localStorage.getItem('skill-editor.split')") == remembered

    page.reload()
    assert handle.get_attribute("aria-valuenow") == remembered

    # Dragging moves it too.
    grip = box(page, ".pane-handle")
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + 200)
    page.mouse.down()
    page.mouse.move(grip["x"] + 300, grip["y"] + 200, steps=5)
    page.mouse.up()
    assert int(handle.get_attribute("aria-valuenow")) > int(remembered) + 15
    assert overflow(page)[0] <= 1440
    assert page.errors == []


def luminance(css_colour: str) -> float:
    red, green, blue = (int(part) for part in css_colour.split("(")[1].split(")")[0].split(",")[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def background_of(page, selector: str) -> str:
    return page.evaluate(f"getComputedStyle(document.querySelector('{selector}')).backgroundColor")


def test_dark_mode_follows_the_system(page_at, live_server, screenshots):
    light = page_at(live_server + EDITOR, color_scheme="light")
    assert luminance(light.evaluate("getComputedStyle(document.body).backgroundColor")) > 0.8
    dark = page_at(live_server + EDITOR, color_scheme="dark")
    background = dark.evaluate("getComputedStyle(document.body).backgroundColor")
    ink = dark.evaluate("getComputedStyle(document.body).color")
    assert luminance(background) < 0.15 and luminance(ink) > 0.8
    for selector in ("#preview", ".code-editor .cm-editor", ".skill-list"):
        colour = background_of(dark, selector)
        assert luminance(colour) < 0.2, (selector, colour)
    # The highlighted source uses the dark pygments style.
    dark.get_by_role("button", name="Rendered / Source").click()
    source = background_of(dark, "table.source")
    assert luminance(source) < 0.15
    dark.screenshot(path=str(screenshots / "editor-dark.png"))


@pytest.mark.parametrize("width", [390, 1440])
def test_source_line_numbers_do_not_wrap_with_long_origins(page_at, live_server, width):
    from playwright.sync_api import expect

    page = page_at(live_server + EDITOR, width, 900)
    long_tag = "a-very-long-skill-name-that-goes-on-and-on-" + "x" * 20
    page.fill("input[name=d_tag]", long_tag)
    page.keyboard.press("Control+s")  # saved under the new d_tag, whose lines are labelled with it
    # Saved and renamed: the page is the new d_tag's editor (the "Saved" flash may already
    # have given way to a later message on a loaded machine; the save tests read it).
    expect(page).to_have_url(re.compile(re.escape(long_tag) + "$"))
    page.get_by_role("button", name="Rendered / Source").click()
    expect(page.locator("#preview tr.mine td.origin").first).to_contain_text(long_tag[:20])
    cells = page.evaluate("""Array.from(document.querySelectorAll('#preview table.source tr'))
      .map(tr => {
        const num = tr.querySelector('td.num'), origin = tr.querySelector('td.origin');
        const range = document.createRange(); range.selectNodeContents(num);
        return [num.textContent, range.getClientRects().length,
                origin.getBoundingClientRect().width];
      })""")
    assert len(cells) > 10
    for number, lines, origin_width in cells:
        assert lines == 1, f"line number {number} wraps"
        assert origin_width < 200
    assert overflow(page)[0] <= width
