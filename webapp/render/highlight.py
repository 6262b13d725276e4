"""Markdown source and JSON highlighted by pygments, and the stylesheet for its classes.

Pygments escapes its input, so its output is safe HTML whatever the text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from io import StringIO
from itertools import accumulate
from typing import Any

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, MarkdownLexer
from pygments.token import Text

from webapp.bounds import deadlines
from webapp.bounds.lru import LRU
from webapp.pipeline import dumps_json

from .blocks import CACHE_CHARS, source_blocks
from .guard import highlight_cost, judge

#: The CSS class pygments' output hangs under; `static/pygments.css` is generated for it.
HIGHLIGHT_CLASS = "highlight"
PYGMENTS_STYLE = "default"
#: The style used when the system asks for a dark colour scheme (see `pygments_css`).
PYGMENTS_DARK_STYLE = "github-dark"


# Made once: a formatter builds its style table when made (half a millisecond, more than a
# small block takes to highlight), and neither keeps any state between texts.
_MARKDOWN_LEXER = MarkdownLexer(stripnl=False, ensurenl=True)
_LINE_FORMATTER = HtmlFormatter(nowrap=True)


def highlight_lines(text: str) -> tuple[Markup, ...]:
    """`text` highlighted as markdown in one pass, one HTML string per line of `text`.

    HtmlFormatter closes every span at the end of a line, so splitting its `nowrap`
    output on newlines gives self-contained lines that a template can put in a gutter table.
    """
    if not text:
        return ()
    html = highlight(text, _MARKDOWN_LEXER, _LINE_FORMATTER)
    lines = html.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    count = len(text.splitlines()) or 1
    lines += [""] * (count - len(lines))
    return tuple(Markup(line) for line in lines[:count])


#: Each block's highlighted lines, keyed by the block's text (the lexer's options are fixed);
#: weighed by the characters of text and HTML, at most `CACHE_CHARS`.
_highlighted: LRU[str, tuple[Markup, ...]] = LRU(
    "highlighted markdown blocks", CACHE_CHARS,
    weight=lambda text, lines: len(text) + sum(map(len, lines)))


def highlight_markdown_lines(text: str, spans: Sequence[tuple[int, int]] | None = None
                             ) -> list[Markup]:
    """The markdown source of `text`, highlighted, one HTML string per line.

    Highlighted a block at a time (see `webapp.render.blocks`), each block's lines cached;
    a block too long to highlight (`webapp.render.guard`), or whose highlighting overran its
    deadline in a worker process (`webapp.bounds.deadlines`), is shown escaped, line by line.
    With `spans` (`(start, end)` line ranges, 0-based, end excluded), only the lines a
    window shows are made: a block holding none of them is that many empty lines, and a
    block too long to highlight has only those lines escaped (a 20 MB document without
    a blank line is one block, and its Source table shows a few hundred lines).
    """
    blocks = source_blocks(text)
    if spans is not None:
        return _window(blocks, spans)
    return [line for lines in _made(list(judge(blocks, highlight_cost))) for line in lines]


def _made(judged: list[tuple[str, bool]]) -> list[tuple[Markup, ...]]:
    """Each block's lines: highlighted when cheap (cached; the missing ones in a worker),
    escaped when not or when the worker overran."""
    cached = [_highlighted.get(block) if cheap else plain_lines(block) for block, cheap in judged]
    missing = list(dict.fromkeys(block for (block, _), lines in zip(judged, cached, strict=True)
                                 if lines is None))
    made = deadlines.map_cached("highlight", highlight_lines, missing, _highlighted, plain_lines)
    return [made[block] if lines is None else lines
            for (block, _), lines in zip(judged, cached, strict=True)]


def _window(blocks: Sequence[str], spans: Sequence[tuple[int, int]]) -> list[Markup]:
    """`highlight_markdown_lines` of the blocks holding a line of `spans`, and each other
    line empty."""
    counts = [line_count(block) for block in blocks]
    starts = list(accumulate(counts, initial=0))
    inside = [i for i, count in enumerate(counts)
              if any(a < starts[i] + count and starts[i] < b for a, b in spans)]
    cheap = dict(zip(inside, (c for _, c in judge([blocks[i] for i in inside], highlight_cost)),
                     strict=True))
    made = iter(_made([(blocks[i], True) for i in inside if cheap[i]]))
    lines: list[Markup] = []
    for i, block in enumerate(blocks):
        if cheap.get(i):
            lines += next(made)
            continue
        shown = [Markup("")] * counts[i]
        if i in cheap:  # too long to highlight: the lines shown escaped, the others empty
            texts = plain_lines_of(block)
            for a, b in spans:
                for at in range(max(a, starts[i]), min(b, starts[i] + counts[i])):
                    shown[at - starts[i]] = escape(texts[at - starts[i]])
        lines += shown
    return lines


def line_count(text: str) -> int:
    """The lines `plain_lines(text)` (and `highlight_lines`) gives, without making them."""
    if _cut_elsewhere(text):
        return len(text.splitlines()) or 1
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def plain_lines_of(text: str) -> list[str]:
    """`text`'s lines as `plain_lines` cuts them, not escaped."""
    if _cut_elsewhere(text):
        return text.splitlines() or [""]
    lines = text.split("\n")
    if lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines


def _cut_elsewhere(text: str) -> bool:
    """Whether `str.splitlines` cuts `text` somewhere besides its newlines."""
    return any(char in text for char in "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def plain_lines(text: str) -> tuple[Markup, ...]:
    """`text` escaped, one HTML string per line, as many lines as `highlight_lines` gives."""
    if _cut_elsewhere(text):
        return tuple(escape(line) for line in text.splitlines()) or (Markup(""),)
    # Escaped at once and split on newlines, as `splitlines` would: much faster a line.
    lines = [Markup(line) for line in str(escape(text)).split("\n")]
    if lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return tuple(lines)


def highlight_json(value: Any) -> Markup:
    """`value` as indented JSON, highlighted, inside a `<pre>`; escaped without highlighting
    if that overran its deadline in a worker process (`webapp.bounds.deadlines`)."""
    html = deadlines.run("highlight", _highlighted_json, [value]).results[0]
    if html is deadlines.OVERRUN:
        return Markup(f'<div class="{HIGHLIGHT_CLASS}"><pre>{escape(dumps_json(value, indent=2))}'
                      "</pre></div>")
    return Markup(html)


def _highlighted_json(value: Any) -> str:
    """`value` as indented JSON, highlighted by pygments, inside a `<pre>`."""
    formatter = HtmlFormatter(cssclass=HIGHLIGHT_CLASS)
    # JsonLexer reads character by character, slow on a long message. A string is one token
    # whatever its characters, so long ones are lexed as short stand-ins and put back,
    # escaped as the formatter escapes text.
    long: dict[str, str] = {}
    text = dumps_json(_stand_ins(value, long), indent=2)
    if not long:
        return highlight(text, JsonLexer(), formatter)
    if text.count(_STAND_IN) != 2 * len(long):  # the value has the stand-ins' character
        text = dumps_json(value, indent=2)
        return highlight(text, JsonLexer(), formatter)
    html = highlight(text, JsonLexer(), formatter)
    for stand_in, string in long.items():
        html = html.replace(stand_in, _escaped.get_or_compute(string, _escaped_json_string), 1)
    return html


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


def _escaped_json_string(string: str) -> str:
    """`string` as a JSON string's inside, escaped as HtmlFormatter escapes a token's text."""
    out = StringIO()
    HtmlFormatter(nowrap=True).format(iter([(Text, json.dumps(string, ensure_ascii=False)[1:-1])]),
                                      out)
    # JSON escapes line breaks, so the only newline is the one the formatter ends its line with.
    return out.getvalue().removesuffix("\n")


#: The request bodies of one preview repeat the same long messages: their escaped text,
#: keyed by the string, the last few up to 4 million characters of string and HTML.
_escaped: LRU[str, str] = LRU("escaped long JSON strings", 4_000_000,
                              weight=lambda string, html: len(string) + len(html))


def pygments_css() -> str:
    """The stylesheet committed as `static/pygments.css` (regenerate with this function).

    The light style's rules, then the dark style's background and token rules inside
    `@media (prefers-color-scheme: dark)`: the rules `pygmentize -S github-dark -f html -a
    .highlight` prints, without the `pre` and line-number rules that do not depend on the
    class (the app numbers lines itself).
    """
    selector = f".{HIGHLIGHT_CLASS}"
    header = (f"/* Generated by webapp.render.pygments_css(): pygments style {PYGMENTS_STYLE!r},"
              f" and {PYGMENTS_DARK_STYLE!r} under prefers-color-scheme: dark\n"
              f"   (its rules as `pygmentize -S {PYGMENTS_DARK_STYLE} -f html -a {selector}`"
              " prints them). */\n")
    light = HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(selector)
    dark = HtmlFormatter(style=PYGMENTS_DARK_STYLE)
    dark_rules = dark.get_background_style_defs(selector) + dark.get_token_style_defs(selector)
    dark_block = "\n".join("  " + rule for rule in dark_rules)
    return f"{header}{light}\n@media (prefers-color-scheme: dark) {{\n{dark_block}\n}}\n"
