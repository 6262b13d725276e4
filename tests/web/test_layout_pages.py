"""The markup behind the layout and keyboard access: ARIA tabs, the skip link, the splitter,
names for the skill list's buttons, the page kinds that key the remembered views, the
Help page's keyboard shortcuts and the two pygments colour schemes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.pages import HTMX
from webapp.render import pygments_css

EDITOR = "/agents/Simon/skills/chat"
STATIC = Path(__file__).resolve().parents[2] / "static"
TABS = [("document", "Document"), ("diff", "Diff"), ("messages", "Messages"), ("log", "Log"),
        ("problems", "Problems"), ("pipeline", "Pipeline")]
FOCUSABLE = re.compile(r"<(a|button|input|select|textarea)\b(?![^>]*type=\"hidden\")[^>]*>")


def test_editor_preview_tabs_are_aria_tabs(client, simon):
    html = client.get(EDITOR, headers=HTMX).data.decode()
    assert '<div class="tabs" role="tablist" aria-label="Preview tabs">' in html
    for index, (key, name) in enumerate(TABS):
        tab = re.search(rf'<button [^>]*data-tab-button="{key}"[^>]*>\s*{name}\b', html)
        assert tab, name
        attributes = tab.group(0)
        assert 'role="tab"' in attributes and f'id="tab-{key}"' in attributes
        assert f'aria-controls="panel-{key}"' in attributes
        # Document is selected by default and is the tab list's one Tab stop.
        assert f'aria-selected="{"true" if index == 0 else "false"}"' in attributes
        assert ('tabindex="-1"' in attributes) == (index > 0)
        assert (f'<div class="panel" data-panel="{key}" id="panel-{key}" role="tabpanel"'
                f' aria-labelledby="tab-{key}">') in html


def test_agent_preview_tabs_are_aria_tabs(client, simon):
    html = client.get("/agents/Simon/preview").data.decode()
    assert 'role="tablist"' in html and 'data-page-kind="agent-preview"' in html
    for key, _ in TABS:
        present = f'id="tab-{key}"' in html
        assert present == (key != "diff")
        assert present == (f'id="panel-{key}" role="tabpanel"' in html)


def test_tab_badges_describe_the_tab_and_leave_its_name(client, simon, skill_form):
    html = client.post(f"{EDITOR}/preview", headers=HTMX,
                       data=skill_form("system:\n{{agent_npubb}}\n")).data.decode()
    assert 'aria-describedby="diff-changed-text"' in html
    assert '<span id="diff-changed-text" hidden>The draft changes the document</span>' in html
    assert re.search(r'id="problem-count" aria-hidden="true">\d+</span>', html)
    assert re.search(r'<span id="problem-count-text" hidden>\d+ problems?</span>', html)


def test_skip_link_is_the_first_focusable_element(client, simon):
    html = client.get(EDITOR).data.decode()
    body = html[html.index("<body"):]
    first = FOCUSABLE.search(body)
    assert first.group(0) == '<a class="skip-link" href="#content">'
    assert 'id="content"' in html
    assert 'data-page-kind="editor"' in html


@pytest.mark.parametrize("path, kind", [("/agents/Simon/preview/compare", "compare"),
                                        ("/agents/Simon/tools", "tools.index")])
def test_pages_name_their_kind_and_have_no_skip_link(client, simon, path, kind):
    html = client.get(path).data.decode()
    assert f'data-page-kind="{kind}"' in html and "skip-link" not in html


def test_splitter_and_list_buttons_have_names(client, simon):
    html = client.get(EDITOR).data.decode()
    assert re.search(r'<div class="pane-handle" role="separator" tabindex="0"'
                     r' aria-orientation="vertical"\s+'
                     r'aria-label="Resize the editor and the preview" aria-controls="form-column"',
                     html)
    assert '<div class="form-column" id="form-column">' in html
    for d_tag in ("identity", "personality", "chat"):
        assert f'aria-label="Move {d_tag} up"' in html and f'aria-label="Move {d_tag} down"' in html
        assert f'aria-label="Enabled: {d_tag}"' in html
    assert 'aria-label="Content"' in html  # the name the issues give the editor
    assert 'aria-keyshortcuts="Control+S Meta+S">Save</button>' in html


def test_help_lists_the_keyboard_shortcuts(client):
    html = client.get("/help").data.decode()
    section = html[html.index('<section id="keyboard-shortcuts"'):]
    section = section[:section.index("</section>")]
    assert '<h2 id="keyboard-shortcuts-title">Keyboard shortcuts</h2>' in section
    for text in ("<kbd>Ctrl</kbd>+<kbd>S</kbd>", "<kbd>⌘</kbd>+<kbd>S</kbd>", "Skip to editor",
                 "<kbd>←</kbd> <kbd>→</kbd>", "<kbd>Home</kbd> <kbd>End</kbd>", "preview tabs",
                 "splitter", "<kbd>Shift</kbd>", "Problems"):
        assert text in section, text


def test_app_js_handles_the_keys_the_help_page_lists():
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    for key in ('"s"', "ArrowLeft", "ArrowRight", "Home", "End", "shiftKey", ".skip-link"):
        assert key in script, key


def test_pygments_css_is_generated_with_a_dark_variant():
    css = (STATIC / "pygments.css").read_text(encoding="utf-8")
    assert css == pygments_css()  # regenerate with webapp.render.pygments_css()
    light, dark = css.split("@media (prefers-color-scheme: dark) {")
    assert ".highlight { background: #f8f8f8; }" in light
    assert ".highlight { background: #0d1117; color: #E6EDF3 }" in dark
    assert "pygmentize -S github-dark -f html -a .highlight" in css.splitlines()[1]


def test_app_css_has_a_dark_scheme_and_visible_focus():
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    assert "color-scheme: light dark;" in css
    dark = css[css.index("@media (prefers-color-scheme: dark) {"):]
    assert "--bg: #0f1218;" in dark[:dark.index("}\n}")]
    assert ":focus-visible { outline: 2px solid var(--focus);" in css
