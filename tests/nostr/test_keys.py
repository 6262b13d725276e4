"""Ids, signatures and NIP-19 against published vectors: the BIP-340 test vectors (the
Schnorr signatures every Nostr event carries), a signed NIP-01 event from another
implementation, and keys and addresses read back as they were written."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import nostr_sdk
import pytest

from webapp.nostr import (
    NostrKeyError,
    address,
    event_id,
    event_problem,
    naddr,
    npub,
    public_key_hex,
    secret_keys,
    sign,
)

FIXTURES = Path(__file__).parent / "fixtures"
VECTORS = list(csv.DictReader((FIXTURES / "bip340-vectors.csv").open(encoding="utf-8")))
GOLDEN = [json.loads(line) for line in (FIXTURES / "nip01-events.jsonl").open(encoding="utf-8")]


def _signature_holds(pubkey: str, message: str, signature: str) -> bool:
    """Whether the library's event check accepts `signature` of `message` by `pubkey`: a
    NIP-01 signature is a BIP-340 signature of the event id, so the message is the id."""
    event = {"id": message.lower(), "pubkey": pubkey.lower(), "created_at": 0, "kind": 1,
             "tags": [], "content": "", "sig": signature.lower()}
    try:
        return nostr_sdk.Event.from_json(json.dumps(event)).verify_signature()
    except Exception:  # a public key off the curve cannot even be read
        return False


@pytest.mark.parametrize("vector", VECTORS, ids=[v["index"] for v in VECTORS])
def test_the_bip340_vectors(vector):
    expected = vector["verification result"] == "TRUE"
    assert _signature_holds(vector["public key"], vector["message"],
                            vector["signature"]) is expected


@pytest.mark.parametrize("vector", [v for v in VECTORS if v["secret key"]],
                         ids=lambda v: v["index"])
def test_a_vectors_secret_key_gives_its_public_key(vector):
    keys = secret_keys(vector["secret key"])
    assert keys.public_key().to_hex() == vector["public key"].lower()


@pytest.mark.parametrize("event", GOLDEN, ids=lambda e: e["id"][:8])
def test_a_signed_event_from_another_implementation(event):
    assert event_id(event) == event["id"]
    assert event_problem(event) is None


@pytest.mark.parametrize(("change", "reason"), [
    ({"content": "hello tclnostr!"}, "has a wrong id"),
    ({"sig": "00" * 64}, "has a bad signature"),
    ({"sig": "ab"}, "lowercase hex of the right length"),
    ({"id": "693FE0C19B0498F428ADFE65182BFE135D34DD9EFC39905887D5C5EFA528D044"}, "lowercase hex"),
    ({"kind": "1"}, "no valid 'kind'"),
    ({"kind": True}, "no valid 'kind'"),
    ({"kind": 70000}, "out of range"),
    ({"tags": [["e", 1]]}, "not a list of strings"),
    ({"extra": 1}, "unknown fields: extra"),
])
def test_a_changed_event_is_refused_saying_why(change, reason):
    assert reason in event_problem({**GOLDEN[0], **change})


def test_what_is_not_an_event_is_refused():
    assert event_problem([]) == "is not a JSON object"
    assert event_problem({}) == "has no valid 'id'"


def test_signing_gives_an_event_that_verifies():
    keys = nostr_sdk.Keys.generate()
    unsigned = {"pubkey": keys.public_key().to_hex(), "created_at": 1700000000, "kind": 31123,
                "tags": [["d", "chat"]], "content": "system:\nHé\n"}
    event = sign(unsigned, keys)
    assert event_problem(event) is None and event["id"] == event_id(unsigned)
    with pytest.raises(NostrKeyError, match="not the key of npub1"):
        sign(unsigned, nostr_sdk.Keys.generate())


def test_keys_and_addresses_round_trip():
    keys = secret_keys("0" * 63 + "3")
    pubkey = keys.public_key().to_hex()
    assert public_key_hex(npub(pubkey)) == pubkey == public_key_hex(pubkey.upper())
    assert secret_keys(keys.secret_key().to_bech32()).public_key().to_hex() == pubkey
    found = address(naddr(10123, pubkey, "", ["ws://127.0.0.1:7777"]))
    assert (found.pubkey, found.kind, found.identifier) == (pubkey, 10123, "")
    assert found.relays == ("ws://127.0.0.1:7777",)
    assert address("nostr:" + npub(pubkey)).pubkey == pubkey


@pytest.mark.parametrize(("reader", "text", "reason"), [
    (public_key_hex, "npub1qqqq", "not a valid npub"),
    (public_key_hex, "hello", "not a public key"),
    (secret_keys, "npub1xyz", "not a secret key"),
    (secret_keys, "nsec1qqqq", "not a valid secret key"),
    (address, "naddr1qqqq", "not a valid naddr"),
])
def test_a_bad_key_is_refused_without_echoing_it(reader, text, reason):
    with pytest.raises(NostrKeyError, match=reason) as caught:
        reader(text)
    assert text not in str(caught.value)
