"""Fixtures for browser tests: the real app on a free port, driven by Debian's chromium.

Playwright's own browser downloads are never used (`playwright install` is not run):
the tests launch /usr/bin/chromium. Without it they skip and say why, except under
CI=true, where a missing browser is a failure.

The tests that take screenshots write them into their temporary directory, so a test run
leaves the work tree as it was; with SKILL_EDITOR_SCREENSHOTS=1 (`make screenshots`) they
write the committed pictures in docs/screenshots/ instead.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

import webapp
from webapp import db, store
from webapp.pipeline import load_bundle

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() == "true"
SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WRITE_DOCS_SCREENSHOTS = os.environ.get("SKILL_EDITOR_SCREENSHOTS", "") == "1"


def require_chromium(path: Path = CHROMIUM, in_ci: bool = IN_CI) -> None:
    """Skip when the browser is missing, saying why; under CI=true, fail instead."""
    if path.exists():
        return
    reason = f"{path} is missing (install Debian's chromium package: apt-get install chromium)"
    if in_ci:
        pytest.fail(f"{reason}; CI=true requires the browser tests to run", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def screenshots(tmp_path) -> Path:
    """The folder a test writes its screenshots to: docs/screenshots/ under
    SKILL_EDITOR_SCREENSHOTS=1, else the test's own temporary directory."""
    if WRITE_DOCS_SCREENSHOTS:
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return DOCS_SCREENSHOTS
    return tmp_path


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright, shared by the session's browser tests."""
    require_chromium()
    from playwright.sync_api import expect, sync_playwright

    # A CI machine runs the whole suite on two cores: assertions wait up to 10 s.
    expect.set_options(timeout=10_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def serve(app) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 on a free port in a thread; yields its URL, then stops it."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@pytest.fixture
def live_server(app) -> Iterator[str]:
    """The app (with the Simon demo agent) served on 127.0.0.1 on a free port; yields its URL."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(SIMON))
    yield from serve(app)


@pytest.fixture
def empty_server(app) -> Iterator[str]:
    """The app on an empty database (no agent at all), served like `live_server`."""
    yield from serve(app)


@pytest.fixture
def context(browser) -> Iterator[Any]:
    """A fresh browser context (its own cookies, so its own session) per test."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(10_000)
    yield context
    context.close()


def open_page(context, url: str, errors: list[str] | None = None) -> Any:
    """A new page at `url`; its console errors and uncaught exceptions go into `errors`."""
    page = context.new_page()
    if errors is not None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page


def type_at_end(page, text: str, name: str = "Content") -> None:
    """Type `text` at the end of the code editor named `name`, a key at a time."""
    content_editor(page, name).click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


# -- the code editor (CodeMirror over the textarea `#content`, which stays the form's value)

#: The CodeMirror view of the editor whose content element is `el` (or is inside `el`).
_VIEW = "(el) => CM.EditorView.findFromDOM(el.closest('.cm-editor'))"


def content_editor(page, name: str = "Content") -> Any:
    """The code editor's content element, named `name` (the skill's: Content)."""
    return page.get_by_role("textbox", name=name, exact=True)


def cursor(page, name: str = "Content") -> dict[str, Any]:
    """Where the code editor's cursor is: `head` (offset), `line`, `column` (1-based),
    whether the selection is `empty`, and the text's `length`."""
    return content_editor(page, name).evaluate(f"""(el) => {{
        const view = ({_VIEW})(el);
        const main = view.state.selection.main;
        const line = view.state.doc.lineAt(main.head);
        return {{head: main.head, line: line.number, column: main.head - line.from + 1,
                 empty: main.empty, length: view.state.doc.length}};
    }}""")


def wait_for_cursor_line(page, line: int, name: str = "Content") -> None:
    """Wait until the code editor's cursor is on `line` (a jump to `#L<line>` is made once
    the page has loaded, after the editor is there)."""
    content_editor(page, name).wait_for()
    page.wait_for_function(
        f"([name, line]) => {{ const el = document.querySelector("
        f"'.cm-content[aria-label=\"' + name + '\"]'); const view = ({_VIEW})(el);"
        " return view.state.doc.lineAt(view.state.selection.main.head).number === line; }",
        arg=[name, line])


def editor_has_focus(page, name: str = "Content") -> bool:
    """Whether the code editor named `name` has the keyboard focus."""
    return content_editor(page, name).evaluate("(el) => document.activeElement === el")


def set_editor_text(page, text: str, name: str = "Content") -> None:
    """Replace the code editor's whole text by `text`, as one change (a paste would be):
    typing would indent new lines as the editor does."""
    content_editor(page, name).evaluate(
        f"(el, text) => {{ const view = ({_VIEW})(el);"
        " view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text},"
        " userEvent: 'input.paste'}); }", text)
