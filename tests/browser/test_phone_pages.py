"""Every page of the app fits a phone: at 390 px wide a wide table scrolls inside its own
box, and the page itself never scrolls sideways. The pages are read from the URL map (as
the access table reads them), so a new page is checked without being listed here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.routes import route_url, routes, seed
from tests.support.server import serve

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: What sticks out first: the elements past the window's right edge whose parent is not,
#: to name in the failure.
WIDEST = """Array.from(document.querySelectorAll("body *"))
  .filter(e => e.getBoundingClientRect().right > innerWidth + 1
               && e.parentElement.getBoundingClientRect().right <= innerWidth + 1)
  .slice(0, 3).map(e => `${e.parentElement.tagName}.${e.parentElement.className} > `
                        + `${e.tagName}.${e.className}`).join(", ")"""


@pytest.fixture
def seeded_server(app) -> Iterator[tuple[str, dict[str, str]]]:
    """The app with Relay Watch as `seed` leaves it (a log entry, a snapshot, a change
    since), served on a free port; yields its URL and the path arguments."""
    values = seed(app)
    for url in serve(app):
        yield url, values


def html_pages(app: Any, values: dict[str, str]) -> list[str]:
    """The path of every GET route, filled in; the API's are JSON and left out."""
    return [route_url(rule, values) for rule in routes(app, "GET")
            if not rule.rule.startswith("/api/")]


def test_every_page_fits_a_phone(app, browser, seeded_server):
    url, values = seeded_server
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    wide, seen = [], 0
    try:
        for path in html_pages(app, values):
            answer = context.request.get(url + path)
            if answer.status != 200 or not answer.headers.get("content-type", "").startswith(
                    "text/html") or "attachment" in answer.headers.get(
                    "content-disposition", ""):
                continue  # a download, or a route that needs a form's values
            page.goto(url + path)
            seen += 1
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                culprit = page.evaluate(WIDEST)
                wide.append(f"{path}: {width} px {culprit}")
    finally:
        context.close()
    assert seen >= 40, f"only {seen} pages answered"
    assert wide == [], "pages wider than a phone:\n" + "\n".join(wide)
