"""Turn untrusted text into safe HTML: rendered markdown, highlighted markdown and JSON.

Skill content, tool results and scenario messages are written by people and programs
we do not trust, so every piece of HTML built here either comes from pygments (which
escapes its input) or passes through `nh3` with an allow-list: no scripts, no event
handlers, no `style`, and only http(s)/mailto links. Pygments' `class` attributes are
kept so `static/pygments.css` can colour code.

The preview renders a whole assembled document on every keystroke, and a large workspace
assembles to half a megabyte. So markdown is rendered, and its source highlighted, one
block at a time (see `markdown_blocks` and `source_blocks`) through a cache keyed by the
block's text: a keystroke changes one block, and only that block is rendered again. The
blocks are cut only where rendering them apart gives the same HTML as rendering them
together; where that cannot be told cheaply, the text is one block.
"""

from __future__ import annotations

import json
import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from io import StringIO
from typing import Any

import markdown
import nh3
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.util import ETX, STX
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, MarkdownLexer
from pygments.token import Text

#: The CSS class pygments' output hangs under; `static/pygments.css` is generated for it.
HIGHLIGHT_CLASS = "highlight"
PYGMENTS_STYLE = "default"

_MARKDOWN_EXTENSIONS = ["fenced_code", "tables", "codehilite", "sane_lists"]
_MARKDOWN_CONFIG = {
    "codehilite": {"css_class": HIGHLIGHT_CLASS, "guess_lang": False, "use_pygments": True},
}

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p",
    "pre", "s", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "th",
    "thead", "tr", "ul",
}
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "th": {"align"},
    "td": {"align"},
    "ol": {"start"},
    # Pygments marks tokens with classes; nothing else may set one.
    "span": {"class"},
    "div": {"class"},
    "pre": {"class"},
    "code": {"class"},
}
_URL_SCHEMES = {"http", "https", "mailto"}

#: How many characters (of text and of HTML) each block cache may hold: a few large documents.
CACHE_CHARS = 32_000_000


def sanitize(html: str) -> str:
    """Strip everything executable or styling from `html`, keeping pygments' classes."""
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


class TextCache:
    """`compute(text)`, remembered for the texts used last, up to `max_chars` characters in all.

    Counted are the characters of each text and of its value (`size(value)`), so the cache
    holds many small blocks or a few large ones, never more than the budget.
    """

    def __init__(self, compute: Callable[[str], Any], size: Callable[[Any], int],
                 max_chars: int = CACHE_CHARS) -> None:
        self._compute = compute
        self._size = size
        self.max_chars = max_chars
        self._values: OrderedDict[str, Any] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def __call__(self, text: str) -> Any:
        with self._lock:
            if text in self._values:
                self._values.move_to_end(text)
                return self._values[text]
        value = self._compute(text)
        chars = len(text) + self._size(value)
        with self._lock:
            if chars <= self.max_chars and text not in self._values:
                self._values[text] = value
                self._chars += chars
                while self._chars > self.max_chars:
                    old, old_value = self._values.popitem(last=False)
                    self._chars -= len(old) + self._size(old_value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._chars = 0


# -- markdown

# A fresh converter is costly (a millisecond, more than a small block takes), so each
# thread keeps one and resets it between conversions, as Python-Markdown documents.
_local = threading.local()


def _converter() -> markdown.Markdown:
    md = getattr(_local, "markdown", None)
    if md is None:
        md = _local.markdown = markdown.Markdown(
            extensions=_MARKDOWN_EXTENSIONS, extension_configs=_MARKDOWN_CONFIG,
            output_format="html")
    return md


def _render(text: str) -> str:
    """Markdown to sanitized HTML, one conversion."""
    md = _converter()
    try:
        return sanitize(md.convert(text))
    finally:
        md.reset()


_rendered = TextCache(_render, len)


def markdown_to_html(text: str) -> Markup:
    """Render markdown (fenced code, tables, pygments highlighting) to sanitized HTML."""
    parts = [_rendered(block) for block in markdown_blocks(text)]
    # Highlighted code ends with a newline, which a conversion strips at the end of its
    # text but keeps before the next block: put it back where a block ends with code.
    return Markup("\n".join([html + "\n" if html.endswith(_CODE_END) else html
                              for html in parts[:-1]] + parts[-1:]))


_CODE_END = "</code></pre></div>"


# Python-Markdown's own pattern for fenced code blocks, which it replaces before parsing.
_FENCE = FencedBlockPreprocessor.FENCED_BLOCK_RE
# What Python-Markdown's HTML parser takes for the start of a tag, comment or declaration.
_MARKUP = re.compile(r"<[A-Za-z!?/]")
# A reference definition (`[id]: url`) is seen by every link in the document.
_REFERENCE = re.compile(r"\]:")
_BLANK_LINES = re.compile(r"\n\n+")
# A block starting like this may continue the block before it: indented code or list item
# text, a list item (joining the list before), a quote (joining the quote before), a fence.
_CONTINUES = re.compile(r"[ \t]|[*+-][ ]|\d+\.[ ]|>|`|~")


def markdown_blocks(text: str) -> list[str]:
    """`text` cut into blocks that render to the same HTML apart as together, joined by newlines.

    Python-Markdown parses a document as blocks separated by blank lines, and a block only
    looks back at the one before it to continue it (a list item, a quote, indented code),
    which a block that starts like that is kept with. The cuts leave alone what is
    document-wide: fenced code blocks are never cut, reference definitions and raw HTML
    (whose parser keeps state from one tag to the next, and whose unclosed tags reach the
    blocks after it) keep the text from the first of them to the end in one block.
    """
    source = _normalized(text)
    if _REFERENCE.search(source):
        return [text]
    fences = _fences(source)
    if fences is None:
        return [text]
    end = next((m.start() for m in _MARKUP.finditer(source) if not _inside(fences, m.start())),
               len(source))
    blocks, start = [], 0
    for gap in _BLANK_LINES.finditer(source, 0, end):
        if _inside(fences, gap.start()) or _CONTINUES.match(source, gap.end()):
            continue
        blocks.append(source[start:gap.start()])
        start = gap.end()
    blocks.append(source[start:])
    return [block for block in blocks if block.strip()]


# Python-Markdown's NormalizeWhitespace removes the spaces of a line of spaces with a
# look-behind pattern, `(?<=\n) +\n`, which is slow to search; this finds the same lines.
_SPACES_LINE = re.compile(r"\n +(?=\n)")


def _normalized(text: str) -> str:
    """`text` normalized as Python-Markdown's first preprocessor does (markers it uses
    itself removed, line ends made newlines, tabs expanded, lines of spaces emptied), so
    cuts are made where its parser sees them. The preprocessor, made for a list of lines,
    takes several passes over a large text; this is the same in fewer."""
    source = text.replace(STX, "").replace(ETX, "").replace("\r\n", "\n").replace("\r", "\n")
    # The preprocessor appends two newlines (so a last line of spaces is emptied too);
    # they are dropped again here.
    source = (source + "\n\n").expandtabs(_converter().tab_length)
    return _SPACES_LINE.sub("\n", source)[:-2]


# Where a fenced block can open: at a line's start, three backticks or tildes.
_FENCE_OPENER = re.compile(r"\n(?:```|~~~)")


def _fences(source: str) -> list[tuple[int, int]] | None:
    """The spans of the fenced blocks Python-Markdown finds in `source`, in order; None when
    one has `{attrs}`, which it may skip over."""
    openers = [m.start() + 1 for m in _FENCE_OPENER.finditer(source)]
    if source.startswith(("```", "~~~")):
        openers.insert(0, 0)
    fences: list[tuple[int, int]] = []
    index = 0
    for start in openers:
        # Every match starts at an opener, so the first one at or after `index` is the
        # one `_FENCE.search(source, index)` finds, without the regex's slow scan of the
        # text in between.
        match = _FENCE.match(source, start) if start >= index else None
        if match is None:
            continue
        if match.group("attrs") is not None:
            return None
        fences.append(match.span())
        index = match.end()
    return fences


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` lies in one of `spans` (in order, not overlapping)."""
    i = bisect_right(spans, position, key=lambda span: span[0]) - 1
    return i >= 0 and position < spans[i][1]


# -- highlighted source


def _highlight_lines(text: str, lexer: Any) -> list[Markup]:
    """Highlight `text` and return one HTML string per input line.

    HtmlFormatter closes every span at the end of a line, so splitting its `nowrap`
    output on newlines gives self-contained lines that a template can put in a gutter table.
    """
    if not text:
        return []
    formatter = HtmlFormatter(nowrap=True)
    html = highlight(text, lexer, formatter)
    lines = html.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    count = len(text.splitlines()) or 1
    lines += [""] * (count - len(lines))
    return [Markup(line) for line in lines[:count]]


def _highlight_markdown(text: str) -> tuple[Markup, ...]:
    return tuple(_highlight_lines(text, MarkdownLexer(stripnl=False, ensurenl=True)))


_highlighted = TextCache(_highlight_markdown, lambda lines: sum(map(len, lines)))


def highlight_markdown_lines(text: str) -> list[Markup]:
    """The markdown source of `text`, highlighted, one HTML string per line."""
    return [line for block in source_blocks(text) for line in _highlighted(block)]


# Line breaks other than "\n" that str.splitlines or pygments count, and pygments' BOM.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\ufeff"


def _has_odd_breaks(text: str) -> bool:
    # A search for each character is faster than one for a class of them.
    return any(char in text for char in _ODD_BREAKS)


# Pygments' MarkdownLexer: a fenced block opens on a line like these ...
_LEXER_FENCE_OPENS = re.compile(r"\s*```(?:[\w\-]+(?:[^\S\n]+.*)?)?\Z")
# ... unless the next line underlines it as a heading, and closes at the first line like this.
_LEXER_FENCE_CLOSES = re.compile(r"\s*```\Z")
_LEXER_UNDERLINE = re.compile(r"(?:=+|-+)\Z")
# Lines the lexer continues onto the next line: "#", "-" or ">" alone, "[id]:" with no url.
_LEXER_RUNS_ON = re.compile(r"\s*(?:#+|[*-]|>)\s*\Z|.*\]:\s*\Z")
# A line starting like this may join the token of the blank lines before it (a list item,
# a quote, a fence, a reference, or inline markup taking the newline before it as its prefix).
_LEXER_JOINS = re.compile(r"[\s*\-\d>`\[_~]")


def source_blocks(text: str) -> list[str]:
    """`text` cut, at blank lines, into blocks that pygments' MarkdownLexer highlights the
    same apart as together; each block but the last ends with the blank lines after it.

    The lexer has no states: at each position it tries its rules in order, and a cut is safe
    where no token of the whole text spans it. Tokens span lines in a few ways only: fenced
    code, links whose brackets or parentheses close on a later line, a line like "-" or
    "#" alone taking the next line, and rules that take the blank lines before a list item,
    quote or fence along. Texts where this cannot be told line by line are one block.
    """
    if not text or _has_odd_breaks(text):
        return [text] if text else []
    fences = _lexer_fences(text)
    if fences is None:
        return [text]
    blocks, start, after_gap = [], 0, 0
    bracket_open = paren_open = False
    for gap in _BLANK_LINES.finditer(text):
        cut = gap.end()
        lines = text[after_gap:gap.start()]  # the lines with text since the last blank line
        after_gap = cut
        bracket_open = _still_open(lines, "[", "]", bracket_open)
        paren_open = _still_open(lines, "](", ")", paren_open)
        if cut < len(text) and not bracket_open and not paren_open \
                and not _LEXER_JOINS.match(text, cut) and not _inside(fences, cut) \
                and not _LEXER_RUNS_ON.match(lines, lines.rfind("\n") + 1):
            blocks.append(text[start:cut])
            start = cut
    blocks.append(text[start:])
    return blocks


def _still_open(text: str, opener: str, closer: str, was_open: bool) -> bool:
    """Whether, after `text`, an `opener` waits for a `closer` further on."""
    opened, closed = text.rfind(opener), text.rfind(closer)
    if opened > closed:
        return True
    return was_open and closed < 0


def _lexer_fences(text: str) -> list[tuple[int, int]] | None:
    """Where a cut would fall in a fenced block, as spans of positions (after the opening
    line's start, up to the closing line's start); None where fences and lines that run on
    meet and the lexer's way through cannot be told."""
    if "```" not in text:
        return []
    lines = text.split("\n")
    if any(_LEXER_RUNS_ON.match(line) for line in lines):
        return None
    if any(line.rfind("[") > line.rfind("]") or line.rfind("](") > line.rfind(")")
           for line in lines):
        return None
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    closes_at, after = [len(lines)] * len(lines), len(lines)
    for n in range(len(lines) - 1, -1, -1):
        closes_at[n] = after
        if _LEXER_FENCE_CLOSES.match(lines[n]):
            after = n
    spans = []
    n = 0
    while n < len(lines):
        close = closes_at[n]
        if _LEXER_FENCE_OPENS.match(lines[n]) and close < len(lines) and not (
                n + 1 < len(lines) and _LEXER_UNDERLINE.match(lines[n + 1])):
            spans.append((starts[n] + 1, starts[close] + 1))
            n = close + 1
        else:
            n += 1
    return spans


# -- JSON


def highlight_json(value: Any) -> Markup:
    """`value` as indented JSON, highlighted, inside a `<pre>`."""
    formatter = HtmlFormatter(cssclass=HIGHLIGHT_CLASS)
    # JsonLexer reads character by character, slow on a long message. A string is one token
    # whatever its characters, so long ones are lexed as short stand-ins and put back,
    # escaped as the formatter escapes text.
    long: dict[str, str] = {}
    text = json.dumps(_stand_ins(value, long), indent=2, ensure_ascii=False)
    if not long:
        return Markup(highlight(text, JsonLexer(), formatter))
    if text.count(_STAND_IN) != 2 * len(long):  # the value has the stand-ins' character
        text = json.dumps(value, indent=2, ensure_ascii=False)
        return Markup(highlight(text, JsonLexer(), formatter))
    html = highlight(text, JsonLexer(), formatter)
    for stand_in, string in long.items():
        html = html.replace(stand_in, _escaped_json_string(string), 1)
    return Markup(html)


#: Strings at least this long are lexed as stand-ins.
_LONG_STRING = 2_000
# A private-use character marks the stand-ins.
_STAND_IN = "\ue000"


def _stand_ins(value: Any, long: dict[str, str]) -> Any:
    """`value` with its long strings (not keys) replaced by stand-ins recorded in `long`."""
    if isinstance(value, str):
        if len(value) < _LONG_STRING or _STAND_IN in value:
            return value
        stand_in = f"{_STAND_IN}{len(long)}{_STAND_IN}"
        long[stand_in] = value
        return stand_in
    if isinstance(value, dict):
        return {key: _stand_ins(item, long) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_stand_ins(item, long) for item in value]
    return value


@lru_cache(maxsize=4)  # the request bodies repeat the same messages
def _escaped_json_string(string: str) -> str:
    """`string` as a JSON string's inside, escaped as HtmlFormatter escapes a token's text."""
    out = StringIO()
    HtmlFormatter(nowrap=True).format(iter([(Text, json.dumps(string, ensure_ascii=False)[1:-1])]),
                                      out)
    # JSON escapes line breaks, so the only newline is the one the formatter ends its line with.
    return out.getvalue().removesuffix("\n")


def pygments_css() -> str:
    """The stylesheet committed as `static/pygments.css` (regenerate with this function)."""
    header = f"/* Generated by webapp.render.pygments_css(): pygments style {PYGMENTS_STYLE!r}. */\n"
    return header + HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(f".{HIGHLIGHT_CLASS}") + "\n"
