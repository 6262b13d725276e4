"""`resolvable_names`: every `{{name}}` a workspace resolves, as what it resolves to, with
its value for a scenario; and the names a diagnostic is about (the editor's marks and
quick fixes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pipeline import resolves_to
from webapp.pipeline import (
    FORMATTERS,
    Agent,
    Scenario,
    Skill,
    Tool,
    Variable,
    Workspace,
    assemble,
    load_bundle,
    resolvable_names,
    where_used,
)
from webapp.pipeline.names import SUMMARY_CHARS, VALUE_CHARS

SIMON = Path(__file__).resolve().parents[2] / "webapp" / "demo" / "simon.json"

WORKSPACE = Workspace(
    agent=Agent(name="A"),
    skills=(Skill(d_tag="main", content="system:\n\n# Main\nUses {{note}}.", triggers=("dm",)),
            Skill(d_tag="note", content="A skill called note wins.", name="The note", layer=2),
            Skill(d_tag="long", content="x" * 1000, layer=2)),
    tools=(Tool(name="lookup", description="Looks up.",
                result={"success": True, "content": "first\nsecond"}),
           Tool(name="note", description="Hidden by the skill.")),
    variables=(Variable(name="note", tool="lookup"),
               Variable(name="said", tool="message")),
    scenarios=(Scenario(name="one", message="Hello there\nsecond line"),
               Scenario(name="two", message="Other words")),
)


def by_name(scenario=None):
    return {n.name: n for n in resolvable_names(WORKSPACE, scenario).names}


def test_every_name_once_as_what_wins_in_resolution_order():
    names = resolvable_names(WORKSPACE).names
    assert [n.name for n in names] == [
        "main", "note", "long", "said", "message_current", "dm_history", "trigger_event",
        "tool_list", "message", "triggering_event", "lookup"]
    for n in names:  # the same verdict as "Where used"
        assert n.kind == resolves_to(where_used(WORKSPACE, n.name))
    note = by_name()["note"]
    assert (note.kind, note.hides, note.title) == ("skill", ("binding", "mock tool"), "The note")
    assert note.detail == "layer 2, enabled: The note"


def test_values_are_what_the_scenario_gives():
    assert by_name()["said"].value == "Hello there\nsecond line"
    assert by_name()["said"].summary == "Hello there"
    assert by_name("two")["message"].value == "Other words"
    assert by_name("no such scenario")["message"].value == "Hello there\nsecond line"
    assert by_name()["lookup"].summary == "first"
    assert by_name()["tool_list"].value.startswith("- **lookup**: Looks up.")
    # A skill's value is its text; its summary skips role markers and blank lines.
    assert by_name()["main"].summary == "# Main"


def test_long_values_are_cut():
    long = by_name()["long"]
    assert len(long.value) == VALUE_CHARS and long.value.endswith("…")
    assert len(long.summary) == SUMMARY_CHARS


def test_the_template_words():
    vocabulary = resolvable_names(WORKSPACE, "two")
    assert vocabulary.scenario == "two"
    assert vocabulary.section_keys[:3] == ("section", "role", "tool")
    assert vocabulary.section_roles == ("system", "user", "assistant", "expand")
    assert vocabulary.tools == ("message_current", "dm_history", "trigger_event", "tool_list",
                                "message", "triggering_event", "lookup", "note")
    assert vocabulary.formats == tuple(sorted(FORMATTERS))


def test_a_workspace_without_scenarios():
    empty = Workspace(agent=Agent(name="A"))
    vocabulary = resolvable_names(empty)
    assert vocabulary.scenario is None
    assert {n.name for n in vocabulary.names} == {
        "message_current", "dm_history", "trigger_event", "tool_list", "message",
        "triggering_event"}


def test_simon():
    names = {n.name: n for n in resolvable_names(load_bundle(SIMON)).names}
    assert names["agent_npub"].kind == "binding"
    assert names["agent_npub"].summary.startswith("`npub1")
    assert names["identity"].kind == "skill"


@pytest.mark.parametrize(("content", "name", "suggestions"), [
    ("{{agnt_npub}}", "agnt_npub", ("agent_npub",)),
    ("{{zzzzzz}}", "zzzzzz", ()),
])
def test_an_unknown_variable_names_itself_and_its_suggestions(content, name, suggestions):
    workspace = load_bundle(SIMON)
    skills = tuple(Skill(d_tag=s.d_tag, content=s.content + "\n" + content, name=s.name,
                         triggers=s.triggers, layer=s.layer)
                   if s.d_tag == "chat" else s for s in workspace.skills)
    context = assemble(Workspace(workspace.agent, skills, workspace.tools, workspace.variables,
                                 workspace.scenarios))
    [unknown] = [d for d in context.diagnostics if d.code == "unknown-variable"]
    assert (unknown.skill, unknown.name, unknown.suggestions) == ("chat", name, suggestions)
    assert "name" not in unknown.to_dict()  # the log entry's shape is unchanged


def test_a_reference_problem_names_the_reference():
    workspace = Workspace(agent=Agent(name="A"), skills=(
        Skill(d_tag="a", content="{{b}}", triggers=("dm",)),
        Skill(d_tag="b", content="{{a}}", layer=2)))
    [cycle] = assemble(workspace).diagnostics
    assert (cycle.code, cycle.name) == ("reference-cycle", "a")
