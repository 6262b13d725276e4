"""The `skill-editor` pipeline commands: json2md, assemble and check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp.cli import main

ROOT = Path(__file__).resolve().parents[2]
SIMON = str(ROOT / "webapp" / "demo" / "simon.json")
SIMON_DOCUMENT = (ROOT / "tests" / "pipeline" / "fixtures" / "simon_document.md").read_text(
    encoding="utf-8")


@pytest.fixture
def run():
    """Invoke the CLI in-process; returns click's Result (stdout and stderr kept apart)."""
    runner = CliRunner()
    return lambda *args, input=None: runner.invoke(main, list(args), input=input,
                                                   catch_exceptions=False)


@pytest.fixture
def broken_bundle(tmp_path) -> str:
    """A bundle whose skills reference each other in a cycle (an error diagnostic)."""
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({
        "format": "skill-workspace/1", "agent": {"name": "A"},
        "skills": [{"d_tag": "a", "triggers": ["dm"], "content": "{{b}}"},
                   {"d_tag": "b", "layer": 2, "content": "{{a}} {{typo}}"}],
        "scenarios": [{"name": "s", "trigger": "dm"}],
    }))
    return str(path)


def test_assemble_prints_the_seed_document_byte_for_byte(run):
    result = run("assemble", "--bundle", SIMON)
    assert result.exit_code == 0
    assert result.stdout == SIMON_DOCUMENT
    assert result.stderr == ""


def test_console_script_prints_the_seed_document():
    exe = shutil.which("skill-editor") or str(Path(sys.executable).parent / "skill-editor")
    out = subprocess.run([exe, "assemble", "--bundle", SIMON], capture_output=True, check=True)
    assert out.stdout.decode("utf-8") == SIMON_DOCUMENT


def test_assemble_formats(run):
    messages = json.loads(run("assemble", "--bundle", SIMON, "--format", "messages").stdout)
    assert [m["role"] for m in messages] == ["system", "user"]
    full = json.loads(run("assemble", "--bundle", SIMON, "--format", "json").stdout)
    assert set(full) == {"document", "messages", "diagnostics", "provenance"}
    assert full["document"] == SIMON_DOCUMENT
    assert len(full["provenance"]) == len(SIMON_DOCUMENT.splitlines())
    log = run("assemble", "--bundle", SIMON, "--format", "log").stdout
    assert log.startswith("<!-- context-log:") and log.endswith(SIMON_DOCUMENT)


def test_assemble_trigger_and_message_options(run):
    result = run("assemble", "--bundle", SIMON, "--message", "Ping?")
    assert result.stdout.endswith("user:\nPing?\n")
    result = run("assemble", "--bundle", SIMON, "--trigger", "nothing")
    assert result.exit_code == 0
    assert result.stdout == ("system:\n# Simon — Didactyl Agent\n\n"
                             "user:\nHey Simon, who mentioned me on Nostr today?\n")
    assert "no-skills" in result.stderr


def test_assemble_exits_1_on_error_diagnostics_and_reports_them_on_stderr(run, broken_bundle):
    result = run("assemble", "--bundle", broken_bundle)
    assert result.exit_code == 1
    assert "reference-cycle" in result.stderr and "unknown-variable" in result.stderr
    assert "did you mean" not in result.stdout


def test_assemble_warnings_alone_exit_0(run, tmp_path):
    path = tmp_path / "warn.json"
    path.write_text(json.dumps({"format": "skill-workspace/1", "agent": {"name": "A"},
                                "skills": [{"d_tag": "s", "triggers": ["dm"],
                                            "content": "{{agnt}}"}],
                                "variables": [{"name": "agent", "tool": "message"}]}))
    result = run("assemble", "--bundle", str(path))
    assert result.exit_code == 0
    assert "warning: s:1:" in result.stderr and "did you mean `agent`" in result.stderr


def test_invalid_bundle_lists_problems_and_exits_1(run, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "nope", "agent": {}, "skills": [{"d_tag": ""}]}))
    result = run("assemble", "--bundle", str(path))
    assert result.exit_code == 1
    for where in ("$.format", "$.agent.name", "$.skills[0].d_tag", "$.skills[0].content"):
        assert where in result.stderr
    bad_json = tmp_path / "bad2.json"
    bad_json.write_text("{\n  oops\n}")
    result = run("assemble", "--bundle", str(bad_json))
    assert result.exit_code == 1 and "line 2, column 3" in result.stderr


def test_assemble_needs_exactly_one_source(run):
    result = run("assemble")
    assert result.exit_code == 1 and "either --bundle FILE or --agent NAME" in result.stderr


def test_check_lists_diagnostics_per_scenario_and_uncovered_trigger(run, broken_bundle, tmp_path):
    result = run("check", "--bundle", broken_bundle)
    assert result.exit_code == 1
    assert "scenario 's', trigger 'dm': 1 error, 1 warning, 0 infos" in result.stdout
    assert "reference-cycle" in result.stdout
    clean = run("check", "--bundle", SIMON)
    assert clean.exit_code == 0 and "0 errors, 0 warnings, 0 infos" in clean.stdout
    assert clean.stdout.splitlines()[-1] == "checked 1 run: 0 errors, 0 warnings, 0 infos"


def test_check_of_a_bundle_without_scenarios_still_assembles_it(run, tmp_path):
    path = tmp_path / "bare.json"
    path.write_text('{"format": "skill-workspace/1", "agent": {"name": "A"}, "skills": '
                    '[{"d_tag": "a", "content": "system:\\n{{>b}}\\n"}]}', encoding="utf-8")
    result = run("check", "--bundle", str(path))
    assert "(first scenario's inputs), trigger '': " in result.stdout
    assert result.stdout.splitlines()[-1].startswith("checked 1 run: ")


def test_json2md_from_file_and_stdin(run, tmp_path):
    path = tmp_path / "in.json"
    path.write_text('{"name":"Simon","tags":["a","b"],"price":1.50}')
    assert (run("json2md", str(path)).stdout
            == "- **name**: Simon\n- **tags**: a, b\n- **price**: 1.50\n")
    result = run("json2md", "--max-items", "2", input="[1,2,3,4]")
    assert result.stdout == "- 1\n- 2\n- *(... and 2 more items)*\n"
    refused = run("json2md", "-", input="not json")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert "error: <stdin> is not JSON: line 1, column 1" in refused.stderr
