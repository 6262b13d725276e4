"""Streamable HTTP on the WSGI app: one request, answered by the SDK's own transport.

The app is WSGI (gunicorn's sync workers in production) and the SDK's transport is ASGI.
Each POST is handed whole to the SDK's `StreamableHTTPSessionManager` in its stateless,
JSON-response mode, driven in an event loop of its own for that request (`anyio.run`):
no session outlives the request, so any worker may answer any request and nothing is
kept between them (no session to bound, none to lose on a restart). The body is read by
Flask, under the app's body limit, before the SDK sees it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message

#: Longest an MCP request may run: past it, it is cut and answered 503 (a prompt assembles
#: in milliseconds; the pipeline bounds its own work below this).
REQUEST_SECONDS = 60.0
#: The methods that read resources (the `read` scope) and that assemble (`assemble`).
READ_METHODS = ("resources/",)
ASSEMBLE_METHODS = ("prompts/", "completion/")

T = TypeVar("T")


def scopes_for(body: Any) -> list[str]:
    """The scopes a JSON-RPC body needs, all of them: `read` for a resource method,
    `assemble` for a prompt or a completion; none more for the rest (initialize, ping)."""
    messages = body if isinstance(body, list) else [body]
    methods = [m.get("method") for m in messages if isinstance(m, dict)]
    needed = []
    for scope, prefixes in (("read", READ_METHODS), ("assemble", ASSEMBLE_METHODS)):
        if any(isinstance(m, str) and m.startswith(prefixes) for m in methods):
            needed.append(scope)
    return needed


class Answer:
    """What the SDK answered: status, headers and body."""

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[str, str]] = []
        self.body = bytearray()


def answer(server: Server[Any], method: str, path: str, query: bytes,
           headers: Iterable[tuple[str, str]], body: bytes, max_body: int) -> Answer:
    """Run one POST through the SDK's stateless Streamable HTTP transport, for at most
    `REQUEST_SECONDS`."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query, "root_path": "", "client": ("127.0.0.1", 0),
             "server": ("127.0.0.1", 80),
             "headers": [(k.lower().encode("latin-1"), v.encode("latin-1"))
                         for k, v in headers]}
    result = Answer()

    async def run() -> None:
        done = anyio.Event()
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()  # nothing more comes: the client is gone once answered
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                result.status = message["status"]
                result.headers = [(k.decode("latin-1"), v.decode("latin-1"))
                                  for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body":
                result.body += message.get("body", b"")
                if not message.get("more_body"):
                    done.set()

        manager = StreamableHTTPSessionManager(server, json_response=True, stateless=True,
                                               max_request_body_size=max_body)
        async with manager.run():
            with anyio.move_on_after(REQUEST_SECONDS):
                await manager.handle_request(scope, receive, send)
        done.set()

    run_alone(run)
    if not result.headers and not result.body:  # cut at the deadline before answering
        result.status, result.body = 503, bytearray(b'{"jsonrpc": "2.0", "id": null, "error": '
                                                    b'{"code": -32603, "message": "timed out"}}')
        result.headers = [("Content-Type", "application/json")]
    return result


def run_alone(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """`anyio.run(function, *args)`, in a thread of its own when this thread already runs
    an event loop (an app embedding ours, a browser driver's loop in the same process): one
    thread may run one loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(function, *args)
    with ThreadPoolExecutor(1, thread_name_prefix="mcp-request") as pool:
        return pool.submit(anyio.run, function, *args).result()
