"""A skill's folder through a relay: its files named by sha256 and size in the skill's
event, fetched back over HTTP from a real server on 127.0.0.1, verified, imported; a file
that cannot be had is named as missing and the import goes on."""

from __future__ import annotations

import hashlib
import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import nostr_sdk
import pytest

from tests.support.relay import local_relay
from webapp import store
from webapp.agentskills import FolderLimits, SkillFile
from webapp.nostr import Address, FileRef, Kinds, agent_events, file_refs, sign
from webapp.outbound import blobs, nostr_sync, relays
from webapp.pipeline import Agent, Folder, Skill, Workspace

KEYS = nostr_sdk.Keys.generate()
PUBKEY = KEYS.public_key().to_hex()
GOOD = SkillFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", executable=True)
NOTES = SkillFile("references/notes.md", b"# Notes\n")


@contextmanager
def file_server(files: dict[str, bytes]) -> Iterator[str]:
    """An HTTP server on a free port of 127.0.0.1 answering `/<sha256>` with `files`."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            data = files.get(self.path.lstrip("/"))
            self.send_response(200 if data is not None else 404)
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def workspace(*files: SkillFile) -> Workspace:
    skill = Skill("tools-skill", "Run it.", "Tools", 1, ("run",), description="runs things")
    return Workspace(Agent("Folder agent"), (skill,),
                     folders=(Folder("tools-skill", "", False, files),))


def round_trip(served: dict[str, bytes], *files: SkillFile, url_of=None, session=None):
    with file_server(served) as base, local_relay() as relay:
        blob_url = url_of(base) if url_of else (lambda sha256: f"{base}/{sha256}")
        events = agent_events(workspace(*files), PUBKEY, Kinds(), 1_700_000_000,
                              blob_url=blob_url)
        outcomes = relays.publish([relay], [sign(e, KEYS) for e in events])
        assert {o.status for o in outcomes} == {relays.ACCEPTED}
        return nostr_sync.fetch_agent(Address(PUBKEY), [relay], Kinds(), agent_name="Copy",
                                      session=session).reading


@pytest.fixture(autouse=True)
def loopback_allowed(monkeypatch):
    """The file server is on 127.0.0.1, which the outbound rule refuses unless allowed."""
    monkeypatch.setenv("SKILL_EDITOR_WEBHOOK_ALLOW_PRIVATE", "1")


def test_the_files_come_back_through_a_relay_and_are_imported(session):
    reading = round_trip({GOOD.sha256: GOOD.data, NOTES.sha256: NOTES.data}, GOOD, NOTES)
    assert reading.problems == [] and not reading.blocked
    store.nostr.apply_import(session, reading.workspace, reading.authors, pubkey=PUBKEY)
    assert store.folders.get_file(session, "Copy", "tools-skill", GOOD.path) == GOOD
    assert store.folders.get_file(session, "Copy", "tools-skill", NOTES.path) == NOTES
    again = round_trip({}, GOOD, NOTES, session=session)
    assert again.problems == [], "the files Copy stores already are not fetched again"
    assert again.workspace.folders_by_tag["tools-skill"].files == (NOTES, GOOD)


@pytest.mark.parametrize(("served", "url_of", "why"), [
    ({NOTES.sha256: b"# Not the notes\n"[:len(NOTES.data)]}, None, "do not have its sha256"),
    ({NOTES.sha256: NOTES.data + b"more"}, None, "more bytes than its size"),
    ({}, None, "answered 404"),
    ({}, lambda base: (lambda sha256: "http://127.0.0.1:1/" + sha256), "could not be fetched"),
    ({}, lambda base: None, "gives no URL"),
])
def test_a_file_that_cannot_be_had_is_named_missing_and_the_import_goes_on(
        session, served, url_of, why):
    reading = round_trip({GOOD.sha256: GOOD.data, **served}, GOOD, NOTES, url_of=url_of)
    messages = [str(p) for p in reading.problems]
    assert not reading.blocked
    assert any(NOTES.path in m and why in m for m in messages), messages
    store.nostr.apply_import(session, reading.workspace, reading.authors, pubkey=PUBKEY)
    with pytest.raises(store.NotFound):
        store.folders.get_file(session, "Copy", "tools-skill", NOTES.path)


def _event(*tags: list[str]) -> dict:
    return {"tags": [["d", "x"], *tags]}


def test_hostile_imeta_tags_are_bounded():
    sha = hashlib.sha256(b"x").hexdigest()
    refs, problems = file_refs(_event(["imeta", f"x {sha}", "size 99999999999999", "path a"],
                                      ["imeta", "x NOTHEX", "size 1", "path b"],
                                      ["imeta", f"x {sha}", "size 1"],
                                      ["imeta", f"x {sha}", "size 1", "path ok", "url u"]))
    assert [r.path for r in refs] == ["ok"] and len(problems) == 3
    many = [["imeta", f"x {sha}", "size 1", f"path f{i}"] for i in range(5000)]
    refs, problems = file_refs(_event(*many))
    assert refs == [] and "at most" in problems[0]


def test_a_skill_event_names_each_file_by_sha256_size_mime_path_and_mode():
    events = agent_events(workspace(GOOD), PUBKEY, Kinds(), 1, blob_url=lambda s: f"u/{s}")
    imeta = [tag for tag in events[0]["tags"] if tag[0] == "imeta"]
    assert imeta == [["imeta", f"url u/{GOOD.sha256}", f"x {GOOD.sha256}",
                      f"size {GOOD.size}", "m text/x-shellscript", f"path {GOOD.path}",
                      "mode 755"]]
    unlinked = agent_events(workspace(GOOD), PUBKEY, Kinds(), 1)[0]["tags"]
    assert not any(part.startswith("url ") for tag in unlinked for part in tag)


def test_sizes_past_the_folder_limits_are_refused_before_fetching():
    limits = FolderLimits(files=10, file_bytes=1000, agent_bytes=1000)
    big = FileRef("big.bin", "0" * 64, 5000, False, "http://127.0.0.1:1/never-asked")
    files, missing = blobs.fetch_folders({"s": [big]}, limits=limits)
    assert files == {} and missing[0][:2] == ("s", "big.bin")
    each = FileRef("each.bin", "0" * 64, 600, False, "http://127.0.0.1:1/never-asked")
    files, missing = blobs.fetch_folders({"a": [each], "b": [each]}, limits=limits)
    assert "limit on stored bytes" in missing[1][2], "the agent's limit, all skills together"


def test_a_server_that_never_answers_is_named_missing_at_the_deadline():
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(1)  # the connection is taken, and nothing is ever answered
        port = listening.getsockname()[1]
        ref = FileRef("slow.md", NOTES.sha256, NOTES.size, False,
                      f"http://127.0.0.1:{port}/{NOTES.sha256}")
        files, missing = blobs.fetch_folders({"s": [ref]}, timeout=0.5)
    assert files == {} and [m[1] for m in missing] == ["slow.md"]


def test_an_address_the_rule_refuses_is_named_missing(monkeypatch):
    monkeypatch.delenv("SKILL_EDITOR_WEBHOOK_ALLOW_PRIVATE")
    ref = FileRef("n.md", NOTES.sha256, NOTES.size, False, f"http://127.0.0.1:9/{NOTES.sha256}")
    files, missing = blobs.fetch_folders({"s": [ref]})
    assert files == {} and "not a public address" in missing[0][2]


@pytest.mark.parametrize(("url", "why"), [
    ("http://[::1", "not a URL"), ("http://127.0.0.1:99999/x", "not a URL"),
    ("ftp://127.0.0.1/x", "not http(s)"), ("http://\u2603.invalid/x", "cannot be resolved"),
])
def test_a_hostile_url_is_named_missing(url, why):
    ref = FileRef("n.md", NOTES.sha256, NOTES.size, False, url)
    files, missing = blobs.fetch_folders({"s": [ref]})
    assert files == {} and why in missing[0][2]
