"""A webhook receiver on 127.0.0.1, started by the test that needs it: it keeps every
request it gets and answers with the status codes it is given, in turn."""

from __future__ import annotations

import threading
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
