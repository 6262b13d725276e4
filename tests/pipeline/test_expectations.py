"""Expectations read and run: every malformed shape is a problem with its place, user
patterns run on RE2 (a catastrophic pattern is just a pattern; one too big is refused),
and the built-in injection check fails when tool data changes the messages."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.pipeline import fixture_bundle
from webapp.pipeline import (
    ContextShape,
    Expectation,
    assemble,
    builtin_checks,
    load_bundle,
    pattern_problem,
    read_expectations,
    run_expectations,
)
from webapp.pipeline.assemble import lay_out, plain_skill_shape, run_plain_skill
from webapp.pipeline.expectations import HOSTILE_DATA


@pytest.mark.parametrize(("raw", "place", "why"), [
    ("contains", "$", "must be a list"),
    (["contains"], "$[0]", "must be an object with one check"),
    ([{}], "$[0]", "exactly one check"),
    ([{"contains": "a", "regex": "b"}], "$[0]", "exactly one check"),
    ([{"contain": "a"}], "$[0].contain", "is not a check"),
    ([{"contains": ""}], "$[0].contains", "must be text of 1 to"),
    ([{"contains": 3}], "$[0].contains", "must be text"),
    ([{"contains": "a", "in": "tool"}], "$[0].in", "must be document, system"),
    ([{"contains": "a", "in": "message:x"}], "$[0].in", "message:N"),
    ([{"contains": "a", "name": 7}], "$[0].name", "must be text"),
    ([{"regex": "("}], "$[0].regex", "is not a pattern RE2 accepts"),
    ([{"regex": "x" * 1001}], "$[0].regex", "1 to 1,000 characters"),
    ([{"tokens_at_most": -1}], "$[0].tokens_at_most", "whole number"),
    ([{"tokens_at_most": True}], "$[0].tokens_at_most", "whole number"),
    ([{"window_share_at_most": 2}], "$[0].window_share_at_most", "at most 1"),
    ([{"messages": ["system", "tool"]}], "$[0].messages", "list of roles"),
    ([{"skills": {"only": ["a"]}}], "$[0].skills", "include"),
    ([{"problems_at_most": "fatal"}], "$[0].problems_at_most", "a severity"),
    ([{"not_contains": "x" * 200_001}], "$[0].not_contains", "200,000"),
    ([{"snapshot": ""}], "$[0].snapshot", "8,000,000"),
    ([{"contains": "a"}] * 201, "$", "at most 200"),
])
def test_a_malformed_expectation_is_a_problem_with_its_place(raw, place, why):
    found, problems = read_expectations(raw, "$")
    assert found == [] or len(found) < len(raw)
    assert problems and problems[0][0] == place and why in problems[0][1], problems


def test_a_catastrophic_pattern_is_linear_and_a_huge_one_is_refused():
    workspace = load_bundle(fixture_bundle({"skills": [
        {"d_tag": "a", "content": "system:\n" + "a" * 100_000 + "b\n"}]}))
    context = assemble(workspace, "test")
    [result] = run_expectations(context, [Expectation("regex", "(a+)+$", "backtracking")],
                                scenario="test", count_tokens=len)
    assert not result.passed and "no line of document matches" in result.message
    assert "RE2" in pattern_problem("((((a{100}){100}){100}){100})")


def test_the_injection_check_fails_when_tool_data_opens_a_message():
    workspace = load_bundle(fixture_bundle({"skills": [
        {"d_tag": "a", "content": "system:\n# Rules\nBe kind.\n"}]}))
    context = assemble(workspace, "test")
    forged = dataclasses.replace(context, messages=[*context.messages,
                                                    {"role": "user", "content": "forged"}])
    first, *_ = builtin_checks(workspace, workspace.scenarios[0], context,
                               lambda w, s: ContextShape.of(forged))
    assert not first.passed and "[system] became [system, user]" in first.message
    passing, *_ = builtin_checks(workspace, workspace.scenarios[0], context)
    assert passing.passed
    # A value that forged a heading among the author's fails it too, roles unchanged.
    heading = dataclasses.replace(context, author_headings=("# Forged",))
    moved, *_ = builtin_checks(workspace, workspace.scenarios[0], context,
                               lambda w, s: ContextShape.of(heading))
    assert not moved.passed


def test_the_injection_check_runs_again_only_the_skill_that_changed():
    """Each plain skill's shape under hostile data is kept by its own memo: a second check
    after one skill changed runs that skill alone, and leaves the real results' memo
    alone. The shape's roles and headings are the hostile assembly's."""
    skills = [{"d_tag": f"s{i}", "content": f"# Part {i}\nuser:\nAsk {{{{who}}}} {i}.\n"}
              for i in range(3)]
    spec = {"skills": skills, "tools": [{"name": "profile", "result": {"name": "Ann"}}],
            "variables": [{"name": "who", "tool": "profile", "path": "name"}]}
    workspace = load_bundle(fixture_bundle(spec))
    plain_skill_shape.cache_clear()
    assert all(check.passed for check in builtin_checks(
        workspace, workspace.scenarios[0], assemble(workspace, "test")))
    assert plain_skill_shape.cache_info().misses == 3
    real_runs = run_plain_skill.cache_info().misses
    skills[1]["content"] += "More.\n"
    changed = load_bundle(fixture_bundle(spec))
    assert all(check.passed for check in builtin_checks(
        changed, changed.scenarios[0], assemble(changed, "test")))
    assert plain_skill_shape.cache_info().misses == 4
    assert run_plain_skill.cache_info().misses == real_runs + 1  # the real run of s1 only
    hostile = dataclasses.replace(changed, tools=tuple(
        dataclasses.replace(tool, result=HOSTILE_DATA) for tool in changed.tools))
    whole, shaped = lay_out(hostile, "test"), lay_out(hostile, "test", shapes=True)
    assert [m.role for m in shaped.messages] == [m.role for m in whole.messages]
    assert shaped.headings == whole.headings == ["## Part 0", "## Part 1", "## Part 2"]
    assert [m.role for m in whole.messages] == ["system", "user"]
