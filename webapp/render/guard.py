"""Which blocks are too costly to render: a deterministic estimate from the block's text.

Python-Markdown is quadratic on some text (a run of `[`, unclosed tags, heading or list
lines without a blank line between them) and slow on some linear text (each fenced block
is highlighted by pygments); a megabyte of it would hold a worker for minutes. Rather than
a timer, which would make the output depend on the machine's load, the renderer asks this
module for an estimate of a block's cost computed from its text in one linear pass, and
shows a block over the budget as escaped plain text (see `html.plain_html`).

**The estimate**, in microseconds of conversion on the 2-core development machine
(measured in `docs/performance.md`, with a margin):

- for each paragraph (text between blank lines): `BRACKET` times the characters each `[`
  scans for the `]` that closes it (to the paragraph's end if none does), and `LINE`
  times the paragraph's length times its lines that start a heading, a quote, an
  underline or a list item (`#`, `>`, `=`, `-`, `*`, `+`, `1.`);
- for the block: `TAG` times its length times its tag openings (`<` before a letter,
  `/`, `!` or `?`), `FENCE` for each fence line (three backticks or tildes), and
  `MARKUP_CHAR` for each `<`, `&`, `_`, `*` and backtick, and `BLANK_PAIR` for each pair
  of newlines (a run of blank lines costs Python-Markdown about 2 us a line).

A block is rendered when its estimate is at most `BLOCK_BUDGET` and the estimates of the
blocks before it in the same text, with its own, stay within `TEXT_BUDGET`. Ordinary
documents (the demo workspaces, docs/, a 200-skill workspace) are far below both.

The Source view highlights with pygments, which is linear, at 1.7 to 3 microseconds a
character, but looks up a lexer for each fenced block (`FENCE_SOURCE` a fence line): a
block longer than `HIGHLIGHT_CHARS`, or whose fence lines cost more than `BLOCK_BUDGET`,
or past `TEXT_BUDGET` with the blocks before it, is shown escaped without highlighting.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

#: Microseconds per character a `[` scans (a 16 KB run of `[` took 14 s: 3.5e-7 s/step).
BRACKET = 0.4
#: Microseconds per line-character of heading and list lines (`-\n` x 4000: 0.49 s).
LINE = 0.02
#: Microseconds per tag-opening-character (`<a ` x 5,333: 2.8 s, 3.3e-8 s a step).
TAG = 0.04
#: Microseconds per fence line (each fenced block is highlighted: 170 us a line).
FENCE = 250
#: Microseconds per character that inline markup tries (`<` x 1M: 2.4 s, `_a` x 500K: 1.7 s).
MARKUP_CHAR = 3
#: Microseconds per pair of newlines (`\n` x 100,000 after a line: 0.24 s).
BLANK_PAIR = 2
#: The most a block may cost, and the most all the blocks of one text may cost (us).
BLOCK_BUDGET = 200_000
TEXT_BUDGET = 400_000
#: The longest block the Source view highlights, and what it costs a fence line (us).
HIGHLIGHT_CHARS = 100_000
FENCE_SOURCE = 400

_TAG_OPENING = re.compile(r"<[A-Za-z/!?]")
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_STARTING_LINE = re.compile(r"^[ \t]*(?:[#>=]|[-*+](?:[ \t]|$)|\d+\.(?:[ \t]|$))", re.MULTILINE)
_BRACKET = re.compile(r"[\[\]]")


def markdown_cost(text: str, limit: float = BLOCK_BUDGET) -> float:
    """The estimated cost of converting `text`, in microseconds, as defined above.

    Stops counting once it passes `limit` (so a megabyte of `[` is judged in a moment)
    and then returns a figure over `limit`.
    """
    # A search for a character is much faster than a regex's: most blocks have none.
    cost = len(text) * len(_TAG_OPENING.findall(text)) * TAG if "<" in text else 0.0
    if "`" in text or "~" in text:
        cost += len(_FENCE_LINE.findall(text)) * FENCE
    cost += sum(map(text.count, "<&_*`")) * MARKUP_CHAR + text.count("\n\n") * BLANK_PAIR
    for paragraph in text.split("\n\n"):
        if cost > limit:
            return cost
        cost += len(paragraph) * len(_STARTING_LINE.findall(paragraph)) * LINE
        if "[" in paragraph:
            cost += _bracket_scan(paragraph, (limit - cost) / BRACKET) * BRACKET
    return cost


def _bracket_scan(paragraph: str, limit: float) -> float:
    """The characters each `[` of `paragraph` scans for its `]` (nested brackets count),
    or to the paragraph's end; stops once over `limit`."""
    scanned, opened, opened_sum = 0.0, [], 0
    for match in _BRACKET.finditer(paragraph):
        position = match.start()
        if paragraph[position] == "[":
            opened.append(position)
            opened_sum += position
        elif opened:
            start = opened.pop()
            opened_sum -= start
            scanned += position - start
        # What the brackets still open have scanned so far counts already.
        if scanned + len(opened) * position - opened_sum > limit:
            return limit + 1
    return scanned + len(opened) * len(paragraph) - opened_sum


def highlight_cost(text: str) -> float:
    """The estimated cost of highlighting `text`, in microseconds: infinite past
    `HIGHLIGHT_CHARS`, else what its fence lines cost."""
    if len(text) > HIGHLIGHT_CHARS:
        return float("inf")
    if "`" not in text and "~" not in text:  # asked on every keystroke: most blocks have none
        return 0.0
    return len(_FENCE_LINE.findall(text)) * FENCE_SOURCE


def judge(blocks: list[str], cost: Callable[[str], float]) -> Iterator[tuple[str, bool]]:
    """Each block, and whether it is cheap enough: within `BLOCK_BUDGET` alone and, with
    the blocks judged cheap before it, within `TEXT_BUDGET`.

    The first block past `TEXT_BUDGET` and all the blocks after it come as one block, not
    cheap: nothing after it will be rendered, and tens of thousands of small blocks (a
    megabyte of tiny fenced blocks) would each cost a cache lookup and an estimate.
    """
    spent = 0.0
    for i, block in enumerate(blocks):
        estimate = cost(block)
        if estimate <= BLOCK_BUDGET and spent + estimate > TEXT_BUDGET:
            yield "".join(blocks[i:]), False
            return
        cheap = estimate <= BLOCK_BUDGET
        spent += estimate if cheap else 0
        yield block, cheap
