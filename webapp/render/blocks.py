"""Where a document may be cut into blocks that render apart as they render together.

The preview renders a whole assembled document on every keystroke, and a large workspace
assembles to half a megabyte; rendered a block at a time through a cache keyed by the
block's text, a keystroke renders only the block it changed. The cuts follow a rule of
our own, stated in Markdown's terms rather than in Python-Markdown's or Pygments' private
regexes, and conservative: where it is unsure, it does not cut.

**The rule.** A cut is made before a line that starts with an ASCII letter or `#` and
follows an empty line, and only where nothing of the text before can reach past it:

- not inside a fenced code block, nor after a fence line that is not *clean* (below);
- not while a `[` or a `](` before it is still open (a link may span lines);
- for rendered HTML, not after the first `<` outside a fenced block (raw HTML, and
  unclosed tags that reach the blocks after them);
- the text is not cut at all if it holds a reference definition (`]:`, seen by every link
  of the text), a line break other than `\\n` (`\\r`, form feed, `\\u2028` ...), a BOM or
  a control character other than tab and newline.

A fence line is a line whose first characters other than spaces are three backticks or
three tildes. Fence lines pair up in order, an opening and a closing line, and the fences
are clean when each pair is: an opening line at the line's start of exactly three
backticks or tildes and an optional language name (ASCII letters, digits, `_` and `-`),
after an empty line or a line starting with a letter or digit, not followed by a line of
only `=` or `-` (which would make it a heading); and a closing line that is the opening
marker alone. From the first fence line where this fails (or an opening line without a
closing one), the rest of the text is one block. An empty line is one with no characters.
The blocks are slices of the text, each but the last ending with the blank lines after it.

After an empty line, a line starting with a letter or `#` begins a paragraph or a heading
in any Markdown, so it cannot continue a list, a quote or indented code before it, nor be
taken along by markup before it; the list above covers what spans blank lines in
Python-Markdown (fences, raw HTML, references) and in Pygments' Markdown lexer (fences,
links). The tests render every block apart and the whole text in one go and compare, for
adversarial cases and for generated markdown; they are what a library upgrade must pass.
"""

from __future__ import annotations

import re
import string

from webapp.bounds.lru import LRU

#: How many characters (of text and of HTML) each block cache may hold: a few large documents.
CACHE_CHARS = 32_000_000

# A blank line: a run of newlines, taken whole. Whether the line after it may start a
# block is asked apart (`_STARTS_BLOCK`): in a lookahead (`\n\n+(?=[A-Za-z#])`) it would
# retry the run from each of its newlines when it may not, quadratic in the run.
_NEWLINE_RUN = re.compile(r"\n\n+")
#: The characters a line may start with to begin a block after a blank line.
_STARTS_BLOCK = frozenset(string.ascii_letters + "#")
_CLEAN_OPENING = re.compile(r"(```|~~~)[A-Za-z0-9_-]*\n")
_UNDERLINE = re.compile(r"[=-]+(?:\n|\Z)")
# Characters whose text is one block: line breaks other than "\n", the BOM, C0 controls.
_ONE_BLOCK = "".join(map(chr, [*range(0x09), *range(0x0b, 0x20), 0x7f, 0x85, 0x2028, 0x2029,
                               0xfeff]))


def markdown_blocks(text: str) -> list[str]:
    """`text` cut by the rule above for rendering to HTML (no cut after the first `<`)."""
    return _split(text, _cuts(text, html=True))


def source_blocks(text: str) -> list[str]:
    """`text` cut by the rule above for highlighting its source."""
    return _split(text, _cuts(text, html=False))


def _split(text: str, cuts: list[int]) -> list[str]:
    return [text[start:end] for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _cuts(text: str, html: bool) -> list[int]:
    """The positions where `text` is cut, in order."""
    if _has(text, "]:") or any(char in text for char in _ONE_BLOCK):
        return []
    brackets, fences, stop = _structure.get_or_compute(text, _structure_of)
    if html:
        stop = min(stop, _first_markup(text, _Spans(fences)))
    in_fence, in_brackets = _Spans(fences), _Spans(brackets)
    cuts = []
    for gap in _NEWLINE_RUN.finditer(text):
        cut = gap.end()
        if cut > stop:
            break
        if cut == len(text) or text[cut] not in _STARTS_BLOCK:
            continue
        if in_fence.at(cut) or in_brackets.at(cut):
            continue
        if not cuts and (gap.start() == 0 or text[:gap.start()].isspace()):
            continue  # a block of blank lines alone renders as nothing
        cuts.append(cut)
    return cuts


def _structure_of(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int]:
    """The open-bracket spans, the clean fences and where cutting stops (see `_fences`)."""
    brackets = _open_brackets(text)
    return brackets, *_fences(text, _Spans(brackets))


#: The last few texts' structure: the preview cuts each text twice, for its HTML and for
#: its highlighted source, and the structure is most of the cutting's cost.
_structure: LRU[str, tuple[list[tuple[int, int]], list[tuple[int, int]], int]] = LRU(
    "text structure for cutting", 8)


def _fences(text: str, in_brackets: _Spans) -> tuple[list[tuple[int, int]], int]:
    """The spans of the clean fences, and where cutting stops (the first fence line that is
    not clean or has no closing line, else the text's end)."""
    if not _has(text, "```") and not _has(text, "~~~"):
        return [], len(text)
    lines = _fence_lines(text)
    spans = []
    for i in range(0, len(lines), 2):
        opening, closing = lines[i], lines[i + 1] if i + 1 < len(lines) else None
        match = _CLEAN_OPENING.match(text, opening)
        if closing is None or match is None or not _clean_before(text, opening) \
                or _UNDERLINE.match(text, match.end()) or in_brackets.at(opening):
            return spans, opening
        end = text.find("\n", closing)
        end = len(text) if end < 0 else end
        if text[closing:end] != match.group(1):
            return spans, opening
        spans.append((opening, end))
    return spans, len(text)


def _fence_lines(text: str) -> list[int]:
    """Where the fence lines of `text` start, in order."""
    lines = set()
    for marker in ("```", "~~~"):
        position = text.find(marker)
        while position >= 0:
            line = text.rfind("\n", 0, position) + 1
            if line == position or text[line:position].isspace():
                lines.add(line)
            after = text.find("\n", position)  # the line's first marker is the one that counts
            position = text.find(marker, after) if after >= 0 else -1
    return sorted(lines)


def _has(text: str, marker: str) -> bool:
    # A search for a character is much faster than one for a string: most texts have none.
    return marker[0] in text and marker in text


def _clean_before(text: str, line: int) -> bool:
    """Whether the line before `line` is empty or starts with a letter or digit (or there is
    none): a marker alone on a line, like `-` or `>`, may take the next line along."""
    if line <= 1 or text[line - 2] == "\n":
        return True
    before = text.rfind("\n", 0, line - 1) + 1
    return text[before].isascii() and text[before].isalnum()


def _first_markup(text: str, fences: _Spans) -> int:
    """The position of the first `<` outside the fences, else the text's end."""
    position = text.find("<")
    while position >= 0 and (span := fences.at(position)) is not None:
        position = text.find("<", span[1])
    return len(text) if position < 0 else position


class _Spans:
    """The one of `spans` (in order, not overlapping) that a position lies in, asked for
    positions in increasing order (so a document's cuts cost one walk over its fences)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self._spans = spans
        self._next = 0

    def at(self, position: int) -> tuple[int, int] | None:
        spans, i = self._spans, self._next
        while i < len(spans) and spans[i][1] <= position:
            i += 1
        self._next = i
        return spans[i] if i < len(spans) and spans[i][0] <= position else None


def _open_brackets(text: str) -> list[tuple[int, int]]:
    """The stretches of `text` where a `[` waits for its `]`, or a `](` for its `)` (the
    brackets of links, which may span lines: `[text](url)`, `[text][id]`)."""
    if "[" not in text:
        return []
    spans = []
    opened = closed = linked = unlinked = -1
    start = None
    for position in _positions(text, "[])"):
        char = text[position]
        if char == "[":
            opened = position
        elif char == ")":
            unlinked = position
        else:
            closed = position
            if text.startswith("(", position + 1):
                linked = position
        waiting = opened > closed or linked > unlinked
        if waiting and start is None:
            start = position + 1
        elif not waiting and start is not None:
            spans.append((start, position + 1))
            start = None
    if start is not None:
        spans.append((start, len(text) + 1))
    return spans


def _positions(text: str, chars: str) -> list[int]:
    """Where `chars` occur in `text`, in order (a search for each character is much faster
    than a regex's for a class of them)."""
    positions = []
    for char in chars:
        position = text.find(char)
        while position >= 0:
            positions.append(position)
            position = text.find(char, position + 1)
    return sorted(positions)
