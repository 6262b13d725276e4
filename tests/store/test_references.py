"""A snapshot reference read once (`store.labels.reference`), for every path: the API,
the pages, labels and the log all take its reading."""

from __future__ import annotations

import pytest

from webapp.store.labels import DRAFT, LABEL, LATEST, NOTHING, NUMBER, reference


@pytest.mark.parametrize(("text", "kind", "number"), [
    ("3", NUMBER, 3),
    ("007", NUMBER, 7),
    ("latest", LATEST, None),
    ("draft", DRAFT, None),
    ("production", LABEL, None),
    ("staging-2", LABEL, None),
    ("\u00b2", NOTHING, None),  # a superscript two: a digit to str.isdigit, not a number
    ("1234567890", NOTHING, None),  # more digits than a snapshot's number has
    ("Production", NOTHING, None),
    ("a\x00b", NOTHING, None),
    ("", NOTHING, None),
])
def test_a_reference_means_one_thing(text, kind, number):
    read = reference(text)
    assert (read.kind, read.number) == (kind, number)
