"""Streamable HTTP on the WSGI app: one request, answered by the SDK's own transport.

The app is WSGI (gunicorn in production) and the SDK's transport is ASGI. Each POST is
handed whole to the SDK's `StreamableHTTPSessionManager` in its stateless, JSON-response
mode, driven in an event loop of its own for that request: `answer` runs it to its end
(`anyio.run`), `stream` in a thread of its own whose frames the WSGI answer sends as they
come (`subscriptions/listen`). Nothing is kept between requests (a session id is signed,
`sessions`), so any worker may answer any request. The body is read by Flask, under the
app's body limit, before the SDK sees it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message

#: Longest an MCP request may run: past it, it is cut and answered 503 (a prompt assembles
#: in milliseconds; the pipeline bounds its own work below this).
REQUEST_SECONDS = 60.0
#: Seconds a stream's loop may run past its length to end gracefully (its last frame).
STREAM_GRACE_SECONDS = 5.0
#: How often a stream's loop looks whether the client went.
GONE_POLL_SECONDS = 0.25
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
    """What the SDK answered: status, headers and body; for a stream, `chunks` yields the
    body as it comes and `close` ends it."""

    def __init__(self, whole: bool = True) -> None:
        self.status = 500
        self.headers: list[tuple[str, str]] = []
        #: The body, kept only for an answer given whole (a stream's goes by `chunks`).
        self.whole = whole
        self.body = bytearray()
        self.pieces: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.started = threading.Event()
        self.gone = threading.Event()

    def chunks(self, keepalive: float) -> Iterator[bytes]:
        """The body as the SDK sends it, until it ends or the client goes. An event
        stream quiet for `keepalive` seconds gets an SSE comment: a WSGI server notices a
        client that went only when it writes."""
        events = any(name.lower() == "content-type" and value.startswith("text/event-stream")
                     for name, value in self.headers)
        try:
            while True:
                try:
                    piece = self.pieces.get(timeout=keepalive if events else None)
                except queue.Empty:
                    yield b":\n\n"
                    continue
                if piece is None:
                    return
                yield piece
        finally:
            self.gone.set()

    def close(self) -> None:
        """The client is gone: the stream's event loop ends."""
        self.gone.set()

    def _timed_out(self) -> None:
        self.status, self.body = 503, bytearray(b'{"jsonrpc": "2.0", "id": null, "error": '
                                                b'{"code": -32603, "message": "timed out"}}')
        self.headers = [("Content-Type", "application/json")]


def answer(server: Server[Any], method: str, path: str, query: bytes,
           headers: Iterable[tuple[str, str]], body: bytes, max_body: int) -> Answer:
    """Run one POST through the SDK's stateless Streamable HTTP transport, for at most
    `REQUEST_SECONDS`, and answer it whole."""
    result = Answer()
    run_alone(_exchange, server, _scope(method, path, query, headers), body, max_body, result,
              REQUEST_SECONDS, None)
    if not result.started.is_set():  # cut at the deadline before answering
        result._timed_out()
    return result


def stream(server: Server[Any], method: str, path: str, query: bytes,
           headers: Iterable[tuple[str, str]], body: bytes, max_body: int,
           beside: Callable[[], Awaitable[None]], seconds: float) -> Answer:
    """Run one POST whose answer is a stream (`subscriptions/listen`) in an event loop of
    its own thread, with `beside` running in the same loop (what feeds the stream): the
    answer's status and headers are known when this returns, its body comes as
    `chunks()`. The loop ends when the SDK ends the answer, when the client goes
    (`close`), or `seconds` plus a grace after it started."""
    result = Answer(whole=False)
    scope = _scope(method, path, query, headers)
    thread = threading.Thread(target=anyio.run, name="mcp-stream", daemon=True,
                              args=(_exchange, server, scope, body, max_body, result,
                                    seconds + STREAM_GRACE_SECONDS, beside))
    thread.start()
    if not result.started.wait(REQUEST_SECONDS):
        result.close()
        result._timed_out()
    return result


def _scope(method: str, path: str, query: bytes, headers: Iterable[tuple[str, str]]
           ) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query, "root_path": "", "client": ("127.0.0.1", 0),
            "server": ("127.0.0.1", 80),
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in headers]}


async def _exchange(server: Server[Any], scope: dict[str, Any], body: bytes, max_body: int,
                    result: Answer, seconds: float,
                    beside: Callable[[], Awaitable[None]] | None) -> None:
    """One request through the SDK's stateless manager, the answer written to `result`
    (and each piece of its body put on `result.pieces`, then None)."""
    done = anyio.Event()
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        while not done.is_set() and not result.gone.is_set():
            with anyio.move_on_after(GONE_POLL_SECONDS):
                await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            result.status = message["status"]
            result.headers = [(k.decode("latin-1"), v.decode("latin-1"))
                              for k, v in message.get("headers", [])]
            result.started.set()
        elif message["type"] == "http.response.body":
            piece = message.get("body", b"")
            if result.whole:
                result.body += piece
            result.pieces.put(piece)
            if not message.get("more_body"):
                done.set()
                # The answer is whole: its reader ends now, not when the loop has wound
                # down (the stream's place is given back when the WSGI answer closes).
                result.pieces.put(None)

    manager = StreamableHTTPSessionManager(server, json_response=True, stateless=True,
                                           max_request_body_size=max_body)
    try:
        async with manager.run(), anyio.create_task_group() as tasks:
            if beside is not None:
                tasks.start_soon(beside)
            with anyio.move_on_after(seconds):
                await manager.handle_request(scope, receive, send)
            tasks.cancel_scope.cancel()
    finally:
        done.set()
        result.pieces.put(None)


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
