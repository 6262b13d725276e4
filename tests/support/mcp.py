"""Clients of the MCP servers for the tests: the SDK's own, over stdio and over
Streamable HTTP, the messages of a prompt read back as the API's, and the two moves of
the published Docs a live client hears of."""

from __future__ import annotations

import sys
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from webapp import store
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
