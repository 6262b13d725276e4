"""The words that changed in a replaced line, marked within a bound on the work.

A diff shows a replaced line with the words that changed marked, as difflib's
`SequenceMatcher` (without its `autojunk` heuristic) finds them. Its search is pure Python
and, on lines whose words repeat, cubic in their length: a 40 KB one-line message took
minutes, and two lines of 500 `a` against 500 `b` (1,000 words each, the spaces matching)
take seconds. So the work is counted and bounded:

- a step is one word of `a` that difflib's search looks at, or one occurrence in `b` of such
  a word (what `find_longest_match` visits), counted before each search;
- a diff's word marking may take `WORD_STEPS` steps in all; a line whose search would pass
  them is shown with its differing middle changed as a whole, and the lines after it are
  shown as removed and added lines, unmarked (as past `WORD_PAIRS` lines);
- a line of more than `WORD_LINE_WORDS` words has the words it begins and ends with alike
  matched first by a linear scan, and only the middle between them is searched (a word
  typed into a long line is still marked alone); a shorter line is searched whole, so its
  marks are difflib's.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import Match, SequenceMatcher

from webapp.pipeline import find_placeholders

#: Replaced lines whose changed words are marked, per diff: each costs a word-level
#: `SequenceMatcher` (a third of a megabyte of short lines all replaced took four seconds).
WORD_PAIRS = 1_000
#: The steps word marking may take for one diff: a tenth to a fifth of a second on the
#: development machine (docs/performance.md, "Word marking").
WORD_STEPS = 2_000_000
#: Lines with more words than this have their common head and tail matched before the search.
WORD_LINE_WORDS = 1_000

# Words, runs of whitespace and single punctuation marks: the units emphasis works on.
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")


def _words(line: str) -> list[str]:
    """The units of `line` to compare: `_WORDS`, except that a `{{name}}` placeholder is
    one unit, so two placeholders are paired whole or not at all (`{{identity}}` against
    `{{agent_profile}}` is one placeholder for another, not a name renamed between kept
    braces)."""
    if "{{" not in line:
        return _WORDS.findall(line)
    units: list[str] = []
    at = 0
    for found in find_placeholders(line):
        units += _WORDS.findall(line[at:found.start])
        units.append(line[found.start:found.end])
        at = found.end
    return units + _WORDS.findall(line[at:])

#: A line as parts, each a text and whether it changed.
Parts = tuple[tuple[str, bool], ...]
#: A difflib opcode: tag, then the `a` and `b` slices it covers.
Opcode = tuple[str, int, int, int, int]
#: Where two lines' words differ: `a[alo:ahi]` against `b[blo:bhi]`.
Span = tuple[int, int, int, int]


def word_parts(old: str, new: str) -> tuple[Parts, Parts]:
    """Split two versions of a line into parts, marking the words that differ."""
    return WordMarker().parts(old, new) or (((old, True),), ((new, True),))


class WordMarker:
    """Marks the changed words of one diff's replaced lines, within `WORD_PAIRS` lines and
    `WORD_STEPS` steps."""

    def __init__(self) -> None:
        self.pairs = WORD_PAIRS
        self.steps = WORD_STEPS

    def parts(self, old: str, new: str) -> tuple[Parts, Parts] | None:
        """The parts of `old` and `new` with their changed words marked, or None once a bound
        is reached (the line is shown unmarked)."""
        if self.pairs <= 0 or self.steps <= 0:
            return None
        self.pairs -= 1
        a, b = _words(old), _words(new)
        alo, ahi, blo, bhi = _span(a, b)
        matcher = _CountedMatcher(a[alo:ahi], b[blo:bhi], self.steps)
        try:
            middle = [(tag, i1 + alo, i2 + alo, j1 + blo, j2 + blo)
                      for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
            self.steps -= matcher.steps
        except _OutOfSteps:
            middle = [("replace", alo, ahi, blo, bhi)]
            self.steps = 0
        codes = [("equal", 0, alo, 0, blo), *middle, ("equal", ahi, len(a), bhi, len(b))]
        return _marked(a, b, codes)


class _OutOfSteps(Exception):
    """A search would take word marking past its steps."""


class _CountedMatcher(SequenceMatcher[str]):
    """difflib's matcher (no junk), counting the steps of each search for a longest match
    before it runs, and stopping with `_OutOfSteps` rather than pass `most` steps."""

    def __init__(self, a: list[str], b: list[str], most: int) -> None:
        self.steps, self._most, self._in_b = 0, most, Counter(b)
        super().__init__(None, a, b, autojunk=False)

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None) -> Match:
        ahi = len(self.a) if ahi is None else ahi
        in_b = self._in_b
        self.steps += (ahi - alo) + sum(in_b[word] for word in self.a[alo:ahi] if word in in_b)
        if self.steps > self._most:
            raise _OutOfSteps
        return super().find_longest_match(alo, ahi, blo, bhi)


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
