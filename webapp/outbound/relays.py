"""Talking to Nostr relays (NIP-01 over WebSocket): sending events and asking for them.

Every exchange is bounded: one deadline per relay for the whole exchange (connecting
included), a largest message (`MAX_MESSAGE_BYTES`) measured before it is parsed (its
depth, its count of arrays and objects), a most events a relay may send for one request,
and a most bytes all relays of one fetch may send together (`MAX_FETCH_BYTES`).
A relay that refuses, never answers or sends too much is reported, not
waited on or trusted: `publish` says, per relay and per event, accepted, refused (with
the relay's message) or timed out; `fetch` keeps nothing from a relay that floods it.
The host is resolved and checked before connecting (wss:// to public addresses unless
the instance allows private ones, ws:// to loopback only; `store.nostr.relay_url_problem`
is the rule for URLs) and the connection goes to the address checked. Relays are asked
in parallel, one thread each. Events here are plain JSON dicts, not verified: the
reader (`webapp.nostr.read_agent`) verifies every one.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from webapp.nostr import MAX_EVENT_BYTES
from webapp.outbound import address_problem
from webapp.pipeline import MAX_DEPTH, json_containers, json_depth_error
from webapp.store.nostr import is_loopback, relay_url_problem

#: How long one relay may take for a whole exchange, connecting included.
TIMEOUT_SECONDS = 10.0
#: The largest message read from a relay: one event of the largest size, and its frame.
MAX_MESSAGE_BYTES = MAX_EVENT_BYTES + 64 * 1024
#: The most one relay may send for one request, all messages together.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
#: The most all relays of one `fetch` may send together: what a request holds in memory
#: at most (the events kept are parsed from this), whatever the number of relays.
MAX_FETCH_BYTES = 48 * 1024 * 1024
#: The most arrays and objects one message may open: an event's tags are arrays, and an
#: adoption list of every skill an agent may have stays far below; a message of 140,000
#: one-element tags is refused before it is parsed into 140,000 lists.
MAX_CONTAINERS = 20_000
#: A relay message's excerpt in a report.
MESSAGE_CHARS = 200
ACCEPTED, REFUSED, TIMED_OUT, FAILED = "accepted", "refused", "timed out", "failed"
ANSWERED = "answered"
#: An event the relay holds already, the same in all but its time: not sent again.
UNCHANGED = "unchanged"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one relay said of one event sent to it."""

    relay: str
    event_id: str
    status: str
    message: str = ""


@dataclass(slots=True)
class Answer:
    """What one relay sent for a request: its events, and how the exchange ended."""

    relay: str
    events: list[dict[str, Any]] = field(default_factory=list)
    status: str = ANSWERED
    message: str = ""
    #: What was asked, for a report ("the adoption list").
    asked: str = ""


def publish(urls: Sequence[str], events: Sequence[dict[str, Any]], *,
            timeout: float = TIMEOUT_SECONDS) -> list[Outcome]:
    """Send every event to every relay, and wait (at most `timeout` a relay) for each
    `OK`; the outcomes in relay order, then event order."""
    return publish_each({url: events for url in urls}, timeout=timeout)


def publish_each(events_by_relay: Mapping[str, Sequence[dict[str, Any]]], *,
                 timeout: float = TIMEOUT_SECONDS) -> list[Outcome]:
    """`publish`, with each relay's own events."""
    answers = _each(list(events_by_relay),
                    lambda url: _publish_one(url, events_by_relay[url], timeout))
    return [outcome for outcomes in answers for outcome in outcomes]


def fetch(urls: Sequence[str], filters: Sequence[dict[str, Any]], *, limit: int,
          timeout: float = TIMEOUT_SECONDS) -> list[Answer]:
    """Ask every relay for the events matching `filters`; a relay that sends more than
    `limit` events, or a message that is not NIP-01, has its whole answer dropped, and so
    does the relay whose answer takes all relays' together past `MAX_FETCH_BYTES`."""
    budget = _Budget(MAX_FETCH_BYTES)
    return _each(urls, lambda url: _fetch_one(url, filters, limit, timeout, budget))


class _Budget:
    """Bytes the relays of one fetch may still send, shared between their threads; a
    relay's answer dropped gives its bytes back."""

    def __init__(self, total: int) -> None:
        self.left = total
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        with self._lock:
            self.left -= size
            return self.left >= 0

    def give_back(self, size: int) -> None:
        with self._lock:
            self.left += size


def _each(urls: Sequence[str], work: Callable[[str], T]) -> list[T]:
    if not urls:
        return []
    with ThreadPoolExecutor(max_workers=len(urls), thread_name_prefix="relay") as pool:
        return list(pool.map(work, urls))


class _Refused(Exception):
    """The relay's address may not be reached, or cannot be resolved."""


def _publish_one(url: str, events: Sequence[dict[str, Any]], timeout: float
                 ) -> list[Outcome]:
    deadline = time.monotonic() + timeout
    waiting = {event["id"]: event for event in events}
    if not waiting:
        return []
    said: dict[str, Outcome] = {}
    try:
        with _connect(url, timeout) as ws:
            for event in events:
                ws.send(json.dumps(["EVENT", event], ensure_ascii=False))
            while waiting.keys() - said.keys():
                message = _receive(ws, deadline)
                if message is None:
                    break
                if (len(message) >= 3 and message[0] == "OK" and message[1] in waiting
                        and isinstance(message[2], bool)):
                    text = str(message[3]) if len(message) > 3 else ""
                    said[message[1]] = Outcome(url, message[1],
                                               ACCEPTED if message[2] else REFUSED,
                                               text[:MESSAGE_CHARS])
    except (_Refused, OSError, WebSocketException, ValueError) as exc:
        status = TIMED_OUT if isinstance(exc, TimeoutError) else FAILED
        return [said.get(ident) or Outcome(url, ident, status, _reason(exc))
                for ident in waiting]
    return [said.get(ident) or Outcome(url, ident, TIMED_OUT,
                                       f"no OK within {timeout:g} s") for ident in waiting]


def _fetch_one(url: str, filters: Sequence[dict[str, Any]], limit: int, timeout: float,
               budget: _Budget) -> Answer:
    deadline = time.monotonic() + timeout
    answer = Answer(url)
    subscription = uuid.uuid4().hex[:16]
    received = 0

    def dropped(why: str) -> Answer:
        budget.give_back(received)
        return Answer(url, [], REFUSED, f"{why}: its answer is dropped")

    try:
        with _connect(url, timeout) as ws:
            ws.send(json.dumps(["REQ", subscription, *filters]))
            while True:
                message, size = _receive_sized(ws, deadline)
                if message is None:
                    answer.status, answer.message = TIMED_OUT, f"no EOSE within {timeout:g} s"
                    break
                if message[:2] == ["EOSE", subscription]:
                    break
                if message[:2] == ["CLOSED", subscription]:
                    answer.status = REFUSED
                    answer.message = str(message[2] if len(message) > 2 else "")[:MESSAGE_CHARS]
                    break
                received += size
                if not budget.take(size):
                    return dropped(f"sent more than the {MAX_FETCH_BYTES:,} bytes all relays "
                                   "may send together")
                if message[:2] == ["EVENT", subscription] and len(message) == 3:
                    answer.events.append(message[2])
                    if len(answer.events) > limit:
                        return dropped(f"sent more than {limit} events")
                if received > MAX_ANSWER_BYTES:
                    return dropped(f"sent more than {MAX_ANSWER_BYTES:,} bytes")
            try:
                ws.send(json.dumps(["CLOSE", subscription]))
            except (OSError, WebSocketException):
                pass
    except (_Refused, OSError, WebSocketException, ValueError) as exc:
        budget.give_back(received)
        return Answer(url, [], TIMED_OUT if isinstance(exc, TimeoutError) else FAILED,
                      _reason(exc))
    return answer


def _receive(ws: ClientConnection, deadline: float) -> list[Any] | None:
    """The next message as a JSON array, or None at the deadline; raises `ValueError`
    for a message that is not a JSON array (the relay is not speaking NIP-01)."""
    return _receive_sized(ws, deadline)[0]


def _receive_sized(ws: ClientConnection, deadline: float) -> tuple[list[Any] | None, int]:
    """`_receive`, with the message's length in characters."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None, 0
    try:
        raw = ws.recv(timeout=remaining)
    except TimeoutError:
        return None, 0
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    if json_depth_error(text) is not None:  # before the parser recurses into it
        raise ValueError(f"the relay sent a message nested more than {MAX_DEPTH} levels deep")
    if json_containers(text) > MAX_CONTAINERS:  # before the parser builds them
        raise ValueError(f"the relay sent a message of more than {MAX_CONTAINERS:,} arrays "
                         "and objects")
    message = json.loads(text)
    if not isinstance(message, list) or not message:
        raise ValueError("the relay sent a message that is not a NIP-01 JSON array")
    return message, len(text)


def _connect(url: str, timeout: float) -> ClientConnection:
    """A WebSocket to `url`, connected to an address checked here (see the module)."""
    problem = relay_url_problem(url)
    if problem:
        raise _Refused(f"{url} {problem}")
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise _Refused(f"{host} cannot be resolved: {exc}") from None
    address = found[0][4][0]
    for info in found:
        ip = info[4][0]
        if parts.scheme == "ws" and not is_loopback(ip):
            raise _Refused(f"{host} resolves to {ip}, not a loopback address")
        if parts.scheme == "wss" and address_problem(ip):
            raise _Refused(f"{host} resolves to {address_problem(ip)}")
    sock = socket.create_connection((address, port), timeout=timeout)
    # websockets reads in a thread of its own and keeps its own deadlines: a timeout left
    # on the socket would end a quiet connection as if the relay had dropped it.
    sock.settimeout(None)
    context = ssl.create_default_context() if parts.scheme == "wss" else None
    try:
        return connect(url, sock=sock, ssl=context,
                       server_hostname=host if context else None, open_timeout=timeout,
                       close_timeout=1, max_size=MAX_MESSAGE_BYTES, proxy=None)
    except BaseException:
        sock.close()
        raise


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MESSAGE_CHARS] if str(exc) else type(exc).__name__
