"""Line diffs with word emphasis: the table reads as the behaviour."""

from __future__ import annotations

import pytest

from webapp.web.diffing import diff_lines, word_parts


@pytest.mark.parametrize("old, new, left, right", [
    ("hello world", "hello brave world",
     (("hello world", False),), (("hello ", False), ("brave ", True), ("world", False))),
    ("a b c", "a x c", (("a ", False), ("b", True), (" c", False)),
     (("a ", False), ("x", True), (" c", False))),
    ("same", "same", (("same", False),), (("same", False),)),
    ("", "new", (), (("new", True),)),
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
