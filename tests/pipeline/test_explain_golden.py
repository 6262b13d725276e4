"""Golden stage lists: for each scenario of the demo agents, fixtures/explain/ holds what
`explain` says, step by step, in the words and numbers a presenter reads off the page: the
step's name, lines in and out, what it did (or why nothing changed), which skills the
trigger selected and why not the others, each skill's part (its note, the values it filled
in with their tool and formatter, the blocks its markers cut, its template sections, and
its text after the stage), the messages. A reviewer reads the pipeline from these files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.pipeline import fixture_bundle
from tests.support.workspaces import RELAY_WATCH, SIMON
from webapp.pipeline import STEP_WORDS, Explanation, assemble, explain, load_bundle
from webapp.pipeline.explain import READERS, STEPS, VALUES_KEPT
from webapp.pipeline.stages import STAGES

FIXTURES = Path(__file__).parent / "fixtures" / "explain"
CASES = [(bundle, scenario.name) for bundle in (SIMON, RELAY_WATCH)
         for scenario in load_bundle(bundle).scenarios]
#: Steps whose text holds the time (the log entry): their text is not compared.
TIMED = {"log"}


def fixture_path(bundle: Path, scenario: str) -> Path:
    return FIXTURES / f"{bundle.stem}--{scenario.replace(' ', '-')}.yaml"


def described(explanation: Explanation) -> dict[str, Any]:
    """The explanation as the fixture writes it: plain data, what a page shows."""
    steps = []
    for step in explanation.steps:
        out: dict[str, Any] = {"step": step.key, "name": step.name,
                               "lines": f"{step.before.lines} -> {step.after.lines}",
                               "changed": step.changed, "note": step.note}
        if step.selection:
            out["skills"] = [f"{s.position or 'trash'}. {s.d_tag}: {s.reason}"
                             for s in step.selection]
        if step.messages:
            out["messages"] = [f"{m.number}. {m.role}, {m.lines} line(s): {', '.join(m.sources)}"
                               for m in step.messages]
        if step.skills:
            out["each skill"] = [skill_part(part) for part in step.skills]
        elif step.key not in TIMED and step.key not in ("trigger", "order"):
            out["out"] = step.after.text
        steps.append(out)
    return {"agent": explanation.agent, "scenario": explanation.scenario,
            "trigger": explanation.trigger, "mode": explanation.mode, "steps": steps}


def skill_part(part) -> dict[str, Any]:
    out: dict[str, Any] = {"skill": part.d_tag,
                           "lines": f"{part.before.lines} -> {part.after.lines}",
                           "changed": part.changed, "note": part.note}
    if part.values:
        out["values"] = [f"{{{{{v.name}}}}} at {v.skill}:{v.line}: {v.kind} "
                         f"{v.tool or '-'} / {v.formatter or '-'} -> {v.value!r}"
                         for v in part.values]
    if part.blocks:
        out["blocks"] = [f"{b.role}: {b.lines} lines from line {b.first}" for b in part.blocks]
    if part.sections:
        out["sections"] = [f"{s.name} ({s.role}, line {s.line}): {s.source}"
                           + (", skipped" if s.skipped else "") for s in part.sections]
    out["out"] = part.after.text
    return out


@pytest.mark.parametrize("bundle, scenario", CASES,
                         ids=[f"{b.stem}-{s}" for b, s in CASES])
def test_golden_stage_list(bundle: Path, scenario: str) -> None:
    expected = yaml.safe_load(fixture_path(bundle, scenario).read_text(encoding="utf-8"))
    assert described(explain(load_bundle(bundle), scenario)) == expected


def test_every_step_has_its_words_and_every_stage_a_reader() -> None:
    """Adding a stage to `STAGES` is one line there plus its reader and words here: the
    explainer cannot skip a stage silently."""
    assert set(READERS) == {name for name, _ in STAGES}
    assert [key for key, _ in STEPS] == list(STEP_WORDS)
    for name, does, rule in STEP_WORDS.values():
        assert name and does.endswith(".") and rule


def test_the_texts_chain_and_each_line_has_its_origin() -> None:
    """What a step takes in is what the step before it gave (the skills' stages and the
    layout), and every line carries an origin, as the diffs' provenance needs."""
    for bundle, scenario in CASES:
        steps = {s.key: s for s in explain(load_bundle(bundle), scenario).steps}
        chain = ["references", "roles", "variables", "headings", "template"]
        for before, after in zip(chain, chain[1:], strict=False):
            assert steps[before].after == steps[after].before
        assert steps["messages"].after == steps["joined"].before
        for step in steps.values():
            for text in (step.before, step.after):
                assert len(text.text.split("\n")) == text.lines or not text.lines


def test_the_first_stage_takes_the_skills_own_text_so_a_template_is_not_lost() -> None:
    """The template part is set aside at "references expanded", not shown as removed."""
    steps = {s.key: s for s in explain(load_bundle(RELAY_WATCH),
                                       "admin asks about latency").steps}
    (part,) = steps["references"].skills
    assert "---template---" not in part.before.text and part.template is not None
    assert part.after.lines - part.before.lines == 2  # identity's lines, nothing removed
    assert "set aside here, not lost" in part.note
    (sections,) = steps["template"].skills
    assert sections.template == part.template


def test_the_layout_steps_count_the_skills_lines_without_their_traces() -> None:
    """The messages step says how many lines the skills gave out (the last stage's) from
    what each run counted: no skill's stage trace, six copies of its text, is made again."""
    workspace = load_bundle(fixture_bundle({"skills": [
        {"d_tag": "a", "content": "\n\nsystem:\n# Rules\n\nBe kind.\n\nuser:\n\n"},
        {"d_tag": "b", "content": "user:\n  \nAsk.\nassistant:\n"}]}))
    context = assemble(workspace, "test")
    assert len(context.trace) == 2
    assert all(trace._build is not None for trace in context.trace)  # made when read
    (step,) = explain(workspace, "test", assembled=context, only={"messages"}).steps
    assert all(trace._build is not None for trace in context.trace)  # none made
    whole = {s.key: s for s in explain(workspace, "test").steps}
    assert step.note == whole["messages"].note
    assert "In: 8 lines: step 7's 12, less 4 blank lines trimmed around the parts." in step.note


def test_a_skill_keeps_its_first_values_and_its_note_counts_them_all() -> None:
    """A 100 KB skill with a `{{name}}` a line fills in a thousand values: its part keeps
    the first `VALUES_KEPT` to list, and its note counts every one (a name at a place once)."""
    lines = [f"Line {n} uses {{{{tool_{n % 3}}}}} and {{{{tool_{n % 3}}}}} again."
             for n in range(120)]
    workspace = load_bundle(fixture_bundle({
        "tools": [{"name": f"tool_{i}", "result": {"success": True, "content": f"r{i}"}}
                  for i in range(3)],
        "skills": [{"d_tag": "a", "content": "\n".join(lines)}]}))
    (step,) = explain(workspace, "test", only={"variables"}).steps
    (part,) = step.skills
    assert len(part.values) == VALUES_KEPT
    assert [(v.name, v.line) for v in part.values[:4]] == [
        ("tool_0", 1), ("tool_1", 2), ("tool_2", 3), ("tool_0", 4)]
    assert part.note.startswith("Filled in 120 values: `{{tool_0}}` (")
    assert f"and {120 - 8} more." in part.note
