"""A draft of a third of a megabyte of short lines (the worst case of `make bench`: 166,000
heading lines) previews in bounded bytes and work, whatever tab is shown: the diffs make
at most `SHOWN_ROWS` lines and mark the words of at most `WORD_PAIRS` pairs, the Source
view shows the edited skill's first `MINE_LINES`, and a draft posted without JavaScript
is windowed past `WHOLE_LINES`. It took 13 to 20 seconds and answered up to 178 MB."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX
from webapp.textdiff.lines import SHOWN_ROWS, diff_lines, exact_diff
from webapp.textdiff.words import WORD_PAIRS
from webapp.views.document_window import MINE_LINES

HEADINGS = "#\n" * (1_000_000 // 6)
URL = "/agents/Simon/skills/chat/preview"

#: The largest answer each tab may give for `HEADINGS` (measured: 0.5 MB, 0.3 MB, 1.5 MB,
#: 15 KB, 8 KB, 6 KB, 15 KB, 15 KB, 6 KB; with no panel named, the large page: the Document's
#: rendered view and a button for each other panel).
BOUNDS = {"document:rendered": 1 << 20, "document:source": 1 << 20, "diff": 2 << 20,
          "messages": 64 << 10, "log": 64 << 10, "problems": 64 << 10,
          "pipeline:unified": 64 << 10, "pipeline:split": 64 << 10, "budget": 64 << 10,
          None: 4 << 20}


@pytest.mark.parametrize("shown", list(BOUNDS), ids=lambda shown: shown or "no-javascript")
def test_a_third_of_a_megabyte_of_headings_previews_in_bounded_bytes(client, simon,
                                                                      skill_form, shown):
    data = skill_form(HEADINGS)
    if shown is not None:
        data["shown"] = shown
    response = client.post(URL, data=data, headers=HTMX)
    assert response.status_code == 200
    assert len(response.data) <= BOUNDS[shown]
    html = response.data.decode()
    if shown == "diff":
        assert "more rows of this diff are not shown" in html
    if shown is None:  # a large draft naming no panel: the Document alone, a button a panel
        assert 'name="shown" value="diff" formaction="/agents/Simon/skills/chat/preview"' in html
    if shown == "document:source":  # the skill's first lines, the rest in a fold
        assert 'class="fold-link"' in html


def test_a_long_diff_makes_its_first_rows_and_counts_the_rest():
    old, new = "a\n" * 50_000, "b\n" * 50_000
    whole, limited = diff_lines(old, new), diff_lines(old, new, limit=SHOWN_ROWS)
    assert (limited.added, limited.removed) == (whole.added, whole.removed) == (50_000, 50_000)
    made = sum(len(hunk.lines) for hunk in limited.hunks)
    assert made == SHOWN_ROWS
    assert made + limited.unmade_lines == sum(len(hunk.lines) for hunk in whole.hunks)
    rows = sum(len(hunk.rows) for hunk in limited.hunks)
    assert rows + limited.unmade_rows == sum(len(hunk.rows) for hunk in whole.hunks)
    shown, hidden = limited.cut("unified")
    assert sum(len(lines) for _, lines in shown) + hidden == 100_000


def test_a_short_diff_is_the_same_with_a_limit():
    old, new = "one\ntwo\nthree\n" * 10, "one\n2\nthree\n" * 10
    assert diff_lines(old, new, limit=SHOWN_ROWS) == diff_lines(old, new)


def test_words_are_marked_in_the_first_pairs_only():
    diff = exact_diff("x y\n" * 5_000, "x z\n" * 5_000, limit=20_000)
    marked = [line for hunk in diff.hunks for line in hunk.lines
              if line.kind == "del" and any(changed for _, changed in line.parts)]
    assert len(marked) == WORD_PAIRS
    assert diff.added == diff.removed == 5_000


def test_the_edited_skill_s_source_shows_its_first_lines_then_a_fold(client, simon, skill_form):
    data = skill_form("line\n" * (3 * MINE_LINES))
    data["shown"] = "document:source"
    html = client.post(URL, data=data, headers=HTMX).data.decode()
    assert html.count('class="fold-link"') >= 1
    assert html.count(">line<") <= MINE_LINES + 50
