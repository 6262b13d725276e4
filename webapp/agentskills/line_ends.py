"""A SKILL.md's line ends, line by line, for a file that mixes them.

A skill's text is kept with LF line ends (`pipeline.lf_line_ends`, the one rule on every
path). A file with CRLF throughout is written back with CRLF (`crlf_throughout`); a file
that mixes LF, CRLF or lone CR keeps the end of each line (`line_ends_of`): one letter a
line of the file as read, `n` (LF), `r` (CRLF) or `c` (a lone CR). Written back
(`with_line_ends`), a line of the head keeps its end when it is one of the head's lines as
read (a rewritten key's lines take the end of the lines they replace), and the body's line
n takes the end line n of the body had; a line past the last takes the last one's end. A
file never edited is written back byte for byte. Pure functions.
"""

from __future__ import annotations

import difflib
import re

_BREAK = re.compile(r"\r\n|\r|\n")
_LETTER = {"\n": "n", "\r\n": "r", "\r": "c"}
_END = {letter: end for end, letter in _LETTER.items()}


def crlf_throughout(text: str) -> bool:
    """Whether every line end of `text` is CRLF (and it has one): such a file is written
    back with CRLF after its text was kept with LF, as every text is."""
    lines = text.count("\n")
    return lines > 0 and text.count("\r\n") == lines == text.count("\r")


def line_ends_of(text: str) -> str:
    """The line end of each line of `text` (`n`, `r` or `c`), or "" when they are all LF or
    all CRLF (the `crlf` flag says which)."""
    if "\r" not in text or crlf_throughout(text):
        return ""
    return "".join(_LETTER[match.group()] for match in _BREAK.finditer(text))


def with_line_ends(read_head: str, head: str, body: str, ends: str) -> str:
    """The text of a SKILL.md (`head` and `body`, LF line ends) with the line ends `ends`
    recorded of the file read, whose head was `read_head`."""
    split = read_head.count("\n")
    head_ends, body_ends = ends[:split], ends[split:]
    last = (body_ends or head_ends or "n")[-1]
    head_lines = head.split("\n")
    written = _carried(read_head.split("\n")[:-1], head_lines[:-1], head_ends, last)
    body_lines = body.split("\n")
    written += [body_ends[index] if index < len(body_ends) else last
                for index in range(len(body_lines) - 1)]
    lines = head_lines[:-1] + [head_lines[-1] + body_lines[0]] + body_lines[1:]
    ended = zip(lines[:-1], written, strict=True)
    return "".join(line + _END[end] for line, end in ended) + lines[-1]


def with_new_head(read_head: str, head: str, ends: str) -> str:
    """The line ends `ends` of a file read with `read_head`, for the same file with `head`
    written instead: the head's lines carried (`_carried`), the body's as they were."""
    if not ends:
        return ""
    split = read_head.count("\n")
    last = (ends[split:] or ends[:split] or "n")[-1]
    carried = _carried(read_head.split("\n")[:-1], head.split("\n")[:-1], ends[:split], last)
    return "".join(carried) + ends[split:]


#: The most lines of a head compared line by line (a diff is quadratic at worst): past it,
#: the lines between the head's common start and end take the first one's end.
MAX_COMPARED = 2_000


def _carried(before: list[str], after: list[str], ends: str, last: str) -> list[str]:
    """The end of each line of `after`: a line kept from `before` keeps its end; a line
    written instead of others takes the end of the first of them."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    stop = 0
    while (stop < min(len(before), len(after)) - start
           and before[-1 - stop] == after[-1 - stop]):
        stop += 1
    old, new = before[start:len(before) - stop], after[start:len(after) - stop]
    out = list(ends[:start])
    if len(old) > MAX_COMPARED or len(new) > MAX_COMPARED:
        out += [ends[start] if start < len(ends) else last] * len(new)
    else:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                out += ends[start + i1:start + i2]
            else:
                at = start + i1
                out += [ends[at] if at < len(ends) else last] * (j2 - j1)
    return out + list(ends[len(before) - stop:len(before)])
