"""Lists nested by two spaces, rendered nested.

Python-Markdown nests a list item only when it is indented by its tab length, four
spaces; JSON→markdown (`pipeline.json_to_markdown`) nests by two, as most authors do, and
its nested bullets came out flat. The text is not changed (the pipeline's output is what
the agent is given); only the rendering reads it so, by a rule of our own, stated in
Markdown's terms and applied before Python-Markdown parses the blocks:

**The rule.** A *list block* is a run of non-empty lines whose first line is a list item
(`- `, `* `, `+ `, or up to nine digits and `. ` or `) `) at the line's start. When every
line of a list block is indented by an even number of spaces and no line is more than two
spaces deeper than the line before, with at least one line deeper, the block is nested by
two spaces, and its indentation is doubled for Python-Markdown. Any other block (four-space
nesting, a mix, a lone odd indent) is left as it is.

It runs after the fenced-code and raw-HTML preprocessors, so a fence's text, stashed by
then, is never re-indented; tabs are already spaces. A list block never spans a blank
line, so it is never cut apart by `webapp.render.blocks` (which cuts only after one).
"""

from __future__ import annotations

import itertools
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

#: Where the preprocessor runs: after `fenced_code_block` (25) and `html_block` (20).
PRIORITY = 15
_BULLETS = ("- ", "* ", "+ ")
_MAX_DIGITS = 9


def is_list_item(line: str) -> bool:
    """Whether `line` (without its indentation) starts a list item."""
    if line.startswith(_BULLETS):
        return True
    digits = len(line) - len(line.lstrip("0123456789"))
    return 0 < digits <= _MAX_DIGITS and line[digits:digits + 2] in (". ", ") ")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def nested_by_two(block: list[str]) -> bool:
    """Whether a list block is nested by two spaces (the rule above)."""
    indents = [_indent(line) for line in block]
    steps = [after - before for before, after in itertools.pairwise(indents)]
    return (all(indent % 2 == 0 for indent in indents)
            and all(step <= 2 for step in steps) and any(step > 0 for step in steps))


def renest(lines: list[str]) -> list[str]:
    """`lines` with the indentation of each list block nested by two spaces doubled."""
    out: list[str] = []
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and lines[end].strip():
            end += 1
        block = lines[start:end]
        if block and is_list_item(block[0]) and nested_by_two(block):
            block = [" " * _indent(line) + line for line in block]
        out.extend(block)
        if end < len(lines):
            out.append(lines[end])
        start = end + 1
    return out


class _Renest(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return renest(lines)


class NestedLists(Extension):
    """The rule above, as a Python-Markdown extension (`webapp.render.lists`)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_Renest(md), "two_space_lists", PRIORITY)


def makeExtension(**kwargs: Any) -> NestedLists:
    """What Python-Markdown calls for the extension named `webapp.render.lists`."""
    return NestedLists(**kwargs)
