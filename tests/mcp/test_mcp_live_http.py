"""A client over Streamable HTTP hears when its label moves, on a server whose workers
hold streams (threads): the handshake era on its GET stream, the 2026 era on a
`subscriptions/listen` stream; streams are counted per key and end on time."""

from __future__ import annotations

from functools import partial

import anyio
import httpx2
import pytest

from tests.support.mcp import (
    CHANGED,
    hear_two_moves,
    http_client,
    listen_through_a_publish,
    publish_edit,
)
from tests.support.server import serve, serve_gunicorn
from tests.support.waiting import wait_until
from webapp import store
from webapp.mcp_server.http import run_alone
from webapp.mcp_server.sessions import MOST_STREAMS_PER_KEY, Streams
from webapp.schema import db
from webapp.web.api_mcp import STREAMS


@pytest.fixture
def quick(app):
    """The app reading its labels every tenth of a second."""
    app.config["MCP_POLL_SECONDS"] = 0.1
    return app


@pytest.fixture
def base(quick, published_url):
    yield from serve(quick)


@pytest.fixture
def token(app):
    with app.app_context():
        return store.api_keys.create_key(db.get_session(), "live", ["read", "assemble"],
                                         "Docs").token


def url(base: str) -> str:
    return f"{base}/api/v1/agents/Docs/mcp"


def test_a_client_hears_a_publish_and_a_label_move_on_its_stream(base, token, published_url):
    changed, (after_publish, after_move) = hear_two_moves(
        partial(http_client, url(base), token), published_url)
    assert changed == CHANGED * 2
    assert after_publish.endswith("\nLive.\n") and not after_move.endswith("\nLive.\n")


def test_gunicorns_threaded_workers_hold_the_stream(published_url, token):
    """Production with threads (`-k gthread`): any worker answers any request of the
    session, and the worker holding the stream tells of the move."""
    for base in serve_gunicorn(published_url, worker_class="gthread",
                               config={"MCP_POLL_SECONDS": "0.1"}):
        changed, _ = hear_two_moves(partial(http_client, url(base), token), published_url)
        assert changed == CHANGED * 2


def test_a_2026_client_is_told_on_its_listen_stream_over_http(quick, base, token,
                                                              published_url):
    """... and the stream's place is given back once the client leaves it (a quiet stream
    writes a comment each reading, and so notices)."""
    async def session():
        async with http_client(url(base), token, mode="auto") as client:
            return await listen_through_a_publish(client, published_url)

    seen, text = run_alone(session)
    assert seen == ["ResourcesListChanged", "PromptsListChanged"]
    assert text.endswith("\nLive.\n")
    wait_until(lambda: quick.extensions[STREAMS].open == {}, "the left stream's count")


def test_a_listen_stream_ends_gracefully_on_time(quick, base, token):
    """Past `MCP_STREAM_SECONDS` the stream ends with its result (the client listens
    again), and its count is given back."""
    quick.config["MCP_STREAM_SECONDS"] = 0.5

    async def session():
        async with http_client(url(base), token, mode="auto") as client:
            async with client.listen(resources_list_changed=True) as events:
                with anyio.fail_after(60):
                    return [event async for event in events]

    assert run_alone(session) == []
    wait_until(lambda: quick.extensions[STREAMS].open == {}, "the listen stream's count")


def open_stream(base: str, token: str, **headers: str):
    return httpx2.stream("GET", url(base), timeout=30, headers={
        "Authorization": f"Bearer {token}", "Accept": "text/event-stream", **headers})


def test_a_stream_resumes_from_the_last_event_id(base, token, published_url):
    """A client that reconnects with the id of the snapshot it was told of hears at once
    of a move it missed; a GET stream ends after `MCP_STREAM_SECONDS`."""
    with db.session_scope(published_url) as session:
        first = store.resolve(session, "Docs", "production").id
    publish_edit(published_url)
    with open_stream(base, token, **{"Last-Event-ID": str(first)}) as stream:
        assert stream.status_code == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = []
        for line in stream.iter_lines():
            lines.append(line)
            if len([x for x in lines if x.startswith("data: {")]) == 2:
                break
    assert f"id: {first}" in lines and any("list_changed" in x for x in lines)


def test_streams_are_bounded_per_key(quick, base, token, app):
    """A key holds at most four streams open in a process; the fifth is a 429 saying so,
    another key's stream still opens, and closing one gives its place back."""
    with app.app_context():
        other = store.api_keys.create_key(db.get_session(), "other", ["read"], "Docs").token
    streams = [open_stream(base, token) for _ in range(MOST_STREAMS_PER_KEY)]
    opened = [s.__enter__() for s in streams]
    try:
        assert all(s.status_code == 200 for s in opened)
        with open_stream(base, token) as refused:
            refused.read()
            assert refused.status_code == 429 and "Retry-After" in refused.headers
            assert "4 MCP streams" in refused.json()["detail"]
        with open_stream(base, other) as allowed:
            assert allowed.status_code == 200
    finally:
        for stream in streams:
            stream.__exit__(None, None, None)
    wait_until(lambda: quick.extensions.get(STREAMS, Streams()).open == {},
               "the closed streams' counts to be given back")
    with open_stream(base, token) as again:
        assert again.status_code == 200


def test_a_listen_stream_hears_of_the_resources_it_subscribed_to(base, token, published_url):
    """The 2026 era subscribes on the listen stream itself (no session to keep): a move
    tells `updated` for a subscribed resource whose bytes changed, not for one unchanged.
    The handshake era over HTTP, whose subscription no worker would keep, is offered none."""
    async def session():
        async with http_client(url(base), token) as old:
            handshake_subscribe = old.server_capabilities.resources.subscribe
        async with http_client(url(base), token, mode="auto") as client:
            assert client.server_capabilities.resources.subscribe
            uris = [r.uri for r in (await client.list_resources()).resources]
            # one that `updated` would be told of first, were it told of
            unchanged = min(u for u in uris if u.endswith("/SKILL.md") and "pdf" not in u)
            assert unchanged < "skill://pdf/SKILL.md"
            async with client.listen(resources_list_changed=True, resource_subscriptions=[
                    "skill://pdf/SKILL.md", unchanged]) as events:
                publish_edit(published_url)
                seen = []
                with anyio.fail_after(60):
                    async for event in events:
                        seen.append(getattr(event, "uri", type(event).__name__))
                        if "skill://pdf/SKILL.md" in seen:
                            break
        return handshake_subscribe, seen

    handshake_subscribe, seen = run_alone(session)
    assert not handshake_subscribe
    assert seen == ["ResourcesListChanged", "skill://pdf/SKILL.md"]
