"""Heading bump: the runtime owns the `#` title, so every heading in skill text moves down
one level.

ATX headings (0-3 spaces, 1-6 `#`, then a space or the end of the line) gain a `#`;
setext headings (text underlined by `===` or `---`) become ATX headings one level
deeper. Lines inside fenced code blocks are never touched, nor `#hashtag` or
`#include`. A level-6 heading stays level 6 and is reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .roles import FenceTracker

_LIST_START = frozenset("-+*")


def atx_level(line: str) -> int:
    """The level of an ATX heading line, or 0 if `line` is not one."""
    stripped = line.lstrip(" ")
    if not stripped.startswith("#") or len(line) - len(stripped) > 3:
        return 0
    level = len(stripped) - len(stripped.lstrip("#"))
    if level > 6:
        return 0
    rest = stripped[level:]
    if rest and rest[0] not in " \t":
        return 0
    return level


#: A line that may be a fence, a setext underline or a level-6 heading, after a "\n": a
#: filter that finds more than those (any indentation), never fewer.
_NEEDS_LINES = re.compile(r"\n[ \t]*(?:```|~~~|[-=]+[ \t]*(?:\n|\Z)|#{6}(?:[ \t\n]|\Z))")
#: The indentation and first `#` of an ATX heading of level 1 to 5 after a "\n":
#: `atx_level`'s rule (at most three spaces, then `#`s and a blank or the line's end).
_ATX_1_TO_5 = re.compile(r"\n {0,3}#(?=#{0,4}(?:[ \t\n]|\Z))")


def bump_text(text: str) -> str | None:
    """`text` (lines joined by "\n") with every heading bumped, when no line of it may be a
    fence, a setext underline or a level-6 heading, as in most skills: then bumping only
    adds a `#` to ATX headings (and drops their indentation), which two scans in C do.
    None otherwise: `bump_headings` must follow the lines one by one.

    Gives what `bump_headings` gives whenever it gives a text (a property test holds the
    two together); a cold assembly of 1,000 skills spent a fifth of its time in the
    line loop before.
    """
    framed = "\n" + text
    if _NEEDS_LINES.search(framed) is not None:
        return None
    if "#" not in text:
        return text
    return _ATX_1_TO_5.sub("\n##", framed)[1:]


def setext_level(line: str) -> int:
    """1 for a `===` underline, 2 for a `---` underline, else 0."""
    stripped = line.strip(" \t")
    if not stripped or len(line) - len(line.lstrip(" ")) > 3:
        return 0
    char = stripped[0]
    if char not in "=-" or stripped.strip(char):
        return 0
    return 1 if char == "=" else 2


def _is_paragraph_line(line: str) -> bool:
    """Could `line` be (part of) a paragraph that a setext underline turns into a heading?"""
    stripped = line.lstrip(" ")
    if not stripped or len(line) - len(stripped) > 3:
        return False
    first = stripped[0]
    if first == ">" or atx_level(line) or setext_level(line) == 2:
        return False
    if first in _LIST_START and (len(stripped) == 1 or stripped[1] in " \t"):
        return False
    if first in "0123456789":
        digits = len(stripped) - len(stripped.lstrip("0123456789"))
        rest = stripped[digits:]
        if digits <= 9 and rest[:1] in (".", ")") and (len(rest) == 1 or rest[1] in " \t"):
            return False
    return not (first in "`~" and stripped.startswith(first * 3))


def bump_headings(
    texts: Sequence[str],
    on_clamp: Callable[[int], None] | None = None,
    data: Sequence[int] | None = None,
    on_data_fence: Callable[[int, bool], None] | None = None,
) -> tuple[list[str], list[int] | None]:
    """Bump every heading of the lines `texts` one level: the bumped lines, and the index
    in `texts` of each of them when a setext heading joined lines (None when every line
    was kept, in order). Callbacks are given a line's index.

    A setext heading's paragraph lines are joined into one ATX line, which stands for
    the paragraph's first line; its underline is dropped. `on_clamp` is called with each
    level-6 heading's index.

    The lines `data` marks (a true item per line: text a variable or tool put there)
    cannot change how the author's own lines are read: a fence a value opens ends with
    the value (`on_data_fence(index of its opening line, False)` is called), a value's
    fence line cannot close a fence the author opened (`on_data_fence(its index, True)`:
    the author's lines stay code up to the author's own closing fence), and a value's
    `===` or `---` underlines nothing.
    """
    out: list[str] = []
    joins: list[tuple[int, int]] = []  # each setext heading's first line and underline
    fence = FenceTracker()
    data_fence = FenceTracker()  # a fence opened by data, closed by data or by the author
    data_opened = -1
    paragraph_start = -1  # index in `out` where the current paragraph began
    dropped = 0  # lines of `texts` that no line of `out` stands for, so far
    for at, text in enumerate(texts):
        first = text[:1]
        if fence.char:  # inside the author's fence: only the author's lines can close it
            if data is None or not data[at]:
                fence.feed(text)
            elif on_data_fence is not None and fence.closes(text):
                on_data_fence(at, True)
            out.append(text)
            continue
        if data_fence.char:
            if data is not None and data[at]:
                data_fence.feed(text)
                out.append(text)
                continue
            if on_data_fence is not None:  # an author line: the value's fence ends here
                on_data_fence(data_opened, False)
            data_fence = FenceTracker()
        # Fast paths first: most lines are prose, list items or ATX headings.
        if first.isalpha():
            if paragraph_start < 0:
                paragraph_start = len(out)
            out.append(text)
            continue
        if first in _LIST_START and text[1:2] in (" ", "\t"):
            paragraph_start = -1
            out.append(text)
            continue
        if first in "# ":
            level = atx_level(text)
            if level:
                if level == 6 and on_clamp is not None:
                    on_clamp(at)
                stripped = text.lstrip(" ")
                out.append("#" + stripped if level < 6 else stripped)
                paragraph_start = -1
                continue
        if not text.strip():
            out.append(text)
            paragraph_start = -1
            continue
        if first in "`~ ":
            is_data = data is not None and data[at]
            if (data_fence if is_data else fence).feed(text):
                if is_data:
                    data_opened = at
                out.append(text)
                paragraph_start = -1
                continue
        if paragraph_start >= 0 and first in "=- " and not (data is not None and data[at]):
            underline = setext_level(text)
            if underline:  # the paragraph above becomes one ATX heading, one level deeper
                joined = " ".join(t.strip() for t in out[paragraph_start:])
                joins.append((paragraph_start + dropped, at))
                dropped += len(out) - paragraph_start
                del out[paragraph_start:]
                out.append("#" * (underline + 1) + " " + joined)
                paragraph_start = -1
                continue
        if _is_paragraph_line(text):
            if paragraph_start < 0:
                paragraph_start = len(out)
        elif not (paragraph_start >= 0 and text.startswith("    ")):  # indented: continuation
            paragraph_start = -1
        out.append(text)
    if data_fence.char and on_data_fence is not None:
        on_data_fence(data_opened, False)
    return out, _kept(len(texts), joins) if joins else None


def _kept(count: int, joins: list[tuple[int, int]]) -> list[int]:
    """The indexes of the `count` lines that the bumped lines stand for, given each setext
    heading's first line and underline: the paragraph's first line stands for the
    heading, its other lines (up to the underline, which is right below it) and the
    underline are gone."""
    kept: list[int] = []
    at = 0
    for first, underline in joins:
        kept += range(at, first + 1)
        at = underline + 1
    kept += range(at, count)
    return kept
