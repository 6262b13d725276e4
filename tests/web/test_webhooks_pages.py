"""An agent's webhooks in the browser's pages: the list and the delivery log as page and
fragment, a webhook added with its secret shown once, a refused form kept as sent,
Send test event, Redeliver, Pause and Remove, the Settings page's section, CSRF."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX, TOKEN, is_page, sign_in
from webapp import store
from webapp.schema import api_models, db


@pytest.fixture
def hooks(simon) -> str:
    """The address of Simon's webhooks page."""
    return f"/agents/{simon}/webhooks"


def added(app, simon) -> int:
    """A webhook of Simon's with a test event queued; returns its id."""
    with app.app_context():
        made = store.webhooks.add_webhook(db.get_session(), simon, "https://hooks.example.com/in")
        store.webhooks.send_test(db.get_session(), simon, made.webhook.id)
        return made.webhook.id


def test_the_pages_and_their_fragments(app, client, simon, hooks):
    page = client.get(hooks)
    assert is_page(page) and "Webhooks of Simon" in page.text and "No webhooks yet." in page.text
    fragment = client.get(hooks, headers=HTMX)
    assert not is_page(fragment) and fragment.text.lstrip().startswith('<section id="webhooks"')
    log = client.get(f"{hooks}/{added(app, simon)}")
    assert is_page(log) and "webhook.test" in log.text and "not tried yet" in log.text
    assert 'hx-trigger="every 2s"' in log.text  # waiting for the worker: it refreshes
    fragment = client.get(f"{hooks}/1", headers=HTMX)
    assert not is_page(fragment) and fragment.text.lstrip().startswith('<section id="webhook"')


def test_a_webhook_is_added_and_its_secret_shown_once(app, client, csrf, hooks):
    response = client.post(hooks, data={"csrf_token": csrf, "url": "https://deploy.example/in",
                                        "event": ["snapshot.published"]})
    assert response.status_code == 201 and response.headers["Cache-Control"] == "no-store"
    secret = re.search(r'id="new-secret"[^>]*>(whsec_[A-Za-z0-9+/=]+)<', response.text)[1]
    listed = client.get(hooks).text
    assert "https://deploy.example/in" in listed and secret not in listed
    with client.session_transaction() as session:
        assert secret not in str(dict(session))
    with app.app_context():
        [hook] = store.webhooks.list_webhooks(db.get_session(), "Simon")
        assert hook.secret == secret and hook.events == "snapshot.published"


@pytest.mark.parametrize(("form", "field"), [
    ({"url": "http://10.0.0.1/kept", "event": "label.moved"}, "url"),
    ({"url": "ftp://kept.example/"}, "url"),
    ({"url": "https://kept.example/"}, "events")])
def test_a_refused_form_comes_back_as_sent(client, csrf, hooks, form, field):
    response = client.post(hooks, data={"csrf_token": csrf, **form})
    assert response.status_code == 422 and f"<strong>{field}</strong>" in response.text
    assert "kept" in response.text and 'id="new-secret"' not in response.text


def test_send_test_event_redeliver_pause_and_remove(app, client, csrf, simon, hooks):
    hook = added(app, simon)
    assert client.post(f"{hooks}/{hook}/test", data={"csrf_token": csrf}).status_code == 303
    with app.app_context():
        session = db.get_session()
        sent = store.webhooks.messages_of(session, store.webhooks.get_webhook(
            session, simon, hook))
        assert [message.event for message, _ in sent] == ["webhook.test", "webhook.test"]
    assert client.post(f"{hooks}/{hook}/messages/1/redeliver",
                       data={"csrf_token": csrf}).status_code == 303
    assert client.post(f"{hooks}/{hook}/messages/99/redeliver",
                       data={"csrf_token": csrf}).status_code == 404
    paused = client.post(f"{hooks}/{hook}/active", data={"csrf_token": csrf, "active": "0"})
    assert paused.status_code == 303 and "Paused the webhook" in client.get(paused.location).text
    assert ">Resume<" in client.get(f"{hooks}/{hook}").text
    removed = client.post(f"{hooks}/{hook}/remove", data={"csrf_token": csrf})
    assert removed.status_code == 303 and "No webhooks yet." in client.get(hooks).text
    with app.app_context():
        assert db.get_session().query(api_models.WebhookMessage).count() == 0
    assert client.get(f"{hooks}/{hook}").status_code == 404


def test_the_settings_page_links_to_them(app, client, simon, hooks):
    added(app, simon)
    settings = client.get(f"/agents/{simon}/settings").text
    assert f'href="{hooks}"' in settings and "https://hooks.example.com/in" in settings


@pytest.mark.parametrize("path", ["", "/1/test", "/1/remove", "/1/active",
                                  "/1/messages/1/redeliver"])
def test_its_forms_need_the_csrf_token(app, client, simon, hooks, path):
    added(app, simon)
    assert client.post(hooks + path, data={"url": "https://x.example/"}).status_code == 400
    assert "https://x.example/" not in client.get(hooks).text


def test_an_author_is_refused_and_sees_no_webhooks_in_settings(app, client, team, simon, hooks):
    added(app, simon)
    sign_in(client, "author", TOKEN)
    assert client.get(hooks).status_code == 403
    assert client.post(hooks, data={"csrf_token": TOKEN, "url": "https://a.example/",
                                    "event": "label.moved"}).status_code == 403
    assert "hooks.example.com" not in client.get(f"/agents/{simon}/settings").text
