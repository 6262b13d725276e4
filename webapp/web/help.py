"""The skill authors' guide, `docs/SKILLS.md`, rendered inside the app.

The file is read from the project's `docs/` folder and rendered with the same
python-markdown + nh3 pipeline as skill text; the result is cached by the file's path
and modification time, so an edited guide shows on the next request.
"""

from __future__ import annotations

import html
from itertools import count
from pathlib import Path

from flask import Blueprint, Response, abort
from markupsafe import Markup

from webapp.bounds.lru import LRU
from webapp.render import markdown_to_html

from .access import requires
from .responses import page_or_fragment

bp = Blueprint("help", __name__)

#: The project's docs/, beside the `webapp` package in a checkout.
DOCS = Path(__file__).resolve().parents[2] / "docs"

GUIDE = DOCS / "SKILLS.md"
#: The runtime API's reference (linked from the guide's page).
API_REFERENCE = DOCS / "api.md"
#: The guide to context tests (linked from the scenario form and the Tests tab).
TESTS_GUIDE = DOCS / "tests.md"
#: How the context is assembled, stage by stage (the guide points to it).
CONTEXT_GUIDE = DOCS / "CONTEXT.md"
#: Skills as Nostr events: the draft specification (linked from an agent's Nostr page).
NOSTR_GUIDE = DOCS / "nostr.md"
#: Agent Skills folders: what is kept, the limits, each client's rules and catalogue.
FOLDERS_GUIDE = DOCS / "folders.md"

#: Rendered guides, keyed by (path, modification time in ns): a few entries, as there is
#: one guide and an edited one replaces the entry before it as the least recently used.
_rendered: LRU[tuple[Path, int], Markup] = LRU("rendered guides", 4)


@bp.get("/help")
@requires("viewer")
def show() -> Response:
    """docs/SKILLS.md as a page."""
    return page_or_fragment("help.html", "_help.html", guide=rendered(GUIDE))


@bp.get("/help/api")
@requires("viewer")
def api() -> Response:
    """docs/api.md, the runtime API's reference, as a page."""
    return reference_page(API_REFERENCE)


@bp.get("/help/tests")
@requires("viewer")
def tests() -> Response:
    """docs/tests.md, the guide to context tests, as a page."""
    return reference_page(TESTS_GUIDE)


def reference_page(path: Path) -> Response:
    """A guide other than the main one (`path`), as a page or fragment."""
    return page_or_fragment("help.html", "_help.html", guide=rendered(path), reference=True)


def rendered(path: Path) -> Markup:
    """`path` rendered to sanitized HTML, re-read only when its modification time changes."""
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        abort(404, description=f"The guide {path.name} is not installed with this copy of the app.")
    return _rendered.get_or_compute(
        (path, mtime),
        lambda key: Markup(anchored(markdown_to_html(key[0].read_text(encoding="utf-8")))))


#: Ids the help page's own markup uses, which a heading's anchor must not take.
TAKEN_IDS = frozenset({"status", "help", "keyboard-shortcuts", "keyboard-shortcuts-title"})


def heading_anchor(inner: str) -> str:
    """The anchor of a heading whose HTML is `inner`, as GitHub makes it: its text in
    lower case, spaces as hyphens, other marks dropped (`1. Select the skills` ->
    `1-select-the-skills`), so a link to a rule works here and on GitHub alike."""
    text, in_tag = [], False
    for char in inner:
        if char == "<" or char == ">":
            in_tag = char == "<"
        elif not in_tag:
            text.append(char)
    words = html.unescape("".join(text)).strip().lower()
    return "".join(c if c.isalnum() or c in "-_" else "-" if c == " " else "" for c in words)


def anchored(page: str) -> str:
    """`page` (a guide's sanitised HTML, whose headings have no attributes) with an `id`
    on each `<h1>`..`<h6>` (`heading_anchor`; a repeated one gets `-1`, `-2`, ...), so a
    page can link to a section of a guide: the pipeline's steps link to their rules."""
    out, pos, seen = [], 0, set(TAKEN_IDS)
    while (start := page.find("<h", pos)) >= 0:
        level = page[start + 2:start + 3]
        end = page.find(f"</h{level}>", start) if level in ("1", "2", "3", "4", "5", "6") \
            and page[start + 3:start + 4] == ">" else -1
        if end < 0:
            out.append(page[pos:start + 2])
            pos = start + 2
            continue
        inner = page[start + 4:end]
        anchor = base = heading_anchor(inner)
        for number in count(1):
            if anchor not in seen:
                break
            anchor = f"{base}-{number}"
        seen.add(anchor)
        out.append(f'{page[pos:start]}<h{level} id="{anchor}">{inner}</h{level}>')
        pos = end + 5
    out.append(page[pos:])
    return "".join(out)


@bp.get("/help/context")
@requires("viewer")
def context() -> Response:
    """docs/CONTEXT.md, how the context is assembled, as a page."""
    return reference_page(CONTEXT_GUIDE)


@bp.get("/help/nostr")
@requires("viewer")
def nostr() -> Response:
    """docs/nostr.md, the Nostr events' specification, as a page."""
    return reference_page(NOSTR_GUIDE)


@bp.get("/help/folders")
@requires("viewer")
def folders() -> Response:
    """docs/folders.md, Agent Skills folders and each client's rules, as a page."""
    return reference_page(FOLDERS_GUIDE)
