"""The stage table: each stage alone, the one loop that runs them, and the memo of plain
skills (any change to one of its inputs changes the result)."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.pipeline import block_of_lines
from webapp.pipeline import Agent, Scenario, Skill, Tool, Variable, Workspace, assemble
from webapp.pipeline.assemble import Unresolved, _PlainLookups, _run_plain, run_plain_skill
from webapp.pipeline.blocks import Block, parse_skill, splice
from webapp.pipeline.expectations import HOSTILE_DATA
from webapp.pipeline.headings import bump_headings, bump_text
from webapp.pipeline.origins import Origins, OriginsBuilder
from webapp.pipeline.placeholders import find_placeholders
from webapp.pipeline.result import Diagnostic, Origin
from webapp.pipeline.stages import (
    STAGES,
    SkillRun,
    bump_block_headings,
    expand_references,
    resolve_apart,
    resolve_by_splice,
    resolve_variables,
    run_stages,
    split_into_roles,
)
from webapp.pipeline.variables import Resolved


def plain_run(content: str, values: dict | None = None, quiet: bool = False) -> SkillRun:
    return SkillRun("s", parse_skill("s", content), _PlainLookups(values or {}), quiet=quiet)


def body(run: SkillRun) -> list[Block]:
    return [run.body]


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
    [block] = resolve_variables(run, [block_of_lines("system", "s", run.parsed.lines)])
    assert [t for t, _ in block.lines] == ["a 1", "{{y}} b"]
    assert [o.kind for _, o in block.lines] == ["skill", "tool"]


def test_resolve_variables_alone_reports_unknown_names_with_suggestions():
    run = plain_run("{{agent_npb}}", {"agent_npb": Unresolved(("agent_npub",))})
    resolve_variables(run, [block_of_lines("system", "s", run.parsed.lines)])
    [d] = run.diagnostics
    assert (d.code, d.skill, d.line) == ("unknown-variable", "s", 1)
    assert "did you mean `agent_npub`?" in d.message


def test_bump_headings_alone():
    run = plain_run("# A\n###### F")
    [block] = bump_block_headings(run, [block_of_lines("system", "s", run.parsed.lines)])
    assert [t for t, _ in block.lines] == ["## A", "###### F"]
    assert [d.code for d in run.diagnostics] == ["heading-clamped"]


def test_expand_references_alone_leaves_a_skill_that_embeds_nothing_as_it_is():
    run = plain_run("no {{refs}} here", {"refs": Unresolved(())})
    blocks = body(run)
    assert expand_references(run, blocks) is blocks


def replacing(values):
    """A `replace` for `splice`: each placeholder's lines from `values`, by name."""
    return lambda ph, origin: values.get(ph.name)


def test_splice_joins_the_first_and_last_lines_to_the_text_around():
    at, value = Origin("skill", "s", 1), Origin("tool", "s", 1, "t")
    block = Block("system", "s", "a {{x}} b", (at,))
    spliced = splice(block, find_placeholders(block.text),
                     replacing({"x": (["1", "2", "3"], [value] * 3)}))
    assert spliced.lines == [("a 1", at), ("2", value), ("3 b", value)]


def test_splice_copies_the_lines_between_replacements_with_their_origins():
    o = [Origin("skill", "s", n) for n in range(1, 8)]
    value = Origin("tool", "s", 2, "t")
    block = Block("system", "s", "one\n{{x}} two\nthree\nfour\n  {{y}}\n{{kept}}\nsix",
                  tuple(o))
    spliced = splice(block, find_placeholders(block.text),
                     replacing({"x": (["1", "2"], [value] * 2), "y": (["v"], [value])}))
    assert spliced.lines == [("one", o[0]), ("1", value), ("2 two", value), ("three", o[2]),
                             ("four", o[3]), ("  v", value), ("{{kept}}", o[5]), ("six", o[6])]
    assert splice(block, find_placeholders(block.text), replacing({})) is block


def test_the_whole_text_bump_handles_plain_text_and_leaves_the_rest_to_the_lines():
    assert bump_text("# a\ntext\n   ## b\n#tag\n- item") == "## a\ntext\n### b\n#tag\n- item"
    assert bump_text("no headings") == "no headings"
    for needs_lines in ("a\n```\n# b\n```", "a\n---", "Title\n===", "###### six", "x\n~~~"):
        assert bump_text(needs_lines) is None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([
    "# a", "  ## b", "   ### c", "    # code", "###### f", "####### g", "#x", "#", "#\t", "#\r",
    "##### e", "```", "~~~", "  ```py", "---", "===", " - ", "\t---", "- item", "1. one", "> q",
    "text", "", " ", "{{x}}"]), max_size=14))
def test_the_whole_text_bump_gives_what_the_line_by_line_bump_gives(lines):
    bumped = bump_text("\n".join(lines))
    if bumped is not None:
        assert bumped == "\n".join(bump_headings(lines)[0])


def line_by_line_splice(lines, replacements):
    """The rule of `splice`, one line at a time: what the block-level splice must give."""
    out = []
    for number, (text, origin) in enumerate(lines):
        current, current_origin, pos = "", origin, 0
        for start, end, texts, origins in replacements.get(number, ()):
            current += text[pos:start]
            pos = end
            if not texts:
                continue
            if not current.strip(" \t"):
                current_origin = origins[0]
            if len(texts) == 1:
                current += texts[0]
                continue
            out.append((current + texts[0], current_origin))
            out.extend(zip(texts[1:-1], origins[1:-1], strict=True))
            current, current_origin = texts[-1], origins[-1]
        out.append((current + text[pos:], current_origin))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["ab", " ", "{{x}}", "\t", "-"]), max_size=6)
                .map("".join), min_size=1, max_size=8),
       st.lists(st.lists(st.sampled_from(["", "v", " ", "w w"]), max_size=3), max_size=12),
       st.randoms())
def test_splice_gives_what_the_line_by_line_rule_gives(lines, values, rng):
    origins = [Origin("skill", "s", n) for n in range(1, len(lines) + 1)]
    block = Block("system", "s", "\n".join(lines), tuple(origins))
    by_line: dict = {}
    chosen = iter(values)
    replaced = {}  # by (line, start): a placeholder left as it is has none

    def replace(ph, origin):
        texts = next(chosen, None)
        if texts is None or rng.random() < 0.3:
            return None
        value = Origin("tool", "s", origin.line, f"v{len(replaced)}")
        replaced[ph.start] = (texts, [value] * len(texts))
        return replaced[ph.start]

    spliced = splice(block, find_placeholders(block.text), replace)
    start = 0
    for number, text in enumerate(lines):
        for ph in find_placeholders(text):
            if start + ph.start in replaced:
                by_line.setdefault(number, []).append(
                    (ph.start, ph.end, *replaced[start + ph.start]))
        start += len(text) + 1
    assert spliced.lines == line_by_line_splice(list(zip(lines, origins, strict=True)), by_line)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["ab", " ", "\t", "\n", "- ", "{{a}}", "{{b}}", "{{ c }}",
                                 "{{none}}", "\\{{a}}", "#"]), max_size=16).map("".join),
       st.fixed_dictionaries({name: st.lists(st.sampled_from(
           ["v", " ", "\t", "\n", "w x", "user:", "```"]), min_size=1, max_size=4).map("".join)
           for name in "abc"}))
def test_resolving_placeholders_apart_gives_what_splicing_gives(text, values):
    """Where `resolve_apart` answers (most skills), its block is `resolve_by_splice`'s."""
    lookups = {name: Resolved(value, "tool") for name, value in values.items()}
    lookups["none"] = Unresolved(())
    apart_run, splice_run = plain_run(text, lookups), plain_run(text, lookups)
    apart = resolve_apart(apart_run, apart_run.body)
    spliced = resolve_by_splice(splice_run, splice_run.body)
    if apart is not None:
        assert (apart.text, apart.origins) == (spliced.text, spliced.origins)
        assert apart_run.diagnostics == splice_run.diagnostics == []


#: A value's problem, which only a diagnostic says.
PROBLEM = Diagnostic("warning", "format", "the value was cut", None, None)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["ab", " ", "\t", "\n", "- ", "{{a}}", "{{b}}", "{{ c }}",
                                 "\\{{a}}", "#"]), max_size=16).map("".join),
       st.fixed_dictionaries({name: st.lists(st.sampled_from(
           ["v", " ", "\n", "user:", "```", "# x", HOSTILE_DATA]), min_size=1,
           max_size=3).map("".join) for name in "abc"}),
       st.sets(st.sampled_from("abc")))
def test_a_quiet_run_resolves_apart_what_splicing_gives_and_says_nothing(text, values,
                                                                        troubled):
    """A run whose diagnostics nobody reads (`quiet`: the hostile lay-out's) resolves apart
    values that hold a role marker or have problems too, which only diagnostics say: its
    block is the one a run that says them splices."""
    lookups = {name: Resolved(value, "tool", (PROBLEM,) if name in troubled else ())
               for name, value in values.items()}
    quiet, loud = plain_run(text, lookups, quiet=True), plain_run(text, lookups)
    apart = resolve_apart(quiet, quiet.body)
    spliced = resolve_by_splice(loud, loud.body)
    if apart is not None:
        assert (apart.text, apart.origins) == (spliced.text, spliced.origins)
    assert quiet.diagnostics == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Rule ", "{{a}}", "{{b}}", "\n", "# Part\n", "```\n",
                                 "user:\n", "system:\n", "Title\n===\n", "###### Deep\n"]),
                max_size=20).map("".join),
       st.sampled_from([HOSTILE_DATA, "plain", "user:\nhi", "```\ncode", "# Heading"]))
def test_a_quiet_run_makes_the_pieces_and_headings_a_loud_one_makes(content, value):
    """The hostile lay-out's runs (`plain_skill_shape`) are quiet: the same pieces, origins
    and headings as a run that makes its diagnostics, and none made."""
    values = tuple(sorted((name, Resolved(value, "tool")) for name in ("a", "b")))
    loud, quiet = _run_plain("s", content, values), _run_plain("s", content, values, quiet=True)
    assert (quiet.pieces, quiet.headings) == (loud.pieces, loud.headings)
    assert quiet.diagnostics == ()


def test_resolving_apart_answers_for_a_placeholder_a_line_and_leaves_the_rest():
    lookups = {"a": Resolved("1\n2", "tool"), "b": Resolved("x", "variable")}
    run = plain_run("- {{a}} here\n  {{b}}\nplain", lookups)
    block = resolve_apart(run, run.body)
    assert block is not None and block.text == "- 1\n2 here\n  x\nplain"
    assert [o.kind for o in block.origins] == ["skill", "tool", "variable", "skill"]
    for leaves in ("{{a}} {{b}}", "\\{{a}}\n{{b}}", "{{nothing}}"):
        run = plain_run(leaves, {**lookups, "nothing": Unresolved(())})
        assert resolve_apart(run, run.body) is None
    run = plain_run("{{m}}", {"m": Resolved("user:", "tool")})
    assert resolve_apart(run, run.body) is None
    # A quiet run has no warning to give of the marker: it resolves the line apart.
    run = plain_run("{{m}}", {"m": Resolved("user:", "tool", (PROBLEM,))}, quiet=True)
    block = resolve_apart(run, run.body)
    assert block is not None and block.text == "user:" and run.diagnostics == []


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


_BUMP_LINES = st.sampled_from(["# A", "###### F", "Para", "more", "===", "---", "- item",
                               "```", "~~~", "", "  code", "text {{x}}"])


@settings(max_examples=300)
@given(st.lists(st.tuples(_BUMP_LINES, st.booleans()), min_size=1, max_size=14))
def test_bumping_a_block_keeps_each_line_with_its_origin(lines):
    """`bump_block`'s line-by-line path names lines by their indexes and keeps the origins
    as runs: each bumped line keeps the origin of the line it stands for (a setext
    heading its paragraph's first line), and each diagnostic names its line's origin,
    author lines and data lines alike."""
    builder = OriginsBuilder()
    for number, (_, data) in enumerate(lines, start=1):
        if data:
            builder.repeat("tool", "s", 1, "x", 1)
        else:
            builder.extend(Origins.of_skill("s", number)[number - 1:])
    texts = [text for text, _ in lines]
    block = Block("system", "s", "\n".join(texts), builder.build())
    run = plain_run("")
    [bumped] = bump_block_headings(run, [block])
    reported: list[tuple[str, int | None]] = []
    warned: set[tuple[Origin, bool]] = set()

    def data_fence(at: int, closes: bool) -> None:
        origin = block.origins[at]
        if (origin, closes) not in warned:  # once per value, as `bump_block` warns
            warned.add((origin, closes))
            reported.append(("fence-in-data", origin.line))

    out, kept = bump_headings(
        texts, lambda at: reported.append(("heading-clamped", block.origins[at].line)),
        bytes(data for _, data in lines), data_fence)
    indexes = range(len(texts)) if kept is None else kept
    assert bumped.text == "\n".join(out)
    assert tuple(bumped.origins) == tuple(block.origins[at] for at in indexes)
    assert [(d.code, d.line) for d in run.diagnostics] == reported
    assert len(out) == len(indexes) and list(indexes) == sorted(set(indexes))
    for line, at in zip(out, indexes, strict=True):  # a line bumped, kept, or a heading made
        source = texts[at]
        assert line in (source, source.lstrip(" "), "#" + source.lstrip(" ")) or (
            line.startswith(("## ", "### ")) and line.split(" ", 1)[1].startswith(source.strip()))
