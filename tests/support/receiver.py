"""A webhook receiver on 127.0.0.1, started by the test that needs it: it keeps every
request it gets and answers with the status codes it is given, in turn."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Receiver:
    """What a receiver got (`requests`: headers and body of each), and what it answers:
    `answers` in turn, then `then` (200 unless told otherwise)."""

    url: str = ""
    answers: list[int] = field(default_factory=list)
    then: int = 200
    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_status(self, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.requests.append((headers, body))
            return self.answers.pop(0) if self.answers else self.then


@contextmanager
def receiver(answers: list[int] | None = None, then: int = 200) -> Iterator[Receiver]:
    """Serve a `Receiver` on a free port of 127.0.0.1 until the block ends."""
    got = Receiver(answers=list(answers or []), then=then)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status = got.next_status(dict(self.headers.items()), body)
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="receiver", daemon=True)
    thread.start()
    got.url = f"http://127.0.0.1:{server.server_port}/hooks/skill-editor"
    try:
        yield got
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@dataclass
class Trickle:
    """A receiver that starts its answer and then sends one byte every `pace` seconds,
    `count` times, each byte renewing a socket's timeout; `sent` counts the bytes it got
    out before the caller hung up."""

    url: str = ""
    sent: int = 0


@contextmanager
def trickling_receiver(count: int = 60, pace: float = 0.1) -> Iterator[Trickle]:
    """Serve one `Trickle` answer on a free port of 127.0.0.1 until the block ends. The
    sleep is the receiver's pace (a slow peer), not a test waiting for time to pass."""
    listener = socket.create_server(("127.0.0.1", 0))
    got = Trickle(url=f"http://127.0.0.1:{listener.getsockname()[1]}/in")

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            try:
                for _ in range(count):
                    conn.sendall(b"X")
                    got.sent += 1
                    time.sleep(pace)
            except OSError:
                pass  # the caller hung up

    thread = threading.Thread(target=trickle, name="trickle", daemon=True)
    thread.start()
    try:
        yield got
    finally:
        thread.join(timeout=count * pace + 10)
        listener.close()
