"""Line diffs with word emphasis: the table reads as the behaviour."""

from __future__ import annotations

import random
from collections.abc import Sequence
from difflib import SequenceMatcher, unified_diff
from itertools import pairwise

import pytest

from webapp.textdiff import opcodes
from webapp.textdiff.lines import _sent, diff_lines, exact_diff
from webapp.textdiff.opcodes import COMPARED_LINES, line_opcodes, line_window
from webapp.textdiff.words import word_parts


@pytest.mark.parametrize("old, new, left, right", [
    ("hello world", "hello brave world",
     (("hello world", False),), (("hello ", False), ("brave ", True), ("world", False))),
    ("a b c", "a x c", (("a ", False), ("b", True), (" c", False)),
     (("a ", False), ("x", True), (" c", False))),
    ("same", "same", (("same", False),), (("same", False),)),
    ("", "new", (), (("new", True),)),
    # A placeholder is paired whole: not `identity` renamed between kept braces.
    ("{{identity}}", "- **Profile**: {{agent_profile}}", (("{{identity}}", True),),
     (("- **Profile**: {{agent_profile}}", True),)),
    ("Hi {{ name }}!", "Hi {{name}}!", (("Hi ", False), ("{{ name }}", True), ("!", False)),
     (("Hi ", False), ("{{name}}", True), ("!", False))),
])
def test_word_parts(old, new, left, right):
    got_left, got_right = word_parts(old, new)
    assert (got_left, got_right) == (left, right)


@pytest.mark.parametrize("old, new, header, signs", [
    ("a\nb\nc\n", "a\nb\nc\n", None, None),
    ("a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@", " -+ "),
    ("a\n", "a\nb\n", "@@ -1 +1,2 @@", " +"),
    ("a\nb\n", "b\n", "@@ -1,2 +1 @@", "- "),
    ("", "x\n", "@@ -0,0 +1 @@", "+"),
])
def test_diff_lines(old, new, header, signs):
    diff = diff_lines(old, new)
    if header is None:
        assert not diff.changed and diff.hunks == ()
        return
    (hunk,) = diff.hunks
    assert hunk.header == header
    assert "".join(line.sign for line in hunk.lines) == signs


def test_side_by_side_rows_pair_replaced_lines():
    diff = diff_lines("one\ntwo\n", "one\n2\nthree\n")
    rows = diff.hunks[0].rows
    assert [(r.left and r.left.text, r.right and r.right.text) for r in rows] == [
        ("one", "one"), ("two", "2"), (None, "three")]
    assert (diff.added, diff.removed) == (2, 1)


def test_far_apart_changes_make_separate_hunks():
    old = "\n".join(str(i) for i in range(30))
    new = old.replace("2\n", "two\n", 1).replace("27", "twenty-seven")
    assert len(diff_lines(old, new).hunks) == 2


@pytest.mark.parametrize("old, new", [
    ("a\nb\nc", "a\nB\nc"),
    ("a\nb\nc", "a\nb\nc\nd"),
    ("x\na\nb", "a\nb"),
    ("one\ntwo\nthree\nfour", "one\n2\n3\nfour"),
    ("", "x\ny"),
    ("x\ny", ""),
    ("same\nlines", "same\nlines"),
])
def test_line_opcodes_agree_with_difflib_where_the_alignment_is_unambiguous(old, new):
    a, b = old.splitlines(), new.splitlines()
    assert line_opcodes(a, b) == SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _far_apart(n: int) -> tuple[str, str]:
    old = [f"line {i}" for i in range(n)]
    new = list(old)
    new[1], new[n // 2], new[-2] = "first", "middle", "last"
    return "\n".join(old), "\n".join(new)


@pytest.mark.parametrize("old, new", [
    ("a\nb\nc", "a\nB\nc"),
    ("", "x\ny"),
    ("x\ny", ""),
    ("same\nlines", "same\nlines"),
    _far_apart(12),
    _far_apart(40),
])
@pytest.mark.parametrize("context", [0, 1, 3])
def test_hunk_headers_are_difflibs_unified_diff(old, new, context):
    """Hunks are grouped as difflib groups them: the same headers as `unified_diff`."""
    a, b = old.splitlines(), new.splitlines()
    expected = [line.strip() for line in unified_diff(a, b, n=context, lineterm="")
                if line.startswith("@@")]
    assert [hunk.header for hunk in exact_diff(old, new, context).hunks] == expected


@pytest.mark.parametrize("old, new, header, signs", [
    # The head and tail overlap: the shorter text is all head, the rest is an insertion.
    ("a\na\n", "a\na\na\n", "@@ -1,2 +1,3 @@", "  +"),
    ("a\na\na\n", "a\n", "@@ -1,3 +1 @@", " --"),
    ("a\nb\na\n", "a\n", "@@ -1,3 +1 @@", " --"),
])
def test_repeated_lines_at_the_edges(old, new, header, signs):
    (hunk,) = diff_lines(old, new).hunks
    assert hunk.header == header
    assert "".join(line.sign for line in hunk.lines) == signs


def _replay(diff, old: str, new: str) -> None:
    """Each hunk's context and deleted lines are `old`'s lines, its context and added lines
    `new`'s."""
    a, b = old.splitlines(), new.splitlines()
    for hunk in diff.hunks:
        for line in hunk.lines:
            if line.kind != "add":
                assert a[line.old_no - 1] == line.text
            if line.kind != "del":
                assert b[line.new_no - 1] == line.text


def _edited(rng: random.Random, choices: Sequence[str], longest: int, edits: int,
            inserted: Sequence[str]) -> tuple[list[str], list[str]]:
    """Lines `a` (up to `longest` of `choices`) and `b`, `a` with 1 to `edits - 1` lines
    deleted or inserted (from `inserted`) at random places."""
    a = [rng.choice(choices) for _ in range(rng.randrange(longest))]
    b = list(a)
    for _ in range(rng.randrange(1, edits)):
        i = rng.randrange(len(b) + 1)
        if b and rng.random() < 0.4:
            del b[min(i, len(b) - 1)]
        else:
            b.insert(i, rng.choice(inserted))
    return a, b


def test_random_edits_replay():
    rng = random.Random(7)
    for _ in range(300):
        a, b = _edited(rng, "abc", 12, 4, "abcd")
        old, new = "\n".join(a), "\n".join(b)
        diff = diff_lines(old, new)
        _replay(diff, old, new)
        assert diff.changed == (a != b)
        assert diff.added - diff.removed == len(b) - len(a)
        # The worker is sent the lines between the common head and tail: the same diff.
        assert diff == exact_diff(old, new)


def test_a_keystroke_in_a_large_repetitive_document():
    """20,000 lines, most of them repeats: difflib alone needs seconds for this, the diff a
    moment."""
    block = ["", "---", "", "## Part", "- **ok**: true here", "Plain text line."]
    lines = [f"{line} {i}" if line.startswith("## ") else line
             for i in range(3400) for line in block]
    old = "\n".join(lines)
    typed = lines[:10_000] + [lines[10_000] + " and a word"] + lines[10_001:]
    new = "\n".join(typed) + "\n\n## Typed just now"
    diff = diff_lines(old, new)
    _replay(diff, old, new)
    assert [h.header for h in diff.hunks] == ["@@ -9998,7 +9998,7 @@", "@@ -20398,3 +20398,5 @@"]
    (replaced,) = [line for line in diff.hunks[0].lines if line.kind == "add"]
    assert replaced.parts == ((lines[10_000], False), (" and a word", True))
    assert (diff.added, diff.removed) == (3, 1)


def test_random_edits_replay_when_cut_at_unique_lines(monkeypatch):
    """Force the patience cut that large middles get, on small texts with unique and repeated
    lines."""
    monkeypatch.setattr(opcodes, "_DIFFLIB_LINES", 0)
    rng = random.Random(11)
    words = ["a", "b", "---", "", "x1", "x2", "x3", "x4", "x5", "x6"]
    for _ in range(500):
        a, b = _edited(rng, words, 20, 5, words + ["new"])
        if rng.random() < 0.3:
            b = b[::-1]
        old, new = "\n".join(a), "\n".join(b)
        codes = line_opcodes(a, b)
        assert not codes if not a and not b else (
            codes[0][1:5:2] == (0, 0) and codes[-1][2:5:2] == (len(a), len(b)))
        for (tag, _, i2, _, j2), (next_tag, i1, _, j1, _) in pairwise(codes):
            assert (i2, j2) == (i1, j1) and "equal" in (tag, next_tag)
        assert all(a[i1:i2] == b[j1:j2] for tag, i1, i2, j1, j2 in codes if tag == "equal")
        diff = diff_lines(old, new)
        _replay(diff, old, new)
        assert diff.added - diff.removed == len(new.splitlines()) - len(old.splitlines())


def test_edits_far_apart_in_a_large_document():
    """A skill embedded twice changes two places: the lines between are matched, not weighed."""
    lines = [line for i in range(3000)
             for line in (f"## Part {i}", "- **ok**: true", "", "---", "")]
    typed = list(lines)
    typed[500] += " typed"
    typed[14_000] += " typed"
    diff = diff_lines("\n".join(lines), "\n".join(typed))
    assert [h.header for h in diff.hunks] == ["@@ -498,7 +498,7 @@", "@@ -13998,7 +13998,7 @@"]
    assert (diff.added, diff.removed) == (2, 2)


def test_a_window_of_random_edits_is_a_whole_diff_that_replays():
    """`line_window` with a window of 3 lines: valid opcodes (contiguous, equal runs equal)
    that turn `a` into `b`, windowed exactly when more than 3 lines a side lie between the
    common head and tail."""
    rng = random.Random(13)
    for _ in range(500):
        a, b = _edited(rng, "abcxyz", 20, 6, "abcd")
        codes, windowed = line_window(a, b, most=3)
        alo, ahi, blo, bhi = opcodes.trim(a, b, 0, len(a), 0, len(b))
        assert windowed == (max(ahi - alo, bhi - blo) > 3)
        assert not codes if not a and not b else (
            codes[0][1:5:2] == (0, 0) and codes[-1][2:5:2] == (len(a), len(b)))
        for (_, _, i2, _, j2), (_, i1, _, j1, _) in pairwise(codes):
            assert (i2, j2) == (i1, j1)
        assert all(a[i1:i2] == b[j1:j2] for tag, i1, i2, j1, j2 in codes if tag == "equal")
        rebuilt = [line for tag, i1, i2, j1, j2 in codes
                   for line in (a[i1:i2] if tag == "equal" else b[j1:j2])]
        assert rebuilt == b


def test_texts_that_differ_over_more_than_the_window_are_compared_in_part():
    """Two 60,000-line texts with a change every 1,000 lines: the first window's changes
    are exact, the rest one change, and the diff says so."""
    old_lines = [f"line {i}" for i in range(3 * COMPARED_LINES)]
    new_lines = [line + " changed" if i % 1000 == 500 else line
                 for i, line in enumerate(old_lines)]
    diff = exact_diff("\n".join(old_lines), "\n".join(new_lines), limit=200)
    assert diff.windowed and diff.rough and "Compared in part" in diff.notice
    first = [line for line in diff.hunks[0].lines if line.kind != "context"]
    assert [(line.kind, line.text) for line in first] == [
        ("del", "line 500"), ("add", "line 500 changed")]
    changed_in_window = COMPARED_LINES // 1000
    assert diff.removed > 2 * COMPARED_LINES - 1000 and len(diff.hunks) == changed_in_window + 1
    small = exact_diff("a\nb\nc", "a\nB\nc")
    assert not small.windowed and not small.rough and small.notice == ""


def _numbered(count: int, label: str = "line") -> list[str]:
    return [f"{label} {i}" for i in range(count)]


WINDOW_PAST = 3 * COMPARED_LINES


@pytest.mark.parametrize("old, new", [
    # A change every 1,000 lines, throughout.
    (_numbered(WINDOW_PAST), [line + " changed" if i % 1000 == 500 else line
                              for i, line in enumerate(_numbered(WINDOW_PAST))]),
    # Every line changed, the last three kept.
    (_numbered(WINDOW_PAST) + ["end"] * 3, _numbered(WINDOW_PAST, "row") + ["end"] * 3),
    # Short against long, and long against short, after a common head.
    (_numbered(10), _numbered(5) + _numbered(WINDOW_PAST, "new")),
    (_numbered(WINDOW_PAST), _numbered(10)),
    # Long against long, with an empty line and a blank text's worth of lines.
    ([""] + _numbered(WINDOW_PAST), [""] * (WINDOW_PAST // 2) + ["x"]),
])
def test_a_long_diff_sends_its_worker_only_the_lines_it_can_read(old, new):
    """Past the lines a diff compares after the common head and the lines it may make
    (`limit`), the worker is sent a count, not the lines: the diff is the same as of every
    line, made in this process."""
    old_text, new_text = "\n".join(old), "\n".join(new)
    diff = diff_lines(old_text, new_text, limit=200)
    assert diff == exact_diff(old_text, new_text, limit=200)
    assert diff.windowed
    a, b = old_text.splitlines(), new_text.splitlines()
    alo, ahi, blo, bhi = opcodes.trim(a, b, 0, len(a), 0, len(b))
    start = max(0, alo - 3)
    for lines, lo, hi in ((a, alo, ahi), (b, blo, bhi)):
        head, unsent, tail = _sent(lines, start, lo, hi, 3, 200)
        sent = sum(text.count("\n") + 1 for text in (head, tail) if text is not None)
        assert sent <= COMPARED_LINES + 200 + 9
        assert sent + unsent == min(len(lines), hi + 3) - start
