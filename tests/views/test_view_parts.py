"""The parts of pages as plain data, without Flask: what the Changes page says of each
scenario, a folder's file changes, the request bodies, the parts of an address a page
reads back, and the words a count is written with."""

from __future__ import annotations

import dataclasses

from tests.support.workspaces import SIMON
from webapp.pipeline import SkillFile, assemble, load_bundle
from webapp.textdiff.lines import diff_lines, exact_diff
from webapp.views import publish as publish_views
from webapp.views.document_window import parse_lines, parse_opened
from webapp.views.file_changes import file_changes
from webapp.views.messages import Models, cut_strings, request_bodies
from webapp.views.publish import (
    MAX_DIFF_LINES,
    scenario_change,
    scenario_changes,
    scenario_names,
)
from webapp.views.shown_text import shown_part
from webapp.views.wording import counted

WORKSPACE = load_bundle(SIMON)


def _with_chat(text: str):
    skills = tuple(dataclasses.replace(s, content=s.content + text) if s.d_tag == "chat" else s
                   for s in WORKSPACE.skills)
    return dataclasses.replace(WORKSPACE, skills=skills)


def test_the_changes_page_diffs_the_first_changed_scenarios_and_names_the_rest():
    current = _with_chat("\nA line added since.\n")
    changes = scenario_changes(WORKSPACE, current, inline=1)
    assert [c.name for c in changes] == scenario_names(WORKSPACE, current)
    changed = [c for c in changes if c.state == "changed"]
    assert changed and changed[0].document is not None  # the first one is diffed
    assert all(c.document is None for c in changed[1:])  # the others load as panels
    assert changed[0].document.added >= 1 and changed[0].document.changed
    assert {c.state for c in scenario_changes(WORKSPACE, WORKSPACE)} == {"unchanged"}


def test_one_scenario_s_panel_and_a_scenario_neither_side_has():
    name = next(iter(WORKSPACE.scenarios_by_name))
    change = scenario_change(WORKSPACE, _with_chat("\nMore.\n"), name)
    assert change is not None and change.document is not None and change.messages is not None
    assert scenario_change(WORKSPACE, WORKSPACE, "no such scenario") is None


def test_a_scenario_s_long_change_is_made_up_to_the_lines_shown_and_counts_the_rest(
        monkeypatch):
    """2,000 lines added: the page's diffs make the `MAX_DIFF_LINES` it shows, not all of
    them, and it says how many more there are (as many as a diff of every line has)."""
    made = []

    def counted_diff(*args, **kwargs):
        diff = diff_lines(*args, **kwargs)
        made.append(sum(len(hunk.lines) for hunk in diff.hunks))
        return diff

    monkeypatch.setattr(publish_views, "diff_lines", counted_diff)
    added = "".join(f"\nLine {i} added since." for i in range(2000))
    current = _with_chat(added)
    name = next(iter(WORKSPACE.scenarios_by_name))
    change = scenario_change(WORKSPACE, current, name)
    assert made == [MAX_DIFF_LINES, MAX_DIFF_LINES], "the document's and the messages' diff"
    assert change is not None and change.document is not None
    shown = sum(len(hunk.lines) for hunk in change.document.hunks)
    assert shown == MAX_DIFF_LINES
    before, after = assemble(WORKSPACE, name), assemble(current, name)
    whole = exact_diff(before.document, after.document)
    assert change.document.added == whole.added > 2000
    assert shown + change.document.hidden == sum(len(hunk.lines) for hunk in whole.hunks)


def test_a_folder_s_file_changes_in_path_order_with_a_text_diff():
    before = [SkillFile("b.md", b"one\ntwo\n"), SkillFile("gone.txt", b"x"),
              SkillFile("run.sh", b"echo", executable=False)]
    after = [SkillFile("b.md", b"one\nthree\n"), SkillFile("a.png", b"\x89PNG\x00"),
             SkillFile("run.sh", b"echo", executable=True)]
    changes = file_changes(before, after, diffs=True)
    assert [(c.path, c.change) for c in changes] == [
        ("a.png", "added"), ("b.md", "changed"), ("gone.txt", "removed"), ("run.sh", "changed")]
    assert changes[1].diff is not None and changes[1].diff.added == 1
    assert changes[3].diff is None  # the mode changed, not the bytes
    assert all(c.diff is None for c in file_changes(before, after))


def test_the_request_bodies_of_both_providers():
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
                {"role": "system", "content": "late"}]
    openai, anthropic = request_bodies(messages, Models())
    assert openai.value == {"model": Models().openai, "messages": messages}
    assert anthropic.value["system"] == "S\n\nlate"
    assert anthropic.value["messages"] == [{"role": "user", "content": "U"}]
    assert anthropic.note is not None and "moved into it" in anthropic.note
    assert cut_strings({"a": ["x" * 10]}, 4) == {"a": ["xxxx… [10 characters in all]"]}


def test_the_parts_of_an_address_a_page_reads_back():
    assert parse_lines("121-340") == (120, 340)
    # A number of 5,000 digits would make int() raise: it is refused before.
    for wrong in ("340-121", "0-5", "²-3", "1-" + "9" * 5000, None, 7):
        assert parse_lines(wrong) is None
    assert parse_opened("nonsense") == []


def test_a_long_saved_text_is_shown_to_a_line_end_and_the_rest_counted():
    text = "line\n" * 50
    assert shown_part(text, 1000) == (text, 0)
    shown, left = shown_part(text, 12)
    assert shown == "line\n" * 3 and left == len(text) - 15


def test_counts_read_as_words():
    assert (counted(1, "scenario"), counted(0, "scenario"), counted(2, "skill")) == (
        "1 scenario", "0 scenarios", "2 skills")
