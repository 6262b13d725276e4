"""The stage table: each stage alone, the one loop that runs them, and the memo of plain
skills (any change to one of its inputs changes the result)."""

from __future__ import annotations

import dataclasses

from webapp.pipeline import Agent, Scenario, Skill, Tool, Variable, Workspace, assemble
from webapp.pipeline.assemble import Unresolved, _PlainLookups, run_plain_skill
from webapp.pipeline.blocks import Block, parse_skill, splice
from webapp.pipeline.result import Origin
from webapp.pipeline.stages import (
    STAGES,
    SkillRun,
    bump_block_headings,
    expand_references,
    resolve_variables,
    run_stages,
    split_into_roles,
)
from webapp.pipeline.variables import Resolved


def plain_run(content: str, values: dict | None = None) -> SkillRun:
    return SkillRun("s", parse_skill("s", content), _PlainLookups(values or {}))


def body(run: SkillRun) -> list[Block]:
    return [Block(None, "s", run.parsed.lines)]


def texts(blocks: list[Block]) -> list[tuple[str | None, list[str]]]:
    return [(b.role, [t for t, _ in b.lines]) for b in blocks]


def test_the_table_names_every_stage_in_order():
    assert [name for name, _ in STAGES] == [
        "references expanded", "roles split", "variables resolved", "headings bumped",
        "template sections added"]


def test_the_trace_records_the_text_after_each_stage_of_the_table():
    run = plain_run("# Title\nuser:\nhello {{who}}", {"who": Resolved("world", "variable")})
    result = run_stages(run, "# Title\nuser:\nhello {{who}}")
    assert [stage.name for stage in result.trace.stages] == ["raw", *(n for n, _ in STAGES)]
    assert result.trace.stages[2].text == "system:\n# Title\nuser:\nhello {{who}}"
    assert result.trace.stages[3].text == "system:\n# Title\nuser:\nhello world"
    assert result.trace.stages[4].text == "system:\n## Title\nuser:\nhello world"


def test_split_into_roles_alone():
    run = plain_run("intro\nuser:\nhi\nassistant:\n```\nuser:\n```")
    assert texts(split_into_roles(run, body(run))) == [
        ("system", ["intro"]), ("user", ["hi"]), ("assistant", ["```", "user:", "```"])]


def test_resolve_variables_alone_keeps_origins_and_never_rescans_values():
    run = plain_run("a {{x}} b", {"x": Resolved("1\n{{y}}", "tool")})
    [block] = resolve_variables(run, [Block("system", "s", run.parsed.lines)])
    assert [t for t, _ in block.lines] == ["a 1", "{{y}} b"]
    assert [o.kind for _, o in block.lines] == ["skill", "tool"]


def test_resolve_variables_alone_reports_unknown_names_with_suggestions():
    run = plain_run("{{agent_npb}}", {"agent_npb": Unresolved(("agent_npub",))})
    resolve_variables(run, [Block("system", "s", run.parsed.lines)])
    [d] = run.diagnostics
    assert (d.code, d.skill, d.line) == ("unknown-variable", "s", 1)
    assert "did you mean `agent_npub`?" in d.message


def test_bump_headings_alone():
    run = plain_run("# A\n###### F")
    [block] = bump_block_headings(run, [Block("system", "s", run.parsed.lines)])
    assert [t for t, _ in block.lines] == ["## A", "###### F"]
    assert [d.code for d in run.diagnostics] == ["heading-clamped"]


def test_expand_references_alone_leaves_a_skill_that_embeds_nothing_as_it_is():
    run = plain_run("no {{refs}} here", {"refs": Unresolved(())})
    blocks = body(run)
    assert expand_references(run, blocks) is blocks


def test_splice_joins_the_first_and_last_lines_to_the_text_around():
    out: list = []
    at, value = Origin("skill", "s", 1), Origin("tool", "s", 1, "t")
    splice("a X b", at, [(2, 3, [("1", value), ("2", value), ("3", value)])], out)
    assert out == [("a 1", at), ("2", value), ("3 b", value)]


def workspace(content: str = "Hi {{name}}", result: str = "Ann", fmt: str | None = None
              ) -> Workspace:
    return Workspace(agent=Agent(name="A"),
                     skills=(Skill("s", content, triggers=("dm",)),),
                     tools=(Tool("profile", result={"success": True, "content": result}),),
                     variables=(Variable("name", "profile", format=fmt),),
                     scenarios=(Scenario("sc"),))


def test_a_plain_skill_is_memoised_on_its_text_and_resolved_names():
    run_plain_skill.cache_clear()
    assemble(workspace())
    assemble(workspace())
    info = run_plain_skill.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def test_any_input_of_a_memoised_skill_changes_its_result():
    first = assemble(workspace()).document
    assert "Hi Ann" in first
    assert "Hi Bob" in assemble(workspace(result="Bob")).document  # a tool result
    assert "Bye Ann" in assemble(workspace(content="Bye {{name}}")).document  # the text
    assert "`Ann`" in assemble(workspace(fmt="inline_code")).document  # a binding's format
    unbound = assemble(dataclasses.replace(workspace(), variables=()))  # a binding removed
    assert "Ann" not in unbound.document
    assert [d.code for d in unbound.diagnostics] == ["unknown-variable"]
    assert assemble(workspace()).document == first
