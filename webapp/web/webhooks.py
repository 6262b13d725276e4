"""An agent's webhooks (an admin's): the list with the form to add one (the secret shown
once on the answer to the form, never flashed), and each webhook's delivery log with
**Send test event**, **Redeliver**, **Pause**/**Resume** and **Remove**.

The rules are `store.webhooks`'s, as for `skill-editor webhook`; a worker delivers what
is queued here (`webapp.outbound.delivery`: the thread `serve` starts, or `skill-editor worker`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.schema.db import get_session

from .access import ADMIN, requires
from .responses import done, page_or_fragment, secret_kept_out_of_caches

bp = Blueprint("webhooks", __name__)


@bp.get("/agents/<agent>/webhooks")
@requires(ADMIN)
def index(agent: str) -> Response:
    """The agent's webhooks, and the form to add one."""
    return hooks_response(agent)


@bp.post("/agents/<agent>/webhooks")
@requires(ADMIN)
def add(agent: str) -> Response:
    """Add a webhook; the answer shows its secret, this once."""
    form = request.form
    try:
        made = store.webhooks.add_webhook(get_session(), agent, form.get("url", ""),
                                          form.getlist("event"))
    except store.ValidationError as exc:
        return hooks_response(agent, 422, errors=exc.errors, values=form)
    return hooks_response(agent, 201, made=made)


@bp.get("/agents/<agent>/webhooks/<id:webhook_id>")
@requires(ADMIN)
def deliveries(agent: str, webhook_id: int) -> Response:
    """A webhook's delivery log: each message, newest first, with every try."""
    session = get_session()
    hook = store.webhooks.get_webhook(session, agent, webhook_id)
    log = store.webhooks.messages_of(session, hook)
    return page_or_fragment("webhook.html", "_webhook.html", agent=store.get_agent(
        session, agent).name, hook=hook, log=log,
        waiting=any(message.status == "pending" for message, _ in log))


@bp.post("/agents/<agent>/webhooks/<id:webhook_id>/test")
@requires(ADMIN)
def send_test(agent: str, webhook_id: int) -> Response:
    """Queue a test event for this webhook."""
    message = store.webhooks.send_test(get_session(), agent, webhook_id)
    return done(f"Queued a test event ({message.msg_id}).", _log_url(agent, webhook_id))


@bp.post("/agents/<agent>/webhooks/<id:webhook_id>/messages/<id:message_id>/redeliver")
@requires(ADMIN)
def redeliver(agent: str, webhook_id: int, message_id: int) -> Response:
    """Send a message again."""
    message = store.webhooks.redeliver(get_session(), agent, message_id)
    return done(f"Queued {message.msg_id} again.", _log_url(agent, webhook_id))


@bp.post("/agents/<agent>/webhooks/<id:webhook_id>/active")
@requires(ADMIN)
def set_active(agent: str, webhook_id: int) -> Response:
    """Pause or resume a webhook (`active` is `1` or `0`)."""
    active = request.form.get("active") == "1"
    store.webhooks.set_active(get_session(), agent, webhook_id, active)
    return done(f"{'Resumed' if active else 'Paused'} the webhook #{webhook_id}.",
                _log_url(agent, webhook_id))


@bp.post("/agents/<agent>/webhooks/<id:webhook_id>/remove")
@requires(ADMIN)
def remove(agent: str, webhook_id: int) -> Response:
    """Remove a webhook with its delivery log."""
    hook = store.webhooks.remove_webhook(get_session(), agent, webhook_id)
    return done(f"Removed the webhook #{webhook_id} ({hook.url}).",
                url_for("webhooks.index", agent=agent))


def hooks_response(agent: str, status: int = 200, errors: dict[str, str] | None = None,
                   values: Any = None, made: store.webhooks.NewWebhook | None = None
                   ) -> Response:
    """The webhooks page (or its fragment), with the form as sent and its errors, or a new
    webhook's secret."""
    session = get_session()
    row = store.get_agent(session, agent)
    return secret_kept_out_of_caches(page_or_fragment(
        "webhooks.html", "_webhooks.html", status, agent=row.name,
        hooks=store.webhooks.list_webhooks(session, row), events=store.webhooks.EVENTS,
        errors=errors or {}, values=values, made=made), shown=made is not None)


def _log_url(agent: str, webhook_id: int) -> str:
    return url_for("webhooks.deliveries", agent=agent, webhook_id=webhook_id)
