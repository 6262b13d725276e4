"""`where_used` (everywhere a name is used, and what it is), `unknown_names` (the names
some skills use that are nothing) and `find_skills` (the skill list's filter), on small
workspaces built here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import webapp
from tests.support.pipeline import resolves_to
from webapp.pipeline import (
    Agent,
    BindingUse,
    LineUse,
    SectionUse,
    Skill,
    Tool,
    Variable,
    Workspace,
    find_skills,
    load_bundle,
    unknown_names,
    unknown_variables,
    value_names,
    where_used,
)
from webapp.pipeline.usage import LINE_CHARS, MAX_LINES_SHOWN

MAIN = """\
Body uses {{notes}}.
\\{{notes}} is escaped, so not a use.
{{ notes }} spaced, and {{notes}} twice: one line.
---template---
- section: recap
  role: user
  content: |
    Recap of {{notes}}
  # a comment in a section that uses it: {{notes}}
- section: fetched
  tool: notes_tool
  args: {"about": "{{notes}}"}
- section: history
  tool: message
- section: broken
  content: "{{notes}}"
  unknown_key: 1
"""

WORKSPACE = Workspace(
    agent=Agent(name="A"),
    skills=(Skill(d_tag="main", content=MAIN, triggers=("dm",)),
            Skill(d_tag="other", content="Nothing here.\n{{main}} embeds main.\n", layer=2),
            Skill(d_tag="user", content="Ask about {{notes_binding}}.", name="User of it",
                  enabled=False)),
    tools=(Tool(name="notes_tool", description="The notes."),),
    variables=(Variable(name="notes", tool="notes_tool"),
               Variable(name="notes_binding", tool="notes_tool"),
               Variable(name="incoming", tool="message_current"),
               Variable(name="main", tool="notes_tool")),
)


def test_a_binding_used_in_text_and_template_content_with_line_numbers():
    found = where_used(WORKSPACE, "notes")
    assert resolves_to(found) == "binding"
    assert [(m.kind, m.detail) for m in found.meanings] == [
        ("binding", "calls the tool notes_tool")]
    (use,) = found.skills
    assert use.skill == "main" and use.count == 4
    assert use.lines == (
        LineUse(1, "Body uses {{notes}}."),
        LineUse(3, "{{ notes }} spaced, and {{notes}} twice: one line."),
        LineUse(8, "Recap of {{notes}}", "recap"),
        # Inside the section that fills it in, the comment is not told apart (see the docs).
        LineUse(9, "# a comment in a section that uses it: {{notes}}", "recap"),
    )  # not the escaped line 2, the `args` of `fetched` or the dropped `broken` item
    assert found.sections == () and found.bindings == () and found.suggestions == ()


def test_a_mock_tool_is_called_by_sections_and_bindings_and_reaches_skills_through_them():
    found = where_used(WORKSPACE, "notes_tool")
    assert resolves_to(found) == "mock tool"
    assert found.meanings[0].detail == "The notes."
    assert found.skills == ()
    assert found.sections == (SectionUse("main", 10, "fetched", "notes_tool"),)
    assert found.bindings == (
        BindingUse("notes", "notes_tool", ("main",)),
        BindingUse("notes_binding", "notes_tool", ("user",)),
        # A skill of the same d_tag wins over the binding `main`: no skill reaches it.
        BindingUse("main", "notes_tool", ()),
    )


@pytest.mark.parametrize("name, kinds, detail", [
    ("main", ["skill", "binding"], "layer 1, enabled"),
    ("user", ["skill"], "layer 1, disabled: User of it"),
    ("other", ["skill"], "layer 2, enabled"),
    ("dm_history", ["built-in"], "The scenario's direct-message history."),
    ("message", ["built-in"], "another name for message_current: The incoming message, verbatim."),
    ("incoming", ["binding"], "calls the tool message_current"),
    ("notes_tool", ["mock tool"], "The notes."),
    ("nothing", [], None),
])
def test_what_a_name_is_in_the_order_assembly_tries(name, kinds, detail):
    found = where_used(WORKSPACE, name)
    assert [m.kind for m in found.meanings] == kinds
    assert resolves_to(found) == (kinds[0] if kinds else "unknown")
    if detail is not None:
        assert found.meanings[0].detail == detail


def test_a_skill_reference_is_a_text_use():
    found = where_used(WORKSPACE, "main")
    assert [(u.skill, u.lines) for u in found.skills] == [
        ("other", (LineUse(2, "{{main}} embeds main."),))]


def test_an_alias_matches_tools_but_not_text():
    # `tool: message` in a section and a binding calling `message_current` are the same tool.
    found = where_used(WORKSPACE, "message_current")
    assert found.sections == (SectionUse("main", 13, "history", "message"),)
    assert found.bindings == (BindingUse("incoming", "message_current", ()),)
    assert where_used(WORKSPACE, "message").bindings == found.bindings


def test_an_unknown_name_gets_suggestions():
    found = where_used(WORKSPACE, "note")
    assert resolves_to(found) == "unknown"
    assert found.suggestions[0] == "notes"


def test_many_lines_are_counted_and_the_first_are_listed_cut_short():
    long_line = "x" * 1000 + " {{n}}"
    skill = Skill(d_tag="gen", content="\n".join([long_line] * (MAX_LINES_SHOWN + 10)))
    (use,) = where_used(Workspace(agent=Agent(name="A"), skills=(skill,)), "n").skills
    assert use.count == MAX_LINES_SHOWN + 10 and len(use.lines) == MAX_LINES_SHOWN
    assert len(use.lines[0].text) == LINE_CHARS and use.lines[0].text.endswith("…")
    assert [line.line for line in use.lines[:3]] == [1, 2, 3]


@pytest.mark.parametrize("name", ["", "a b", "{{notes}}", "notes}}", "\x00", "\n", "é" * 10_000,
                                  "<script>alert(1)</script>", "../../etc/passwd"])
def test_any_text_is_a_name_that_is_simply_not_found(name):
    found = where_used(WORKSPACE, name)
    assert found.meanings == () and found.skills == () and found.sections == ()
    assert found.bindings == ()


def test_a_template_with_bad_yaml_has_no_uses_in_it():
    skill = Skill(d_tag="s", content="{{x}}\n---template---\n- section: a\n  content: '{{x}}\n")
    (use,) = where_used(Workspace(agent=Agent(name="A"), skills=(skill,)), "x").skills
    assert use.lines == (LineUse(1, "{{x}}"),)


SKILLS = (
    Skill(d_tag="Chat_Main", content="Respond helpfully.", name="Chat", triggers=("dm",)),
    Skill(d_tag="relay-check", content="Check the relays.", name="Relay check",
          triggers=("cron", "weekly report")),
    Skill(d_tag="strasse", content="Die Straße.", name=""),
)


def test_unknown_names_are_those_no_skill_binding_built_in_or_tool_has():
    skill = Skill(d_tag="new", content=(
        "{{notes}} {{main}} {{message}} {{notes_tool}} {{ nowhere }} \\{{escaped}}\n"
        "{{nowhere}} {{also_missing}}\n---template---\n- section: s\n  content: '{{in_tpl}}'\n"))
    assert unknown_names(WORKSPACE, [skill]) == ["also_missing", "in_tpl", "nowhere"]
    assert unknown_names(WORKSPACE, WORKSPACE.skills) == []
    assert unknown_names(WORKSPACE, []) == []


def test_value_names_are_unknown_names_and_mock_tools_written_directly():
    """What a runtime's turn may post in `variables`: not a skill, binding or built-in."""
    skill = Skill(d_tag="new", content="{{notes}} {{main}} {{message}} {{notes_tool}} "
                                       "{{nowhere}}\n---template---\n- section: s\n"
                                       "  content: '{{in_tpl}}'\n")
    workspace = Workspace(WORKSPACE.agent, (*WORKSPACE.skills, skill), WORKSPACE.tools,
                          WORKSPACE.variables)
    assert value_names(workspace) == ["in_tpl", "notes_tool", "nowhere"]
    assert value_names(WORKSPACE) == []


def test_unknown_names_agree_with_what_assembly_reports():
    # Relay Watch has a `{{admin_note}}` typo in a skill its scenarios select.
    workspace = load_bundle(Path(webapp.__file__).parent / "demo" / "relay_watch.json")
    reported = {(u.skill, re.match(r"`\{\{(.+?)\}\}`", u.message).group(1))
                for u in unknown_variables(workspace)}
    assert reported
    for d_tag in {skill for skill, _ in reported}:
        names = unknown_names(workspace, [workspace.skills_by_tag[d_tag]])
        assert names == sorted(name for skill, name in reported if skill == d_tag)


def test_unknown_names_see_a_skill_no_trigger_selects():
    loose = Skill(d_tag="loose", content="{{nowhere}}")  # untriggered: never assembled
    workspace = Workspace(agent=Agent(name="A"), skills=(loose,))
    assert unknown_variables(workspace) == []
    assert unknown_names(workspace, [loose]) == ["nowhere"]


@pytest.mark.parametrize("query, d_tags", [
    ("", ["Chat_Main", "relay-check", "strasse"]),
    ("   ", ["Chat_Main", "relay-check", "strasse"]),
    ("chat_main", ["Chat_Main"]),  # d_tag, any case
    ("RELAY CHECK", ["relay-check"]),  # name
    ("dm", ["Chat_Main"]),  # trigger
    ("weekly rep", ["relay-check"]),  # part of a trigger
    ("helpfully", ["Chat_Main"]),  # text
    ("  relays ", ["relay-check"]),  # whitespace around it ignored
    ("STRASSE", ["strasse"]),
    ("straße", ["strasse"]),  # case folding: ß is ss
    ("e", ["Chat_Main", "relay-check", "strasse"]),  # in order
    ("nothing", []),
    ("{{", []),
])
def test_find_skills(query, d_tags):
    assert find_skills(SKILLS, query) == d_tags
