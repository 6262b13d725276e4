"""Sessions over Streamable HTTP that no worker has to keep: a session id is signed, not
stored, and streams are counted per key.

A handshake-era client opens its GET stream (where it hears `list_changed`) only once it
has a session id, so `initialize` is answered with one: the key, agent and label it was
opened for and the snapshot the label named then, signed with the app's secret. Any worker
reads it back, nothing is kept, a restart loses nothing; a session id of another key, agent
or label is answered as one that does not exist. What does cost a worker is an open stream
(a GET, a `subscriptions/listen`): `Streams` counts them per key and in all, and refuses
one past either bound.
"""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeSerializer

#: The header that carries a session id (the transport's).
SESSION_HEADER = "Mcp-Session-Id"
#: Most streams one key may hold open in one process, and most in all.
MOST_STREAMS_PER_KEY = 4
MOST_STREAMS = 32
#: Longest session id read (ours are about 80 characters).
LONGEST_SESSION_ID = 200


@dataclass(frozen=True)
class Opened:
    """What a session id says: the snapshot its label named when it was opened."""

    told: int | None


class Sessions:
    """Session ids signed with `secret` (the app's `SECRET_KEY`)."""

    def __init__(self, secret: str):
        self.signer = URLSafeSerializer(secret, salt="skill-editor mcp session")

    def open(self, key_id: int, agent: str, label: str, told: int | None) -> str:
        """A new session id for the key `key_id` on `agent`'s `label`, then at `told`."""
        return self.signer.dumps([key_id, agent, label, told, secrets.token_hex(8)])

    def read(self, session_id: str, key_id: int, agent: str, label: str) -> Opened | None:
        """What `session_id` says, when it is one this server opened for that key, agent
        and label; None otherwise (as for a session that never was)."""
        if len(session_id) > LONGEST_SESSION_ID:
            return None
        try:
            said = self.signer.loads(session_id)
        except BadSignature:
            return None
        if not isinstance(said, list) or len(said) != 5 or said[:3] != [key_id, agent, label]:
            return None
        told = said[3]
        return Opened(told if isinstance(told, int) else None)


class TooMany(Exception):
    """A stream past a bound: the message says which."""


class Streams:
    """The open streams of one process, per key."""

    def __init__(self, per_key: int = MOST_STREAMS_PER_KEY, most: int = MOST_STREAMS):
        self.per_key, self.most = per_key, most
        self.lock = threading.Lock()
        self.open: Counter[int] = Counter()

    def take(self, key_id: int) -> None:
        """Count one more stream of `key_id`; `TooMany` past a bound."""
        with self.lock:
            if self.open[key_id] >= self.per_key:
                raise TooMany(f"this key holds {self.per_key} MCP streams open, the most "
                              f"one key may; close one first")
            if sum(self.open.values()) >= self.most:
                raise TooMany(f"this server holds {self.most} MCP streams open, the most it "
                              f"serves; try again later")
            self.open[key_id] += 1

    def give_back(self, key_id: int) -> None:
        """One stream of `key_id` ended."""
        with self.lock:
            self.open[key_id] -= 1
            if self.open[key_id] <= 0:
                del self.open[key_id]
