"""Runs of one or two characters, the text that makes a backtracking pattern quadratic.

A pattern like `\\n\\n+(?=x)` scans a whole run of newlines from each of them when the run
is not followed by `x`; `[=-]+$` scans a run of `=` from each of them when the run does not
end its line. So the corpus is every whitespace and line-break character, every ASCII
punctuation character and a few characters patterns name, each as a long run alone, ended
by another character, as lines, and alternated with a letter, a space or a newline; plus
the shapes the hostile pass found (`'[a](' * n`, blank lines before an indented line ...).
"""

from __future__ import annotations

import string
import sys
from collections.abc import Iterator

#: About how many characters each run holds.
SIZE = 100_000

#: Every character `str.isspace` accepts (those Python's `\\s` matches, line breaks included).
WHITESPACE = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
#: Characters that are no whitespace but look like it or end a line in some reader.
INVISIBLE = "\u200b\u2060\ufeff\x00"
#: Characters patterns of ours name: digits, a letter, a word character outside ASCII.
NAMED = "0a_é"
CHARS = WHITESPACE + INVISIBLE + string.punctuation + NAMED

#: What ends a run: nothing, a letter, a space, a newline, NUL (a run followed by
#: something a lookahead or an anchor after the run may refuse).
ENDINGS = ("", "x", " ", "\n", "\x00")


def _times(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def char_runs(char: str, size: int = SIZE) -> Iterator[tuple[str, str]]:
    """`(name, text)` for each shape of one character's runs, each about `size` characters."""
    name = f"U+{ord(char):04X}"
    for ending in ENDINGS:
        yield f"{name} run + {ending!r}", _times(char, size) + ending
    yield f"{name} lines", _times(char + "\n", size)
    yield f"newlines then {name}", _times("\n", size) + char
    for other in ("a", " ", "\n"):
        yield f"{name} alternating {other!r}", _times(char + other, size)


def shape_runs(size: int = SIZE) -> Iterator[tuple[str, str]]:
    """`(name, text)` for each of `SHAPES` and `FRAMED`, each about `size` characters."""
    for name, unit in SHAPES.items():
        yield name, _times(unit, size)
    for name, (head, unit, tail) in FRAMED.items():
        yield name, head + _times(unit, size) + tail


def runs(size: int = SIZE) -> Iterator[tuple[str, str]]:
    """Every shape of the corpus."""
    for char in CHARS:
        yield from char_runs(char, size)
    yield from shape_runs(size)


#: Shapes the hostile pass found slow somewhere, each repeated to the size.
SHAPES = {
    "link openers": "[a](",
    "link openers with <": "[a](<",
    "thematic breaks": "---\n",
    "setext underlines": "a\n=\n",
    "entity openers": "&#",
    "emphasis openers": "*a",
    "placeholder openers": "{{a ",
    "fence lines": "```\n",
    "log headers": "<!-- context-log: ",
    "error counts": "1 errors, ",
    "names with hyphens": "a-",
    "json escapes": '"\\',
    "tool lines": "tool: ",
    "list tool lines": "- tool: 'x",
    "number tokens": '"0123456789abcdef:1',
}

#: Shapes with a head or a tail around the repeated part.
FRAMED = {
    "blank lines before an indented line": ("Hello\n", "\n", " x\n"),
    "whitespace-only lines": ("Hello\n", " \t\n", "x\n"),
    "ideographic-space lines": ("Hello\n", "\u3000\n", "x\n"),
    "placeholder with spaces": ("{{", " \t", "x"),
    "one long JSON string": ('"', "a\\\"", ""),
    "one long header": ("<!-- context-log: ", "x", " --"),
    "one long underline": ("```\n", "=-", "x"),
}
