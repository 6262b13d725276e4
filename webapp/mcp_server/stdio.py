"""`skill-editor mcp --agent NAME`: one agent's MCP server over stdio, for an agent on
this machine, reading the database directly (no API key: whoever can run the command can
read the database).

The session is live: every `poll` seconds (`--poll`) the label is read again (one indexed query),
and when it names another snapshot than before (moved, or a new one published to it)
the client is told its resources and prompts changed: a handshake-era client by
`notifications/resources/list_changed` and `notifications/prompts/list_changed`, a
2026-era client on the `subscriptions/listen` stream it opened (the SDK's
`ListenHandler`, at most `MOST_LISTENERS` streams).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
)
from sqlalchemy.orm import Session

from webapp import store
from webapp.schema import db

from .server import Published, build_server, live_options

log = logging.getLogger(__name__)
#: Most `subscriptions/listen` streams one stdio session may hold open.
MOST_LISTENERS = 8


class Watch:
    """Tells the connected client when the label names another snapshot."""

    def __init__(self, published: Published):
        self.published = published
        self.session: ServerSession | None = None
        self.bus = InMemorySubscriptionBus()
        self.seen = self.current()

    def current(self) -> int | None:
        """The id of the snapshot the label names now (None: none)."""
        with self.published.session() as session:
            try:
                return store.resolve(session, self.published.agent, self.published.label).id
            except store.NotFound:
                return None

    async def attach(self, ctx: ServerRequestContext[Any], params: Any) -> None:
        """`notifications/initialized`: the client is ready to be told of changes."""
        self.session = ctx.session

    async def run(self, poll: float) -> None:
        while True:
            await anyio.sleep(poll)
            now = self.current()
            if now == self.seen:
                continue
            self.seen = now
            log.info("label %r now names snapshot id %s", self.published.label, now)
            if self.session is not None:  # a handshake-era client, initialized
                await self.session.send_resource_list_changed()
                await self.session.send_prompt_list_changed()
            await self.bus.publish(ResourcesListChanged())  # 2026-era listen streams
            await self.bus.publish(PromptsListChanged())


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
    server = build_server(published)
    watch = Watch(published)
    server.add_notification_handler("notifications/initialized", types.NotificationParams,
                                    watch.attach)
    server.add_request_handler("subscriptions/listen", types.SubscriptionsListenRequestParams,
                               ListenHandler(watch.bus, max_subscriptions=MOST_LISTENERS))
    async with stdio_server() as (read, write), anyio.create_task_group() as tasks:
        tasks.start_soon(watch.run, poll)
        await server.run(read, write, live_options(server))
        tasks.cancel_scope.cancel()
