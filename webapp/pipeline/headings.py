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
from typing import TypeVar

from .roles import FenceTracker

T = TypeVar("T")

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
    lines: Sequence[tuple[str, T]],
    on_clamp: Callable[[T], None] | None = None,
    is_data: Callable[[T], bool] | None = None,
    on_data_fence: Callable[[T, bool], None] | None = None,
) -> list[tuple[str, T]]:
    """Bump every heading of `lines` one level; each line carries a tag (its origin).

    A setext heading's paragraph lines are joined into one ATX line tagged with the
    first line's tag. `on_clamp` is called with the tag of each level-6 heading.

    Lines whose tag `is_data` (text a variable or tool put there) cannot change how the
    author's own lines are read: a fence a value opens ends with the value
    (`on_data_fence(tag of its opening line, False)` is called), a value's fence line
    cannot close a fence the author opened (`on_data_fence(its tag, True)`: the author's
    lines stay code up to the author's own closing fence), and a value's `===` or `---`
    underlines nothing.
    """
    out: list[tuple[str, T]] = []
    fence = FenceTracker()
    data_fence = FenceTracker()  # a fence opened by data, closed by data or by the author
    data_opened: T | None = None
    paragraph_start = -1  # index in `out` where the current paragraph began
    for item in lines:
        text = item[0]
        first = text[:1]
        if fence.char:  # inside the author's fence: only the author's lines can close it
            if is_data is None or not is_data(item[1]):
                fence.feed(text)
            elif on_data_fence is not None and fence.closes(text):
                on_data_fence(item[1], True)
            out.append(item)
            continue
        if data_fence.char:
            if is_data is not None and is_data(item[1]):
                data_fence.feed(text)
                out.append(item)
                continue
            if on_data_fence is not None:  # an author line: the value's fence ends here
                on_data_fence(data_opened, False)  # type: ignore[arg-type]
            data_fence = FenceTracker()
        # Fast paths first: most lines are prose, list items or ATX headings.
        if first.isalpha():
            if paragraph_start < 0:
                paragraph_start = len(out)
            out.append(item)
            continue
        if first in _LIST_START and text[1:2] in (" ", "\t"):
            paragraph_start = -1
            out.append(item)
            continue
        if first in "# ":
            level = atx_level(text)
            if level:
                if level == 6 and on_clamp is not None:
                    on_clamp(item[1])
                stripped = text.lstrip(" ")
                out.append(("#" + stripped if level < 6 else stripped, item[1]))
                paragraph_start = -1
                continue
        if not text.strip():
            out.append(item)
            paragraph_start = -1
            continue
        if first in "`~ ":
            data = is_data is not None and is_data(item[1])
            if (data_fence if data else fence).feed(text):
                if data:
                    data_opened = item[1]
                out.append(item)
                paragraph_start = -1
                continue
        if paragraph_start >= 0 and first in "=- " and not (
                is_data is not None and is_data(item[1])):
            underline = setext_level(text)
            if underline:  # the paragraph above becomes one ATX heading, one level deeper
                para = out[paragraph_start:]
                del out[paragraph_start:]
                joined = " ".join(t.strip() for t, _ in para)
                out.append(("#" * (underline + 1) + " " + joined, para[0][1]))
                paragraph_start = -1
                continue
        if _is_paragraph_line(text):
            if paragraph_start < 0:
                paragraph_start = len(out)
        elif not (paragraph_start >= 0 and text.startswith("    ")):  # indented: continuation
            paragraph_start = -1
        out.append(item)
    if data_fence.char and on_data_fence is not None:
        on_data_fence(data_opened, False)  # type: ignore[arg-type]
    return out
