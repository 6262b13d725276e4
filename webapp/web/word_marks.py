"""The words that changed in a replaced line, marked within bounds on the work.

A diff shows a replaced line with the words that changed marked. difflib, without its
`autojunk` heuristic, weighs every word of one side against every word of the other, so
its work grows with the product of the two lines' words (two 40 KB one-line messages took
minutes). So the work is bounded three ways:

- a pair of lines of up to `WORD_LINE_WORDS` words each is marked as difflib marks it;
- a longer pair has the words it begins and ends with alike matched first, by a linear
  scan, and the middle between them is marked word by word if each side of it is within
  `WORD_LINE_WORDS`, else shown changed as a whole (a word typed into a long line is still
  marked alone);
- a diff marks the words of its first `WORD_PAIRS` pairs of lines while the pairs of words
  difflib weighs, summed over them, stay within `WORD_WORK`; the pairs after are shown as
  removed and added lines.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

#: Replaced lines whose changed words are marked, per diff: each costs a word-level
#: `SequenceMatcher` (a third of a megabyte of short lines all replaced took four seconds).
WORD_PAIRS = 1_000
#: The words each side of a line's changed middle may hold to be compared word by word.
WORD_LINE_WORDS = 1_000
#: The pairs of words difflib may weigh for one diff (at most a million a line): about a
#: tenth of a second on the development machine (docs/performance.md, "Word marking").
WORD_WORK = 2_000_000

# Words, runs of whitespace and single punctuation marks: the units emphasis works on.
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")

#: A line as parts, each a text and whether it changed.
Parts = tuple[tuple[str, bool], ...]
#: A difflib opcode: tag, then the `a` and `b` slices it covers.
Opcode = tuple[str, int, int, int, int]
#: Where two lines' words differ: `a[alo:ahi]` against `b[blo:bhi]`.
Span = tuple[int, int, int, int]


def word_parts(old: str, new: str) -> tuple[Parts, Parts]:
    """Split two versions of a line into parts, marking the words that differ."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    return _marked(a, b, _opcodes(a, b, _span(a, b)))


class WordMarker:
    """Marks the changed words of one diff's replaced lines, within `WORD_PAIRS` and
    `WORD_WORK`."""

    def __init__(self) -> None:
        self.pairs = WORD_PAIRS
        self.work = WORD_WORK

    def parts(self, old: str, new: str) -> tuple[Parts, Parts] | None:
        """`word_parts(old, new)`, or None once a bound is reached: the line is shown unmarked,
        and so are the lines after it."""
        if self.pairs <= 0:
            return None
        self.pairs -= 1
        a, b = _WORDS.findall(old), _WORDS.findall(new)
        span = _span(a, b)
        weighed = _weighed(span)
        if weighed > self.work:
            self.pairs = 0
            return None
        self.work -= weighed
        return _marked(a, b, _opcodes(a, b, span))


def _span(a: list[str], b: list[str]) -> Span:
    """The words of `a` and `b` to compare: all of them for lines within `WORD_LINE_WORDS`,
    else what lies between their common head and tail."""
    if len(a) <= WORD_LINE_WORDS and len(b) <= WORD_LINE_WORDS:
        return 0, len(a), 0, len(b)
    head = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        head += 1
    tail, most = 0, min(len(a), len(b)) - head
    while tail < most and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, len(a) - tail, head, len(b) - tail


def _within(span: Span) -> bool:
    """Whether each side of `span` is within `WORD_LINE_WORDS`: difflib compares it."""
    alo, ahi, blo, bhi = span
    return ahi - alo <= WORD_LINE_WORDS and bhi - blo <= WORD_LINE_WORDS


def _weighed(span: Span) -> int:
    """The pairs of words difflib weighs for `span`."""
    alo, ahi, blo, bhi = span
    return (ahi - alo) * (bhi - blo) if _within(span) else 0


def _opcodes(a: list[str], b: list[str], span: Span) -> list[Opcode]:
    """The opcodes that turn words `a` into words `b`: difflib's on `span`, or `span`
    replaced as a whole past `WORD_LINE_WORDS`; the words around it are equal."""
    alo, ahi, blo, bhi = span
    if _within(span):
        matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        middle = [(tag, i1 + alo, i2 + alo, j1 + blo, j2 + blo)
                  for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    else:
        middle = [("replace", alo, ahi, blo, bhi)]
    return [("equal", 0, alo, 0, blo), *middle, ("equal", ahi, len(a), bhi, len(b))]


def _marked(a: list[str], b: list[str], codes: list[Opcode]) -> tuple[Parts, Parts]:
    """The parts of words `a` and `b`, marked where `codes` are not `equal`."""
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in codes:
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
