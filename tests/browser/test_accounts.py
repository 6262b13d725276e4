"""Signing in and out in a real browser, and a session that ends while the editor is open:
it loses nothing. The live preview and the save in place say "signed out" and keep the
page with its text, and once the author has signed in again in another tab, the next
keystroke and the save go through."""

from __future__ import annotations

import pytest

from tests.support.browser import content_editor, type_at_end
from webapp import store
from webapp.schema import db

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


@pytest.fixture
def author_server(app, live_server) -> str:
    """`live_server` (Simon) with accounts: the admin `root` and the author `ann`."""
    with app.app_context():
        session = db.get_session()
        store.accounts.create_user(session, store.NewUser("root", "admin", PASSWORD))
        store.accounts.create_user(session, store.NewUser("ann", "author", PASSWORD))
    return live_server


def sign_in(page, base: str, next_path: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{base}/login?next={next_path}")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{base}{next_path}")


def test_signed_out_while_typing_the_text_stays_and_goes_through_after_signing_in(
        app, context, author_server):
    from playwright.sync_api import expect

    chat = "/agents/Simon/skills/chat"
    page = context.new_page()
    sign_in(page, author_server, chat)
    expect(content_editor(page)).to_be_visible()

    # Another tab of the same browser signs out: this page's session has ended.
    other = context.new_page()
    other.goto(f"{author_server}/account")
    # its menu
    other.get_by_role("navigation", name="Account").get_by_text("ann", exact=True).click()
    other.get_by_role("button", name="Sign out").click()
    expect(other).to_have_url(f"{author_server}/login")

    type_at_end(page, "\nTyped while signed out.")
    status = page.get_by_role("status")
    expect(status).to_contain_text("You are signed out, so nothing was sent")
    expect(status.get_by_role("link", name="Sign in (new tab)")).to_have_attribute(
        "href", f"/login?next={chat}")
    assert page.url == f"{author_server}{chat}"
    expect(content_editor(page)).to_contain_text("Typed while signed out.")

    # Ctrl+S while signed out: not saved, not sent away, the text still here.
    page.keyboard.press("Control+s")
    expect(status).to_contain_text("You are signed out")
    assert page.url == f"{author_server}{chat}"

    # Signed in again in the other tab, the next keystroke previews and Ctrl+S saves.
    sign_in(other, author_server, "/account")
    type_at_end(page, " Back.")
    expect(page.locator("#preview .doc-rendered")).to_contain_text("Typed while signed out. Back.")
    page.keyboard.press("Control+s")
    expect(status).to_contain_text("Saved")
    with app.app_context():
        skill = store.get_skill(db.get_session(), "Simon", "chat")
        assert skill.content.rstrip().endswith("Typed while signed out. Back.")
        assert skill.version == 2
        assert store.list_revisions(db.get_session(), "Simon", "chat")[0].author == "ann"


def test_the_editor_asks_to_sign_in_and_comes_back_then_sign_out(context, author_server):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto(f"{author_server}/agents/Simon/skills/chat")
    expect(page).to_have_url(f"{author_server}/login?next=/agents/Simon/skills/chat")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert "Simon" not in page.locator("header").inner_text()

    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("Wrong username or password.")
    expect(page.get_by_label("Username")).to_have_value("ann")

    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{author_server}/agents/Simon/skills/chat")
    expect(content_editor(page)).to_be_visible()
    account = page.get_by_role("navigation", name="Account")
    account.get_by_text("ann", exact=True).click()  # the account's menu
    expect(account.get_by_role("link", name="Your account")).to_be_visible()

    account.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(f"{author_server}/login")
    page.goto(f"{author_server}/agents/Simon/skills/chat")
    expect(page).to_have_url(f"{author_server}/login?next=/agents/Simon/skills/chat")


#: A page of another site with a form that posts to the editor (a click on its button
#: sends it, as a visitor of that site would).
ATTACKER_PAGE = """<!doctype html><title>Win a prize</title>
<form method="post" action="{action}">{fields}<button>Claim the prize</button></form>"""


@pytest.mark.parametrize(("path", "fields"), [
    ("/logout", {}),
    ("/login", {"username": "root", "password": PASSWORD}),  # the attacker's own account
], ids=["sign-out", "sign-in-as-another"])
def test_another_site_can_neither_sign_a_user_out_nor_in_as_someone_else(
        context, author_server, path, fields):
    from playwright.sync_api import expect

    page = context.new_page()
    sign_in(page, author_server, "/account")
    inputs = "".join(f'<input type="hidden" name="{name}" value="{value}">'
                     for name, value in fields.items())
    page.route("http://attacker.test/", lambda route: route.fulfill(
        content_type="text/html",
        body=ATTACKER_PAGE.format(action=f"{author_server}{path}", fields=inputs)))
    page.goto("http://attacker.test/")
    page.get_by_role("button", name="Claim the prize").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Forbidden")
    expect(page.locator("main")).to_contain_text("sent from a page of another site")

    page.goto(f"{author_server}/account")
    expect(page.locator("main")).to_contain_text("Signed in as ann")
