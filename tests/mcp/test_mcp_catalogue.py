"""The mapping from a snapshot to MCP, without a server: prompt arguments say truly what
a turn needs, a system message keeps its role in `_meta`, MIME types, completions."""

from __future__ import annotations

import pytest

from webapp.agentskills import SkillFile, SkillFolder, encode_skill_md
from webapp.mcp_server import catalogue
from webapp.pipeline import Agent, Scenario, Skill, Tool, Workspace

WORKSPACE = Workspace(
    Agent("Weather"),
    skills=(Skill("forecast", "The weather in {{city}} is {{weather}}.\n", triggers=("dm",)),),
    tools=(Tool("weather", result={"sky": "clear"}),),
    scenarios=(Scenario("asks", message="Will it rain?"), Scenario("silent")))


def test_arguments_are_the_turns_inputs_each_required_truly():
    asks, silent = (catalogue.arguments(WORKSPACE, s) for s in WORKSPACE.scenarios)
    assert [(a.name, a.required) for a in asks] == [
        ("message", False), ("city", True), ("weather", False)]
    assert [(a.name, a.required) for a in silent][0] == ("message", True)
    assert all(a.description for a in asks + silent)
    assert "Will it rain?" in asks[0].description


def test_a_turn_is_the_api_body_of_the_arguments():
    assert catalogue.turn("asks", {"message": "Hi", "city": "Oslo"}) == {
        "scenario": "asks", "message": "Hi", "variables": {"city": "Oslo"}}
    assert catalogue.turn("asks", None) == {"scenario": "asks", "variables": {}}


def test_a_system_message_keeps_its_role_in_meta():
    answer = {"messages": [{"role": "system", "content": "Be brief."},
                           {"role": "user", "content": "Hi"},
                           {"role": "assistant", "content": "Hello"}]}
    result = catalogue.prompt_result(answer, "asks", 3, "d" * 64)
    assert [(m.role, m.content.text, m.content.meta) for m in result.messages] == [
        ("user", "Be brief.", {"skill-editor/role": "system"}),
        ("user", "Hi", None), ("assistant", "Hello", None)]
    assert result.meta == {"skill-editor/snapshot": 3, "skill-editor/digest": "d" * 64}


@pytest.mark.parametrize(("path", "text", "mime"), [
    ("FORMS.md", True, "text/markdown"), ("scripts/fill.py", True, "text/x-python"),
    ("LICENSE", True, "text/plain"), ("data.bin", False, "application/octet-stream"),
    ("schema.json", True, "application/json"), ("logo.png", False, "image/png")])
def test_mime_types(path, text, mime):
    assert catalogue.mime_type(path, text) == mime


def test_completions_are_the_values_known():
    assert catalogue.completions(WORKSPACE, "message", "Will") == ["Will it rain?"]
    assert catalogue.completions(WORKSPACE, "message", "Nope") == []
    assert catalogue.completions(WORKSPACE, "weather", "") == ['{"sky": "clear"}']
    assert catalogue.completions(WORKSPACE, "city", "") == []


def test_a_skill_uri_names_its_folder():
    assert catalogue.skill_of("skill://pdf/scripts/a.py") == "pdf"
    assert catalogue.skill_of("file:///etc/passwd") is None


def test_names_follow_the_export_and_bytes_are_its():
    folders = [SkillFolder(Skill("Chat_Main", "Hi.\n", description="Greets.")),
               SkillFolder(Skill("chat-main", "Ho.\n"), crlf=True,
                           files=(SkillFile("bin/x", b"\x00\xff", executable=True),))]
    entries = catalogue.entries(folders)
    assert [e.uri for e in entries] == ["skill://chat-main/SKILL.md",
                                        "skill://chat-main-2/SKILL.md", "skill://chat-main-2/bin/x"]
    assert [e.data for e in entries[:2]] == [encode_skill_md(f.skill, f.head, f.crlf)
                                             for f in folders]
    first = catalogue.resource(entries[0])
    assert (first.name, first.title, first.description) == ("chat-main", "chat-main", "Greets.")
    assert catalogue.contents(entries[2]).blob == "AP8="
    second = catalogue.entries(folders, "chat-main-2")
    assert [e.uri for e in second] == [e.uri for e in entries[1:]]
