"""The webhook worker: it takes due messages from the outbox (`store.webhooks.claim`),
signs each as Standard Webhooks (the `standardwebhooks` library), posts it, and writes
the try (`store.webhooks.record_try`).

`skill-editor worker` runs it alone (any number of them on PostgreSQL: `claim` skips the
rows another worker holds); `skill-editor serve` runs one in a thread beside the editor.
A try resolves the URL's host once, refuses it when any of its addresses is not public
(unless the instance allows it), and connects to the address it checked, so a name that
resolves otherwise a moment later (DNS rebinding) gains nothing. Redirects are not
followed (a 3xx is a failed try). A try has `TIMEOUT_SECONDS` in all: a timer closes the
connection when they have passed, however slowly the receiver answers.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy.orm import Session
from standardwebhooks.webhooks import Webhook

from webapp import store
from webapp.outbound import address_problem
from webapp.schema import api_models, db
from webapp.schema.models import utcnow
from webapp.store.webhooks import TIMEOUT_SECONDS, Delivery

#: Seconds a worker waits between looks at the outbox when nothing was due.
IDLE_SECONDS = 1.0
USER_AGENT = "skill-editor-webhooks"


class Refused(Exception):
    """The URL's host may not be reached (a non-public address) or cannot be resolved."""


def deliver_due(sessions: Callable[[], Session], now: datetime | None = None,
                limit: int = 10) -> int:
    """Claim up to `limit` due messages, try each, write each try; returns how many were
    tried. `sessions` makes a session (a sessionmaker)."""
    with sessions() as session:
        taken = store.webhooks.claim(session, now, limit)
    for delivery in taken:
        started = time.monotonic()
        status, detail = post(delivery, utcnow())  # signed now: receivers check the time
        milliseconds = int((time.monotonic() - started) * 1000)
        with sessions() as session:
            try:
                store.webhooks.record_try(session, delivery.message_id, status, detail,
                                          milliseconds, now)
            except store.NotFound:
                pass  # the webhook was removed meanwhile, with its messages
    return len(taken)


def post(delivery: Delivery, now: datetime) -> tuple[int | None, str]:
    """Send one message: the receiver's status code (None: no answer) and the start of its
    answer, or what went wrong."""
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    signature = Webhook(delivery.secret).sign(delivery.msg_id, now, body)
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               "webhook-id": delivery.msg_id, "webhook-timestamp": str(int(now.timestamp())),
               "webhook-signature": signature}
    parts = urlsplit(delivery.url)
    try:
        connection = pinned_connection(parts.scheme, parts.hostname or "", parts.port)
    except Refused as exc:
        return None, str(exc)
    # One deadline for the whole exchange (connect, request, status, headers, body): a
    # receiver that answers a byte at a time would renew a socket's timeout with each.
    timer = threading.Timer(TIMEOUT_SECONDS, connection.cut)
    timer.start()
    try:
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("POST", path, body=body, headers=headers)
        answer = connection.getresponse()
        excerpt = answer.read(api_models.EXCERPT_LENGTH).decode("utf-8", "replace")
        if connection.was_cut.is_set():  # cut at the deadline: what came is no whole answer
            return None, f"no answer within {TIMEOUT_SECONDS} s"
        return answer.status, excerpt
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if isinstance(exc, TimeoutError) or connection.was_cut.is_set():  # either deadline
            return None, f"no answer within {TIMEOUT_SECONDS} s"
        return None, f"{type(exc).__name__}: {exc}"[:api_models.EXCERPT_LENGTH]
    finally:
        timer.cancel()
        connection.close()


def pinned_connection(scheme: str, host: str, port: int | None) -> _PinnedHTTP | _PinnedHTTPS:
    """A connection to `host` that will connect to the address checked here."""
    port = port or (443 if scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise Refused(f"{host} cannot be resolved: {exc}") from None
    addresses = [info[4][0] for info in found]
    for address in addresses:
        problem = address_problem(address)
        if problem:
            raise Refused(f"{host} resolves to {problem}")
    if scheme == "https":
        return _PinnedHTTPS(host, addresses[0], port)
    return _PinnedHTTP(host, addresses[0], port)


class _Cut:
    """A connection whose socket another thread can cut at its deadline: `shutdown` wakes a
    read blocked in it, which `close` does not (the answer keeps its own file of it).
    `was_cut` is set before the socket is shut, so the reader woken by the cut sees it
    (the timer's thread may still be alive when the reader wakes)."""

    raw: socket.socket | None = None
    was_cut: threading.Event

    def cut(self) -> None:
        self.was_cut.set()
        if self.raw is not None:
            try:
                self.raw.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # closed already


class _PinnedHTTP(_Cut, http.client.HTTPConnection):
    """HTTP to `address`, naming `host` in the request."""

    def __init__(self, host: str, address: str, port: int):
        super().__init__(host, port, timeout=TIMEOUT_SECONDS)
        self.address = address
        self.was_cut = threading.Event()

    def connect(self) -> None:
        self.sock = self.raw = socket.create_connection((self.address, self.port),
                                                        self.timeout)


class _PinnedHTTPS(_Cut, http.client.HTTPSConnection):
    """HTTPS to `address`, with `host`'s certificate checked (SNI and host name)."""

    def __init__(self, host: str, address: str, port: int):
        super().__init__(host, port, timeout=TIMEOUT_SECONDS,
                         context=ssl.create_default_context())
        self.address = address
        self.was_cut = threading.Event()

    def connect(self) -> None:
        self.raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(self.raw,  # type: ignore[attr-defined]
                                              server_hostname=self.host)


def run(url: str | None, stop: threading.Event, *, once: bool = False,
        upgrade: bool = True) -> int:
    """Deliver until `stop` is set (or, with `once`, until nothing is due); returns how many
    tries were made. The database is `url` (see `db.resolve_url`), upgraded first unless
    `upgrade` is false (the app beside it has done it: Alembic runs one upgrade a process)."""
    engine = db.make_engine(db.resolve_url(url))
    try:
        if upgrade:
            db.prepare(engine)
        sessions = db.make_sessionmaker(engine)
        tried = 0
        while not stop.is_set():
            done = deliver_due(sessions)
            tried += done
            if not done:
                if once:
                    break
                stop.wait(IDLE_SECONDS)
        return tried
    finally:
        engine.dispose()


def start_thread(url: str | None) -> Callable[[], None]:
    """Run a worker in a daemon thread beside an app that has upgraded the database
    (`skill-editor serve`); returns what stops it and waits for its try in progress, so
    nothing of it is left in the database when the server is gone."""
    stop = threading.Event()
    thread = threading.Thread(target=run, args=(url, stop), kwargs={"upgrade": False},
                              name="webhooks", daemon=True)
    thread.start()

    def stopped() -> None:
        stop.set()
        thread.join(timeout=2 * TIMEOUT_SECONDS)

    return stopped
