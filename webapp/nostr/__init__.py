"""Skills as Nostr events: keys and signatures (`keys`), and an agent written as events
and read back from them (`events`). No I/O: the relays are `webapp.outbound.relays`'s."""

from .events import (
    DISABLED,
    MAX_ADOPTED,
    MAX_EVENT_BYTES,
    MAX_FILE_REFS,
    EventProblem,
    FileRef,
    Kinds,
    Reading,
    agent_events,
    coordinate,
    file_refs,
    kinds_problems,
    read_agent,
)
from .keys import (
    Address,
    NostrKeyError,
    address,
    event_id,
    event_problem,
    naddr,
    new_keys,
    npub,
    public_key_hex,
    secret_keys,
    sign,
)

__all__ = [
    "DISABLED", "MAX_ADOPTED", "MAX_EVENT_BYTES", "MAX_FILE_REFS", "Address", "EventProblem",
    "FileRef", "Kinds", "file_refs",
    "NostrKeyError", "Reading", "address", "agent_events", "coordinate", "event_id",
    "event_problem", "kinds_problems", "naddr", "new_keys", "npub", "public_key_hex", "read_agent",
    "secret_keys", "sign",
]
