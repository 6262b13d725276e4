"""After a rollback every path serves the label's snapshot: `production` moved back to #1
(with #2 the newest), the Changes page, the Tests tab, `assemble --published`, `export
--published`, `nostr export --published`, `nostr publish` and the runtime API all give
#1; `--label NAME` and `--snapshot N` choose others, and `store.resolve` is the one
answer they all read."""

from __future__ import annotations

import nostr_sdk
import pytest
from click.testing import CliRunner

from tests.support.relay import local_relay
from webapp import store
from webapp.cli import main
from webapp.pipeline import bundle_text, dump_bundle
from webapp.schema import db

KEYS = nostr_sdk.Keys.generate()
SCENARIO = "admin asks about mentions"


@pytest.fixture
def run(database_url, monkeypatch):
    """Invoke the CLI on the test database; returns click's Result."""
    monkeypatch.delenv("NOSTR_NSEC", raising=False)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [*args, "--database-url", database_url],
                                       catch_exceptions=False)


@pytest.fixture
def rolled_back(published, run, database_url) -> dict[int, str]:
    """Simon's `production` moved back to #1 (#2 is the newest, and labelled `staging`);
    returns each snapshot's bundle by number."""
    assert run("label", "--agent", "Simon", "production", "1").exit_code == 0
    assert run("label", "--agent", "Simon", "staging", "2").exit_code == 0
    with db.session_scope(database_url) as session:
        return {s.number: s.bundle for s in store.list_snapshots(session, "Simon")}


def test_the_store_answers_once_which_snapshot_a_label_gives(rolled_back, database_url):
    with db.session_scope(database_url) as session:
        assert store.resolve(session, "Simon").number == 1  # production by default
        assert store.labelled_snapshot(session, "Simon").bundle == rolled_back[1]
        assert store.labelled_snapshot(session, "Simon", "staging").number == 2
        assert store.labelled_snapshot(session, "Simon", "latest").number == 2
        assert store.labelled_or_none(session, "Other", "staging") is None
        given = store.published_workspace(session, "Simon")  # no number: production's
        assert bundle_text(dump_bundle(given)) == rolled_back[1]
        with pytest.raises(store.NotFound, match="no snapshot labelled 'nope' of agent"):
            store.labelled_snapshot(session, "Simon", "nope")
        with pytest.raises(store.NotFound):
            store.resolve(session, "Simon", "²")  # a digit int() refuses is no number


def test_the_changes_page_says_what_the_label_gives(client, rolled_back):
    page = client.get("/agents/Simon/changes").text
    assert "The agent is given snapshot" in page
    assert '<strong>#1</strong></a>,\n      the one labelled <code>production</code>' in page
    assert "The newest snapshot is" in page and "the changes below are since #2" in page


def test_the_changes_page_says_when_no_snapshot_is_labelled(client):
    with client.application.app_context():
        session = db.get_session()
        store.create_agent(session, "Third")
        store.create_skill(session, "Third", "chat", triggers=["dm"], content="Hi.\n")
        store.publish(session, "Third", "", 0, label="staging")
    page = client.get("/agents/Third/changes").text
    assert "No snapshot is labelled <code>production</code>" in page
    assert "The newest snapshot is" in page


def test_the_tests_tab_tests_what_production_gives(client, rolled_back):
    page = client.get("/agents/Simon/preview").text
    assert "Production #1:" in page[page.index('id="panel-tests"'):]


def test_assemble_published_reads_the_label(run, rolled_back):
    def assembled(*args: str) -> str:
        result = run("assemble", "--agent", "Simon", *args, "--scenario", SCENARIO)
        assert result.exit_code == 0, result.stderr
        return result.stdout

    first, second = assembled("--snapshot", "1"), assembled("--snapshot", "2")
    assert first != second
    assert assembled("--published") == first
    assert assembled("--label", "production") == first
    assert assembled("--label", "staging") == second
    logged = run("assemble", "--agent", "Simon", "--published", "--log")
    assert "(published 1)" in logged.stderr
    both = run("assemble", "--agent", "Simon", "--label", "staging", "--snapshot", "1")
    assert both.exit_code == 2 and "not both" in both.stderr
    missing = run("assemble", "--agent", "Simon", "--label", "nope")
    assert missing.exit_code == 1 and "no snapshot labelled 'nope'" in missing.stderr


def test_export_published_reads_the_label(run, rolled_back):
    assert run("export", "--agent", "Simon", "--published").stdout == rolled_back[1]
    assert run("export", "--agent", "Simon", "--label", "staging").stdout == rolled_back[2]
    assert run("export", "--agent", "Simon", "--snapshot", "2").stdout == rolled_back[2]
    missing = run("export", "--agent", "Simon", "--label", "nope")
    assert missing.exit_code == 1 and "no snapshot labelled 'nope'" in missing.stderr


def test_nostr_export_and_publish_read_the_label(run, rolled_back, database_url, tmp_path):
    nsec = tmp_path / "agent.nsec"
    nsec.write_text(KEYS.secret_key().to_bech32(), encoding="utf-8")
    npub = KEYS.public_key().to_bech32()
    with local_relay() as url:
        assert run("nostr", "key", "--agent", "Simon", "--npub", npub, "--relay",
                   url).exit_code == 0
        for args, number in ((["--published"], 1), (["--label", "staging"], 2),
                             (["--snapshot", "2"], 2)):
            result = run("nostr", "export", "--agent", "Simon", *args, "--nsec-file", str(nsec))
            assert result.exit_code == 0 and f"events of snapshot {number}" in result.stderr
        draft = run("nostr", "export", "--agent", "Simon", "--nsec-file", str(nsec))
        assert "events of the draft" in draft.stderr
        sent = run("nostr", "publish", "--agent", "Simon", "--nsec-file", str(nsec))
        assert sent.exit_code == 0, sent.stderr
        again = run("nostr", "publish", "--agent", "Simon", "--label", "staging",
                    "--nsec-file", str(nsec))
        assert again.exit_code == 0, again.stderr
    with db.session_scope(database_url) as session:
        rows = store.list_activity(session, kind="nostr.publish", limit=2)
        assert [row.subject for row in rows] == ["snapshot 2", "snapshot 1"]


def test_the_nostr_page_offers_what_production_gives(client, rolled_back):
    with client.application.app_context():
        store.nostr.set_nostr(db.get_session(), "Simon", store.nostr.NostrSettings(
            KEYS.public_key().to_hex()))
    page = client.get("/agents/Simon/nostr").text
    assert '<option value="1" selected>#1 (production)' in page
    assert client.get("/agents/Simon/nostr/events").get_json()["source"] == "snapshot 1"
    assert client.get("/agents/Simon/nostr/events?snapshot=staging").get_json()[
        "source"] == "snapshot 2"


def test_the_api_serves_the_label(client, rolled_back, token):
    headers = token("read", "assemble")
    served = client.get("/api/v1/agents/Simon/snapshots/production", headers=headers)
    assert served.headers["X-Snapshot-Number"] == "1" and served.text == rolled_back[1]
    turn = client.post("/api/v1/agents/Simon/assemble", headers=headers, json={})
    assert turn.get_json()["snapshot"] == 1
