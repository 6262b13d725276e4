"""Word marking is bounded by the words it hands difflib, not by the lines' length.

difflib weighs every word of one line against every word of the other: a 40 KB one-line
message in the Diff tab took 128 s, two 20 KB saved versions made the History page take
15 s. The tests count what word marking hands `SequenceMatcher` (the pairs of words it
weighs, the product of the two sequences' lengths), never the time.
"""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import pytest

from webapp.web import word_marks
from webapp.web.diffing import diff_lines
from webapp.web.word_marks import WORD_LINE_WORDS, WORD_WORK, word_parts


@pytest.fixture
def weighed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pairs of words each `SequenceMatcher` of word marking is given, in order."""
    counts: list[int] = []

    class Counted(SequenceMatcher):  # type: ignore[type-arg]
        def set_seqs(self, a, b):  # type: ignore[no-untyped-def]
            counts.append(len(a) * len(b))
            super().set_seqs(a, b)

    monkeypatch.setattr(word_marks, "SequenceMatcher", Counted)
    return counts


def _words(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(["the", "a", "of", "x", "y", "z", "."]) for _ in range(n))


def test_a_40_kb_line_rewritten_is_shown_changed_whole(weighed: list[int]) -> None:
    # 40 KB each, 30,000 words (runs of spaces and punctuation count) alike in none.
    old, new = f"start {_words(15_000, 1)} end", f"START {_words(15_000, 2).upper()} END"
    (hunk,) = diff_lines(old, new).hunks
    assert [line.parts for line in hunk.lines] == [((old, True),), ((new, True),)]
    assert sum(weighed) == 0


def test_a_word_typed_into_a_40_kb_line_is_marked_alone(weighed: list[int]) -> None:
    head, tail = _words(5_000, 3), _words(5_000, 4)
    left, right = word_parts(f"{head} {tail}", f"{head} typed {tail}")
    assert left == ((f"{head} {tail}", False),)
    assert right == ((f"{head} ", False), ("typed ", True), (tail, False))
    assert sum(weighed) <= 4


def test_two_20_kb_versions_of_many_lines_weigh_at_most_the_budget(weighed: list[int]) -> None:
    # Lines of 900 words, each rewritten: each pair is marked word by word until the
    # budget is spent, the rest shown removed and added.
    old = "\n".join(_words(450, seed) for seed in range(0, 40, 2))
    new = "\n".join(_words(450, seed) for seed in range(1, 40, 2))
    diff = diff_lines(old, new)
    assert sum(weighed) <= WORD_WORK
    assert len(weighed) == 2  # 900 words against 900, twice: the third would pass the budget
    unmarked = [line for hunk in diff.hunks for line in hunk.lines
                if line.kind == "del" and len(line.parts) == 1 and not line.parts[0][1]]
    assert len(unmarked) == 20 - len(weighed)


@pytest.mark.parametrize("old, new", [
    ("a b " * 20_000, "b a " * 20_000),
    (". " * 20_000, ", " * 20_000),
    ("x" * 40_000, "y" * 40_000),
    ("a " * 20_000, "a " * 19_999 + "b "),
    ("a" + " " * 40_000, "b" + " " * 40_000),
    ("é " * 20_000, "e " * 20_000),
], ids=["swapped words", "punctuation", "one word", "one word changed at the end",
        "spaces after a changed word", "accents"])
def test_long_lines_weigh_no_more_than_a_line_may(weighed: list[int], old: str,
                                                  new: str) -> None:
    for pair in ((old, new), (new, old), (old, old[:-1]), (old + new, new + old)):
        word_parts(*pair)
        diff_lines(*pair)
    assert all(n <= WORD_LINE_WORDS ** 2 for n in weighed)


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


def test_lines_within_the_bound_are_marked_as_difflib_marks_them() -> None:
    rng = random.Random(5)
    for _ in range(300):
        old = _words(rng.randrange(1, 40), rng.randrange(10**6))
        new = _words(rng.randrange(1, 40), rng.randrange(10**6))
        assert word_parts(old, new)[1] == _difflib_parts(old, new)
