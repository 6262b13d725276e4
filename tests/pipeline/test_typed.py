"""The owners of the rules for typed text and for severities: the flag words and the
severity order, as one table each (the line ends are in tests/web/test_line_ends.py)."""

from __future__ import annotations

import pytest

from webapp.pipeline import (
    SEVERITIES,
    Diagnostic,
    count_severities,
    flag_word,
    severity_rank,
)


@pytest.mark.parametrize("text, read", [
    ("1", True), ("true", True), ("Yes", True), (" ON ", True),
    ("0", False), ("false", False), ("No", False), ("off\n", False),
    ("", False), ("   ", False),  # what an empty field or query argument sends
    ("maybe", None), ("2", None), ("y", None), ("truee", None),
])
def test_flag_words(text, read):
    assert flag_word(text) is read


def test_severities_worst_first():
    assert SEVERITIES == ("error", "warning", "info")
    assert sorted(["info", "bogus", "error", "warning"], key=severity_rank) == [
        "error", "warning", "info", "bogus"]


def test_count_severities_has_every_key():
    found = [Diagnostic("warning", "c", "m"), Diagnostic("warning", "c", "m"),
             Diagnostic("info", "c", "m")]
    assert count_severities(found) == {"error": 0, "warning": 2, "info": 1}
    assert count_severities([]) == dict.fromkeys(SEVERITIES, 0)
