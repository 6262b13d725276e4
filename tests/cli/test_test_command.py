"""`skill-editor test`: a line per test and a summary, exit 0 / 1 / 2, JUnit XML read back
with a JUnit library, `--update-snapshots` in a bundle and in the database (with `--as`)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
import xmlschema
from click.testing import CliRunner
from junitparser import Failure, JUnitXml

import webapp
from webapp import store
from webapp.cli import main
from webapp.pipeline import load_bundle
from webapp.schema import db
from webapp.store import context_tests

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


JUNIT_10 = Path(__file__).resolve().parents[1] / "support" / "junit-10.xsd"


def test_junit_with_control_characters_is_valid_against_junit_10(tmp_path):
    """A control character in a scenario's or a test's name or in a diff (ESC, BEL, VT,
    NUL, FF) is written as its control picture: the file is well formed and valid against
    the Jenkins xunit-plugin's schema, and <testsuites> has no `skipped`."""
    data = json.loads(SIMON.read_text(encoding="utf-8"))
    data["scenarios"][0]["name"] = "esc \x1b scenario"
    data["scenarios"][0]["expect"] = [
        {"contains": "\x1b[31mred", "name": "bell \x07 name"},
        {"snapshot": "old \x00 entry \x0c", "name": "approved \x0b"}]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out.xml"
    assert run("test", "--bundle", str(path), "--junit", str(out)).exit_code == 1
    xmlschema.XMLSchema(str(JUNIT_10)).validate(str(out))
    root = ElementTree.parse(out).getroot()
    assert root.tag == "testsuites" and "skipped" not in root.attrib
    assert root.attrib["tests"] == "5" and root.attrib["failures"] == "2"
    [suite] = root
    assert suite.attrib["name"] == "esc \u241b scenario"
    cases = {case.attrib["name"]: case for case in suite}
    assert "bell \u2407 name" in cases and "approved \u240b" in cases
    failure = cases["approved \u240b"].find("failure")
    assert "old \u2400 entry \u240c" in failure.text
    assert "\\x1b[31mred" in cases["bell \u2407 name"].find("failure").attrib["message"]


@pytest.mark.parametrize(("text", "safe"), [
    ("plain ✓ text\ttab\nline\r", "plain ✓ text\ttab\nline\r"),
    ("\x00\x07\x08\x0b\x0c\x0e\x1b\x1f", "\u2400\u2407\u2408\u240b\u240c\u240e\u241b\u241f"),
    ("lone \ud800 surrogate, \ufffe and \uffff", "lone \ufffd surrogate, \ufffd and \ufffd"),
    ("\x7f and \x85 are XML", "\x7f and \x85 are XML"),
])
def test_xml_safe_replaces_what_xml_cannot_hold(text, safe):
    assert context_tests.xml_safe(text) == safe


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
