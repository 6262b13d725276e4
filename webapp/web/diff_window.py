"""A long diff sent a page at a time: the comparison page's diffs.

Two triggers of a 200-skill agent can differ by the whole document: 21,000 removed
lines, which as the unified and the side-by-side tables of the document's and the
messages' diffs were 18 MB of HTML. So each table shows its first `DIFF_PAGE` rows
(hunk headers, lines or side-by-side rows) and a *fold*, "20,840 more rows of this
diff", that loads the next page in place (htmx) or, without JavaScript, opens that
range of rows as a page of its own (`agent_preview.compare_lines`).

Unchanged lines are never sent beyond each hunk's context (`diffing.CONTEXT_LINES`):
the hunks are the diff's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from .diffing import Diff, DiffLine, Row

#: Rows of a diff's table sent at once (a hunk's header counts as a row).
DIFF_PAGE = 120

#: The diffs of a comparison, and the two ways a diff is laid out.
DIFFS = ("document", "messages")
LAYOUTS = ("unified", "split")


@dataclass(frozen=True, slots=True)
class HunkHeader:
    """A hunk's header row (`@@ -12,7 +12,8 @@`)."""

    header: str


@dataclass(frozen=True, slots=True)
class DiffFold:
    """Rows `start` to `end` (0-based, end excluded) of a diff's table in `layout`, not
    sent: a link loads them."""

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
        return f"{count:,} more row{'' if count == 1 else 's'} of this diff"


Item = HunkHeader | DiffLine | Row | DiffFold


def table_rows(diff: Diff, layout: str) -> list[HunkHeader | DiffLine | Row]:
    """Every row of `diff`'s table in `layout`: each hunk's header, then its unified
    lines or its side-by-side rows."""
    rows: list[HunkHeader | DiffLine | Row] = []
    for hunk in diff.hunks:
        rows.append(HunkHeader(hunk.header))
        rows.extend(hunk.lines if layout == "unified" else hunk.rows)
    return rows


def diff_page(diff: Diff, which: str, layout: str, start: int = 0,
              end: int | None = None) -> list[Item]:
    """Rows `start`..`end` of the table, its first `DIFF_PAGE` of them and a fold for
    the rest (None: to the end)."""
    rows = table_rows(diff, layout)
    end = len(rows) if end is None else min(end, len(rows))
    stop = min(end, start + DIFF_PAGE)
    page: list[Item] = list(rows[start:stop])
    if stop < end:
        page.append(DiffFold(which, layout, stop, end))
    return page
