"""Rule 1, JSON -> markdown: golden files for JSON text, tables for Python values, and
properties that hold for any input.

Each `fixtures/json_markdown/NAME.txt` holds a `# comment`, an optional `--- max_items`
section, the `--- input` JSON text and the expected `--- output`, side by side.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from webapp.pipeline import json_markdown
from webapp.pipeline.json_markdown import json_to_markdown

FIXTURES = Path(__file__).parent / "fixtures" / "json_markdown"
SECTION = re.compile(r"^--- (input|output|max_items)\n", re.MULTILINE)


def read_fixture(path: Path) -> dict[str, str]:
    """The sections of a golden file, each without the newline that ends it."""
    parts = SECTION.split(path.read_text(encoding="utf-8"))
    return {name: body.removesuffix("\n") for name, body in
            zip(parts[1::2], parts[2::2], strict=True)}


FIXTURE_FILES = sorted(FIXTURES.glob("*.txt"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.stem for p in FIXTURE_FILES])
def test_golden(path: Path) -> None:
    fixture = read_fixture(path)
    assert {"input", "output"} <= fixture.keys(), f"{path.name} needs --- input and --- output"
    max_items = int(fixture.get("max_items", "8"))
    assert json_to_markdown(fixture["input"], max_items) == fixture["output"]


def test_there_are_golden_files() -> None:
    assert len(FIXTURE_FILES) >= 30


# -- values given as Python objects -------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (None, ""),
    (True, "true"),
    (False, "false"),
    (0, "0"),
    (-17, "-17"),
    (10**30, "1" + "0" * 30),
    (1.5, "1.5"),
    (1.0, "1.0"),
    (1e100, "1e+100"),
    (float("nan"), "nan"),
    ({}, ""),
    ([], ""),
    ({"ok": True, "n": 2.5, "none": None}, "- **ok**: true\n- **n**: 2.5\n- **none**:"),
    ({"flags": [True, False, None, 1.0]}, "- **flags**: true, false, , 1.0"),
    ([True, None, 3], "- true\n-\n- 3"),
    ({"point": (1, 2)}, "- **point**: 1, 2"),
    ((("a", "b"),), "- - a\n  - b"),
    ({1: "one", None: "nothing", (1, 2): "pair"},
     "- **1**: one\n- **null**: nothing\n- **(1, 2)**: pair"),
    ({"line\nbreak": 1}, "- **line break**: 1"),
    ({"a": {"b": (True,)}}, "- **a**:\n  - **b**: true"),
], ids=repr)
def test_python_values(value: object, expected: str) -> None:
    assert json_to_markdown(value) == expected


def test_a_python_str_is_json_text() -> None:
    assert json_to_markdown('{"a": 1}') == "- **a**: 1"
    assert json_to_markdown("plain words") == "plain words"


def test_a_huge_python_int_keeps_every_digit() -> None:
    number = 7 * 10**6000 + 1  # more digits than str() converts by default
    assert json_to_markdown({"n": number}) == "- **n**: 7" + "0" * 5999 + "1"
    assert json_to_markdown(-number).startswith("-7000")


def test_a_huge_integer_in_json_text_keeps_every_digit() -> None:
    digits = "9" * 5000
    assert json_to_markdown(f'{{"n": {digits}}}') == f"- **n**: {digits}"


def test_mapping_and_str_subclasses_render_like_their_base() -> None:
    class Name(str):
        def __str__(self) -> str:
            return "not this"

    from collections import OrderedDict
    assert json_to_markdown(OrderedDict(a=Name("Simon"))) == "- **a**: Simon"


def test_foreign_objects_render_as_their_str() -> None:
    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert json_to_markdown({"when": Path("x")}) == "- **when**: x"
    assert json_to_markdown({"b": Broken()}) == "- **b**: <Broken>"


# -- max_items ---------------------------------------------------------------------------

@pytest.mark.parametrize("max_items", [0, None, -3, "junk"])
def test_max_items_zero_none_or_unusable_means_no_limit(max_items: object) -> None:
    assert json_to_markdown(list(range(20)), max_items).count("\n") == 19


def test_max_items_counts_the_items_of_every_array() -> None:
    assert json_to_markdown([[1, 2, 3]], 2) == "- - 1\n  - 2\n  - *(... and 1 more items)*"
    assert (json_to_markdown({"k": list(range(5))}, 3)
            == "- **k**: 0, 1, 2, *(... and 2 more items)*")
    assert json_to_markdown(list(range(9))).endswith("- 7\n- *(... and 1 more items)*")


# -- text that is not JSON ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "", "   ", "\n", "hello", "# Heading\n\n- item\n", "NaN", "Infinity", "-Infinity",
    "[1, 2", "{'single': 'quotes'}", "tru", "nul", "1 2", "[1] trailing", "\ufeff{}",
], ids=repr)
def test_text_that_is_not_json_comes_back_unchanged(text: str) -> None:
    assert json_to_markdown(text) == text


def test_obvious_non_json_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoParse:
        def decode(self, text: str) -> object:
            raise AssertionError(f"parsed {text!r}")

    monkeypatch.setattr(json_markdown, "_DECODER", NoParse())
    for text in ("Good morning", "  # Title", "*bold*", "NaN", "<b>", ""):
        assert json_to_markdown(text) == text


def test_nesting_deeper_than_the_stack_does_not_raise() -> None:
    deep_text = "[" * 100_000 + "]" * 100_000
    assert json_to_markdown(deep_text) == deep_text
    deep_value: list = []
    for _ in range(5000):
        deep_value = [deep_value]
    assert isinstance(json_to_markdown(deep_value), str)


def test_a_cyclic_value_does_not_raise() -> None:
    cyclic: dict = {"name": "loop"}
    cyclic["self"] = cyclic
    assert "loop" in json_to_markdown(cyclic)


# -- properties --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (st.lists(children, max_size=12)
                      | st.dictionaries(st.text(), children, max_size=6)),
    max_leaves=40,
)


def assert_clean_lines(markdown: str) -> None:
    assert not markdown.endswith("\n")
    for lines in (markdown.split("\n"), markdown.splitlines()):
        for line in lines:
            assert line == line.rstrip(), f"trailing whitespace in {line!r}"


@given(json_values, st.sampled_from([0, 1, 3, 8, None]))
def test_any_json_value_renders_without_raising(value: object, max_items: int | None) -> None:
    markdown = json_to_markdown(value, max_items)
    assert isinstance(markdown, str)
    if isinstance(value, (dict, list)):
        assert_clean_lines(markdown)


@given(json_values)
def test_json_text_renders_like_the_value_it_holds(value: object) -> None:
    assume(not isinstance(value, str))  # a Python str is itself JSON text
    # Python writes each int and float as repr() does, so the spelling kept from the
    # text equals the value's own rendering.
    assert json_to_markdown(json.dumps(value)) == json_to_markdown(value)


@given(st.text())
def test_any_text_renders_without_raising(text: str) -> None:
    assert isinstance(json_to_markdown(text), str)


@given(st.text(alphabet="{}[]\",:-0123456789.eEtruefalsn \n\\", max_size=40))
def test_json_like_text_renders_without_raising(text: str) -> None:
    markdown = json_to_markdown(text)
    try:
        value = json.loads(text)
    except ValueError:
        assert markdown == text
        return
    if isinstance(value, (dict, list)):
        assert_clean_lines(markdown)


@given(st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_numbers_keep_their_json_spelling(number: float) -> None:
    text = json.dumps(number)
    assert json_to_markdown(text) == text
    assert json_to_markdown(f"[{text}]") == f"- {text}"


# -- Nostr events, the documents `make bench` measures ------------------------------------

def nostr_feed(count: int) -> str:
    """A relay's answer of `count` (<= 16) kind-1 notes as JSON text; note i's id is 64 hex i's."""
    events = [{"id": f"{i:x}" * 64, "pubkey": "ab" * 32, "created_at": 1774263529 + i, "kind": 1,
               "tags": [["e", "cd" * 32, "wss://relay.example.com", "reply"], ["t", "zap"]],
               "content": f"gm\nnote {i}", "sig": "ef" * 64}
              for i in range(count)]
    return json.dumps(events, separators=(",", ":"))


def test_a_feed_shows_its_first_eight_events_by_default() -> None:
    markdown = json_to_markdown(nostr_feed(12))
    ids = [line for line in markdown.split("\n") if line.startswith("- **id**: ")]
    assert ids == [f"- **id**: {f'{i:x}' * 64}" for i in range(8)]
    assert markdown.endswith("\n- *(... and 4 more items)*")


def test_a_feed_renders_every_event_with_no_limit() -> None:
    markdown = json_to_markdown(nostr_feed(12), None)
    assert markdown.count("\n- **id**: ") == 11 and markdown.startswith("- **id**: ")
    assert "more items" not in markdown
    first = markdown.split("\n- **id**: ")[0]
    assert first == "\n".join([
        f"- **id**: {'0' * 64}",
        f"  - **pubkey**: {'ab' * 32}",
        "  - **created_at**: 1774263529",
        "  - **kind**: 1",
        "  - **tags**:",
        "    - - e",
        f"      - {'cd' * 32}",
        "      - wss://relay.example.com",
        "      - reply",
        "    - - t",
        "      - zap",
        "  - **content**: gm",
        "    note 0",
        f"  - **sig**: {'ef' * 64}",
    ])
    assert_clean_lines(markdown)
