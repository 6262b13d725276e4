"""A connected stdio session is told when its label names another snapshot: a new one
published to it, or the label moved back (the rollback), and then lists what it names."""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import partial
from types import SimpleNamespace

import anyio
import pytest
from mcp import Client, MCPError, types

from tests.support.mcp import (
    CHANGED,
    hear_two_moves,
    listen_through_a_publish,
    move_back,
    publish_edit,
    stdio,
    stdio_client,
)
from tests.support.waiting import wait_until
from webapp import store
from webapp.mcp_server.http import run_alone
from webapp.mcp_server.live import Watch
from webapp.mcp_server.server import Published
from webapp.mcp_server.stdio import session_factory
from webapp.schema import db
from webapp.views.preview import MODEL_DEFAULTS, preview_models


def test_list_changed_after_a_publish_and_a_label_move(published_url):
    changed, (after_publish, after_move) = hear_two_moves(
        partial(stdio_client, published_url, "Docs", "--poll", "0.1"), published_url)
    assert changed == CHANGED * 2
    assert after_publish.endswith("\nLive.\n") and not after_move.endswith("\nLive.\n")


def test_a_2026_client_is_told_on_its_listen_stream(published_url):
    """The 2026-07-28 protocol has no `initialized` and no standing stream: a client opens
    `subscriptions/listen`, and the label's move arrives on it."""
    async def session():
        async with Client(stdio(published_url, "Docs", "--poll", "0.1"), mode="auto") as client:
            return await listen_through_a_publish(client, published_url)

    seen, text = run_alone(session)
    assert seen == ["ResourcesListChanged", "PromptsListChanged"]
    assert text.endswith("\nLive.\n")


def test_listen_streams_are_bounded(published_url):
    """A session holds at most 8 listen streams; the 9th is refused, the others stay."""
    async def session():
        async with Client(stdio(published_url, "Docs"), mode="auto") as client, \
                AsyncExitStack() as streams:
            for _ in range(8):
                await streams.enter_async_context(client.listen(resources_list_changed=True))
            with pytest.raises(MCPError) as refused:
                await streams.enter_async_context(client.listen(resources_list_changed=True))
            return refused.value.message, len((await client.list_resources()).resources)

    message, count = run_alone(session)
    assert "limit" in message and count > 10


def test_an_agent_not_yet_published_is_served_once_it_is(published_url):
    with db.session_scope(published_url) as session:
        store.create_agent(session, "Fresh")
        store.create_skill(session, "Fresh", "hello", content="Hello.\n", triggers=["dm"])
    arrived = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            arrived.set()

    async def session():
        async with stdio_client(published_url, "Fresh", "--poll", "0.1",
                                message_handler=on_message) as client:
            before = (await client.list_resources()).resources
            with db.session_scope(published_url) as opened:
                store.publish(opened, "Fresh", "first", 0)
            with anyio.fail_after(60):
                await arrived.wait()
            return before, [r.uri for r in (await client.list_resources()).resources]

    before, after = run_alone(session)
    assert before == [] and after == ["skill://hello/SKILL.md"]


def other_skill(uris: list[str]) -> str:
    """A SKILL.md of Docs that `publish_edit` leaves as it was, and that `updated` would
    be told of before pdf's, were it told of."""
    found = min(u for u in uris if u.endswith("/SKILL.md") and u != "skill://pdf/SKILL.md")
    assert found < "skill://pdf/SKILL.md"
    return found


@pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed:UserWarning")
def test_a_subscribed_resource_is_told_updated_when_its_bytes_change(published_url):
    """`resources/subscribe` over stdio: each move tells `updated` for a subscribed
    resource whose bytes changed, and not for one subscribed whose bytes did not (the
    second move's notice comes after all of the first's)."""
    updated: list[str] = []
    arrived = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(message.params.uri)
            if message.params.uri == "skill://pdf/SKILL.md":
                arrived.set()

    async def session():
        nonlocal arrived
        async with stdio_client(published_url, "Docs", "--poll", "0.1",
                                message_handler=on_message) as client:
            assert client.server_capabilities.resources.subscribe
            unchanged = other_skill([r.uri for r in (await client.list_resources()).resources])
            for uri in ("skill://pdf/SKILL.md", unchanged):
                await client.subscribe_resource(uri)
            for change in (publish_edit, move_back):
                arrived = anyio.Event()
                change(published_url)
                with anyio.fail_after(60):
                    await arrived.wait()

    run_alone(session)
    assert updated == ["skill://pdf/SKILL.md"] * 2


@pytest.mark.filterwarnings("ignore:resources/.*subscribe is removed:UserWarning")
def test_subscriptions_are_bounded(published_url):
    async def session():
        async with stdio_client(published_url, "Docs") as client:
            for number in range(100):
                await client.subscribe_resource(f"skill://pdf/{number}")
            with pytest.raises(MCPError) as refused:
                await client.subscribe_resource("skill://pdf/one-more")
            await client.unsubscribe_resource("skill://pdf/0")
            await client.subscribe_resource("skill://pdf/one-more")
            return refused.value.message

    assert "at most 100 resources" in run_alone(session)


class _Told:
    """What a handshake-era session is told. A double of the SDK's session: with a real
    client the order of its `initialized` and the server's reading of the label cannot be
    chosen, and a move read in between was told to no one (a CI run waited a minute)."""

    def __init__(self) -> None:
        self.told: list[str] = []

    async def send_resource_list_changed(self) -> None:
        self.told.append("resources")

    async def send_prompt_list_changed(self) -> None:
        self.told.append("prompts")


def test_a_move_before_the_client_is_ready_is_told_when_it_is(published_url):
    watch = Watch(Published("Docs", "production", session_factory(published_url),
                            preview_models(MODEL_DEFAULTS)))
    session = _Told()

    async def serve() -> tuple[list[str], list[str], bool]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch.run, 0.05)
            await anyio.to_thread.run_sync(publish_edit, published_url)
            await anyio.to_thread.run_sync(wait_until, lambda: watch.missed,
                                           "the watch to note the move it could tell no one")
            before = list(session.told)
            await watch.attach(SimpleNamespace(session=session), None)
            tasks.cancel_scope.cancel()
        return before, session.told, watch.missed

    # Told nothing before it was attached, both lists once after, and nothing left noted.
    assert run_alone(serve) == ([], ["resources", "prompts"], False)
