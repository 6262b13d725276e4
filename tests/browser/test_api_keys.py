"""The API keys page in a real browser: an admin finds it in the account menu, creates a
key whose token is shown once and works against the API, and revokes it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def snapshots(base: str, token: str) -> int:
    request = urllib.request.Request(f"{base}/api/v1/agents/Simon/snapshots",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            json.load(response)
            return response.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_an_admin_creates_a_key_uses_it_and_revokes_it(app, context, live_server):
    from playwright.sync_api import expect

    with app.app_context():
        session = db.get_session()
        store.accounts.create_user(session, store.NewUser("root", "admin", PASSWORD))
        store.publish(session, "Simon", "", 0)
    page = context.new_page()
    page.goto(f"{live_server}/login?next=/")
    page.get_by_label("Username").fill("root")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    account = page.get_by_role("navigation", name="Account")
    account.get_by_text("root", exact=True).click()  # the account's menu
    account.get_by_role("link", name="API keys").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()

    page.get_by_label("Name").fill("runtime")
    page.get_by_label("Agent").select_option("Simon")
    page.get_by_role("button", name="Create key").click()
    token = page.get_by_label("New token").inner_text()
    assert token.startswith("se_")
    assert snapshots(live_server, token) == 200

    page.goto(f"{live_server}/admin/api-keys")
    expect(page.get_by_label("New token")).to_have_count(0)  # shown once
    expect(page.get_by_role("row", name="runtime")).to_contain_text("Simon")
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("row", name="runtime")).to_contain_text("revoked")
    assert snapshots(live_server, token) == 401
