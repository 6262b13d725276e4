"""`skill-editor nostr key|export|publish|import` against a real relay on 127.0.0.1: the
key set and shown, signed events exported and read back, a snapshot published with what
each relay said, an import previewed (--dry-run) and applied, and each error a user can
hit: no key, the wrong key, no relay, a refused import, a reviewer's command run by an
author. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import nostr_sdk
import pytest
from click.testing import CliRunner

from tests.support.relay import Script, local_relay, scripted_relay
from webapp import store
from webapp.cli import main
from webapp.nostr import event_problem
from webapp.pipeline import load_bundle
from webapp.schema import db

DEMO = Path(__file__).resolve().parents[2] / "webapp" / "demo" / "simon.json"
KEYS = nostr_sdk.Keys.generate()
NPUB = KEYS.public_key().to_bech32()


@pytest.fixture
def simon_db(database_url) -> str:
    """A database with Simon, published once."""
    with db.session_scope(database_url) as session:
        store.import_bundle(session, load_bundle(DEMO))
        store.publish(session, "Simon", "first", expected_latest=0, override="demo")
    return database_url


@pytest.fixture
def nsec(tmp_path) -> str:
    """A file holding the agent's secret key."""
    path = tmp_path / "agent.nsec"
    path.write_text(KEYS.secret_key().to_bech32() + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def run(simon_db, monkeypatch):
    """Invoke the CLI on `simon_db`; returns click's Result (stdout and stderr apart)."""
    monkeypatch.delenv("NOSTR_NSEC", raising=False)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [*args, "--database-url", simon_db],
                                       catch_exceptions=False)


def test_the_key_is_set_and_shown(run):
    shown = run("nostr", "key", "--agent", "Simon")
    assert shown.exit_code == 0 and shown.stdout == "(no key)\n"
    set_ = run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay",
               "wss://relay.example.com")
    assert set_.exit_code == 0 and set_.stdout == f"{NPUB}\nwss://relay.example.com\n"
    assert run("nostr", "key", "--agent", "Simon").stdout == set_.stdout
    bad = run("nostr", "key", "--agent", "Simon", "--relay", "ws://example.com")
    assert bad.exit_code == 1 and "only for a relay on this machine" in bad.stderr


def test_a_key_is_generated_its_nsec_printed_once_and_its_npub_set(run, tmp_path):
    made = run("nostr", "key", "--agent", "Simon", "--generate")
    assert made.exit_code == 0, made.output
    nsec = made.stdout.strip()
    assert made.stdout == nsec + "\n" and nsec.startswith("nsec1")  # alone: `> file` works
    public = nostr_sdk.Keys.parse(nsec).public_key().to_bech32()
    assert f"The agent's key is now {public}." in made.stderr
    assert "shown this once: Skill Editor keeps no copy" in made.stderr
    shown = run("nostr", "key", "--agent", "Simon")
    assert shown.stdout == f"{public}\n" and nsec not in shown.stdout
    again = run("nostr", "key", "--agent", "Simon", "--generate")
    assert again.exit_code == 1 and "already has a key" in again.stderr
    assert run("nostr", "key", "--agent", "Simon").stdout == shown.stdout
    both = run("nostr", "key", "--agent", "Simon", "--generate", "--npub", NPUB)
    assert both.exit_code == 2 and "not both" in both.stderr
    # The printed key signs for the agent.
    path = tmp_path / "agent.nsec"
    path.write_text(made.stdout, encoding="utf-8")
    exported = run("nostr", "export", "--agent", "Simon", "--published", "--nsec-file",
                   str(path), "-o", str(tmp_path / "out.jsonl"))
    assert exported.exit_code == 0, exported.output
    # Cleared, as the refusal says, a new one can be made.
    assert run("nostr", "key", "--agent", "Simon", "--npub", "").stdout == "(no key)\n"
    assert run("nostr", "key", "--agent", "Simon", "--generate").stdout.startswith("nsec1")


def test_export_writes_signed_events_that_import_reads_back(run, nsec, tmp_path):
    run("nostr", "key", "--agent", "Simon", "--npub", NPUB)
    out = tmp_path / "simon.jsonl"
    exported = run("nostr", "export", "--agent", "Simon", "--published", "--nsec-file", nsec,
                   "-o", str(out))
    assert exported.exit_code == 0 and "5 events of snapshot 1" in exported.stderr
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(events) == 5 and all(event_problem(e) is None for e in events)
    dry = run("nostr", "import", "--file", str(out), "--agent-name", "Copy", "--dry-run")
    assert dry.exit_code == 0 and dry.stdout.splitlines()[0] == "new agent Copy"
    assert "dry run: nothing changed" in dry.stderr
    assert run("nostr", "import", "--file", str(out), "--agent-name", "Copy").exit_code == 0
    again = run("nostr", "import", "--file", str(out), "--agent-name", "Copy", "--dry-run")
    assert again.stdout.count("unchanged") == 3


def test_publish_then_import_from_the_relay(run, nsec, simon_db):
    with local_relay() as url:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", url)
        published = run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
        assert published.exit_code == 0, published.stderr
        assert published.stdout.count(" accepted") == 5
        assert "5 of 5 on the relays, accepted or held already (5 events, 1 relays)" in (
            published.stderr)
        again = run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
        assert again.exit_code == 0 and again.stdout.count(" unchanged") == 5, "nothing resent"
        imported = run("nostr", "import", "--npub", NPUB, "--relay", url, "--agent-name", "Back")
    assert imported.exit_code == 0, imported.stderr
    with db.session_scope(simon_db) as session:
        back = store.export_bundle(session, "Back")["skills"]
        assert back == store.export_bundle(session, "Simon")["skills"]
        kinds = [row.kind for row in store.list_activity(session, limit=2)]
        assert kinds == ["nostr.import", "nostr.publish"]


def test_a_relay_that_refuses_makes_publish_exit_1(run, nsec):
    with scripted_relay(Script(ok=False, message="blocked: full")) as url:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", url)
        published = run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
    assert published.exit_code == 1
    assert published.stdout.count("refused: blocked: full") == 5


def test_the_secret_key_from_the_environment(run, monkeypatch):
    run("nostr", "key", "--agent", "Simon", "--npub", NPUB)
    monkeypatch.setenv("NOSTR_NSEC", KEYS.secret_key().to_hex())
    assert run("nostr", "export", "--agent", "Simon").exit_code == 0


@pytest.mark.parametrize(("setup", "args", "message"), [
    (False, ["export", "--agent", "Simon"], "give the secret key"),
    (False, ["export", "--agent", "Simon", "--nsec-file", "{nsec}"], "has no Nostr key"),
    (True, ["export", "--agent", "Simon", "--nsec-file", "{other}"], "is not the key of"),
    (True, ["publish", "--agent", "Simon", "--nsec-file", "{nsec}"], "has no relays"),
    (True, ["publish", "--agent", "Simon", "--snapshot", "9", "--nsec-file", "{nsec}"],
     "no snapshot"),
    (True, ["import", "--agent-name", "X"], "give --npub NPUB|NADDR or --file FILE"),
    (True, ["import", "--npub", "{npub}"], "give --relay URL"),
    (True, ["import", "--npub", "npub1nope", "--relay", "ws://127.0.0.1:1"], "not a valid npub"),
])
def test_each_error_a_user_can_hit(run, nsec, tmp_path, setup, args, message):
    other = tmp_path / "other.nsec"
    other.write_text(nostr_sdk.Keys.generate().secret_key().to_bech32(), encoding="utf-8")
    if setup:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB)
    filled = [a.format(nsec=nsec, other=other, npub=NPUB) for a in args]
    result = run("nostr", *filled)
    assert result.exit_code in (1, 2) and message in result.stderr, result.stderr


def test_a_refused_import_imports_nothing(run, simon_db, tmp_path, nsec):
    run("nostr", "key", "--agent", "Simon", "--npub", NPUB)
    out = tmp_path / "simon.jsonl"
    run("nostr", "export", "--agent", "Simon", "--nsec-file", nsec, "-o", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    forged = [json.dumps({**json.loads(line), "content": "forged"})
              if json.loads(line)["kind"] == 31123 else line for line in lines]
    out.write_text("\n".join(forged) + "\n", encoding="utf-8")
    result = run("nostr", "import", "--file", str(out), "--agent-name", "Forged")
    assert result.exit_code == 1 and "nothing imported" in result.stderr
    assert "has a wrong id" in result.stderr
    with db.session_scope(simon_db) as session:
        assert [a.name for a in store.list_agents(session)] == ["Simon"]


def test_publishing_to_nostr_needs_a_reviewer(run, nsec, simon_db, cheap_hashes):
    with db.session_scope(simon_db) as session:
        for name, role in (("root", "admin"), ("ann", "author")):
            store.accounts.create_user(session, store.NewUser(name, role, "x" * 12))
    run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", "wss://r.example.com")
    result = run("--as", "ann", "nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
    assert result.exit_code == 1 and "publishing to Nostr needs the reviewer role" in result.stderr


def test_an_naddr_brings_its_relay_hint(run, nsec):
    from webapp.nostr import naddr

    with local_relay() as url:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", url)
        assert run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec).exit_code == 0
        address = naddr(10123, KEYS.public_key().to_hex(), "", [url])
        imported = run("nostr", "import", "--npub", address, "--agent-name", "Hinted",
                       "--dry-run")
    assert imported.exit_code == 0, imported.stderr
    assert imported.stdout.splitlines()[0] == "new agent Hinted"


def test_only_what_changed_is_sent_again(run, nsec, simon_db):
    with local_relay() as url:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", url)
        run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
        with db.session_scope(simon_db) as session:
            row = store.get_skill(session, "Simon", "chat")
            store.save_skill(session, "Simon", "chat", expected_version=row.version,
                             content="system:\nChanged.\n")
            store.publish(session, "Simon", "second", expected_latest=1, override="test")
        published = run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
        assert published.exit_code == 0
        assert published.stdout.count(" accepted") == 1 and published.stdout.count(
            " unchanged") == 4
        back = run("nostr", "import", "--npub", NPUB, "--relay", url, "--dry-run")
    assert "changed" not in back.stdout.replace("unchanged", ""), "the relay has snapshot 2"


def test_a_relays_rate_limit_is_reported(run, nsec):
    with local_relay(notes_per_minute=2) as url:
        run("nostr", "key", "--agent", "Simon", "--npub", NPUB, "--relay", url)
        published = run("nostr", "publish", "--agent", "Simon", "--nsec-file", nsec)
    assert published.exit_code == 1
    assert "refused: rate-limited" in published.stdout


def test_an_import_names_the_files_it_could_not_fetch(run, nsec, tmp_path, simon_db):
    with db.session_scope(simon_db) as session:
        d_tag = store.load_workspace(session, "Simon").skills[0].d_tag
        store.save_file(session, "Simon", d_tag, "references/notes.md", b"# Notes\n",
                        expected_version=1)
        store.publish(session, "Simon", "with a file", expected_latest=1, override="demo")
    run("nostr", "key", "--agent", "Simon", "--npub", NPUB)
    out = tmp_path / "simon.jsonl"
    assert run("nostr", "export", "--agent", "Simon", "--published", "--nsec-file", nsec,
               "-o", str(out)).exit_code == 0
    imported = run("nostr", "import", "--file", str(out), "--agent-name", "Copy")
    assert imported.exit_code == 0, "the import goes on without the file"
    assert "file 'references/notes.md' is missing: the event gives no URL" in imported.stderr
