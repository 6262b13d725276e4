"""A long diff sent a page at a time: the comparison page's diffs and the stages of the
editor's Pipeline tab.

Two triggers of a 200-skill agent can differ by the whole document: 21,000 removed
lines, which as the unified and the side-by-side tables of the document's and the
messages' diffs were 18 MB of HTML. So each table shows its first `DIFF_PAGE` rows
(hunk headers, lines or side-by-side rows) and a *fold*, "20,840 more rows of this
diff", that loads the next page in place (htmx) or, without JavaScript, opens that
range of rows as a page of its own (`agent_preview.compare_lines`).

Unchanged lines are never sent beyond each hunk's context (`diffing.CONTEXT_LINES`):
the hunks are the diff's own.

The Pipeline tab (`preview.StageView.page`) pages the same way, `STAGE_PAGE` rows of each
stage's diff, and its first stage's text (`layout` `text`) `STAGE_PAGE` lines at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from webapp.textdiff.lines import Diff, DiffLine, Row

#: Rows of a diff's table sent at once (a hunk's header counts as a row).
DIFF_PAGE = 120
#: Unified lines of a comparison's diff made, for its folds to page through (83 pages);
#: past them the diff counts its lines (`diff_lines`' `limit`), and the last page says how
#: many are not shown. Two scenarios of an agent of 200 skills of 100 KB differ by 300,000
#: lines: each made as a line (and sent back from the diff's worker) took seconds, and
#: the page sends 120.
COMPARED_LINES = 10_000
#: Rows (or lines) of a stage of the Pipeline tab sent at once: a stage that touches every
#: line of a 2 KB skill was 120 rows a layout, and the tab 125 KB per keystroke.
STAGE_PAGE = 30

#: The diffs of a comparison, and the two ways a diff is laid out.
DIFFS = ("document", "messages")
LAYOUTS = ("unified", "split")
#: How a stage of the Pipeline tab is laid out: its text (the first stage), or a diff.
STAGE_LAYOUTS = ("text", *LAYOUTS)


@dataclass(frozen=True, slots=True)
class HunkHeader:
    """A hunk's header row (`@@ -12,7 +12,8 @@`)."""

    header: str


@dataclass(frozen=True, slots=True)
class DiffFold:
    """Rows `start` to `end` (0-based, end excluded) of a diff's table in `layout` (or
    lines of a stage's text, `text`), not sent: a link loads them. `which` names the
    diff: `document` or `messages`, or a stage's index."""

    which: str
    layout: str
    start: int
    end: int

    @property
    def rows(self) -> str:
        """The range as the address names it: 1-based, both ends included."""
        return f"{self.start + 1}-{self.end}"

    @property
    def text(self) -> str:
        count = self.end - self.start
        if self.layout == "text":
            return f"{count:,} more line{'' if count == 1 else 's'} of this stage"
        return f"{count:,} more row{'' if count == 1 else 's'} of this diff"


Item = HunkHeader | DiffLine | Row | DiffFold
T = TypeVar("T")


def table_rows(diff: Diff, layout: str) -> list[HunkHeader | DiffLine | Row]:
    """Every row of `diff`'s table in `layout`: each hunk's header, then its unified
    lines or its side-by-side rows."""
    rows: list[HunkHeader | DiffLine | Row] = []
    for hunk in diff.hunks:
        rows.append(HunkHeader(hunk.header))
        rows.extend(hunk.lines if layout == "unified" else hunk.rows)
    return rows


def diff_page(diff: Diff, which: str, layout: str, start: int = 0,
              end: int | None = None, size: int = DIFF_PAGE) -> list[Item]:
    """Rows `start`..`end` of the table, its first `size` of them and a fold for
    the rest (None: to the end); on the last page, a note of the rows a `limit` of
    `diff_lines` left unmade."""
    rows = table_rows(diff, layout)
    page = paged(rows, which, layout, start, end, size)
    unmade = diff.unmade_lines if layout == "unified" else diff.unmade_rows
    if unmade and not isinstance(page[-1] if page else None, DiffFold) and (
            end is None or end >= len(rows)):
        page.append(HunkHeader(f"{unmade:,} more rows of this diff are not shown."))
    return page


def paged(rows: Sequence[T], which: str, layout: str, start: int, end: int | None,
          size: int) -> list[T | DiffFold]:
    """`rows[start:end]`, its first `size` of them and a fold for the rest."""
    end = len(rows) if end is None else min(end, len(rows))
    stop = min(end, start + size)
    page: list[T | DiffFold] = list(rows[start:stop])
    if stop < end:
        page.append(DiffFold(which, layout, stop, end))
    return page
