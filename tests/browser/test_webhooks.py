"""The webhooks of an agent in a real browser, with a receiver and a worker the test
starts: add one from Settings (its secret shown once), Send test event, watch the delivery
log fill in by itself, Redeliver."""

from __future__ import annotations

import pytest
from standardwebhooks.webhooks import Webhook

from tests.support.receiver import receiver
from tests.support.waiting import wait_until
from webapp.outbound import ALLOW_PRIVATE, delivery

pytestmark = pytest.mark.browser


def test_the_delivery_log_shows_a_test_event_and_a_redelivery(app, context, live_server,
                                                               monkeypatch):
    from playwright.sync_api import expect

    monkeypatch.setenv(ALLOW_PRIVATE, "1")  # the receiver listens on 127.0.0.1
    stop_worker = delivery.start_thread(app.config["DATABASE_URL"])
    try:
        with receiver() as got:
            page = context.new_page()
            page.goto(f"{live_server}/agents/Simon/settings")
            page.get_by_role("link", name="Manage webhooks").click()
            expect(page.get_by_role("heading", name="Webhooks of Simon")).to_be_visible()
            page.get_by_label("URL").fill(got.url)
            page.get_by_role("button", name="Add webhook").click()
            secret = page.get_by_label("New secret").inner_text()
            assert secret.startswith("whsec_")

            page.get_by_role("link", name="Delivery log of webhook #1").click()
            page.get_by_role("button", name="Send test event").click()
            row = page.get_by_role("row", name="webhook.test")
            expect(row).to_contain_text("delivered", timeout=30_000)  # the log refreshes
            expect(row).to_contain_text("200")
            assert Webhook(secret).verify(got.requests[0][1], got.requests[0][0])["type"] == (
                "webhook.test")

            row.get_by_role("button", name="Redeliver").click()
            wait_until(lambda: len(got.requests) == 2, "the redelivery")
            assert got.requests[1][0]["webhook-id"] == got.requests[0][0]["webhook-id"]
            expect(page.get_by_role("row", name="webhook.test")).to_contain_text(
                "delivered", timeout=30_000)
    finally:
        stop_worker()
