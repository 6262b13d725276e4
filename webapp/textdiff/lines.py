"""Line diffs with the changed words marked, as plain data a template lays out.

`diff_lines(old, new)` returns hunks of unified-diff lines; each line is a list of
`(text, changed)` parts (the changed words marked by `word_marks`), so a template can wrap
changed words in `<mark>`-like spans without any HTML being built here. The same hunks give
side-by-side rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest

from webapp.bounds import deadlines

from .opcodes import COMPARED_LINES, Opcode, line_window, trim
from .words import Parts, WordMarker

#: Lines of unchanged context around each change, as `diff -u` shows.
CONTEXT_LINES = 3
#: Rows a diff's table shows (`Diff.cut`), the rest counted in a note: a page of a
#: preview, a conflict or a history shows what a person reads, not a whole megabyte of
#: lines as hundreds of megabytes of HTML.
SHOWN_ROWS = 2_000

#: What a page says above a diff whose lines were compared roughly (`Diff.rough`).
ROUGH_NOTICE = ("Compared roughly: finding the changed lines took too long, so everything "
                "between the first and the last changed line is shown as one change.")

#: What it says when only a window of the two texts was compared (`Diff.windowed`).
WINDOW_NOTICE = ("Compared in part: the texts differ over more than {lines:,} lines, so the "
                 "changes in their first {lines:,} differing lines are shown line by line "
                 "and everything after them as one change.")


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a unified diff: `kind` is `context`, `add` or `del`."""

    kind: str
    old_no: int | None
    new_no: int | None
    parts: Parts

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.parts)

    @property
    def sign(self) -> str:
        return {"add": "+", "del": "-"}.get(self.kind, " ")

    def __reduce__(self) -> tuple[type[DiffLine], tuple[str, int | None, int | None, Parts]]:
        # Made by its constructor when a worker's diff is read back: a dataclass with slots
        # is otherwise set field by field (a third of reading 40,000 lines).
        return DiffLine, (self.kind, self.old_no, self.new_no, self.parts)


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a side-by-side diff; a side is None where the other has no counterpart."""

    left: DiffLine | None
    right: DiffLine | None

    def __reduce__(self) -> tuple[type[Row], tuple[DiffLine | None, DiffLine | None]]:
        return Row, (self.left, self.right)


@dataclass(frozen=True, slots=True)
class Hunk:
    """A run of changes with its context, headed like `@@ -12,7 +12,8 @@`."""

    header: str
    lines: tuple[DiffLine, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Diff:
    """The diff of two texts: empty `hunks` means no change."""

    hunks: tuple[Hunk, ...]
    added: int
    removed: int
    #: Past `diff_lines`' `limit`: the unified lines and side-by-side rows not made.
    unmade_lines: int = 0
    unmade_rows: int = 0
    #: Finding the changed lines overran its deadline: the lines between the common first
    #: and last ones are shown as one change, without marked words.
    rough: bool = False
    #: Only the first `COMPARED_LINES` differing lines were compared (`line_window`); a
    #: windowed diff is rough too.
    windowed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.hunks)

    @property
    def notice(self) -> str:
        """What a page says above a rough diff."""
        if self.windowed:
            return WINDOW_NOTICE.format(lines=COMPARED_LINES)
        return ROUGH_NOTICE if self.rough else ""

    def cut(self, layout: str, limit: int = SHOWN_ROWS
            ) -> tuple[list[tuple[str, tuple[DiffLine, ...] | tuple[Row, ...]]], int]:
        """The table in `layout` (`unified` lines or `split` rows) as a page shows it: each
        hunk's header and rows, at most `limit` rows in all; and the rows left out."""
        shown: list[tuple[str, tuple[DiffLine, ...] | tuple[Row, ...]]] = []
        hidden = self.unmade_lines if layout == "unified" else self.unmade_rows
        for hunk in self.hunks:
            rows = hunk.lines if layout == "unified" else hunk.rows
            if limit <= 0:
                hidden += len(rows)
                continue
            shown.append((hunk.header, rows[:limit]))
            hidden += max(0, len(rows) - limit)
            limit -= len(rows)
        return shown, hidden


def diff_lines(old: str, new: str, context: int = CONTEXT_LINES,
               limit: int | None = None) -> Diff:
    """Diff `old` against `new` line by line, with word emphasis inside replaced lines,
    within the `diff` deadline of a worker process (`webapp.bounds.deadlines`); past it, the diff
    `rough_diff` gives.

    With a `limit`, lines past that many unified lines are counted, not made (see
    `exact_diff`).
    """
    a, b = old.splitlines(), new.splitlines()
    # Only what lies between the common head and tail, with its context, goes to the
    # worker: a change in a 20 MB document sends a few lines, not 40 MB down a pipe.
    alo, ahi, blo, bhi = trim(a, b, 0, len(a), 0, len(b))
    start = max(0, alo - context)
    job = (_sent(a, start, alo, ahi, context, limit), _sent(b, start, blo, bhi, context, limit),
           context, limit, start)
    diff = deadlines.run("diff", _diff_of_sent, [job]).results[0]
    return rough_diff(old, new, context, limit) if diff is deadlines.OVERRUN else diff


def rough_diff(old: str, new: str, context: int = CONTEXT_LINES,
               limit: int | None = None) -> Diff:
    """The lines `old` and `new` share at their start and end, and all between them as one
    change, without marked words: made in one pass whatever the texts (`Diff.rough`)."""
    a, b = old.splitlines(), new.splitlines()
    start, ahi, _, bhi = trim(a, b, 0, len(a), 0, len(b))
    middle = "replace" if ahi > start and bhi > start else ("delete" if ahi > start else "insert")
    codes: list[Opcode] = [("equal", 0, start, 0, start), (middle, start, ahi, start, bhi),
                           ("equal", ahi, len(a), bhi, len(b))]
    codes = [code for code in codes if code[2] > code[1] or code[4] > code[3]]
    diff = exact_diff(old, new, context, limit, opcodes=codes, words=False)
    return dataclasses.replace(diff, rough=True)


def exact_diff(old: str, new: str, context: int = CONTEXT_LINES, limit: int | None = None,
               opcodes: list[Opcode] | None = None, words: bool = True) -> Diff:
    """Diff `old` against `new` line by line, with word emphasis inside replaced lines
    unless not `words` (within `word_marks`' bounds), in this process; `opcodes` are the
    line opcodes if already known.

    With a `limit`, lines past that many unified lines are counted, not made
    (`Diff.unmade_lines`, `unmade_rows`): all a page that shows `SHOWN_ROWS` needs, when a
    megabyte of short lines would be a third of a million `DiffLine`s.
    """
    return _diff_of_lines((old.splitlines(), new.splitlines(), context, limit, 0), opcodes,
                          words)


#: One side's lines as a worker gets them (`_sent`): the first ones as one text, how many
#: lines follow that are counted and not sent, and the last ones as one text.
Sent = tuple[str | None, int, str | None]
#: What stands for each line of the old and the new text that was not sent: no line of a
#: text holds a newline, so neither equals any line, nor each other.
_UNSENT = ("\n(old line not sent)", "\n(new line not sent)")


def _sent(lines: list[str], start: int, lo: int, hi: int, context: int,
          limit: int | None) -> Sent:
    """Lines `start` up to `hi` and its context of one side of a diff whose common head
    ends at `lo` and common tail starts at `hi`, as its worker gets them: each run of
    lines as one text (a pipe carries one string of 20 MB in a tenth of the time it takes
    to pickle 200,000), and with a `limit`, the middle lines past any the diff can read
    counted, not sent. A diff compares `COMPARED_LINES` after the head (`line_window`) and
    then makes `limit` lines at most: two scenarios of a 20 MB agent differ over 200,000
    lines a side, of which it reads 30,000."""
    end = min(len(lines), hi + context)
    keep = end if limit is None else lo + COMPARED_LINES + limit + context
    if keep >= hi:
        return _packed(lines[start:end]), 0, None
    return _packed(lines[start:keep]), hi - keep, _packed(lines[hi:end])


def _packed(lines: list[str]) -> str | None:
    return "\n".join(lines) if lines else None


def _lines(sent: Sent, unsent: str) -> list[str]:
    """The lines `_sent` sent, each one not sent as `unsent`."""
    head, count, tail = sent
    return ((head.split("\n") if head is not None else []) + [unsent] * count
            + (tail.split("\n") if tail is not None else []))


def _diff_of_sent(job: tuple[Sent, Sent, int, int | None, int]) -> Diff:
    """`_diff_of_lines` of the sides `_sent` sent: the same diff as of all their lines."""
    a, b, context, limit, offset = job
    return _diff_of_lines((_lines(a, _UNSENT[0]), _lines(b, _UNSENT[1]), context, limit,
                           offset))


def _diff_of_lines(job: tuple[list[str], list[str], int, int | None, int],
                   opcodes: list[Opcode] | None = None, words: bool = True) -> Diff:
    """`exact_diff` of lines `a` and `b`, the first of which is line `offset` of each
    text (the lines before it are the same on both sides)."""
    a, b, context, limit, offset = job
    hunks = []
    added = removed = unmade_lines = unmade_rows = 0
    room = len(a) + len(b) if limit is None else limit  # unified lines still to make
    windowed = False
    if opcodes is None:
        opcodes, windowed = line_window(a, b)
    marker = WordMarker() if words else None
    for group in _grouped(opcodes, context):
        if room <= 0:
            unmade_lines, unmade_rows = unmade_lines + 1, unmade_rows + 1  # its header
        lines: list[DiffLine] = []
        rows: list[Row] = []
        for tag, i1, i2, j1, j2 in group:
            if tag != "equal":
                removed, added = removed + i2 - i1, added + j2 - j1
            # The old and new lines of this opcode that are made (equal: the same count).
            ka = min(i2 - i1, max(room, 0))
            kb = ka if tag == "equal" else min(j2 - j1, max(room - ka, 0))
            unmade_lines += (i2 - i1 - ka) + (0 if tag == "equal" else j2 - j1 - kb)
            unmade_rows += max(i2 - i1, j2 - j1) - max(ka, kb)
            room -= ka + (0 if tag == "equal" else kb)
            if tag == "equal":
                for k in range(ka):
                    line = DiffLine("context", offset + i1 + k + 1, offset + j1 + k + 1,
                                    ((a[i1 + k], False),))
                    lines.append(line)
                    rows.append(Row(line, line))
                continue
            dels, adds = [], []
            for k, (old_line, new_line) in enumerate(zip_longest(a[i1:i1 + ka],
                                                                 b[j1:j1 + kb])):
                marked = (marker.parts(old_line, new_line) if marker is not None
                          and old_line is not None and new_line is not None else None)
                if marked is not None:
                    old_parts, new_parts = marked
                else:
                    old_parts = ((old_line, False),) if old_line is not None else ()
                    new_parts = ((new_line, False),) if new_line is not None else ()
                left = (DiffLine("del", offset + i1 + k + 1, None, old_parts)
                        if old_line is not None else None)
                right = (DiffLine("add", None, offset + j1 + k + 1, new_parts)
                         if new_line is not None else None)
                if left:
                    dels.append(left)
                if right:
                    adds.append(right)
                rows.append(Row(left, right))
            lines += dels + adds
        if lines:
            first, last = group[0], group[-1]
            header = (f"@@ -{_range(offset + first[1], offset + last[2])} "
                      f"+{_range(offset + first[3], offset + last[4])} @@")
            hunks.append(Hunk(header, tuple(lines), tuple(rows)))
    return Diff(tuple(hunks), added, removed, unmade_lines, unmade_rows, rough=windowed,
                windowed=windowed)


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """The changes of `codes` with `n` lines of context: difflib's own grouping."""
    return _KnownOpcodes(codes).get_grouped_opcodes(n)


class _KnownOpcodes(SequenceMatcher):
    """A matcher whose opcodes are already known (`line_opcodes` finds them faster than
    difflib would), so that difflib's public `get_grouped_opcodes` groups them."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, "", "")
        self._codes = codes

    def get_opcodes(self) -> list[Opcode]:
        # A copy: the grouping narrows the first and last runs in place.
        return list(self._codes)


def _range(start: int, stop: int) -> str:
    """A unified-diff range: `start,length` with 1-based start (as `diff -u` writes it)."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"
