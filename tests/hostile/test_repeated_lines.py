"""Diffs of untrusted text stay bounded: a skill of one block repeated 2,000 lines long,
whose stage diffs took 7 s each when difflib weighed every pair of equal lines."""

from __future__ import annotations

from difflib import SequenceMatcher

import pytest

from tests.support.pages import HTMX
from webapp.pipeline import Agent, Scenario, Skill, Workspace, assemble
from webapp.textdiff.lines import diff_lines

#: Role markers, a heading and a `{{name}}`: every stage changes every repetition.
BLOCK = "## Heading\n\nuser:\nSome text {{message}}\n- item\nassistant:\nreply line\n"
REPEATED = BLOCK * (2000 // BLOCK.count("\n"))


#: What each answer holds: the Pipeline's stages, the diff, and with no panel named (a large
#: draft) the Document alone, with a button that posts the draft for the Pipeline.
EXPECTED = {"pipeline": '<ol class="stages">', "diff": 'class="diff diff-',
            None: 'name="shown" value="pipeline" formaction='}


@pytest.mark.parametrize("shown", ["pipeline", "diff", None])
def test_a_2000_line_repeated_skill_previews(client, simon, skill_form, shown):
    data = skill_form(REPEATED)
    if shown is not None:
        data["shown"] = shown
    response = client.post("/agents/Simon/skills/chat/preview", data=data, headers=HTMX)
    assert response.status_code == 200
    html = response.data.decode()
    assert "Traceback" not in html
    assert EXPECTED[shown] in html


def test_a_long_repeated_gap_is_diffed_whole_and_exactly():
    """Past difflib's exact range the diff may be coarser, never wrong: applying it to the
    old text gives the new one."""
    old = "a\nb\n" * 3000
    new = "a\nB\n" * 3000
    diff = diff_lines(old, new)
    assert diff.changed and diff.added == diff.removed
    rebuilt = [line.text for hunk in diff.hunks for line in hunk.lines if line.kind != "del"]
    assert rebuilt == new.splitlines()


def test_a_gap_past_the_coarse_bound_is_one_replacement():
    old = "x\n" * 15_000
    new = "y\n" * 15_000
    diff = diff_lines(old, new)
    assert (diff.added, diff.removed, len(diff.hunks)) == (15_000, 15_000, 1)


def test_the_stage_diffs_of_a_repeated_skill_do_bounded_work(monkeypatch):
    """Work, not time: difflib's cost is its longest-match searches, each over every pair of
    equal lines in range. Weighing the repeated block exactly took hundreds of them (7 s)."""
    calls = []
    original = SequenceMatcher.find_longest_match

    def counted(self, *args):
        calls.append(len(self.a))
        return original(self, *args)

    monkeypatch.setattr(SequenceMatcher, "find_longest_match", counted)
    workspace = Workspace(agent=Agent(name="R"), scenarios=(Scenario(name="dm", message="hi"),),
                          skills=(Skill(d_tag="rep", content=REPEATED, triggers=("dm",)),))
    stages = assemble(workspace).trace[0].stages
    for before, after in zip(stages, stages[1:], strict=False):
        calls.clear()
        diff_lines(before.text, after.text)
        assert sum(n for n in calls if n > 400) <= 4 * len(after.text.splitlines()), after.name
