"""Nostr identities and signatures, through the `nostr-sdk` bindings (docs/nostr.md).

Keys are read from what people paste: an `npub`/`nsec` (NIP-19 bech32) or 64 hex
digits; an address is an `npub` or an `naddr`. Events are plain JSON dicts everywhere
else in the app; this module turns them into `nostr_sdk` objects only to compute an id,
sign, or verify, and back. Nothing here does I/O.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import nostr_sdk

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")
#: The fields of a signed event (NIP-01), and their JSON types.
EVENT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "pubkey": str, "created_at": int, "kind": int, "tags": list, "content": str,
    "sig": str}


class NostrKeyError(ValueError):
    """A key or an address that cannot be read; the message says why."""


@dataclass(frozen=True, slots=True)
class Address:
    """Where an import looks: an author's key, and relays an `naddr` may suggest."""

    pubkey: str
    relays: tuple[str, ...] = ()
    kind: int | None = None
    identifier: str | None = None


def public_key_hex(text: str) -> str:
    """The hex public key of an `npub` or 64 hex digits; raises `NostrKeyError`."""
    text = text.strip()
    if _HEX64.fullmatch(text.lower()):
        return nostr_sdk.PublicKey.parse(text.lower()).to_hex()
    if not text.startswith("npub1"):
        raise NostrKeyError("is not a public key: give an npub1… or 64 hex digits")
    try:
        return nostr_sdk.PublicKey.parse(text).to_hex()
    except Exception:  # the bindings raise their own error type for any bad input
        raise NostrKeyError("is not a valid npub (its checksum or length is wrong)") from None


def npub(pubkey_hex: str) -> str:
    """The NIP-19 `npub` of a hex public key."""
    return nostr_sdk.PublicKey.parse(pubkey_hex).to_bech32()


def secret_keys(text: str) -> nostr_sdk.Keys:
    """Keys from an `nsec` or 64 hex digits; raises `NostrKeyError` (never echoing the key)."""
    text = text.strip()
    if not (text.startswith("nsec1") or _HEX64.fullmatch(text.lower())):
        raise NostrKeyError("is not a secret key: give an nsec1… or 64 hex digits")
    try:
        return nostr_sdk.Keys.parse(text.lower() if not text.startswith("nsec1") else text)
    except Exception:
        raise NostrKeyError("is not a valid secret key") from None


def new_keys() -> tuple[str, str]:
    """A new key pair from the system's random source: `(hex public key, nsec)`."""
    keys = nostr_sdk.Keys.generate()
    return keys.public_key().to_hex(), keys.secret_key().to_bech32()


def address(text: str) -> Address:
    """An `npub`, hex key or `naddr` as an `Address`; raises `NostrKeyError`."""
    text = text.strip()
    if text.startswith("nostr:"):
        text = text[len("nostr:"):]
    if not text.startswith("naddr1"):
        return Address(public_key_hex(text))
    try:
        entity = nostr_sdk.Nip19.from_bech32(text).as_enum()
    except Exception:
        raise NostrKeyError("is not a valid naddr") from None
    if not entity.is_addr():
        raise NostrKeyError("is not an naddr")
    coordinate = entity.coordinate.coordinate()
    relays = tuple(str(relay) for relay in entity.coordinate.relays())
    return Address(coordinate.public_key().to_hex(), relays, coordinate.kind().as_u16(),
                   coordinate.identifier())


def naddr(kind: int, pubkey_hex: str, identifier: str, relays: list[str]) -> str:
    """The NIP-19 `naddr` of an event address, with relay hints."""
    coordinate = nostr_sdk.Coordinate(nostr_sdk.Kind(kind),
                                      nostr_sdk.PublicKey.parse(pubkey_hex), identifier)
    hints = [nostr_sdk.RelayUrl.parse(url) for url in relays]
    return nostr_sdk.Nip19Coordinate(coordinate, hints).to_bech32()


def event_id(unsigned: dict[str, Any]) -> str:
    """The NIP-01 id of an unsigned event dict (`pubkey`, `created_at`, `kind`, `tags`,
    `content`): the sha256 of its canonical serialisation."""
    return _unsigned(unsigned).id().to_hex()


def sign(unsigned: dict[str, Any], keys: nostr_sdk.Keys) -> dict[str, Any]:
    """The event signed with `keys` (BIP-340), as a dict with `id` and `sig`."""
    if unsigned["pubkey"] != keys.public_key().to_hex():
        raise NostrKeyError(f"the secret key is not the key of {npub(unsigned['pubkey'])}")
    event = _unsigned(unsigned)
    signed = event.add_signature(keys.sign_schnorr(bytes.fromhex(event.id().to_hex())))
    return json.loads(signed.as_json())


def event_problem(event: Any) -> str | None:
    """Why `event` (untrusted JSON) is not a valid signed NIP-01 event, or None.

    The shape first (each field there, of its type, tags lists of strings), then the id
    (the hash of what it says) and then the BIP-340 signature of the id by `pubkey`."""
    if not isinstance(event, dict):
        return "is not a JSON object"
    for key, kind in EVENT_FIELDS.items():
        value = event.get(key)
        if value is None or not isinstance(value, kind) or isinstance(value, bool):
            return f"has no valid {key!r}"
    if set(event) - set(EVENT_FIELDS):
        return f"has unknown fields: {', '.join(sorted(set(event) - set(EVENT_FIELDS)))}"
    if not all(isinstance(tag, list) and all(isinstance(x, str) for x in tag)
               for tag in event["tags"]):
        return "has a tag that is not a list of strings"
    if not (_HEX64.fullmatch(event["id"]) and _HEX64.fullmatch(event["pubkey"])
            and _HEX128.fullmatch(event["sig"])):
        return "has an id, pubkey or sig that is not lowercase hex of the right length"
    if not 0 <= event["kind"] <= 65535 or event["created_at"] < 0:
        return "has a kind or created_at out of range"
    try:
        parsed = nostr_sdk.Event.from_json(json.dumps(event))
        if not parsed.verify_id():
            return "has a wrong id (it is not the hash of the event)"
        if not parsed.verify_signature():
            return "has a bad signature"
    except Exception:
        return "cannot be read as a Nostr event"
    return None


def _unsigned(unsigned: dict[str, Any]) -> nostr_sdk.UnsignedEvent:
    fields = {key: unsigned[key] for key in ("pubkey", "created_at", "kind", "tags", "content")}
    return nostr_sdk.UnsignedEvent.from_json(json.dumps(fields)).ensure_id()
