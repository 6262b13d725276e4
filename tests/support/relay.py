"""Nostr relays on 127.0.0.1, started by the test that needs them.

`local_relay` runs nostr-sdk's `LocalRelay` (a real NIP-01 relay, in memory) in a thread
of its own event loop; `refuse_kinds` makes it refuse events of some kinds with a
message, as a relay's write policy does. `scripted_relay` is a relay that misbehaves on
purpose — it answers every request with the events it is given (forged ones included),
floods, or never answers — which no well-made relay does, so no real one can stand in.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import nostr_sdk
from websockets.sync.server import ServerConnection, serve


class _RefuseKinds(nostr_sdk.WritePolicy):
    def __init__(self, kinds: set[int], message: str):
        self.kinds, self.message = kinds, message

    async def admit_event(self, event: nostr_sdk.Event, socket_addr: str
                          ) -> nostr_sdk.WritePolicyResult:
        if event.kind().as_u16() in self.kinds:
            return nostr_sdk.WritePolicyResult.REJECT(self.message)
        return nostr_sdk.WritePolicyResult.ACCEPT()


@contextmanager
def local_relay(refuse_kinds: set[int] | None = None, message: str = "not on this relay",
                notes_per_minute: int = 100_000) -> Iterator[str]:
    """A real relay on a free port of 127.0.0.1 until the block ends; yields its URL. Its
    rate limit is high unless told (the library's default refuses past 60 a minute)."""
    started = threading.Event()
    stop = threading.Event()
    box: dict[str, Any] = {}

    async def run() -> None:
        builder = nostr_sdk.LocalRelayBuilder().addr("127.0.0.1").rate_limit(
            nostr_sdk.RateLimit(max_reqs=500, notes_per_minute=notes_per_minute))
        if refuse_kinds:
            # The policy is called from the relay's own threads: its coroutine runs here.
            nostr_sdk.uniffi_set_event_loop(asyncio.get_running_loop())
            builder = builder.write_policy(_RefuseKinds(refuse_kinds, message))
        relay = builder.build()
        await relay.run()
        box["url"] = str(await relay.url())
        started.set()
        try:
            while not stop.is_set():
                await asyncio.sleep(0.02)
        finally:
            relay.shutdown()
            if refuse_kinds:  # the bindings' loop is global: later calls run on their own
                nostr_sdk.uniffi_set_event_loop(None)

    def main() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:  # surfaced to the test below
            box["error"] = exc
            started.set()

    thread = threading.Thread(target=main, name="local-relay", daemon=True)
    thread.start()
    assert started.wait(30), "the local relay did not start"
    if "error" in box:
        raise box["error"]
    try:
        yield box["url"].rstrip("/")
    finally:
        stop.set()
        thread.join(timeout=10)


@dataclass
class Script:
    """What a scripted relay does: send `raw` messages as they are, then `events` for every
    request (then EOSE unless `silent`), answer every EVENT with `ok` and `message` (or
    nothing when `silent`)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    silent: bool = False
    ok: bool = True
    message: str = ""
    received: list[Any] = field(default_factory=list)


@contextmanager
def scripted_relay(script: Script) -> Iterator[str]:
    """A misbehaving relay on a free port of 127.0.0.1 (see the module); yields its URL."""

    def handler(ws: ServerConnection) -> None:
        for raw in ws:
            message = json.loads(raw)
            script.received.append(message)
            if script.silent:
                continue
            if message[0] == "REQ":
                for text in script.raw:
                    ws.send(text)
                for event in script.events:
                    ws.send(json.dumps(["EVENT", message[1], event]))
                ws.send(json.dumps(["EOSE", message[1]]))
            elif message[0] == "EVENT":
                ws.send(json.dumps(["OK", message[1]["id"], script.ok, script.message]))

    with serve(handler, "127.0.0.1", 0, max_size=None) as server:
        thread = threading.Thread(target=server.serve_forever, name="scripted-relay",
                                  daemon=True)
        thread.start()
        try:
            yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
        finally:
            server.shutdown()
            thread.join(timeout=10)
