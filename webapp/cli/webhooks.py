"""Webhook commands for the `skill-editor` CLI: `webhook add|list|remove|test|deliveries|
redeliver`, and `worker`, which delivers what the outbox holds.

Every rule (URLs, events) is `store.webhooks`'s; the agent's Settings page calls the same
functions.
"""

from __future__ import annotations

import threading
from datetime import datetime

import click

from webapp import store
from webapp.schema import db

from .database import act_as, database_url_option

agent_option = click.option("--agent", "agent_name", metavar="NAME", required=True,
                            help="The agent whose webhooks these are.")
#: A webhook's (or a message's) id names it across agents: `--agent` is only a check.
owner_option = click.option("--agent", "agent_name", metavar="NAME",
                            help="Refuse unless the webhook is this agent's (optional: the id "
                                 "names one).")


@click.group("webhook")
def webhook_group() -> None:
    """Manage the webhooks told of an agent's publishes and label moves."""


@webhook_group.command("add")
@agent_option
@click.option("--url", required=True, help="Where to POST each event (http or https).")
@click.option("--event", "events", multiple=True, type=click.Choice(store.webhooks.EVENTS),
              help="An event to send (repeat; default: every event).")
@database_url_option
def add_cmd(agent_name: str, url: str, events: tuple[str, ...],
            database_url: str | None) -> None:
    """Add a webhook; its signing secret is printed once, alone on the last line."""
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            made = store.webhooks.add_webhook(session, agent_name, url,
                                              events or store.webhooks.EVENTS)
        except (store.ValidationError, store.NotFound) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"added webhook #{made.webhook.id} of {agent_name} for "
                   f"{made.webhook.events.replace(' ', ', ')}; its secret, shown this once:",
                   err=True)
        click.echo(made.secret)


@webhook_group.command("list")
@agent_option
@database_url_option
def list_cmd(agent_name: str, database_url: str | None) -> None:
    """List the agent's webhooks: id, URL, events, active, created."""
    with db.session_scope(database_url) as session:
        hooks = _call(store.webhooks.list_webhooks, session, agent_name)
        if not hooks:
            click.echo(f"no webhooks (skill-editor webhook add --agent {agent_name} --url URL)",
                       err=True)
            return
        for hook in hooks:
            click.echo(f"{hook.id}  {hook.url}  {hook.events.replace(' ', ',')}  "
                       f"{'active' if hook.active else 'paused'}  {_when(hook.created_at)}")


@webhook_group.command("remove")
@click.argument("webhook_id", type=click.IntRange(min=1, max=store.MAX_ID))
@owner_option
@database_url_option
def remove_cmd(webhook_id: int, agent_name: str | None, database_url: str | None) -> None:
    """Remove webhook WEBHOOK_ID with its delivery log."""
    with db.session_scope(database_url) as session:
        _call(store.webhooks.remove_webhook, session, agent_name, webhook_id)
        click.echo(f"removed webhook #{webhook_id}", err=True)


@webhook_group.command("test")
@click.argument("webhook_id", type=click.IntRange(min=1, max=store.MAX_ID))
@owner_option
@database_url_option
def test_cmd(webhook_id: int, agent_name: str | None, database_url: str | None) -> None:
    """Queue a test event for WEBHOOK_ID (a worker sends it)."""
    with db.session_scope(database_url) as session:
        act_as(session)
        message = _call(store.webhooks.send_test, session, agent_name, webhook_id)
        click.echo(f"queued {message.msg_id}", err=True)


@webhook_group.command("deliveries")
@click.argument("webhook_id", type=click.IntRange(min=1, max=store.MAX_ID))
@owner_option
@database_url_option
def deliveries_cmd(webhook_id: int, agent_name: str | None,
                   database_url: str | None) -> None:
    """The delivery log of WEBHOOK_ID: each message, newest first, with its tries."""
    with db.session_scope(database_url) as session:
        hook = _call(store.webhooks.get_webhook, session, agent_name, webhook_id)
        for message, tries in store.webhooks.messages_of(session, hook):
            click.echo(f"#{message.id} {message.event} {message.msg_id} {message.status} "
                       f"({message.tries} {'try' if message.tries == 1 else 'tries'})")
            for attempt in tries:
                code = attempt.status_code if attempt.status_code is not None else "-"
                click.echo(f"  {_when(attempt.at)}  {code}  {attempt.milliseconds} ms  "
                           f"{attempt.detail[:80]!r}")


@webhook_group.command("redeliver")
@click.argument("message")
@owner_option
@database_url_option
def redeliver_cmd(message: str, agent_name: str | None, database_url: str | None) -> None:
    """Send MESSAGE again (a worker sends it): its id as `deliveries` shows it and a
    receiver gets it (`msg_…`), or its number (`#12` or `12`)."""
    number = message.removeprefix("#")
    ref: int | str = message
    if not message.startswith("msg_"):
        parsed, problem = store.parse_integer("id", number)
        if problem:
            raise click.BadParameter(f"a msg_… id or a message's number: {problem}",
                                     param_hint="MESSAGE")
        ref = parsed or 0
    with db.session_scope(database_url) as session:
        queued = _call(store.webhooks.redeliver, session, agent_name, ref)
        click.echo(f"queued {queued.msg_id} again", err=True)


@click.command("worker")
@click.option("--once", is_flag=True, help="Deliver what is due now, then stop.")
@database_url_option
def worker_cmd(once: bool, database_url: str | None) -> None:
    """Deliver the webhooks' messages (until stopped; `serve` runs one too)."""
    from webapp.outbound.delivery import run

    tried = run(database_url, threading.Event(), once=once)
    click.echo(f"{tried} {'try' if tried == 1 else 'tries'}", err=True)


def _call(function, session, *args):  # type: ignore[no-untyped-def]
    try:
        return function(session, *args)
    except (store.NotFound, store.ValidationError) as exc:
        raise click.ClickException(str(exc)) from None


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S") if at is not None else "-"
