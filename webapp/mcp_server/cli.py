"""`skill-editor mcp`: serve one agent's published skills and scenarios over stdio."""

from __future__ import annotations

import anyio
import click

from webapp import store
from webapp.dbcli import database_url_option
from webapp.views.preview import MODEL_DEFAULTS, preview_models

from .server import Published
from .stdio import POLL_SECONDS, serve, session_factory


@click.command("mcp")
@click.option("--agent", "agent_name", metavar="NAME", required=True, help="The agent.")
@click.option("--label", default=store.labels.PRODUCTION, show_default=True, metavar="NAME",
              help="The label whose snapshot is served.")
@click.option("--poll", default=POLL_SECONDS, show_default=True, type=click.FloatRange(0.05),
              metavar="SECONDS", help="How often the label is read again, to tell the "
                                      "client when it moves.")
@database_url_option
def mcp_cmd(agent_name: str, label: str, poll: float, database_url: str | None) -> None:
    """Serve AGENT's snapshot (the one --label gives) to an MCP client over stdio: its
    skills as skill:// resources, its scenarios as prompts (docs/mcp.md)."""
    session = session_factory(database_url)
    with session() as opened:
        try:
            store.get_agent(opened, agent_name)
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
    published = Published(agent_name, label, session, preview_models(MODEL_DEFAULTS))
    anyio.run(serve, published, poll)
