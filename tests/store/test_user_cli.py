"""`skill-editor user …`, `--as` and `serve`'s refusal, on the database of `database_url`
(SQLite, or PostgreSQL in the suite's second pass)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp import store
from webapp.cli import main
from webapp.schema import db

ROOT = Path(__file__).resolve().parents[2]
SIMON = str(ROOT / "webapp" / "demo" / "simon.json")
PASSWORD = "correct horse battery"


@pytest.fixture
def cli(database_url):
    """Invoke the CLI on `database_url` with `input` on stdin; returns click's Result."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, before: tuple[str, ...] = ()):
        return runner.invoke(main, [*before, *args, "--database-url", database_url],
                             input=input, catch_exceptions=False)
    return invoke


@pytest.fixture
def admin(cli) -> str:
    """An admin account `root` made with `user add`."""
    result = cli("user", "add", "root", "--role", "admin", "--password-stdin",
                 input=PASSWORD + "\n")
    assert result.exit_code == 0, result.stderr
    return "root"


def users(database_url) -> dict[str, tuple[str, bool]]:
    with db.session_scope(database_url) as session:
        return {user.username: (user.role, user.disabled)
                for user in store.accounts.list_users(session)}


def signs_in(database_url, name: str, password: str) -> bool:
    with db.session_scope(database_url) as session:
        try:
            store.accounts.authenticate(session, name, password, "127.0.0.1")
        except store.SignInFailed:
            return False
        return True


def test_the_first_account_must_be_an_admin(cli, database_url):
    result = cli("user", "add", "ann", "--role", "author", "--password-stdin",
                 input=PASSWORD + "\n")
    assert result.exit_code == 1
    assert "error: role: the first account must be an admin" in result.stderr
    assert users(database_url) == {}


def test_add_reads_the_password_from_stdin_and_the_account_signs_in(cli, database_url, admin):
    result = cli("user", "add", "Ann", "--role", "author", "--display-name", "Ann Author",
                 "--password-stdin", input="another good password\n")
    assert result.exit_code == 0, result.stderr
    assert "added 'ann' (author)" in result.stderr
    assert users(database_url) == {"root": ("admin", False), "ann": ("author", False)}
    assert signs_in(database_url, "ann", "another good password")
    assert not signs_in(database_url, "ann", "another good password\n")


def test_add_prompts_twice_without_password_stdin(cli, database_url):
    result = cli("user", "add", "root", "--role", "admin", input=f"{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0, result.stderr
    assert signs_in(database_url, "root", PASSWORD)


def test_add_refuses_a_prompted_password_typed_differently_twice(cli, database_url):
    result = cli("user", "add", "root", "--role", "admin",
                 input=f"{PASSWORD}\nsomething else entirely\n")
    # click asks again; with no more input it gives up: nothing is added.
    assert result.exit_code != 0
    assert users(database_url) == {}


@pytest.mark.parametrize(("name", "password", "problem"), [
    ("bad name", PASSWORD, "username: may hold only lowercase letters"),
    ("x" * 41, PASSWORD, "username: must be at most 40 characters"),
    ("ann", "short", "password: must be at least 12 characters"),
])
def test_add_names_every_problem_and_adds_nothing(cli, database_url, admin, name, password,
                                                  problem):
    result = cli("user", "add", name, "--role", "viewer", "--password-stdin",
                 input=password + "\n")
    assert result.exit_code == 1
    assert f"error: {problem}" in result.stderr
    assert set(users(database_url)) == {"root"}


def test_add_refuses_a_name_taken_whatever_its_case(cli, admin):
    result = cli("user", "add", "ROOT", "--role", "viewer", "--password-stdin",
                 input=PASSWORD + "\n")
    assert result.exit_code == 1
    assert "an account 'root' exists already" in result.stderr


def test_add_refuses_an_unknown_role(cli):
    result = cli("user", "add", "root", "--role", "owner", "--password-stdin",
                 input=PASSWORD + "\n")
    assert result.exit_code == 2
    assert "'owner' is not one of 'viewer', 'author', 'reviewer', 'admin'" in result.stderr


def test_list_says_when_there_are_no_accounts(cli):
    result = cli("user", "list")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no accounts" in result.stderr and "user add NAME --role admin" in result.stderr


def test_list_shows_each_account_with_role_and_state(cli, admin):
    cli("user", "add", "ann", "--role", "viewer", "--password-stdin", input=PASSWORD + "\n")
    cli("user", "disable", "ann")
    lines = cli("user", "list").stdout.splitlines()
    assert lines[0].split() == ["USERNAME", "ROLE", "STATE", "DISPLAY", "NAME", "CREATED",
                                "LAST", "SIGN-IN"]
    assert [line.split()[:3] for line in lines[1:]] == [["ann", "viewer", "disabled"],
                                                        ["root", "admin", "enabled"]]


def test_set_role_changes_the_role(cli, database_url, admin):
    cli("user", "add", "ann", "--role", "viewer", "--password-stdin", input=PASSWORD + "\n")
    result = cli("user", "set-role", "ann", "reviewer")
    assert result.exit_code == 0 and "'ann' is now reviewer" in result.stderr
    assert users(database_url)["ann"] == ("reviewer", False)


def test_the_last_admin_can_be_neither_demoted_nor_disabled(cli, database_url, admin):
    demoted = cli("user", "set-role", "root", "author")
    disabled = cli("user", "disable", "root")
    assert demoted.exit_code == disabled.exit_code == 1
    assert "last enabled admin" in demoted.stderr and "last enabled admin" in disabled.stderr
    assert users(database_url) == {"root": ("admin", False)}


def test_passwd_sets_a_new_password(cli, database_url, admin):
    result = cli("user", "passwd", "root", "--password-stdin", input="a brand new password\n")
    assert result.exit_code == 0, result.stderr
    assert signs_in(database_url, "root", "a brand new password")
    assert not signs_in(database_url, "root", PASSWORD)


def test_passwd_refuses_a_short_password_and_keeps_the_old_one(cli, database_url, admin):
    result = cli("user", "passwd", "root", "--password-stdin", input="short\n")
    assert result.exit_code == 1
    assert "error: password: must be at least 12 characters" in result.stderr
    assert signs_in(database_url, "root", PASSWORD)


def test_disable_stops_sign_ins_and_enable_allows_them_again(cli, database_url, admin):
    cli("user", "add", "ann", "--role", "author", "--password-stdin", input=PASSWORD + "\n")
    assert cli("user", "disable", "ann").exit_code == 0
    assert not signs_in(database_url, "ann", PASSWORD)
    assert cli("user", "enable", "ann").exit_code == 0
    assert signs_in(database_url, "ann", PASSWORD)


@pytest.mark.parametrize("command", [("set-role", "nobody", "viewer"), ("disable", "nobody"),
                                     ("enable", "nobody")])
def test_an_unknown_account_is_an_error(cli, admin, command):
    result = cli("user", *command)
    assert result.exit_code == 1
    assert "no account 'nobody'" in result.stderr


def test_as_records_the_account_as_the_author_of_an_import(cli, database_url, admin):
    result = cli("import", SIMON, before=("--as", "root"))
    assert result.exit_code == 0, result.stderr
    with db.session_scope(database_url) as session:
        rows = store.list_activity(session, agent="Simon")
        assert [(row.actor, row.kind) for row in rows] == [("root", "import")]


def test_without_as_a_change_is_local(cli, database_url, admin):
    assert cli("import", SIMON).exit_code == 0
    with db.session_scope(database_url) as session:
        assert [row.actor for row in store.list_activity(session, agent="Simon")] == [None]


def test_as_names_the_author_of_a_publish(cli, database_url, admin):
    cli("import", SIMON)
    result = cli("publish", "--agent", "Simon", "--note", "first", before=("--as", "root"))
    assert result.exit_code == 0, result.stderr
    with db.session_scope(database_url) as session:
        assert store.latest_snapshot(session, "Simon").published_by == "root"


@pytest.mark.parametrize(("name", "message"), [("nobody", "--as: no account 'nobody'"),
                                               ("ann", "--as: the account 'ann' is disabled")])
def test_as_refuses_an_unknown_or_disabled_account_and_changes_nothing(
        cli, database_url, admin, name, message):
    cli("user", "add", "ann", "--role", "author", "--password-stdin", input=PASSWORD + "\n")
    cli("user", "disable", "ann")
    result = cli("import", SIMON, before=("--as", name))
    assert result.exit_code == 1
    assert message in result.stderr
    with db.session_scope(database_url) as session:
        assert store.list_agents(session) == []


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::", "example.org"])
def test_serve_refuses_an_address_other_than_loopback_while_no_account_exists(
        database_url, monkeypatch, host):
    served = []
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr("werkzeug.serving.run_simple", lambda *args, **kw: served.append(args))
    result = CliRunner().invoke(main, ["serve", "--host", host])
    assert result.exit_code == 1
    assert f"not serving on {host}: no account exists yet" in result.stderr
    assert "skill-editor user add NAME --role admin" in result.stderr
    assert served == []


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_serve_serves_loopback_without_accounts(database_url, monkeypatch, host):
    served = []
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr("werkzeug.serving.run_simple", lambda *args, **kw: served.append(args))
    result = CliRunner().invoke(main, ["serve", "--host", host, "--port", "5123"])
    assert result.exit_code == 0, result.stderr
    assert [args[:2] for args in served] == [(host, 5123)]


def test_serve_serves_every_address_once_an_account_exists(cli, database_url, monkeypatch,
                                                           admin):
    served = []
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr("werkzeug.serving.run_simple", lambda *args, **kw: served.append(args))
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 0, result.stderr
    assert [args[0] for args in served] == ["0.0.0.0"]


def test_as_lasts_only_as_long_as_its_command(cli, admin):
    assert cli("import", SIMON, before=("--as", "root")).exit_code == 0
    assert store.current_actor() is None


def test_local_is_not_a_username(cli, admin):
    result = cli("user", "add", "local", "--role", "viewer", "--password-stdin",
                 input=PASSWORD + "\n")
    assert result.exit_code == 1
    assert "error: username: 'local' is kept for the changes made without an account" in (
        result.stderr)


def test_as_names_the_author_of_a_logged_assemble(cli, database_url, admin):
    cli("import", SIMON)
    result = cli("assemble", "--agent", "Simon", "--log", before=("--as", "root"))
    assert result.exit_code == 0, result.stderr
    assert "logged as context-log entry #" in result.stderr
    with db.session_scope(database_url) as session:
        entries = store.list_log(session, "Simon")
        assert [entry.author for entry in entries] == ["root"]
