"""Publishing is gated by the context tests, in the store, the browser's Changes page and
the CLI: refused while a test fails, naming it; an admin may publish anyway with a note,
kept on the snapshot and in the activity list; each snapshot keeps its results."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.support.pages import TOKEN, sign_in
from webapp import store
from webapp.cli import main
from webapp.schema import db

SCENARIO = "admin asks about mentions"
FAILING = {"contains": "a promise the context does not keep", "name": "keeps its promise"}


def break_a_test(app, agent: str = "Simon") -> None:
    with app.app_context():
        store.update_scenario(db.get_session(), agent, SCENARIO, expect=[FAILING])


def test_the_store_refuses_then_lets_an_admin_override(app, simon):
    break_a_test(app)
    with app.app_context():
        session = db.get_session()
        with pytest.raises(store.TestsFailing) as refused:
            store.publish(session, simon, "try", 0)
        assert refused.value.failures[0]["name"] == "keeps its promise"
        assert "keeps its promise: document does not contain" in str(refused.value)
        with pytest.raises(store.ValidationError, match="say why"):
            store.publish(session, simon, "try", 0, override="  ")
        snapshot = store.publish(session, simon, "ship it", 0, override="the copy is late")
        assert snapshot.tests["failed"] == 1 and snapshot.tests["passed"] >= 3
        assert snapshot.tests["override"] == {"by": "local", "note": "the copy is late"}
        kinds = [row.kind for row in store.list_activity(session, agent=simon)]
        assert "publish.override" in kinds


def test_a_passing_publish_keeps_its_results(app, simon):
    with app.app_context():
        snapshot = store.publish(db.get_session(), simon, "", 0)
        assert snapshot.tests["failed"] == 0 and "override" not in snapshot.tests


def test_the_changes_page_refuses_and_offers_the_admin_an_override(app, client, team, simon):
    break_a_test(app)
    sign_in(client, "admin", TOKEN)
    page = client.get(f"/agents/{simon}/changes").text
    assert "Context tests" in page and "keeps its promise" in page and "1 failed" in page
    url = f"/agents/{simon}/changes/publish"
    refused = client.post(url, data={"csrf_token": TOKEN, "expected_latest": "0",
                                     "note": "kept note"})
    assert refused.status_code == 422 and "keeps its promise" in refused.text
    assert "kept note" in refused.text and "Publish anyway" in refused.text
    published = client.post(url, data={"csrf_token": TOKEN, "expected_latest": "0",
                                       "note": "n", "override": "hotfix, tests next"})
    assert published.status_code == 303
    changes = client.get(f"/agents/{simon}/changes").text
    assert "Published anyway by admin: hotfix, tests next" in changes
    assert "published with failing context tests" in client.get(
        f"/agents/{simon}/activity").text


def test_a_reviewer_cannot_override(app, client, team, simon):
    break_a_test(app)
    sign_in(client, "reviewer", TOKEN)
    url = f"/agents/{simon}/changes/publish"
    refused = client.post(url, data={"csrf_token": TOKEN, "expected_latest": "0"})
    assert refused.status_code == 422 and "Publish anyway" not in refused.text
    forced = client.post(url, data={"csrf_token": TOKEN, "expected_latest": "0",
                                    "override": "please"})
    assert forced.status_code == 422 and "needs the admin role" in forced.text
    with app.app_context():
        assert store.latest_snapshot(db.get_session(), simon) is None


def test_the_cli_refuses_naming_the_failure_and_takes_an_admins_override(app, simon,
                                                                          database_url, team):
    break_a_test(app)
    args = ["publish", "--agent", simon, "--database-url", database_url]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 1 and "keeps its promise" in refused.stderr
    reviewer = CliRunner().invoke(main, ["--as", "reviewer", *args, "--override", "x"])
    assert reviewer.exit_code == 1 and "needs the admin role" in reviewer.stderr
    admin = CliRunner().invoke(main, ["--as", "admin", *args, "--override", "late copy"])
    assert admin.exit_code == 0, admin.stderr
    with app.app_context():
        snapshot = store.latest_snapshot(db.get_session(), simon)
        assert snapshot.tests["override"] == {"by": "admin", "note": "late copy"}


def test_the_cli_publishes_as_the_role_model_says(app, simon, database_url, team):
    args = ["publish", "--agent", simon, "--database-url", database_url, "--label", "staging"]
    author = CliRunner().invoke(main, ["--as", "author", *args])
    assert author.exit_code == 1 and "publishing needs the reviewer role" in author.stderr
    reviewer = CliRunner().invoke(main, ["--as", "reviewer", *args])
    assert reviewer.exit_code == 0, reviewer.stderr
    owner = CliRunner().invoke(main, args[:-2] + ["--label", "canary", "--note", "x"])
    assert "acting as this machine's owner" in owner.stderr
    with app.app_context():
        assert store.latest_snapshot(db.get_session(), simon).published_by == "reviewer"
