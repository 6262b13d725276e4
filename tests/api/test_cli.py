"""`skill-editor api-key create|list|revoke`, and `publish --label`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from webapp import store
from webapp.cli import main
from webapp.schema import db
from webapp.store import api_keys


@pytest.fixture
def run(database_url):
    """Invoke the CLI on a database holding agents `demo` and `other`."""
    with db.session_scope(database_url) as session:
        for name in ("demo", "other"):
            store.create_agent(session, name)
            store.create_skill(session, name, "chat", triggers=["dm"], content="Hi.\n")
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [*args, "--database-url", database_url],
                                       catch_exceptions=False)


def test_create_prints_the_token_once_alone_on_its_last_line(run, database_url):
    made = run("api-key", "create", "--agent", "demo", "--scope", "read", "--scope",
               "assemble", "--name", "runtime")
    assert made.exit_code == 0, made.stderr
    token = made.stdout.splitlines()[-1]
    assert made.stdout == token + "\n" and token.startswith("se_")
    with db.session_scope(database_url) as session:
        key = api_keys.authenticate(session, token, "127.0.0.1", "demo")
        assert key.scopes == ("read", "assemble")
        assert key.agent_id == store.get_agent(session, "demo").id
    listed = run("api-key", "list")
    assert "runtime" in listed.stdout and "demo" in listed.stdout and token not in listed.stdout


def test_revoke_refuses_the_key_at_once(run, database_url):
    token = run("api-key", "create", "--scope", "read").stdout.splitlines()[-1]
    assert run("api-key", "revoke", "1").exit_code == 0
    with db.session_scope(database_url) as session, pytest.raises(api_keys.BadKey):
        api_keys.authenticate(session, token, "127.0.0.1")
    assert run("api-key", "revoke", "9").exit_code == 1


@pytest.mark.parametrize("args", [["--scope", "admin"], [], ["--agent", "nobody", "--scope",
                                                             "read"]])
def test_a_refused_key_is_an_error_and_no_token(run, args):
    result = run("api-key", "create", *args)
    assert result.exit_code != 0 and result.stdout == ""


def test_publish_moves_the_label_it_names(run, database_url):
    assert run("publish", "--agent", "demo").exit_code == 0
    assert run("publish", "--agent", "other", "--label", "staging").exit_code == 0
    with db.session_scope(database_url) as session:
        assert store.resolve(session, "demo", "production").number == 1
        assert store.resolve(session, "other", "staging").number == 1
        with pytest.raises(store.NotFound):
            store.resolve(session, "other", "production")


def test_label_moves_a_label_back_without_a_new_number(run, database_url):
    run("publish", "--agent", "demo")
    with db.session_scope(database_url) as session:
        store.create_skill(session, "demo", "more", triggers=["dm"], content="More.\n")
    run("publish", "--agent", "demo")
    assert run("label", "--agent", "demo", "production", "1").exit_code == 0
    with db.session_scope(database_url) as session:
        assert store.resolve(session, "demo", "production").number == 1
        assert store.latest_snapshot(session, "demo").number == 2
    assert run("label", "--agent", "demo", "production", "9").exit_code == 1
    assert run("label", "--agent", "demo", "Not A Label", "1").exit_code == 1
