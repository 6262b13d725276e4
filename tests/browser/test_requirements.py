"""Without chromium the browser tests skip and say why, except in CI, where they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import require_chromium


def test_missing_browser_skips_outside_ci(tmp_path):
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        require_chromium(tmp_path / "chromium", in_ci=False)


def test_missing_browser_fails_in_ci(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="CI=true requires"):
        require_chromium(tmp_path / "chromium", in_ci=True)


def test_present_browser_passes(tmp_path):
    browser = Path(tmp_path / "chromium")
    browser.touch()
    require_chromium(browser, in_ci=True)
