"""The pipeline's step pages as view data, without an app: neighbours, which skills are
open and diffed, and what a page shows of long texts."""

from __future__ import annotations

from tests.support.workspaces import SIMON, many_skills
from webapp.pipeline import Origins, TracedText, Workspace, explain, load_bundle
from webapp.pipeline.explain import walk
from webapp.tokens import count_tokens
from webapp.views import pipeline_steps
from webapp.views.pipeline_steps import (
    SKILLS_SHOWN,
    StepPage,
    cut_line,
    step_explained,
    text_shown,
    traced_diff,
)
from webapp.views.preview import Choice


def page(workspace: Workspace, step: str, skill: str | None = None) -> StepPage:
    explanation = explain(workspace)
    index = explanation.index(step)
    assert index is not None
    return StepPage(explanation, index, skill)


def test_a_step_knows_its_neighbours_and_counts():
    first, last = page(load_bundle(SIMON), "trigger"), page(load_bundle(SIMON), "log")
    assert first.previous is None and first.next.key == "order"
    assert last.next is None and last.previous.key == "request"
    assert first.before.lines == 34 and first.after.lines == 28
    assert first.before.tokens.n > first.after.tokens.n > 0


def test_a_few_skills_are_open_and_many_are_listed():
    simon = page(load_bundle(SIMON), "variables")
    assert [(v.part.d_tag, v.open, v.diff is not None) for v in simon.skills] == [
        ("personality", True, True), ("chat", True, True)]
    many = page(many_skills(30), "headings", skill="skill_29")
    opened = [v.part.d_tag for v in many.skills if v.open]
    assert opened == ["skill_29"]
    diffed = [v.part.d_tag for v in many.skills if v.diff is not None]
    assert len(diffed) == SKILLS_SHOWN and "skill_29" in diffed


def test_long_texts_are_cut_and_said_so(monkeypatch):
    assert cut_line("abcdef", 3) == "abc… [6 characters in all]"
    assert cut_line("abc", 3) == "abc"
    text = TracedText("\n".join(["x" * 50] * 10), Origins.of_skill("s", 10))
    rows, hidden = text_shown(text, 120)
    assert [len(line) for _, line, _ in rows] == [50, 50, len(cut_line("x" * 50, 20))]
    assert hidden == 7
    monkeypatch.setattr(pipeline_steps, "STEP_ROWS", 4)
    rows, hidden = text_shown(text, 10_000)
    assert len(rows) == 4 and hidden == 6
    before = TracedText("a\nb", Origins.of_skill("s", 2))
    after = TracedText("a\n" + "c" * 100, Origins.of_skill("s", 2))
    hunks, hidden = traced_diff(before, after).shown(30)
    lines = [line for _, chunk in hunks for line in chunk]
    # 28 characters left after the two lines before it.
    assert lines[-1].text == "c" * 28 + "… [100 characters in all]"


def test_a_step_page_makes_its_own_step_alone(monkeypatch):
    """A step of a big agent costs its own reading: the other steps are named, not made;
    the request step shows the messages' table, so it makes that step too."""
    made, makers = [], dict(walk.STEPS)
    monkeypatch.setattr(walk, "STEPS", tuple(
        (key, lambda r, key=key: made.append(key) or makers[key](r)) for key in makers))
    workspace = load_bundle(SIMON)
    page_of = StepPage(step_explained(workspace, Choice(), "variables"), 4)
    assert made == ["variables"] and page_of.step.key == "variables"
    assert [s.key for s in page_of.steps] == list(makers)
    assert page_of.previous.key == "roles" and page_of.next.key == "headings"
    made.clear()
    request = StepPage(step_explained(workspace, Choice(), "request"), 10)
    assert made == ["messages", "request"]
    assert request.step.key == "request" and request.shown("messages").messages


def test_skills_listed_without_their_diff_are_not_counted(monkeypatch):
    counted = []
    monkeypatch.setattr(pipeline_steps, "count_tokens",
                        lambda text: counted.append(text) or count_tokens(text))
    many = page(many_skills(30), "headings")
    views = many.skills
    assert [v.before.tokens is not None for v in views] == [v.diff is not None for v in views]
    assert len(counted) == 2 * SKILLS_SHOWN
