"""`skill-editor test`: a line per test and a summary, exit 0 / 1 / 2, JUnit XML read back
with a JUnit library, `--update-snapshots` in a bundle and in the database (with `--as`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from junitparser import Failure, JUnitXml

import webapp
from webapp import db, store
from webapp.cli import main
from webapp.pipeline import load_bundle

SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"
SCENARIO = "admin asks about mentions"


@pytest.fixture
def bundle(tmp_path) -> Path:
    """Simon's bundle with three tests on its first scenario: one passes, a snapshot fails."""
    data = json.loads(SIMON.read_text(encoding="utf-8"))
    data["scenarios"][0]["expect"] = [
        {"contains": "Simon", "in": "system", "name": "names the agent"},
        {"snapshot": "an old entry", "name": "approved context"},
        {"messages": ["system", "user"]}]
    path = tmp_path / "simon.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_line_per_test_a_summary_and_exit_1_when_one_fails(bundle, tmp_path):
    result = run("test", "--bundle", str(bundle), "--junit", str(tmp_path / "out.xml"))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"PASS  {SCENARIO} › names the agent" in lines
    assert (f"FAIL  {SCENARIO} › approved context: the context-log entry is not the approved "
            "one") in lines
    assert lines[-1] == "5 passed, 1 failed"
    xml = JUnitXml.fromfile(str(tmp_path / "out.xml"))
    [suite] = list(xml)
    assert suite.name == SCENARIO and suite.tests == 6 and suite.failures == 1
    [failed] = [case for case in suite if case.result]
    assert failed.name == "approved context" and isinstance(failed.result[0], Failure)
    assert "expected:\nan old entry" in failed.result[0].text
    assert "actual:\n<!-- context-log:" in failed.result[0].text


def test_update_snapshots_approves_them_in_the_bundle(bundle):
    assert run("test", "--bundle", str(bundle), "--update-snapshots").exit_code == 0
    written = json.loads(bundle.read_text(encoding="utf-8"))["scenarios"][0]["expect"][1]
    assert written["snapshot"].startswith("<!-- context-log:")
    assert written["approved"]["by"] == "local"
    again = run("test", "--bundle", str(bundle))
    assert again.exit_code == 0 and again.stdout.splitlines()[-1] == "6 passed, 0 failed"


def test_an_agent_is_tested_and_approved_by_who_ran_it(bundle, database_url):
    with db.session_scope(database_url) as session:
        store.import_bundle(session, load_bundle(str(bundle)))
        store.accounts.create_user(session, store.NewUser("root", "admin", "x" * 12))
        store.accounts.create_user(session, store.NewUser("rita", "reviewer", "x" * 12))
    args = ("--database-url", database_url)
    assert run("test", "--agent", "Simon", *args).exit_code == 1
    approved = CliRunner().invoke(main, ["--as", "rita", "test", "--agent", "Simon",
                                         "--update-snapshots", *args])
    assert approved.exit_code == 0, approved.output
    with db.session_scope(database_url) as session:
        expect = store.get_scenario(session, "Simon", SCENARIO).expect
        assert expect[1]["approved"]["by"] == "rita"
    only = run("test", "--agent", "Simon", "--scenario", SCENARIO, *args)
    assert only.exit_code == 0


@pytest.mark.parametrize("args", [
    (), ("--agent", "Simon", "--bundle", "x.json"), ("--bundle", "missing.json"),
    ("--bundle", "{bundle}", "--scenario", "nope")])
def test_a_usage_error_exits_2(bundle, args):
    result = run("test", *[a.replace("{bundle}", str(bundle)) for a in args])
    assert result.exit_code == 2, result.output


def test_a_bundle_with_a_bad_test_exits_2_naming_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "skill-workspace/1", "agent": {"name": "A"}, "scenarios": '
                   '[{"name": "s", "expect": [{"regex": "("}]}]}', encoding="utf-8")
    result = run("test", "--bundle", str(bad))
    assert result.exit_code == 2
    assert "expect[0].regex: is not a pattern RE2 accepts: missing )" in result.stderr


def test_an_agent_may_switch_the_built_in_tests_off(bundle):
    data = json.loads(bundle.read_text(encoding="utf-8"))
    data["agent"]["builtin_tests"] = False
    bundle.write_text(json.dumps(data), encoding="utf-8")
    result = run("test", "--bundle", str(bundle))
    assert result.stdout.splitlines()[-1] == "2 passed, 1 failed"
    assert "no error diagnostics" not in result.stdout
    assert load_bundle(str(bundle)).agent.builtin_tests is False
