"""Line diffs with the changed words marked, as plain data a template lays out.

`diff_lines(old, new)` returns hunks of unified-diff lines; each line is a list of
`(text, changed)` parts, so a template can wrap changed words in `<mark>`-like spans
without any HTML being built here. The same hunks give side-by-side rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest

#: Lines of unchanged context around each change, as `diff -u` shows.
CONTEXT_LINES = 3

# Words, runs of whitespace and single punctuation marks: the units emphasis works on.
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")

Parts = tuple[tuple[str, bool], ...]


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


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a side-by-side diff; a side is None where the other has no counterpart."""

    left: DiffLine | None
    right: DiffLine | None


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

    @property
    def changed(self) -> bool:
        return bool(self.hunks)


def word_parts(old: str, new: str) -> tuple[Parts, Parts]:
    """Split two versions of a line into parts, marking the words that differ."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        changed = tag != "equal"
        if i2 > i1:
            left.append(("".join(a[i1:i2]), changed))
        if j2 > j1:
            right.append(("".join(b[j1:j2]), changed))
    return _merge(left), _merge(right)


def _merge(parts: list[tuple[str, bool]]) -> Parts:
    """Join neighbouring parts with the same emphasis, so the markup stays small."""
    merged: list[tuple[str, bool]] = []
    for text, changed in parts:
        if merged and merged[-1][1] == changed:
            merged[-1] = (merged[-1][0] + text, changed)
        else:
            merged.append((text, changed))
    return tuple(merged)


def diff_lines(old: str, new: str, context: int = CONTEXT_LINES) -> Diff:
    """Diff `old` against `new` line by line, with word emphasis inside replaced lines."""
    a, b = old.splitlines(), new.splitlines()
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    hunks = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(context):
        lines: list[DiffLine] = []
        rows: list[Row] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    line = DiffLine("context", i1 + k + 1, j1 + k + 1, ((a[i1 + k], False),))
                    lines.append(line)
                    rows.append(Row(line, line))
                continue
            dels, adds = [], []
            for k, (old_line, new_line) in enumerate(zip_longest(a[i1:i2], b[j1:j2])):
                if old_line is not None and new_line is not None:
                    old_parts, new_parts = word_parts(old_line, new_line)
                else:
                    old_parts = ((old_line, False),) if old_line is not None else ()
                    new_parts = ((new_line, False),) if new_line is not None else ()
                left = DiffLine("del", i1 + k + 1, None, old_parts) if old_line is not None else None
                right = DiffLine("add", None, j1 + k + 1, new_parts) if new_line is not None else None
                if left:
                    dels.append(left)
                if right:
                    adds.append(right)
                rows.append(Row(left, right))
            lines += dels + adds
            removed += len(dels)
            added += len(adds)
        first, last = group[0], group[-1]
        header = (f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@")
        hunks.append(Hunk(header, tuple(lines), tuple(rows)))
    return Diff(tuple(hunks), added, removed)


def _range(start: int, stop: int) -> str:
    """A unified-diff range: `start,length` with 1-based start (as `diff -u` writes it)."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"
