"""Nostr in a real browser, with a relay the test starts: the agent's key set from a NIP-07
extension, a snapshot signed by the extension and published (the report per relay and
event), and an import from the relay previewed and applied.

A real extension cannot be installed here, so the extension is a test double: a script
the test injects that defines `window.nostr` (NIP-07: `getPublicKey`, `signEvent`) and
signs in the test process with the test's key, through a function Playwright exposes.
Everything else — the page's script, the server's checks, the relay — is the real thing.
"""

from __future__ import annotations

import re

import nostr_sdk
import pytest

from tests.support.relay import local_relay
from webapp import store
from webapp.nostr import sign
from webapp.schema import db

pytestmark = pytest.mark.browser

KEYS = nostr_sdk.Keys.generate()
PUBKEY = KEYS.public_key().to_hex()

EXTENSION = """
window.nostr = {
  getPublicKey: async () => await window.__testNostrPublicKey(),
  signEvent: async (event) => await window.__testNostrSign(event),
};
"""


def with_extension(context) -> None:
    """Give every page of `context` the NIP-07 test double (see the module)."""
    context.expose_function("__testNostrPublicKey", lambda: PUBKEY)
    context.expose_function("__testNostrSign",
                            lambda event: sign({**event, "pubkey": PUBKEY}, KEYS))
    context.add_init_script(EXTENSION)


def test_publish_signed_by_the_extension_then_import_the_agent_back(app, context, live_server):
    from playwright.sync_api import expect

    with app.app_context():
        store.publish(db.get_session(), "Simon", "first", expected_latest=0, override="demo")
    with_extension(context)
    with local_relay() as url:
        page = context.new_page()
        page.goto(f"{live_server}/agents/Simon/settings")
        page.get_by_role("link", name="Nostr key and relays").click()
        page.get_by_role("button", name="Use my extension's key").click()
        expect(page.get_by_label("npub")).to_have_value(PUBKEY)
        page.get_by_label("Relays, one a line").fill(url)
        page.get_by_role("button", name="Save Nostr settings").click()
        expect(page.get_by_label("Agent npub")).to_have_text(KEYS.public_key().to_bech32())

        page.get_by_role("button", name="Sign and publish to relays").click()
        report = page.get_by_role("region", name="What the relays said")
        expect(report).to_contain_text("Snapshot 1: 5 of 5 on the relays")
        expect(report.get_by_role("row")).to_have_count(6)

        page.get_by_role("link", name="Import an agent from Nostr").click()
        page.get_by_label("npub or naddr").fill(KEYS.public_key().to_bech32())
        page.get_by_label("Relays, one a line").fill(url)
        page.get_by_label("Agent name (optional)").fill("Copy")
        page.get_by_role("button", name="Preview import").click()
        expect(page.get_by_role("heading", name="New agent Copy")).to_be_visible()
        skills = page.get_by_role("table", name="Skills")
        expect(skills.get_by_role("row")).to_have_count(4)
        expect(skills).to_contain_text("identity")
        page.get_by_role("button", name="Apply import").click()
        expect(page).to_have_url(re.compile(r"/agents/Copy(/|$)"))
        imported = page.get_by_text("Imported Copy from Nostr: 3 skills new or changed")
        expect(imported).to_be_visible()
    with app.app_context():
        session = db.get_session()
        assert store.export_bundle(session, "Copy")["skills"] == store.export_bundle(
            session, "Simon")["skills"]


def test_without_an_extension_the_page_says_how_to_sign(app, context, live_server):
    from playwright.sync_api import expect

    with app.app_context():
        session = db.get_session()
        store.publish(session, "Simon", "first", expected_latest=0, override="demo")
        store.nostr.set_nostr(session, "Simon", store.nostr.NostrSettings(
            PUBKEY, ("ws://127.0.0.1:9",)))
    page = context.new_page()
    page.goto(f"{live_server}/agents/Simon/nostr")
    page.get_by_role("button", name="Sign and publish to relays").click()
    expect(page.get_by_role("status", name="Signing")).to_contain_text("No Nostr signer found")
