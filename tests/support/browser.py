"""Driving Debian's chromium through Playwright: the browser's path, and helpers to open a
page and work the code editor (CodeMirror over the textarea `#content`) as a user would."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() == "true"
#: CodeMirror's completion list takes Enter only once it has been open for its
#: `interactionDelay` (75 ms): a time the library sets, with nothing on the page to wait for.
COMPLETION_DELAY_MS = 150


def require_chromium(path: Path = CHROMIUM, in_ci: bool = IN_CI) -> None:
    """Skip when the browser is missing, saying why; under CI=true, fail instead."""
    if path.exists():
        return
    reason = f"{path} is missing (install Debian's chromium package: apt-get install chromium)"
    if in_ci:
        pytest.fail(f"{reason}; CI=true requires the browser tests to run", pytrace=False)
    pytest.skip(reason)


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
    # Asked again until true: a page still arriving may not have the editor's bundle yet.
    page.wait_for_function(
        f"([name, line]) => {{ const el = document.querySelector("
        f"'.cm-content[aria-label=\"' + name + '\"]');"
        f" if (!el || typeof CM === 'undefined') return false; const view = ({_VIEW})(el);"
        " return !!view && view.state.doc.lineAt(view.state.selection.main.head).number"
        " === line; }", arg=[name, line])


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


def past_the_completion_delay(page) -> None:
    """Let the open completion list reach the age at which CodeMirror takes Enter."""
    page.wait_for_timeout(COMPLETION_DELAY_MS)
