"""`skill-editor publish`, and `assemble`/`export` reading a published snapshot."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp import store
from webapp.cli import main
from webapp.pipeline import load_bundle
from webapp.schema import db

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "admin asks about mentions"


@pytest.fixture
def simon_db(database_url) -> str:
    """A database holding the Simon demo agent, never published."""
    with db.session_scope(database_url) as session:
        store.import_bundle(session, load_bundle(ROOT / "webapp" / "demo" / "simon.json"))
    return database_url


@pytest.fixture
def run(simon_db):
    """Invoke the CLI on `simon_db`; returns click's Result (stdout and stderr apart)."""
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [*args, "--database-url", simon_db],
                                       catch_exceptions=False)


def edit_chat(url: str, content: str) -> None:
    with db.session_scope(url) as session:
        row = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=row.version, content=content)


def test_publish_makes_the_next_snapshot_and_refuses_an_unchanged_one(run, simon_db):
    result = run("publish", "--agent", "Simon", "--note", "First")
    assert result.exit_code == 0, result.stderr
    with db.session_scope(simon_db) as session:
        (snapshot,) = store.list_snapshots(session, "Simon")
        assert (snapshot.number, snapshot.note, snapshot.published_by) == (1, "First", None)
    assert f"snapshot #1 (sha256 {snapshot.digest})" in result.stderr
    again = run("publish", "--agent", "Simon")
    assert again.exit_code == 1 and "nothing to publish" in again.stderr
    edit_chat(simon_db, "system:\nNew.\n")
    assert run("publish", "--agent", "Simon").exit_code == 0
    missing = run("publish", "--agent", "Nobody")
    assert missing.exit_code == 1 and "Nobody" in missing.stderr


def test_assemble_published_gives_what_was_published_not_the_draft(run, simon_db):
    draft = run("assemble", "--agent", "Simon", "--scenario", SCENARIO).stdout
    run("publish", "--agent", "Simon", "--note", "one")
    edit_chat(simon_db, "system:\nA draft nobody reviewed.\n")
    published = run("assemble", "--agent", "Simon", "--published", "--scenario", SCENARIO)
    assert published.exit_code == 0, published.stderr
    assert published.stdout == draft
    now = run("assemble", "--agent", "Simon", "--scenario", SCENARIO).stdout
    assert "A draft nobody reviewed." in now and "A draft nobody reviewed." not in draft
    run("publish", "--agent", "Simon", "--note", "two")
    assert run("assemble", "--agent", "Simon", "--published",
               "--scenario", SCENARIO).stdout == now
    assert run("assemble", "--agent", "Simon", "--snapshot", "1",
               "--scenario", SCENARIO).stdout == draft


def test_export_published_writes_the_snapshot_byte_for_byte(run, simon_db, tmp_path):
    run("publish", "--agent", "Simon")
    edit_chat(simon_db, "system:\nLater.\n")
    result = run("export", "--agent", "Simon", "--published")
    assert result.exit_code == 0
    with db.session_scope(simon_db) as session:
        snapshot = store.get_snapshot(session, "Simon", 1)
    assert result.stdout == snapshot.bundle
    assert hashlib.sha256(result.stdout.encode()).hexdigest() == snapshot.digest
    assert "Later." not in result.stdout and "Later." in run("export", "--agent", "Simon").stdout
    out = tmp_path / "published.json"
    assert run("export", "--agent", "Simon", "--snapshot", "1", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8") == snapshot.bundle
    missing = run("export", "--agent", "Simon", "--snapshot", "2")
    assert missing.exit_code != 0 and "no snapshot #2" in missing.stderr


def test_published_without_a_snapshot_or_an_agent_is_a_clear_error(run):
    never = run("assemble", "--agent", "Simon", "--published")
    assert never.exit_code == 1
    assert "no snapshot labelled 'production' of agent 'Simon'" in never.stderr
    bundle = CliRunner().invoke(main, ["assemble", "--bundle", "x.json", "--published"])
    assert bundle.exit_code == 1 and "need --agent" in bundle.stderr
    assert run("export", "--agent", "Simon", "--published").exit_code != 0


def test_assemble_log_records_the_source(run, simon_db):
    assert run("assemble", "--agent", "Simon", "--log").exit_code == 0
    run("publish", "--agent", "Simon")
    logged = run("assemble", "--agent", "Simon", "--published", "--log")
    assert logged.exit_code == 0 and "(published 1)" in logged.stderr
    with db.session_scope(simon_db) as session:
        assert [e.source for e in store.list_log(session, "Simon")] == ["published 1", "draft"]
    refused = CliRunner().invoke(main, ["assemble", "--bundle", "x.json", "--log"])
    assert refused.exit_code == 1 and "--log needs --agent" in refused.stderr
