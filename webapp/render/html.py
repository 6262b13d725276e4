"""Markdown rendered by Python-Markdown and sanitized by nh3.

Every piece of HTML passes through `nh3` with an allow-list: no scripts, no event
handlers, no `style`, and only http(s)/mailto links. Pygments' `class` attributes are
kept so `static/pygments.css` can colour code.
"""

from __future__ import annotations

import threading

import markdown
import nh3
from markupsafe import Markup, escape

from webapp.bounds import deadlines
from webapp.bounds.lru import LRU

from .blocks import CACHE_CHARS, markdown_blocks
from .guard import judge, markdown_cost
from .highlight import HIGHLIGHT_CLASS

#: `webapp.render.lists` reads lists nested by two spaces (as JSON→markdown writes them) as
#: nested; Python-Markdown alone nests at four.
MARKDOWN_EXTENSIONS = ["fenced_code", "tables", "codehilite", "sane_lists", "webapp.render.lists"]
MARKDOWN_CONFIG = {
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


# A fresh converter is costly (a millisecond, more than a small block takes), so each
# thread keeps one and resets it between conversions, as Python-Markdown documents.
_local = threading.local()


def _converter() -> markdown.Markdown:
    md = getattr(_local, "markdown", None)
    if md is None:
        md = _local.markdown = markdown.Markdown(
            extensions=MARKDOWN_EXTENSIONS, extension_configs=MARKDOWN_CONFIG,
            output_format="html")
    return md


def convert(text: str) -> str:
    """Markdown to sanitized HTML, in one conversion."""
    md = _converter()
    try:
        return sanitize(md.convert(text))
    finally:
        md.reset()


#: Each block's HTML, keyed by the block's text (the converter's configuration is fixed);
#: weighed by the characters of text and HTML, at most `CACHE_CHARS`.
_rendered: LRU[str, str] = LRU("rendered markdown blocks", CACHE_CHARS,
                               weight=lambda text, html: len(text) + len(html))

# How highlighted code ends. A conversion strips the newline after it at the end of its
# text, which the whole text's conversion keeps before the next block.
_CODE_END = "</code></pre></div>"


def markdown_to_html(text: str) -> Markup:
    """Render markdown (fenced code, tables, pygments highlighting) to sanitized HTML.

    Rendered a block at a time (see `webapp.render.blocks`), each block's HTML cached; a
    block the guard judges too costly (`webapp.render.guard`), or whose conversion overran
    its deadline in a worker process (`webapp.bounds.deadlines`), is shown as plain text.
    """
    judged = list(judge(markdown_blocks(text), _cost))
    cached = [_rendered.get(block) if cheap else plain_html(block) for block, cheap in judged]
    missing = list(dict.fromkeys(block for (block, _), html in zip(judged, cached, strict=True)
                                 if html is None))
    made = deadlines.map_cached("markdown", convert, missing, _rendered, plain_html)
    parts = [made[block] if html is None else html
             for (block, _), html in zip(judged, cached, strict=True)]
    return Markup("\n".join([html + "\n" if html.endswith(_CODE_END) else html
                              for html in parts[:-1]] + parts[-1:]))


#: What is shown before a block rendered as plain text.
NOTICE = "Shown as plain text: too costly to render as markdown."


def code_spans(text: str) -> Markup:
    """`text` escaped, with what each pair of backticks holds as code: a problem's message
    writes names as `{{name}}`. An unpaired last backtick is kept as it is."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last has no pair
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return Markup("").join(
        escape(part) if i % 2 == 0 else Markup("<code>%s</code>") % part
        for i, part in enumerate(parts))


def plain_html(block: str) -> str:
    """`block` escaped in a `<pre>`, after the notice: exactly its text, no markup."""
    return f'<p><em>{NOTICE}</em></p>\n<pre><code>{escape(block)}</code></pre>'


def _cost(block: str) -> float:
    return _costs.get_or_compute(block, markdown_cost)


#: Each block's estimated cost, keyed by its text (the estimate is a pure function of it);
#: weighed by the block's characters, at most `CACHE_CHARS`.
_costs: LRU[str, float] = LRU("markdown block costs", CACHE_CHARS,
                              weight=lambda text, cost: len(text))
