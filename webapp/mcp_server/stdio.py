"""`skill-editor mcp --agent NAME`: one agent's MCP server over stdio, for an agent on
this machine, reading the database directly (no API key: whoever can run the command can
read the database).

The session is live (`live.Watch`): every `poll` seconds (`--poll`) the label is read
again, and when it names another snapshot the client is told its resources and prompts
changed: a handshake-era client by `notifications/resources/list_changed` and
`notifications/prompts/list_changed`, a 2026-era client on the `subscriptions/listen`
stream it opened.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import anyio
from mcp.server.stdio import stdio_server
from sqlalchemy.orm import Session

from webapp.schema import db

from .live import Watch
from .server import Published, build_server


def session_factory(database_url: str | None):
    """Sessions on one engine for the life of the process (the schema upgraded first, as
    every command does)."""
    engine = db.make_engine(db.resolve_url(database_url))
    db.prepare(engine)
    maker = db.make_sessionmaker(engine)

    @contextlib.contextmanager
    def session() -> Iterator[Session]:
        with maker() as opened:
            yield opened

    return session


async def serve(published: Published, poll: float) -> None:
    """Serve `published` on stdin and stdout until the client closes them, reading its
    label again every `poll` seconds."""
    watch = Watch(published)
    server = build_server(published, watch=watch, kept=True)
    async with stdio_server() as (read, write), anyio.create_task_group() as tasks:
        tasks.start_soon(watch.run, poll)
        await server.run(read, write, server.create_initialization_options())
        tasks.cancel_scope.cancel()
