"""YAML aliases, deep nesting and huge numbers: refused with a clear problem naming the
place, at bounded cost, and never echoed back whole."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp import agentskills
from webapp.pipeline import (
    MAX_DEPTH,
    Agent,
    BundleError,
    Scenario,
    Skill,
    Workspace,
    assemble,
    excerpt,
    load_bundle,
    parse_json,
)
from webapp.pipeline.untrusted import json_containers

BOMB_ARGS = ("[&a [x,x,x,x,x,x,x,x,x,x], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], "
             "&c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], "
             "&e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e], "
             "&g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f], &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]]")


def workspace(content: str) -> Workspace:
    return Workspace(agent=Agent(name="A"), skills=(Skill("s", content, triggers=("dm",)),),
                     scenarios=(Scenario("sc"),))


def template_problems(template: str) -> list[tuple[str, int | None, str]]:
    context = assemble(workspace("Body\n---template---\n" + template))
    return [(d.code, d.line, d.message) for d in context.diagnostics if d.severity == "error"]


def test_a_yaml_alias_bomb_in_a_template_is_refused_at_its_line():
    problems = template_problems(f"- section: a\n  tool: x\n  args: {BOMB_ARGS}\n  role: *h\n")
    [(code, line, message)] = problems
    assert code == "template-invalid" and line == 5
    assert "anchors" in message and len(message) < 300


def test_an_alias_alone_is_refused_too():
    [(code, line, message)] = template_problems("- section: a\n  content: hi\n  role: *x\n")
    assert (code, line) == ("template-invalid", 5) and "aliases" in message


def test_deep_nesting_in_a_template_is_refused_not_raised():
    deep = "[" * 500 + "]" * 500
    [(code, line, message)] = template_problems(f"- section: a\n  tool: x\n  args: {deep}\n")
    assert code == "template-invalid" and line == 5
    assert f"nested more than {MAX_DEPTH} levels deep" in message


def test_a_value_in_a_message_is_an_excerpt():
    context = assemble(workspace("---template---\n- section: a\n  content: x\n  role: "
                                 + "r" * 5000 + "\n"))
    [message] = [d.message for d in context.diagnostics if d.code == "template-invalid"]
    assert len(message) < 400 and "..." in message
    assert len(excerpt(list(range(10**6)))) <= 200


def test_a_skill_md_frontmatter_alias_is_refused_with_its_line():
    text = f"---\nname: a\ndescription: b\nx: {BOMB_ARGS}\nmetadata: {{layer: *g}}\n---\nbody"
    with pytest.raises(agentskills.SkillMdError) as caught:
        agentskills.load_skill_md(text)
    [(field, reason)] = caught.value.problems
    assert field == "frontmatter" and "line 4" in reason and "anchors" in reason


@pytest.mark.parametrize("text, column", [("[" * 100_000, 65),
                                          ('{"a": ' * 70 + "1" + "}" * 70, 6 * 64 + 1)])
def test_deep_json_is_a_bundle_error_naming_the_place(text, column):
    with pytest.raises(BundleError) as caught:
        parse_json(text)
    [problem] = caught.value.problems
    assert f"nested more than {MAX_DEPTH} levels deep" in problem.message
    assert f"line 1, column {column}:" in problem.message


def test_json_nesting_inside_strings_does_not_count():
    assert parse_json(json.dumps({"s": "[" * 1000})) == {"s": "[" * 1000}
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH)


def brackets_outside_strings(text: str) -> int:
    """The containers `text` opens, read a character at a time: a string runs from a `"`
    to the next unescaped `"`, or to a backslash before a line's end (which no JSON
    string holds)."""
    opened, in_string, escaped = 0, False, False
    for char in text:
        if escaped:
            in_string, escaped = char != "\n", False
        elif in_string:
            escaped, in_string = char == "\\", char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            opened += 1
    return opened


@given(st.text(alphabet='[]{}"\\a\n', max_size=60))
def test_the_depth_scan_skips_strings_as_a_character_reader_does(text):
    assert json_containers(text) == brackets_outside_strings(text)


def test_nan_and_infinity_are_not_json():
    for text in ('{"result": NaN}', '[Infinity]', '[-Infinity]'):
        with pytest.raises(BundleError) as caught:
            parse_json(text)
        assert "is not a JSON number" in caught.value.problems[0].message


def test_the_cli_answers_a_deep_bundle_with_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "skill-workspace/1", "agent": {"name": "A"}, "tools": '
                    + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    for command in (["assemble", "--bundle", str(path)], ["check", "--bundle", str(path)]):
        result = subprocess.run([sys.executable, "-m", "webapp.cli", *command],
                                capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 1
        assert "Traceback" not in result.stderr and "nested more than" in result.stderr
    with pytest.raises(BundleError):
        load_bundle(path)


# Nested values of any depth up to well past the limit: lists and mappings of scalars.
nested = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=2)
                      | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                      max_leaves=150)


def depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@given(st.integers(min_value=1, max_value=3 * MAX_DEPTH), nested)
def test_nested_json_parses_or_is_refused_by_depth(levels, leaf):
    value = leaf
    for _ in range(levels):
        value = [value]
    text = json.dumps(value)
    if depth(value) <= MAX_DEPTH:
        assert parse_json(text) == value
    else:
        with pytest.raises(BundleError):
            parse_json(text)


@given(st.integers(min_value=1, max_value=3 * MAX_DEPTH), nested)
def test_nested_yaml_args_never_make_assembly_raise(levels, leaf):
    value = leaf
    for _ in range(levels):
        value = [value]
    template = "- section: a\n  tool: x\n  args: " + json.dumps(value) + "\n"
    context = assemble(workspace("Body\n---template---\n" + template))
    assert context.document.startswith("system:\n# A")
