"""Telling a connected client that its lists changed: the label is read again every few
seconds (one indexed query), and when it names another snapshot than before (moved, or a
new snapshot published to it) the client is told.

Over stdio and a 2026-era `subscriptions/listen` stream, `Watch` publishes the change on a
bus the SDK's `ListenHandler` serves (and sends a handshake-era session the two
`list_changed` notifications itself). Over Streamable HTTP, a handshake-era client's GET
stream is `notifications`: a plain generator a WSGI worker serves, resumed by the
`Last-Event-ID` a client sends back (each event's id is the snapshot it told of).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import anyio
from mcp import types
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from sqlalchemy.exc import SQLAlchemyError

from webapp import store
from webapp.pipeline import whole_number
from webapp.schema import models

from . import catalogue

if TYPE_CHECKING:  # the server module reads the web package, which reads this one
    from .server import Published

log = logging.getLogger(__name__)
#: Seconds between two readings of the label (`--poll`, `MCP_POLL_SECONDS`).
POLL_SECONDS = 2.0
#: Longest a stream stays open (`MCP_STREAM_SECONDS`): then a GET stream ends and the
#: client opens it again (its `Last-Event-ID` says what it was told, so nothing is missed);
#: a listen stream ends gracefully and the client listens again.
STREAM_SECONDS = 300.0
#: Milliseconds a client waits before opening a GET stream again (the SSE `retry` field).
RETRY_MS = 1000
#: Most `subscriptions/listen` streams one server (a stdio session, an HTTP request) holds.
MOST_LISTENERS = 8
#: Most resources a session, or the listen streams of one server, may subscribe to.
MOST_SUBSCRIPTIONS = 100
#: The notifications a change sends, in this order, as JSON-RPC writes them.
CHANGED = tuple(types.JSONRPCNotification(jsonrpc="2.0", method=notification.method)
                .model_dump_json(by_alias=True, exclude_none=True).encode()
                for notification in (types.ResourceListChangedNotification(),
                                     types.PromptListChangedNotification()))


def snapshot_now(published: Published, agent_id: int | None = None) -> int | None:
    """The id of the snapshot the label names now (None: none, or no such agent): one
    indexed query when the agent's id is given, two when it is read by name."""
    with published.session() as session:
        try:
            return store.resolve(session, published.agent if agent_id is None else agent_id,
                                 published.label).id
        except store.NotFound:
            return None


def agent_id(published: Published) -> int | None:
    """The id of the agent `published` serves (None: there is none)."""
    with published.session() as session:
        try:
            return store.get_agent(session, published.agent).id
        except store.NotFound:
            return None


class Watch:
    """Publishes the label's moves on `bus` (served by `listen`) and to the handshake-era
    session that `attach` was told of; a resource subscribed to (`subscribe`, or a listen
    stream's `resourceSubscriptions`) is told `updated` when a move changed its bytes."""

    def __init__(self, published: Published):
        self.published = published
        self.session: ServerSession | None = None
        self.bus = InMemorySubscriptionBus()
        self.streams = ListenHandler(self.bus, max_subscriptions=MOST_LISTENERS)
        self.subscribed: set[str] = set()  # by the handshake-era session
        self.wanted: set[str] = set()  # by listen streams
        #: The label moved while no session was ready to be told (`attach` tells it).
        self.missed = False

    async def attach(self, ctx: Any, params: Any) -> None:
        """`notifications/initialized`: the client is ready to be told of changes, and is
        told now of one since the server started: the client may have listed before it
        said it was ready, and a move read in between was otherwise told to no one."""
        self.session = ctx.session
        if self.missed:
            self.missed = False
            await self.session.send_resource_list_changed()
            await self.session.send_prompt_list_changed()

    async def listen(self, ctx: Any, params: types.SubscriptionsListenRequestParams
                     ) -> types.SubscriptionsListenResult:
        """`subscriptions/listen`: the SDK's stream, its resources noted first."""
        _want(self.wanted, params.notifications.resource_subscriptions or ())
        return await self.streams(ctx, params)

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams
                        ) -> types.EmptyResult:
        """`resources/subscribe` (the handshake era, on a session that is kept)."""
        _want(self.subscribed, (params.uri,))
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams
                          ) -> types.EmptyResult:
        self.subscribed.discard(params.uri)
        return types.EmptyResult()

    async def run(self, poll: float) -> None:
        """Read the label now and every `poll` seconds after, and tell of each move, until
        cancelled."""
        agent = agent_id(self.published)
        seen = snapshot_now(self.published, agent)
        while True:
            await anyio.sleep(poll)
            now = snapshot_now(self.published, agent)
            if now == seen:
                continue
            changed = updated(self.published, seen, now, self.subscribed | self.wanted)
            seen = now
            log.info("label %r now names snapshot id %s", self.published.label, now)
            if self.session is not None:  # a handshake-era client, initialized
                await self.session.send_resource_list_changed()
                await self.session.send_prompt_list_changed()
                for uri in sorted(changed & self.subscribed):
                    await self.session.send_resource_updated(uri)
            else:
                self.missed = True
            await self.bus.publish(ResourcesListChanged())  # 2026-era listen streams
            await self.bus.publish(PromptsListChanged())
            for uri in sorted(changed & self.wanted):
                await self.bus.publish(ResourceUpdated(uri))

    async def run_for(self, poll: float, seconds: float) -> None:
        """`run` for `seconds`, then end every listen stream gracefully (its client then
        listens again)."""
        with anyio.move_on_after(seconds):
            try:
                await self.run(poll)
            except SQLAlchemyError:  # the database went: the streams end, clients listen again
                log.warning("label %r unreadable: its listen streams end", self.published.label,
                            exc_info=True)
        self.streams.close()


def _want(into: set[str], uris: Iterable[str]) -> None:
    """Note `uris` as subscribed to in `into`, refusing past `MOST_SUBSCRIPTIONS`."""
    wanted = into | set(uris)
    if len(wanted) > MOST_SUBSCRIPTIONS:
        raise MCPError(INVALID_PARAMS, f"at most {MOST_SUBSCRIPTIONS} resources may be "
                                       f"subscribed to, not {len(wanted)}")
    into.update(wanted)


def updated(published: Published, before: int | None, after: int | None,
            uris: set[str]) -> set[str]:
    """Which of `uris` have other bytes (or none) in snapshot `after` than in `before`."""
    if not uris:
        return set()
    old, new = _contents(published, before, uris), _contents(published, after, uris)
    return {uri for uri in uris if old.get(uri) != new.get(uri)}


def _contents(published: Published, snapshot_id: int | None, uris: set[str]
              ) -> dict[str, bytes]:
    """The bytes of those of `uris` that snapshot `snapshot_id` holds: only the skills
    they name are written."""
    skills = {skill for uri in uris if (skill := catalogue.skill_of(uri)) is not None}
    with published.session() as session:
        snapshot = None if snapshot_id is None else session.get(models.PublishedSnapshot,
                                                                snapshot_id)
        if snapshot is None or not skills:
            return {}
        folders = store.published_folders(session, snapshot)
        return {entry.uri: entry.data for skill in sorted(skills)
                for entry in catalogue.entries(folders, skill) if entry.uri in uris}


def notifications(current: Callable[[], int | None], told: int | None, *, poll: float,
                  seconds: float, clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], None] = time.sleep) -> Iterator[bytes]:
    """A handshake-era GET stream, as SSE: a priming event (the snapshot `told` of, and
    the `retry` delay), then the two `list_changed` notifications each time `current()`
    names another snapshot than the client was told of, for `seconds`. A quiet reading
    writes a comment: a client that went is noticed at the next write, not at the end."""
    yield _event(told, b"", retry=RETRY_MS)
    started = clock()
    while True:
        try:
            now = current()
        except SQLAlchemyError:  # the database went: the stream ends, the client comes back
            log.warning("label unreadable: a stream ends", exc_info=True)
            return
        if now != told:
            told = now
            for notification in CHANGED:
                yield _event(told, notification)
        else:
            yield b":\n\n"
        if clock() - started >= seconds:
            return
        sleep(poll)


def event_id(told: int | None) -> str:
    """The SSE id of an event that told of snapshot `told`."""
    return "none" if told is None else str(told)


def told_of(event: str | None) -> int | None | bool:
    """The snapshot an SSE id told of; False when `event` is no id of ours."""
    if event == "none":
        return None
    number = whole_number(event or "", 18)
    return False if number is None else number


def _event(told: int | None, data: bytes, *, retry: int | None = None) -> bytes:
    lines = [b"event: message", b"id: " + event_id(told).encode()]
    if retry is not None:
        lines.append(b"retry: " + str(retry).encode())
    return b"\n".join([*lines, b"data: " + data]) + b"\n\n"
