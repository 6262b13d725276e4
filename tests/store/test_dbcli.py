"""The database commands: `db upgrade`, `import`, `export`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from webapp import store
from webapp.cli import main
from webapp.cli.database import db_group, export_cmd, import_cmd
from webapp.schema import db


@pytest.fixture
def runner(monkeypatch, database_url) -> CliRunner:
    """A CLI runner whose commands use the test database through $DATABASE_URL."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


@pytest.fixture
def bundle_file(tmp_path, full_bundle):
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(full_bundle), encoding="utf-8")
    return path


def test_db_upgrade(runner, database_url):
    result = runner.invoke(db_group, ["upgrade"])
    assert result.exit_code == 0, result.output
    assert db.current_revision(database_url) is not None


def test_import_then_export_round_trips(runner, bundle_file, full_bundle, tmp_path):
    result = runner.invoke(import_cmd, [str(bundle_file)])
    assert result.exit_code == 0, result.output
    assert "imported 'Tester'" in result.output

    result = runner.invoke(export_cmd, [])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == full_bundle

    out = tmp_path / "out.json"
    result = runner.invoke(export_cmd, ["--agent", "Tester", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == full_bundle


def test_import_refuses_an_existing_agent_unless_replace(runner, bundle_file):
    assert runner.invoke(import_cmd, [str(bundle_file)]).exit_code == 0
    result = runner.invoke(import_cmd, [str(bundle_file)])
    assert result.exit_code == 1
    assert "already exists" in result.output
    assert runner.invoke(import_cmd, [str(bundle_file), "--replace"]).exit_code == 0
    assert runner.invoke(import_cmd, [str(bundle_file), "--agent-name", "Copy"]).exit_code == 0


def test_an_invalid_bundle_lists_every_problem_and_writes_nothing(runner, tmp_path, full_bundle,
                                                                  database_url):
    full_bundle["skills"][0]["d_tag"] = ""
    full_bundle["variables"][1]["limit"] = "ten"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(full_bundle), encoding="utf-8")

    result = runner.invoke(import_cmd, [str(path)])

    assert result.exit_code == 1
    assert "$.skills[0].d_tag: must not be empty" in result.stderr
    assert "$.variables[1].limit: must be an integer" in result.stderr
    with db.session_scope(database_url) as session:
        assert store.list_agents(session) == []


def test_import_reports_bad_json_and_reads_stdin(runner, tmp_path, full_bundle):
    path = tmp_path / "broken.json"
    path.write_text("{\n  \"format\": ", encoding="utf-8")
    result = runner.invoke(import_cmd, [str(path)])
    assert result.exit_code == 1 and "invalid JSON at line 2" in result.stderr

    result = runner.invoke(import_cmd, ["-"], input=json.dumps(full_bundle))
    assert result.exit_code == 0, result.output
    assert runner.invoke(import_cmd, ["-"], input="[]").exit_code == 1


def test_export_needs_an_agent_name_when_there_are_several(runner, bundle_file):
    result = runner.invoke(export_cmd, [])
    assert result.exit_code == 2 and "agents: none" in result.output
    runner.invoke(import_cmd, [str(bundle_file)])
    runner.invoke(import_cmd, [str(bundle_file), "--agent-name", "Other"])
    result = runner.invoke(export_cmd, [])
    assert result.exit_code == 2 and "Other, Tester" in result.output
    result = runner.invoke(export_cmd, ["--agent", "Nobody"])
    assert result.exit_code == 1 and "no agent 'Nobody'" in result.output


def test_database_url_option_wins_over_the_environment(runner, tmp_path, bundle_file):
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    result = runner.invoke(import_cmd, [str(bundle_file), "--database-url", other])
    assert result.exit_code == 0, result.output
    with db.session_scope(other) as session:
        assert [a.name for a in store.list_agents(session)] == ["Tester"]


@pytest.mark.parametrize("by_environment", [True, False])
def test_a_new_database_says_which_setting_chose_it(tmp_path, monkeypatch, bundle_file,
                                                    by_environment):
    """Not "DATABASE_URL chooses another" when DATABASE_URL (or the option) chose it."""
    database = tmp_path / "chosen.sqlite"
    if by_environment:
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{database}")
        args, said = [], "(set by DATABASE_URL)"
    else:
        monkeypatch.delenv("DATABASE_URL", raising=False)
        args = ["--database-url", f"sqlite:///{database}"]
        said = "(set by --database-url or the app's DATABASE_URL setting)"
    result = CliRunner().invoke(main, ["import", str(bundle_file), *args])
    assert result.exit_code == 0, result.output
    assert f"creating a new database: {database} {said}" in result.output


def test_the_default_database_is_one_file_whatever_the_current_folder(tmp_path, monkeypatch,
                                                                      bundle_file):
    """Run from two folders, the commands use the one file in the user's data folder (not
    an `instance/` under each), and the one that creates it says so."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    database = tmp_path / "data" / "skill-editor" / "skill-editor.sqlite"
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "one")
    result = CliRunner().invoke(main, ["import", str(bundle_file)])
    assert result.exit_code == 0, result.output
    assert (f"skill-editor: creating a new database: {database} (the default, shared by every "
            "checkout of this user; DATABASE_URL or --database-url chooses another)"
            ) in result.output
    monkeypatch.chdir(tmp_path / "two")
    result = CliRunner().invoke(main, ["export", "--agent", "Tester"])
    assert result.exit_code == 0, result.output
    assert "creating" not in result.output  # the agent imported from the other folder
    assert database.exists()
    assert not (tmp_path / "one" / "instance").exists()
    assert not (tmp_path / "two" / "instance").exists()
