"""The Document tab's Source table: the document highlighted line by line, with the
provenance gutter, built in Python.

A large workspace assembles to tens of thousands of lines, and the preview is rendered
again on every keystroke. Rendered by Jinja, one `<tr>` and one `url_for` per line, the
table took most of a request. Here each run of lines from one piece of the assembly (a
skill's lines, or the role, title and separator lines between them) is turned into HTML
once and cached, keyed by everything its HTML depends on: the highlighted lines, their
origins, whether they are the edited skill's and the skill's link. A keystroke changes
one skill's lines, and only that run is built again.

The markup is the same as the template loop it replaces, byte for byte, and just as
safe: the code cells are pygments' output (which escapes its input), everything else
from the document (labels, d_tags, links) goes through `markupsafe.escape`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import groupby
from operator import attrgetter

from markupsafe import Markup, escape

from webapp.bounds.lru import LRU
from webapp.pipeline import Origin
from webapp.render import CACHE_CHARS, highlight_markdown_lines

# A row as the template loop wrote it, whitespace included. The line number is left as a
# `%d`, filled in where the run is shown, so lines added above a run shift its numbers
# without building it again; a `%` anywhere else is doubled (see `_run_html`).
_ROW = ('\n          <tr{tr}>\n            <td class="origin">{origin}</td>\n'
        '            <td class="num">%d</td>\n            <td class="code">{code}</td>\n'
        '          </tr>\n        ')
_LINK = '<a href="{href}#L{line}"{data}>{label}</a>'
_DATA = ' data-skill="{skill}" data-line="{line}"'

# A line past the end of the provenance has no origin, and shows what this one shows:
# an empty label and no link.
_NO_ORIGIN = Origin("")


def source_rows(document: str, provenance: Sequence[Origin], d_tag: str | None,
                link: Callable[[str], str] | None,
                spans: Sequence[tuple[int, int]] | None = None) -> list[Markup]:
    """The rows of the Source table for `document`, whose lines came from `provenance`,
    a run of lines at a time (a template writes them one after another).

    `link(skill)` is the URL of a skill's editor; a line written in a skill links to its
    line there (without `link`, nothing links). With a `d_tag` (the editor), the rows of
    that skill are marked `mine` and every link carries `data-skill` and `data-line` for
    `app.js`; with None (the agent preview), rows and links are plain. With `spans`
    (`(start, end)` line ranges, 0-based, end excluded, in order), only those lines are
    built, one item per span (the Document tab's window, `document_window`).
    """
    lines = highlight_markdown_lines(document, spans)
    links: dict[str, Markup] = {}  # one url_for per skill and request

    def rows(start: int, end: int) -> list[Markup]:
        # The origins of the lines shown only (a large document's are made as read).
        end = min(end, len(lines))
        origins = list(provenance[start:end])
        origins += [_NO_ORIGIN] * (end - start - len(origins))
        runs = []
        for skill, run in groupby(origins, key=attrgetter("skill")):
            run_origins = tuple(run)
            stop = start + len(run_origins)
            href = None
            if skill and link is not None:
                href = links.get(skill)
                if href is None:
                    href = links[skill] = escape(link(skill))
            mine = d_tag is not None and skill == d_tag
            key = (d_tag is not None, mine, href, run_origins, tuple(lines[start:stop]))
            runs.append(_runs.get_or_compute(key, _build).numbered(start))
            start = stop
        return runs

    if spans is None:
        return rows(0, len(lines))
    return [Markup("").join(rows(start, end)) for start, end in spans]


def _run_html(marked: bool, mine: bool, href: Markup | None, origins: tuple[Origin, ...],
              lines: tuple[Markup, ...]) -> str:
    """The rows of one run, each with a `%d` where its line number goes."""
    tr = (' class="mine"' if mine else ' class=""') if marked else ""
    rows = []
    for origin, code in zip(origins, lines, strict=True):
        label = escape(origin.label)
        if href is not None and origin.line:
            data = _DATA.format(skill=escape(origin.skill), line=origin.line) if marked else ""
            label = _LINK.format(href=href, line=origin.line, data=data, label=label)
        rows.append(_ROW.format(tr=tr, origin=label.replace("%", "%%"),
                                code=code.replace("%", "%%")))
    return "".join(rows)


class _Run:
    """The rows of one run with a `%d` where each line number goes, and the rows as
    numbered where the run was shown last, which is where the next keystroke shows it
    too unless lines were added above."""

    __slots__ = ("rows", "count", "_numbered")

    def __init__(self, rows: str, count: int) -> None:
        self.rows = rows
        self.count = count
        self._numbered: tuple[int, Markup] | None = None

    def numbered(self, start: int) -> Markup:
        """The rows numbered from `start + 1`."""
        numbered = self._numbered
        if numbered is None or numbered[0] != start:
            numbers = tuple(range(start + 1, start + self.count + 1))
            numbered = self._numbered = (start, Markup(self.rows % numbers))
        return numbered[1]


def _build(key: tuple) -> _Run:
    return _Run(_run_html(*key), len(key[3]))


#: The runs built last, keyed by everything their HTML depends on (the arguments of
#: `_run_html`); weighed by their characters, twice (with the numbered copy), at most
#: `CACHE_CHARS`.
_runs: LRU[tuple, _Run] = LRU("source table runs", CACHE_CHARS,
                              weight=lambda key, run: 2 * len(run.rows))
