"""Clients of the MCP servers for the tests: the SDK's own, over stdio and over
Streamable HTTP, the messages of a prompt read back as the API's, the two moves of the
published Docs a live client hears of, and what a client of each era hears of them."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client

from webapp import store
from webapp.mcp_server.http import run_alone
from webapp.schema import db


def stdio(database_url: str, agent: str, *extra: str) -> StdioServerParameters:
    """`skill-editor mcp --agent AGENT` as a client launches it."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "webapp.cli", "mcp", "--agent", agent, "--database-url", database_url,
              *extra])


def stdio_client(database_url: str, agent: str, *extra: str, **options: Any) -> Client:
    """The SDK's client of `skill-editor mcp`, with the handshake (a stateful session)."""
    return Client(stdio(database_url, agent, *extra), mode="legacy", **options)


def http_client(url: str, token: str | None, *, mode: str = "legacy", **options: Any
                ) -> Client:
    """The SDK's client of an agent's Streamable HTTP endpoint, sending `token`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # Patient: a loaded machine's first request to a fresh worker imports and migrates.
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(120)))
    return Client(transport, mode=mode, cache=None, **options)


def api_messages(prompt: Any) -> list[dict[str, str]]:
    """A prompt's messages as the API answers them: a `user` message whose content keeps
    another role in its `_meta` (`skill-editor/role`) is that role's."""
    found = []
    for message in prompt.messages:
        meta = message.content.meta or {}
        found.append({"role": meta.get("skill-editor/role", message.role),
                      "content": message.content.text})
    return found


def publish_edit(database_url: str) -> None:
    """Docs' `pdf` edited and published as #2, which `production` then names."""
    with db.session_scope(database_url) as session:
        pdf = store.get_skill(session, "Docs", "pdf")
        store.save_skill(session, "Docs", "pdf", expected_version=pdf.version,
                         content=pdf.content + "\nLive.\n")
        store.publish(session, "Docs", "second", 1)


def move_back(database_url: str) -> None:
    """Production moved back to Docs' #1 (the rollback)."""
    with db.session_scope(database_url) as session:
        store.move_label(session, "Docs", "production", 1)


#: What a handshake-era client hears of each move.
CHANGED = ["notifications/resources/list_changed", "notifications/prompts/list_changed"]


def hear_two_moves(connect: Callable[..., Client], database_url: str
                   ) -> tuple[list[str], list[str]]:
    """The notifications a handshake-era client (`connect(message_handler=...)`) hears
    while Docs is published again and then moved back, and pdf's SKILL.md read after each."""
    changed: list[str] = []
    arrived = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, (types.ResourceListChangedNotification,
                                types.PromptListChangedNotification)):
            changed.append(message.method)
            if len(changed) % 2 == 0:
                arrived.set()

    async def session() -> list[str]:
        nonlocal arrived
        texts = []
        async with connect(message_handler=on_message) as client:
            assert client.server_capabilities.resources.list_changed
            assert client.server_capabilities.prompts.list_changed
            for change in (publish_edit, move_back):
                arrived = anyio.Event()
                change(database_url)
                with anyio.fail_after(60):
                    await arrived.wait()
                read = await client.read_resource("skill://pdf/SKILL.md")
                texts.append(read.contents[0].text)
        return texts

    return changed, run_alone(session)


async def listen_through_a_publish(client: Client, database_url: str
                                   ) -> tuple[list[str], str]:
    """What a 2026-era `client` hears on its listen stream while Docs is published again
    (the events' kinds), and pdf's SKILL.md read after."""
    assert client.protocol_version == "2026-07-28"
    assert client.server_capabilities.resources.list_changed
    async with client.listen(resources_list_changed=True,
                             prompts_list_changed=True) as events:
        publish_edit(database_url)
        seen = []
        with anyio.fail_after(60):
            async for event in events:
                seen.append(type(event).__name__)
                if len(seen) == 2:
                    break
    read = await client.read_resource("skill://pdf/SKILL.md")
    return seen, read.contents[0].text
