"""`skill-editor mcp`: serve one agent's published skills and scenarios over stdio.

The SDK and the server are imported when the command runs, not when the `skill-editor`
group is built: every other command starts as fast as without them.
"""

from __future__ import annotations

import click

from webapp.cli.database import database_url_option
from webapp.store.labels import PRODUCTION

#: How often a stdio session reads its label again, in seconds (`--poll`).
POLL_SECONDS = 2.0


@click.command("mcp")
@click.option("--agent", "agent_name", metavar="NAME", required=True, help="The agent.")
@click.option("--label", default=PRODUCTION, show_default=True, metavar="NAME",
              help="The label whose snapshot is served.")
@click.option("--poll", default=POLL_SECONDS, show_default=True, type=click.FloatRange(0.05),
              metavar="SECONDS", help="How often the label is read again, to tell the "
                                      "client when it moves.")
@database_url_option
def mcp_cmd(agent_name: str, label: str, poll: float, database_url: str | None) -> None:
    """Serve AGENT's snapshot (the one --label gives) to an MCP client over stdio: its
    skills as skill:// resources, its scenarios as prompts (docs/mcp.md)."""
    import anyio

    from webapp import store
    from webapp.mcp_server.server import Published
    from webapp.mcp_server.stdio import serve, session_factory
    from webapp.views.preview import MODEL_DEFAULTS, preview_models

    session = session_factory(database_url)
    with session() as opened:
        try:
            store.get_agent(opened, agent_name)
        except store.NotFound as exc:
            raise click.ClickException(str(exc)) from None
    published = Published(agent_name, label, session, preview_models(MODEL_DEFAULTS))
    anyio.run(serve, published, poll)
