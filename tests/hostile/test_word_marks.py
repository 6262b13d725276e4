"""Word marking is bounded by the steps of difflib's search, not by the lines' length.

difflib's search for matching words is cubic on lines whose words repeat: a 40 KB one-line
message in the Diff tab took 128 s, two 20 KB saved versions made the History page take
15 s, and 500 `a` against 500 `b` (the spaces matching) take seconds. The tests count the
steps word marking spends (`WordMarker.steps`), never the time; the shapes that are slow
come out marked coarsely, which they would not if the count were skipped.
"""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest

from webapp.textdiff import lines as diffing
from webapp.textdiff import words as word_marks
from webapp.textdiff.lines import exact_diff
from webapp.textdiff.words import WORD_LINE_WORDS, WORD_STEPS, WordMarker, word_parts


@pytest.fixture
def markers(monkeypatch: pytest.MonkeyPatch) -> list[WordMarker]:
    """The word markers `exact_diff` makes, one a diff (made here: `diff_lines` would run
    it in a worker process)."""
    made: list[WordMarker] = []

    class Kept(WordMarker):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(diffing, "WordMarker", Kept)
    return made


def _spent(marker: WordMarker) -> int:
    return WORD_STEPS - marker.steps


def _words(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(["the", "a", "of", "x", "y", "z", "."]) for _ in range(n))


def _marked_lines(diff: diffing.Diff) -> int:
    return sum(1 for hunk in diff.hunks for line in hunk.lines
               if line.kind == "del" and any(changed for _, changed in line.parts))


def test_a_40_kb_line_rewritten_is_shown_changed_whole(markers: list[WordMarker]) -> None:
    # 36 KB each, 30,000 words (runs of spaces and punctuation count), much of them alike.
    old, new = _words(15_000, 1), _words(15_000, 2)
    (hunk,) = exact_diff(old, new).hunks
    assert [line.parts for line in hunk.lines] == [((old, True),), ((new, True),)]
    (marker,) = markers
    assert _spent(marker) <= WORD_STEPS


def test_a_word_typed_into_a_40_kb_line_is_marked_alone() -> None:
    head, tail = _words(5_000, 3), _words(5_000, 4)
    marker = WordMarker()
    left, right = marker.parts(f"{head} {tail}", f"{head} typed {tail}")
    assert left == ((f"{head} {tail}", False),)
    assert right == ((f"{head} ", False), ("typed ", True), (tail, False))
    assert _spent(marker) <= 4


@pytest.mark.parametrize("old, new", [
    ("a " * 500, "b " * 500),
    ("a b c " * 166, "c b a " * 166),
    ("".join((c + " ") * 10 for c in "ab" * 25), "".join((c + " ") * 9 for c in "ba" * 27)),
], ids=["a against b", "abc against cba", "blocks"])
def test_a_line_whose_search_is_cubic_is_stopped(old: str, new: str) -> None:
    marker = WordMarker()
    assert marker.parts(old, new) == (((old, True),), ((new, True),))
    assert _spent(marker) == WORD_STEPS  # and the lines after it go unmarked
    assert marker.parts("a b", "a c") is None


def test_many_rewritten_lines_stop_being_marked_at_the_budget(
        markers: list[WordMarker]) -> None:
    # Two 20 KB versions of twenty lines of 900 words, each line rewritten.
    old = "\n".join(_words(450, seed) for seed in range(0, 40, 2))
    new = "\n".join(_words(450, seed) for seed in range(1, 40, 2))
    diff = exact_diff(old, new)
    (marker,) = markers
    assert _spent(marker) <= WORD_STEPS
    assert 0 < _marked_lines(diff) < 20


@pytest.mark.parametrize("old, new", [
    ("a b " * 20_000, "b a " * 20_000),
    (". " * 20_000, ", " * 20_000),
    ("x" * 40_000, "y" * 40_000),
    ("a " * 20_000, "a " * 19_999 + "b "),
    ("a" + " " * 40_000, "b" + " " * 40_000),
    ("é " * 20_000, "e " * 20_000),
    ("\n".join(["a " * 500] * 100), "\n".join(["b " * 500] * 100)),
], ids=["swapped words", "punctuation", "one word", "one word changed at the end",
        "spaces after a changed word", "accents", "a hundred cubic lines"])
def test_long_lines_take_no_more_steps_than_a_diff_may(markers: list[WordMarker], old: str,
                                                        new: str) -> None:
    for pair in ((old, new), (new, old), (old, old[:-1]), (old + new, new + old)):
        exact_diff(*pair)
    assert markers and all(_spent(marker) <= WORD_STEPS for marker in markers)


def _difflib_parts(old: str, new: str) -> tuple[tuple[str, bool], ...]:
    """Word marking as plain difflib gives it on the whole lines (the new side)."""
    a, b = word_marks._WORDS.findall(old), word_marks._WORDS.findall(new)
    parts: list[tuple[str, bool]] = []
    for tag, _, _, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if j2 > j1:
            text, changed = "".join(b[j1:j2]), tag != "equal"
            if parts and parts[-1][1] == changed:
                parts[-1] = (parts[-1][0] + text, changed)
            else:
                parts.append((text, changed))
    return tuple(parts)


def test_ordinary_lines_are_marked_as_difflib_marks_them() -> None:
    rng = random.Random(5)
    for _ in range(300):
        old = _words(rng.randrange(1, 40), rng.randrange(10**6))
        new = _words(rng.randrange(1, 40), rng.randrange(10**6))
        assert word_parts(old, new)[1] == _difflib_parts(old, new)
    paragraph = "The quick brown fox jumps over the lazy dog, then runs into the forest. " * 6
    edited = paragraph.replace("fox", "cat", 3).replace("lazy", "sleepy", 2)
    assert len(word_marks._WORDS.findall(paragraph)) < WORD_LINE_WORDS
    assert word_parts(paragraph, edited)[1] == _difflib_parts(paragraph, edited)
