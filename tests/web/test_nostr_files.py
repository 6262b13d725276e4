"""A published skill's folder through a relay and back, with the app served on 127.0.0.1:
the skill event's `imeta` URLs point at the instance's public route for the snapshot's
files (opted in), the importer fetches them from it and imports the folder; without the
opt-in no URL is written, the route answers 404 and the files are named missing."""

from __future__ import annotations

import hashlib
import html
import re

import nostr_sdk
import pytest

from tests.support.relay import local_relay
from tests.support.server import serve
from webapp import store
from webapp.nostr import Address, Kinds, sign
from webapp.outbound import nostr_sync, relays
from webapp.schema import db
from webapp.store.nostr import NostrSettings

KEYS = nostr_sdk.Keys.generate()
PUBKEY = KEYS.public_key().to_hex()
FILES = {"scripts/run.sh": b"#!/bin/sh\necho hi\n", "references/notes.md": b"# Notes\n"}


@pytest.fixture
def published(app, simon) -> str:
    """Simon with two files beside the first skill's SKILL.md, published, with KEYS."""
    with app.app_context():
        session = db.get_session()
        d_tag = store.load_workspace(session, simon).skills[0].d_tag
        version = 1
        for path, data in FILES.items():
            row = store.save_file(session, simon, d_tag, path, data, expected_version=version)
            version = row.version
        store.publish(session, simon, "first", expected_latest=0, override="demo")
    return d_tag


@pytest.fixture
def served(app, monkeypatch):
    """The app on a free port of 127.0.0.1, the instance's public URL; loopback allowed."""
    monkeypatch.setenv("SKILL_EDITOR_WEBHOOK_ALLOW_PRIVATE", "1")
    for url in serve(app):
        monkeypatch.setenv(nostr_sync.PUBLIC_URL, url)
        yield url


def publish_and_import(app, simon: str):
    with local_relay() as relay, app.app_context():
        session = db.get_session()
        store.nostr.set_nostr(session, simon, NostrSettings(PUBKEY, (relay,)))
        prepared = nostr_sync.events_to_sign(session, simon)
        outcomes = relays.publish([relay], [sign(e, KEYS) for e in prepared.events])
        assert {o.status for o in outcomes} == {relays.ACCEPTED}
        reading = nostr_sync.fetch_agent(Address(PUBKEY), [relay], Kinds(),
                                         agent_name="Copy").reading
        assert not reading.blocked
        store.nostr.apply_import(session, reading.workspace, reading.authors, pubkey=PUBKEY)
        return reading, prepared


def test_the_folder_comes_back_from_the_served_instance(app, simon, published, served,
                                                        monkeypatch):
    monkeypatch.setenv(nostr_sync.PUBLIC_BLOBS, "1")
    reading, prepared = publish_and_import(app, simon)
    assert reading.problems == []
    urls = [part for event in prepared.events for tag in event["tags"] if tag[0] == "imeta"
            for part in tag if part.startswith("url ")]
    assert len(urls) == len(FILES) and all(served in url for url in urls)
    with app.app_context():
        for path, data in FILES.items():
            assert store.get_file(db.get_session(), "Copy", published, path).data == data


def test_without_the_opt_in_no_url_is_written_and_the_files_are_missing(
        app, client, simon, published, served):
    reading, prepared = publish_and_import(app, simon)
    missing = [str(p) for p in reading.problems]
    assert all(any(path in m and "gives no URL" in m for m in missing) for path in FILES)
    sha256 = hashlib.sha256(FILES["references/notes.md"]).hexdigest()
    assert client.get(f"/public/{simon}/snapshots/1/blobs/{sha256}").status_code == 404


def test_the_public_route_serves_only_files_of_that_snapshot(app, client, simon, published,
                                                            monkeypatch):
    monkeypatch.setenv(nostr_sync.PUBLIC_BLOBS, "1")
    sha256 = hashlib.sha256(FILES["references/notes.md"]).hexdigest()
    answer = client.get(f"/public/{simon}/snapshots/1/blobs/{sha256}")
    assert answer.status_code == 200 and answer.data == FILES["references/notes.md"]
    assert client.get(f"/public/{simon}/snapshots/1/blobs/{'0' * 64}").status_code == 404
    assert client.get(f"/public/{simon}/snapshots/9/blobs/{sha256}").status_code == 404
    assert client.get(f"/public/{simon}/snapshots/1/blobs/NOTHEX").status_code == 404
    assert client.get(f"/public/nobody/snapshots/1/blobs/{sha256}").status_code == 404


def test_the_import_page_names_a_missing_file_and_still_imports(app, client, csrf, simon,
                                                                  published, served):
    with local_relay() as relay:
        with app.app_context():
            session = db.get_session()
            store.nostr.set_nostr(session, simon, NostrSettings(PUBKEY, (relay,)))
            prepared = nostr_sync.events_to_sign(session, simon)
        relays.publish([relay], [sign(e, KEYS) for e in prepared.events])
        form = {"csrf_token": csrf, "address": KEYS.public_key().to_bech32(),
                "relays": relay, "agent_name": "Copy"}
        preview = client.post("/nostr/import", data=form)
        assert preview.status_code == 200
        assert "notes.md&#39; is missing: the event gives no URL" in preview.text
        assert "Skipped or missing" in preview.text
        events = html.unescape(re.search(r'name="events" value="([^"]*)"', preview.text)[1])
        applied = client.post("/nostr/import/apply",
                              data={**form, "pubkey": PUBKEY, "events": events})
    assert applied.status_code == 303, "the import goes on without the missing files"
