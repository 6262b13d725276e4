"""API key commands for the `skill-editor` CLI: `api-key create`, `list` and `revoke`.

Whoever can run these can read the database, so they need no sign-in, as `user` does.
Every rule (scopes, names) is `store.api_keys`'s; the API keys page calls the same
functions.
"""

from __future__ import annotations

from datetime import datetime

import click

from webapp import store
from webapp.schema import db

from .database import act_as, database_url_option


@click.group("api-key")
def api_key_group() -> None:
    """Manage the keys of the runtime API (/api/v1)."""


@api_key_group.command("create")
@click.option("--agent", "agent_name", metavar="NAME",
              help="The one agent the key may see (default: every agent).")
@click.option("--scope", "scopes", multiple=True, required=True,
              type=click.Choice(store.api_keys.SCOPES), help="What the key may do (repeat).")
@click.option("--name", default="", help="A label to recognise the key by.")
@database_url_option
def create_cmd(agent_name: str | None, scopes: tuple[str, ...], name: str,
               database_url: str | None) -> None:
    """Create a key; its token is printed once, alone on the last line."""
    with db.session_scope(database_url) as session:
        act_as(session)
        try:
            made = store.api_keys.create_key(session, name, scopes, agent_name)
        except store.ValidationError as exc:
            raise click.ClickException(str(exc)) from None
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"created API key #{made.key.id} for {agent_name or 'every agent'} "
                   f"({' '.join(store.api_keys.scopes_of(made.key))}); its token, shown "
                   "this once:", err=True)
        click.echo(made.token)


@api_key_group.command("list")
@database_url_option
def list_cmd(database_url: str | None) -> None:
    """List the keys: id, name, agent, scopes, created, last used, revoked."""
    with db.session_scope(database_url) as session:
        keys = store.api_keys.list_keys(session)
        if not keys:
            click.echo("no API keys (skill-editor api-key create --scope read)", err=True)
            return
        rows = [("ID", "NAME", "AGENT", "SCOPES", "CREATED", "LAST USED", "REVOKED")]
        rows += [(str(key.id), key.name or "-", agent or "(every agent)",
                  ",".join(store.api_keys.scopes_of(key)), _when(key.created_at),
                  _when(key.last_used_at), _when(key.revoked_at)) for key, agent in keys]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            click.echo("  ".join(cells).rstrip())


@api_key_group.command("revoke")
@click.argument("key_id", type=click.IntRange(min=1, max=store.MAX_ID))
@database_url_option
def revoke_cmd(key_id: int, database_url: str | None) -> None:
    """Revoke the key KEY_ID: it is refused from now on."""
    with db.session_scope(database_url) as session:
        try:
            store.api_keys.revoke_key(session, key_id)
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"revoked API key #{key_id}", err=True)


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M") if at is not None else "-"
