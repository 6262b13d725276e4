"""Which lines of two texts are equal and which changed: difflib's opcodes, found in
bounded work.

`line_opcodes` matches the common head and tail by a linear scan and cuts a long middle at
the lines that occur once on each side (git's patience diff) before difflib weighs what
lies between; `line_window` compares at most `COMPARED_LINES` lines a side after the
common head, whatever the texts. `lines.exact_diff` lays the opcodes out as hunks.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from difflib import SequenceMatcher

#: A difflib opcode: tag, then the `a` and `b` slices it covers.
Opcode = tuple[str, int, int, int, int]

#: The most lines of each text, after their common head, that a diff compares line by line
#: (`line_window`): a step of a 20 MB document is 200,000 lines a side.
COMPARED_LINES = 20_000


def line_window(a: list[str], b: list[str], most: int = COMPARED_LINES
                ) -> tuple[list[Opcode], bool]:
    """`line_opcodes` of the common head and the first `most` lines after it on each side,
    and True, when the lines between the common head and tail are more than `most` on a
    side: the window's opcodes up to its last equal line, then the rest as one change. The
    work of a diff is bounded by its window, not by the texts (two steps of a 20 MB
    document took seconds to match line by line)."""
    alo, ahi, blo, bhi = trim(a, b, 0, len(a), 0, len(b))
    if max(ahi - alo, bhi - blo) <= most:
        return _between(a, b, alo, ahi, blo, bhi), False
    # The window's head is the texts' (found above); only its tail is its own.
    wa, wb = min(ahi, alo + most), min(bhi, blo + most)
    a_in, b_in = a[:wa], b[:wb]
    window = _between(a_in, b_in, *trim(a_in, b_in, alo, wa, blo, wb))
    # Past the window's last equal line the two sides may only be out of step.
    while window and (window[-1][0] != "equal" or window[-1][2] <= alo):
        window.pop()
    ea, eb = (window[-1][2], window[-1][4]) if window else (alo, blo)
    rest = [("replace" if ahi > ea and bhi > eb else "delete" if ahi > ea else "insert",
             ea, ahi, eb, bhi)] if ahi > ea or bhi > eb else []
    if not window:
        window = [("equal", 0, alo, 0, blo)]
    return _merged([*window, *rest, ("equal", ahi, len(a), bhi, len(b))]), True


def line_opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """The opcodes that turn lines `a` into lines `b`, as `SequenceMatcher.get_opcodes` gives them.

    difflib is quadratic in the number of equal lines it has to weigh against each other, and
    a large document repeats many lines (blank lines, `---`, boilerplate): matching a 20,000-line
    document against itself plus one typed word took seconds. So the work is cut down first:
    the common head and tail are matched by a linear scan (an edit leaves the lines around it
    alone), and a middle still longer than `_DIFFLIB_LINES` (edits far apart, such as a skill
    embedded twice) is cut at the lines that occur once on each side, in order, as git's
    patience diff does. difflib only sees what lies between. Where several alignments are
    equally good (an inserted copy of a neighbouring line), the result may differ from difflib's.
    """
    return _between(a, b, *trim(a, b, 0, len(a), 0, len(b)))


def _between(a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int
             ) -> list[Opcode]:
    """`line_opcodes`, where `a[alo:ahi]` and `b[blo:bhi]` lie between the texts' common
    head and tail (`trim`)."""
    codes: list[Opcode] = [("equal", 0, alo, 0, blo)]
    if (ahi - alo) + (bhi - blo) <= _DIFFLIB_LINES:
        codes += _difflib(a, b, alo, ahi, blo, bhi)
    else:
        i, j = alo, blo
        for ai, bj in _unique_anchors(a, b, alo, ahi, blo, bhi):
            codes += _difflib_trimmed(a, b, i, ai, j, bj)
            codes.append(("equal", ai, ai + 1, bj, bj + 1))
            i, j = ai + 1, bj + 1
        codes += _difflib_trimmed(a, b, i, ahi, j, bhi)
    codes.append(("equal", ahi, len(a), bhi, len(b)))
    return _merged(codes)


#: A middle up to this many lines (both sides) goes to difflib whole.
_DIFFLIB_LINES = 400


def trim(a: list[str], b: list[str], alo: int, ahi: int, blo: int,
          bhi: int) -> tuple[int, int, int, int]:
    """Narrow `a[alo:ahi]` and `b[blo:bhi]` to what lies between their common head and tail."""
    head = _common(a, b, alo, blo, min(ahi - alo, bhi - blo), 1)
    alo, blo = alo + head, blo + head
    tail = _common(a, b, ahi - 1, bhi - 1, min(ahi - alo, bhi - blo), -1)
    return alo, ahi - tail, blo, bhi - tail


def _common(a: list[str], b: list[str], i: int, j: int, most: int, step: int) -> int:
    """How many lines from `a[i]` and `b[j]` on (backwards if `step` is -1) are equal, up to `most`.

    Compares runs of doubling length as slices, which Python does without a loop of its own.
    """
    same, run = 0, 1
    while same < most:
        run = min(run, most - same)
        if step > 0:
            equal = a[i + same:i + same + run] == b[j + same:j + same + run]
        else:
            equal = a[i - same - run + 1:i - same + 1] == b[j - same - run + 1:j - same + 1]
        if equal:
            same += run
            run *= 2
        elif run == 1:
            break
        else:
            run = 1
    return same


#: A gap between anchors longer than this (both sides) is shown as replaced whole: past
#: it, even difflib's heuristic costs more than a preview may spend on untrusted text.
_COARSE_LINES = 20_000


def _difflib(a: list[str], b: list[str], alo: int, ahi: int, blo: int,
             bhi: int) -> list[Opcode]:
    """difflib's opcodes for `a[alo:ahi]` against `b[blo:bhi]`, in whole-list positions.

    Without `autojunk`, difflib weighs every pair of equal lines against each other, which is
    quadratic on a long run of repeated lines (a 2,000-line skill of one repeated block: 7 s a
    diff). Past `_DIFFLIB_LINES` its `autojunk` heuristic is used (lines repeated in more than
    1 % of the other side anchor nothing), which bounds the work but may show more lines as
    changed than changed; past `_COARSE_LINES`, the gap is one replacement.
    """
    size = (ahi - alo) + (bhi - blo)
    if size > _COARSE_LINES:
        tag = "replace" if ahi > alo and bhi > blo else ("delete" if ahi > alo else "insert")
        return [(tag, alo, ahi, blo, bhi)]
    matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=size > _DIFFLIB_LINES)
    return [(tag, i1 + alo, i2 + alo, j1 + blo, j2 + blo)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _difflib_trimmed(a: list[str], b: list[str], alo: int, ahi: int, blo: int,
                     bhi: int) -> list[Opcode]:
    """`_difflib` after matching the common head and tail of the ranges."""
    lo_a, hi_a, lo_b, hi_b = trim(a, b, alo, ahi, blo, bhi)
    return [("equal", alo, lo_a, blo, lo_b), *_difflib(a, b, lo_a, hi_a, lo_b, hi_b),
            ("equal", hi_a, ahi, hi_b, bhi)]


def _unique_anchors(a: list[str], b: list[str], alo: int, ahi: int, blo: int,
                    bhi: int) -> list[tuple[int, int]]:
    """Pairs `(i, j)` with `a[i] == b[j]` occurring once in each range: the longest run in order."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {line: j for j, line in enumerate(b[blo:bhi], blo) if count_b[line] == 1}
    pairs = [(i, where_b[line]) for i, line in enumerate(a[alo:ahi], alo)
             if count_a[line] == 1 and line in where_b]
    # The longest run with increasing `b` positions, by patience sorting: `ends[k]` is the
    # smallest `b` position a run of k + 1 pairs can end at, `last[k]` the pair it ends with.
    ends: list[int] = []
    last: list[int] = []
    before: list[int] = []
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(ends, j)
        before.append(last[k - 1] if k else -1)
        if k == len(ends):
            ends.append(j)
            last.append(n)
        else:
            ends[k], last[k] = j, n
    run: list[tuple[int, int]] = []
    n = last[-1] if last else -1
    while n >= 0:
        run.append(pairs[n])
        n = before[n]
    return run[::-1]


def _merged(codes: list[Opcode]) -> list[Opcode]:
    """`codes` without empty runs and with neighbouring equal runs joined, as difflib gives them."""
    merged: list[Opcode] = []
    for code in codes:
        tag, i1, i2, j1, j2 = code
        if i1 == i2 and j1 == j2:
            continue
        if merged and tag == "equal" and merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], i2, merged[-1][3], j2)
        else:
            merged.append(code)
    return merged
