"""The public pipeline API beyond the golden fixtures: purity, Simon, provenance, trace, log,
bundles."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.pipeline import (
    BundleError,
    Scenario,
    assemble,
    dump_bundle,
    load_bundle,
    register_formatter,
    role_sections,
)
from webapp.pipeline.roles import marker_role

ROOT = Path(__file__).resolve().parents[2]
SIMON = ROOT / "webapp" / "demo" / "simon.json"
SIMON_DOCUMENT = Path(__file__).parent / "fixtures" / "simon_document.md"


def bundle(*skills: dict, **extra) -> dict:
    """A minimal valid bundle holding `skills` (triggered by `dm` unless they say otherwise)."""
    return {
        "format": "skill-workspace/1",
        "agent": {"name": "Agent", **extra.pop("agent", {})},
        "skills": [{"triggers": ["dm"], **s} for s in skills],
        "scenarios": extra.pop("scenarios", [{"name": "s", "trigger": "dm", "message": "hi"}]),
        **extra,
    }


def test_pipeline_imports_no_web_or_database_code():
    code = ("import sys, webapp.pipeline; print(sorted(m for m in "
            "('flask', 'sqlalchemy', 'werkzeug', 'jinja2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_simon_example_is_the_seed_document_byte_for_byte():
    context = assemble(load_bundle(SIMON))
    assert context.document == SIMON_DOCUMENT.read_text(encoding="utf-8")
    assert context.diagnostics == []
    assert [m["role"] for m in context.messages] == ["system", "user"]
    assert context.messages[1]["content"] == "Hey Simon, who mentioned me on Nostr today?"


def test_provenance_names_skill_lines_variables_title_and_separators():
    context = assemble(load_bundle(SIMON))
    lines = context.document.splitlines()
    labels = dict(zip(lines, (o.label for o in context.provenance), strict=True))
    assert labels["system:"] == "role"
    assert labels["# Simon — Didactyl Agent"] == "title"
    assert labels["You are Simon, a sovereign AI agent living on Nostr."] == "identity:1"
    assert labels["## Personality"] == "personality:4"
    assert labels["---"] == "separator"
    assert labels["Hey Simon, who mentioned me on Nostr today?"] == "tool:message"
    npub = next(o for line, o in zip(lines, context.provenance, strict=True)
                if line.startswith("- **npub**"))
    assert (npub.kind, npub.skill, npub.line) == ("skill", "identity", 3)


def test_trace_shows_each_stage_of_each_skill():
    context = assemble(load_bundle(SIMON))
    personality = next(t for t in context.trace if t.d_tag == "personality")
    names = [stage.name for stage in personality.stages]
    assert names == ["raw", "references expanded", "roles split", "variables resolved",
                     "headings bumped", "template sections added"]
    raw, expanded, split, resolved, bumped, _ = (stage.text for stage in personality.stages)
    assert "{{identity}}" in raw and "{{agent_profile}}" in expanded
    assert split.startswith("system:\n") and "{{agent_profile}}" in split
    assert "You are Simon" in resolved and "# Personality" in resolved
    assert "## Personality" in bumped


def test_log_entry_holds_the_document_verbatim_after_a_timestamped_header():
    context = assemble(load_bundle(SIMON))
    header, _, body = context.log_entry.partition("\n")
    assert body == context.document
    assert header.startswith("<!-- context-log: 20") and "trigger dm" in header


def test_assembly_is_deterministic_apart_from_the_log_timestamp():
    workspace = load_bundle(SIMON)
    first, second = assemble(workspace), assemble(workspace)
    assert (first.document, first.messages, first.provenance, first.diagnostics) == (
        second.document, second.messages, second.provenance, second.diagnostics)


def test_unknown_scenario_is_an_error_not_an_exception():
    context = assemble(load_bundle(SIMON), "nope")
    assert [d.code for d in context.diagnostics][:1] == ["unknown-scenario"]
    assert context.has_errors


def test_trigger_and_message_override_the_scenario():
    workspace = load_bundle(bundle({"d_tag": "cron", "triggers": ["cron"], "content": "Cron job."},
                                   {"d_tag": "dm", "content": "user:\n{{message}}"}))
    context = assemble(workspace, trigger="cron", message="tick")
    assert context.document == "system:\n# Agent\n\nCron job.\n\nuser:\ntick\n"
    adhoc = assemble(workspace, Scenario(name="adhoc", trigger="dm", message="typed"))
    assert adhoc.messages[-1] == {"role": "user", "content": "typed"}


def test_registered_formatter_can_be_named_by_a_binding():
    register_formatter("shout", lambda value, options: str(value).upper())
    workspace = load_bundle(bundle(
        {"d_tag": "s", "content": "{{loud}}"},
        tools=[{"name": "word", "result": {"success": True, "content": "hello"}}],
        variables=[{"name": "loud", "tool": "word", "format": "shout"}],
    ))
    assert "HELLO" in assemble(workspace).document


def test_marker_matching_is_linear_on_long_lines():
    assert marker_role("system:" + " " * 1_000_000) is None  # long lines are never markers
    assert marker_role("sYsTeM:   ") == "system"
    assert marker_role(" user:") is None


# -- bundles -------------------------------------------------------------------------------


def test_invalid_bundle_lists_every_problem_with_its_json_path():
    with pytest.raises(BundleError) as caught:
        load_bundle({
            "format": "skill-workspace/3",
            "agent": {"name": "A", "message_mode": "chaos"},
            "skills": [{"d_tag": "a b", "content": 3, "layer": 7}, {"content": ""}],
            "tools": [{"name": "dm_history"}],
            "variables": [{"name": "v"}],
            "scenarios": [{"trigger": "dm", "colour": "red"}],
        })
    paths = [p.path for p in caught.value.problems]
    assert paths == [
        "$.format", "$.agent.message_mode", "$.skills[0].d_tag", "$.skills[0].content",
        "$.skills[0].layer", "$.skills[1].d_tag", "$.tools[0].name", "$.variables[0].tool",
        "$.scenarios[0].colour", "$.scenarios[0].name",
    ]
    assert "$.tools[0].name: 'dm_history' is a built-in tool name" in str(caught.value)


def test_bundle_file_with_bad_json_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "format": "skill-workspace/1",\n  "agent": {,}\n}')
    with pytest.raises(BundleError, match=r"line 3, column 13"):
        load_bundle(path)


def test_missing_bundle_file_is_a_bundle_error(tmp_path):
    with pytest.raises(BundleError, match="cannot read"):
        load_bundle(tmp_path / "missing.json")


def test_defaults_are_documented_values_and_dump_round_trips():
    workspace = load_bundle(bundle({"d_tag": "s", "content": "x"}))
    skill, agent = workspace.skills[0], workspace.agent
    assert (skill.layer, skill.enabled, agent.title, agent.message_mode, agent.max_array_items) == (
        1, True, "{name}", "grouped", 8)
    dumped = dump_bundle(load_bundle(SIMON))
    assert dumped == json.loads(SIMON.read_text(encoding="utf-8"))
    assert dump_bundle(load_bundle(dumped)) == dumped


# -- properties ------------------------------------------------------------------------------

skill_text = st.lists(
    st.sampled_from(list("ab #=-`~:\n{}\\") + ["system:", "user:\n", "{{x}}", "{{s1}}", "{{s0}}",
                                                 "```\n", "---template---\n", "- section: q\n"]),
    max_size=60,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(skill_text, skill_text, st.sampled_from(["grouped", "sequence"]))
def test_assemble_never_raises_and_is_deterministic(first, second, mode):
    workspace = load_bundle(bundle(
        {"d_tag": "s0", "content": first},
        {"d_tag": "s1", "layer": 2, "content": second},
        agent={"message_mode": mode},
        tools=[{"name": "x", "result": {"success": True, "content": "system:\n# h"}}],
    ))
    one, two = assemble(workspace), assemble(workspace)
    assert one.document == two.document and one.diagnostics == two.diagnostics
    assert one.document.endswith("\n") and one.document.startswith("system:\n# Agent")
    assert len(one.provenance) == len(one.document.splitlines())
    assert all(m["content"].strip() for m in one.messages)


@pytest.mark.parametrize("text, sections", [
    ("system:\n# Chat\n\nHi.\nuser:\n{{message}}",
     [("system", "# Chat\n\nHi."), ("user", "{{message}}")]),
    ("Intro\nUSER:  \nq", [(None, "Intro"), ("user", "q")]),
    ("\n\nassistant:\nok", [("assistant", "ok")]),
    ("```\nuser:\n```\nuser: not alone", [(None, "```\nuser:\n```\nuser: not alone")]),
    ("", []),
])
def test_role_sections_cut_where_the_pipeline_reads_markers(text, sections):
    assert role_sections(text) == sections
