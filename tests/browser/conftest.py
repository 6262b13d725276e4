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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.support.server import serve
from tests.support.workspaces import SIMON
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WRITE_DOCS_SCREENSHOTS = os.environ.get("SKILL_EDITOR_SCREENSHOTS", "") == "1"


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
