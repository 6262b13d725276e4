"""Skills on Nostr: what signing, verifying and a relay round trip cost.

On the 200-skill workspace (`scale_workspace`): writing and signing every event (what
`skill-editor nostr export` and a NIP-07 extension do, one event at a time), verifying
and reading them back (`read_agent`: ids, BIP-340 signatures, the newest per address,
the bundle rules), and a whole round through nostr-sdk's LocalRelay on 127.0.0.1:
publishing every event and waiting for each OK, then the two rounds of an import.
"""

from __future__ import annotations

import time

import nostr_sdk

from tests.support.relay import local_relay
from webapp.nostr import Address, Kinds, agent_events, read_agent, sign
from webapp.outbound import nostr_sync, relays

from .pipeline import Row, median_ms
from .workspaces import scale_workspace


def nostr_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for Nostr."""
    workspace = scale_workspace(50 if quick else 200)
    keys = nostr_sdk.Keys.generate()
    pubkey = keys.public_key().to_hex()
    size = f"{len(workspace.skills)} skills"

    def signed() -> list[dict]:
        return [sign(event, keys) for event in agent_events(workspace, pubkey, Kinds(), 1)]

    events = signed()
    repeat = 3 if quick else 7
    read = median_ms(lambda: read_agent(events, pubkey, Kinds()), repeat, 1)
    rows = [(f"nostr: write and sign every event, {size} (median)",
             f"{median_ms(signed, repeat, 1):.0f} ms", "—"),
            (f"nostr: verify and read back every event, {size} (median)", f"{read:.0f} ms",
             "< 500 ms")]
    with local_relay() as url:
        start = time.perf_counter()
        outcomes = relays.publish([url], events)
        published = time.perf_counter() - start
        start = time.perf_counter()
        fetched = nostr_sync.fetch_agent(Address(pubkey), [url], Kinds())
        imported = time.perf_counter() - start
    if {o.status for o in outcomes} != {relays.ACCEPTED} or fetched.reading.blocked:
        raise RuntimeError("the relay round trip did not complete")
    rows.append((f"nostr: publish to a local relay / read back from it, {size}",
                 f"{published * 1000:.0f} / {imported * 1000:.0f} ms", "—"))
    return rows


if __name__ == "__main__":
    for figure, measured, target in nostr_rows():
        print(f"{figure}  {measured}  {target}")
