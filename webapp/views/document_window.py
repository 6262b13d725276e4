"""The Document tab of a large document: opened around the edited skill's part, the rest
folded.

A 200-skill workspace assembles to a document of 21,000 lines; sent whole on every
keystroke it is hundreds of kilobytes rendered and megabytes as the Source table, most of
it other skills' text the author is not looking at. So a document longer than
`WINDOW_LINES` is shown as a window: the lines of the skill being edited (in the rendered
view the markdown blocks that hold them, in the Source view those lines with
`CONTEXT_LINES` around them) and, between them, *folds*: "1,200 lines from 40 other
skills", a link that loads its range, `PAGE_LINES` at a time (the rest of the range stays
a fold). With no edited skill in it (the agent preview), the window is the document's
first `PAGE_LINES` lines. A shorter document is shown whole, as before.

Folds the author opened stay open when the next keystroke renders the window again: the
editor's form carries them (`opened`, kept by `app.js`), each as its view, its range and
the document's length then (`Fold.opened`), and the window shows them as opening them
did (`DocumentWindow(opened=...)`). Typing changes the edited skill's lines only, so a
range after the skill's first line is moved by the change in the document's length.

The rendered view is cut only where `webapp.render`'s block rule says a text may be cut
(`markdown_blocks`): blocks render apart as they render together, so each shown run reads
exactly as in the whole document. Where the rule cannot cut (raw HTML, a reference
definition), the run is larger, never wrong.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from markupsafe import Markup

from webapp.pipeline import (
    Context,
    Origin,
    first_line_of,
    origin_spans,
    skills_of,
    whole_number,
)
from webapp.render import markdown_to_html
from webapp.render.blocks import markdown_blocks

from .source_table import source_rows
from .wording import counted

#: A document up to this many lines is shown whole.
WINDOW_LINES = 400
#: A document of more characters than this is large whatever its lines (one megabyte on
#: one line): its page renders the open panel alone, as a long document's does, since
#: every other panel (diffs, Source, Pipeline, the log entry) holds it again.
LARGE_CHARS = 200_000
#: How many lines a fold loads when it is opened (at least one block), and the window of
#: a document without the edited skill's lines.
PAGE_LINES = 200
#: Lines shown above and below the edited skill's lines in the Source view.
CONTEXT_LINES = 3
#: Lines of a run of the edited skill's own shown at once in the Source view, the rest of
#: the run in a fold: a skill of a third of a megabyte of short lines was 47 MB of rows.
MINE_LINES = 1_000
#: The longest document a draft previewed without JavaScript shows whole (`whole`);
#: a longer one is windowed, its folds opening the saved skill's lines.
WHOLE_LINES = 25_000
#: Fewer lines than this are shown rather than folded: a link would be as long.
FOLD_MIN = 10
#: Opened folds a request may name (`parse_opened`); more are ignored.
OPENED_MAX = 64

VIEWS = ("rendered", "source")


@dataclass(frozen=True, slots=True)
class Fold:
    """Lines `start` to `end` (0-based, end excluded) of the document, not sent: a link
    loads them. `skills` is how many skills (other than the edited one) wrote them."""

    view: str
    start: int
    end: int
    skills: int
    other: bool = True  # "other skills": there is an edited skill
    total: int = 0  # the document's lines

    @property
    def opened(self) -> str:
        """The fold as the editor's form keeps it once opened: `source:121-340/21000`
        (its view and range, and the document's length, see `parse_opened`)."""
        return f"{self.view}:{self.lines}/{self.total}"

    @property
    def lines(self) -> str:
        """The range as the address names it: 1-based, both ends included (`121-340`)."""
        return f"{self.start + 1}-{self.end}"

    @property
    def text(self) -> str:
        """`1,200 lines from 40 other skills` (what the link says)."""
        lines = self.end - self.start
        text = f"{lines:,} line{'' if lines == 1 else 's'}"
        if self.skills:
            text += f" from {counted(self.skills, 'other skill' if self.other else 'skill')}"
        return text


Part = Markup | Fold
T = TypeVar("T")


def parse_lines(value: object) -> tuple[int, int] | None:
    """`121-340` (1-based, ends included) as `(120, 340)`, or None if it is not that."""
    if not isinstance(value, str):
        return None
    first, _, last = value.partition("-")
    if not (is_count(first) and is_count(last)):
        return None
    start, end = int(first) - 1, int(last)
    return (start, end) if 0 <= start < end else None


def is_count(text: str) -> bool:
    """Whether `text` is a line number or count as an address writes one: ASCII digits,
    few enough for any document (and for `int`, which refuses 4,300 digits or more)."""
    return whole_number(text) is not None


@dataclass(frozen=True, slots=True)
class Opened:
    """A fold the author opened: lines `start`..`end` (0-based, end excluded) of `view`
    in a document that was `total` lines long."""

    view: str
    start: int
    end: int
    total: int


def parse_opened(value: object) -> list[Opened]:
    """The opened folds an `opened` field names (`Fold.opened`, separated by spaces),
    the first `OPENED_MAX` of them; whatever is not one is left out."""
    if not isinstance(value, str):
        return []
    found = []
    for item in value.split()[:OPENED_MAX]:
        view, _, rest = item.partition(":")
        lines, _, total = rest.partition("/")
        span = parse_lines(lines)
        if view in VIEWS and span and is_count(total):
            found.append(Opened(view, *span, int(total)))
    return found


class DocumentWindow:
    """The Document tab's two views of `context`, built when a template asks for one.

    `d_tag` is the skill being edited (None: the agent preview); `whole` shows every line
    (a draft previewed without JavaScript, whose folds no link could load again, up to
    `WHOLE_LINES`);
    `opened`, the folds the author opened (`parse_opened`), are shown open.
    """

    def __init__(self, context: Context, d_tag: str | None,
                 link: Callable[[str], str] | None, whole: bool = False,
                 opened: Sequence[Opened] = ()) -> None:
        self.context = context
        self.d_tag = d_tag
        self.link = link
        self.opened = opened
        #: Longer than `WINDOW_LINES`: the document is windowed.
        self.windowed = len(context.origins) > WINDOW_LINES
        #: Windowed, or longer than `LARGE_CHARS`: the page shows the open panel alone
        #: (`editor`, `agent_preview`).
        self.large = self.windowed or len(context.document) > LARGE_CHARS
        self.whole = (whole and len(context.origins) <= WHOLE_LINES) or not self.windowed

    def rendered(self, cards: Sequence[T]) -> list[tuple[T, list[Part] | None]]:
        """Each message's card (`cards`, in the messages' order) with its parts: runs of
        rendered HTML and folds; None for a message shown whole (its card renders it)."""
        if self.whole:
            return [(card, None) for card in cards]
        messages = [block_spans(content, start) for start, content in message_lines(self.context)]
        mine = overlapping(mine_spans(self.context.origins, self.d_tag, 0))
        shown = [[mine(a, b) for a, b, _ in blocks] for blocks in messages]
        if messages and not any(map(any, shown)):
            shown[0] = first_page(messages[0])  # no edited skill in it: the document's start
        for start, end in self._opened("rendered"):
            # As `expand` opened it: the first page of the blocks that start in the range.
            for blocks, marks in zip(messages, shown, strict=True):
                inside = [i for i, (a, _, _) in enumerate(blocks) if start <= a < end]
                for i, page in zip(inside, first_page([blocks[i] for i in inside]),
                                   strict=True):
                    marks[i] = marks[i] or page
        return [(card, self._rendered_parts(blocks, marks))
                for card, blocks, marks in zip(cards, messages, shown, strict=True)]

    def source(self) -> list[Part]:
        """The Source table: runs of rows and folds."""
        document, origins = self.context.document, self.context.origins
        total = len(origins)
        if self.whole:
            return list(source_rows(document, origins, self.d_tag, self.link))
        spans = [(a, min(b, a + MINE_LINES))
                 for a, b in mine_spans(origins, self.d_tag, CONTEXT_LINES)]
        spans = spans or [(0, min(PAGE_LINES, total))]
        # As `expand` opened them: the first page of each range.
        spans += [(a, min(b, a + PAGE_LINES)) for a, b in self._opened("source")]
        return self._source_parts(without_small_gaps(merged(spans), 0, total), 0, total)

    def expand(self, view: str, start: int, end: int) -> list[Part]:
        """What opening the fold of lines `start`..`end` of `view` shows: its first
        `PAGE_LINES` lines (whole blocks in the rendered view) and a fold for the rest."""
        end = min(end, len(self.context.origins))
        if view == "source":
            page = without_small_gaps([(start, min(end, start + PAGE_LINES))], start, end)
            return self._source_parts(page, start, end)
        for first, content in message_lines(self.context):
            blocks = [span for span in block_spans(content, first) if start <= span[0] < end]
            if blocks:
                return self._rendered_parts(blocks, first_page(blocks))
        return []

    # -- helpers

    def _opened(self, view: str) -> list[tuple[int, int]]:
        """The ranges of `view` the author opened, in this document's lines: a range after
        the edited skill's first line moved by the change in the document's length."""
        origins = self.context.origins
        total = len(origins)
        first = first_line_of(origins, self.d_tag)
        first = total if first is None else first
        ranges = []
        for fold in self.opened:
            if fold.view != view:
                continue
            shift = total - fold.total if fold.start >= first else 0
            start, end = max(0, fold.start + shift), min(total, fold.end + shift)
            if start < end:
                ranges.append((start, end))
        return ranges

    def _fold(self, view: str, start: int, end: int) -> Fold:
        skills = set(skills_of(self.context.origins[start:end])) - {None, self.d_tag}
        return Fold(view, start, end, len(skills), other=self.d_tag is not None,
                    total=len(self.context.origins))

    def _rendered_parts(self, blocks: list[tuple[int, int, str]], shown: list[bool]
                        ) -> list[Part]:
        parts: list[Part] = []
        i = 0
        while i < len(blocks):
            j = i
            while j < len(blocks) and shown[j] == shown[i]:
                j += 1
            if shown[i] or blocks[j - 1][1] - blocks[i][0] < FOLD_MIN:
                html = markdown_to_html("".join(text for _, _, text in blocks[i:j]))
                if parts and not isinstance(parts[-1], Fold):
                    html = Markup("\n").join([parts.pop(), html])
                parts.append(html)
            else:
                parts.append(self._fold("rendered", blocks[i][0], blocks[j - 1][1]))
            i = j
        return parts

    def _source_parts(self, spans: list[tuple[int, int]], start: int, end: int
                      ) -> list[Part]:
        """Rows for `spans` (in order, within `start`..`end`) and folds between them."""
        runs = source_rows(self.context.document, self.context.origins, self.d_tag,
                           self.link, spans)
        parts: list[Part] = []
        at = start
        for (a, b), rows in zip(spans, runs, strict=True):
            if a > at:
                parts.append(self._fold("source", at, a))
            parts.append(rows)
            at = b
        if at < end:
            parts.append(self._fold("source", at, end))
        return parts


def message_lines(context: Context) -> list[tuple[int, str]]:
    """Each message's content and the document line it starts at (below its `role:` line,
    after the blank line between messages; see the pipeline's `document_of`)."""
    out, line = [], 0
    for index, message in enumerate(context.messages):
        line += 2 if index else 1
        out.append((line, message["content"]))
        line += message["content"].count("\n") + 1
    return out


def block_spans(content: str, first: int) -> list[tuple[int, int, str]]:
    """The markdown blocks of a message whose content starts at document line `first`:
    `(start, end, text)`, in document lines (end excluded)."""
    blocks = markdown_blocks(content)
    spans, line = [], first
    for i, block in enumerate(blocks):
        # Every block but the last ends with the newline of its last line.
        lines = block.count("\n") + (1 if i == len(blocks) - 1 else 0)
        spans.append((line, line + lines, block))
        line += lines
    return spans


def first_page(blocks: Sequence[tuple[int, int, str]]) -> list[bool]:
    """Show blocks from the first until `PAGE_LINES` lines are shown (at least one)."""
    shown, lines = [], 0
    for start, end, _ in blocks:
        shown.append(not shown or lines < PAGE_LINES)
        lines += end - start
    return shown


def without_small_gaps(spans: list[tuple[int, int]], start: int, end: int
                       ) -> list[tuple[int, int]]:
    """`spans` (within `start`..`end`) joined where fewer than `FOLD_MIN` lines lie
    between them, or before the first or after the last."""
    joined: list[tuple[int, int]] = []
    for a, b in spans:
        if a - (joined[-1][1] if joined else start) < FOLD_MIN:
            joined[-1:] = [(joined[-1][0] if joined else start, b)]
        else:
            joined.append((a, b))
    if joined and end - joined[-1][1] < FOLD_MIN:
        joined[-1] = (joined[-1][0], end)
    return joined


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` in order, those that overlap or touch joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def overlapping(spans: Sequence[tuple[int, int]]) -> Callable[[int, int], bool]:
    """Whether lines `start`..`end - 1` meet one of `spans` (sorted, apart): a bisection,
    so marking a document's thousands of blocks costs no walk over its lines for each."""
    starts = [a for a, _ in spans]

    def meets(start: int, end: int) -> bool:
        at = bisect_left(starts, end) - 1
        return at >= 0 and spans[at][1] > start
    return meets


def mine_spans(provenance: Sequence[Origin], d_tag: str | None, context: int
               ) -> list[tuple[int, int]]:
    """The line ranges written by skill `d_tag` (with `context` lines around), merged."""
    if d_tag is None:
        return []
    spans: list[tuple[int, int]] = []
    total = len(provenance)
    for at, count, _, skill in origin_spans(provenance):  # a run of one skill at a time
        if skill == d_tag:
            a, b = max(0, at - context), min(total, at + count + context)
            if spans and a <= spans[-1][1]:
                spans[-1] = (spans[-1][0], b)
            else:
                spans.append((a, b))
    return spans
