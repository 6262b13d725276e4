"""The formatter registry (rule 6): every built-in format, the registry itself, and the
promises every formatter keeps (empty in, "" out; never raises; no trailing newline)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.pipeline.formatters import (
    FORMATTERS,
    FormatOptions,
    coerce_json,
    format_value,
    register_formatter,
)
from webapp.pipeline.workspace import DEFAULT_HISTORY_LABELS

BUILTIN_FORMATS = ["markdown", "text", "inline_code", "json_block", "list", "dm_history",
                   "trigger_event", "agent_identity", "agent_profile", "admin_profile",
                   "admin_notes", "admin_relays"]


def fmt(name: str, value: object, **options: object) -> str:
    return format_value(name, value, FormatOptions(**options))


# -- the registry ------------------------------------------------------------------------

def test_every_builtin_format_is_registered() -> None:
    assert set(BUILTIN_FORMATS) <= set(FORMATTERS)


def test_options_default_to_the_agent_defaults() -> None:
    options = FormatOptions()
    assert (options.max_items, options.limit) == (8, None)
    assert dict(options.history_labels) == DEFAULT_HISTORY_LABELS
    assert FormatOptions(3, 2, {"user": "Boss"}).history_labels == {"user": "Boss"}


def test_register_a_formatter_with_a_call() -> None:
    def shout(value: object, options: FormatOptions) -> str:
        return str(value).upper()

    try:
        assert register_formatter("test_shout", shout) is shout
        assert format_value("test_shout", "hi", FormatOptions()) == "HI"
    finally:
        FORMATTERS.pop("test_shout", None)


def test_register_a_formatter_with_the_decorator() -> None:
    try:
        @register_formatter("test_count")
        def count(value: object, options: FormatOptions) -> str:
            return f"{len(value)} items, limit {options.limit}"

        assert FORMATTERS["test_count"] is count
        assert fmt("test_count", [1, 2], limit=5) == "2 items, limit 5"
    finally:
        FORMATTERS.pop("test_count", None)


def test_registering_a_name_again_replaces_the_formatter() -> None:
    original = FORMATTERS["text"]
    try:
        register_formatter("text", lambda value, options: "replaced")
        assert fmt("text", "x") == "replaced"
    finally:
        register_formatter("text", original)
    assert fmt("text", "x") == "x"


def test_an_unknown_format_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        format_value("no_such_format", {"a": 1}, FormatOptions())


# -- coerce_json -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ('{"a": 1}', {"a": 1}),
    ('  \n[1, 2]', [1, 2]),
    ("[1, 2", "[1, 2"),
    ("{not json}", "{not json}"),
    ("42", "42"),
    ('"text"', '"text"'),
    ("plain", "plain"),
    ("", ""),
    (None, None),
    (5, 5),
    ({"a": 1}, {"a": 1}),
    ("[" * 100_000, "[" * 100_000),
], ids=lambda v: repr(v)[:30])
def test_coerce_json(value: object, expected: object) -> None:
    assert coerce_json(value) == expected


# -- empty input -------------------------------------------------------------------------

@pytest.mark.parametrize("name", BUILTIN_FORMATS)
@pytest.mark.parametrize("empty", [None, "", "  \n", [], {}], ids=repr)
def test_empty_input_gives_the_empty_string(name: str, empty: object) -> None:
    assert fmt(name, empty) == ""


@pytest.mark.parametrize("name", sorted(set(BUILTIN_FORMATS) - {"text", "inline_code"}))
@pytest.mark.parametrize("empty", ["[]", " {} "])
def test_json_text_of_an_empty_value_gives_the_empty_string(name: str, empty: str) -> None:
    assert fmt(name, empty) == ""


def test_text_keeps_a_string_as_is_even_when_it_holds_json() -> None:
    assert fmt("text", "[]") == "[]"
    assert fmt("inline_code", "{}") == "`{}`"


# -- markdown ----------------------------------------------------------------------------

def test_markdown_is_rule_1_with_the_agents_max_items() -> None:
    assert fmt("markdown", {"name": "Simon", "n": 1}) == "- **name**: Simon\n- **n**: 1"
    assert fmt("markdown", list(range(5)), max_items=2) == "- 0\n- 1\n- *(... and 3 more items)*"


def test_markdown_keeps_the_number_spelling_of_json_text() -> None:
    assert fmt("markdown", '{"price": 1.50}') == "- **price**: 1.50"


def test_markdown_passes_text_through_without_a_trailing_newline() -> None:
    assert fmt("markdown", "Already **markdown**\n\n") == "Already **markdown**"
    assert fmt("markdown", True) == "true"


# -- text, inline_code, json_block -------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("as is, {\"a\": 1}", "as is, {\"a\": 1}"),
    ("line\n", "line"),
    (42, "42"),
    (1.5, "1.5"),
    (True, "true"),
    (False, "false"),
    ({"a": [1, "ü"]}, '{"a":[1,"ü"]}'),
    ([1, None], "[1,null]"),
], ids=repr)
def test_text(value: object, expected: str) -> None:
    assert fmt("text", value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("npub1abc", "`npub1abc`"),
    ("a `tick` here", "``a `tick` here``"),
    ("``double``", "``` ``double`` ```"),
    ("`start", "`` `start ``"),
    (" padded ", "`  padded  `"),
    ("   ", ""),
    ("two\nlines", "`two lines`"),
    (7, "`7`"),
    ({"a": 1}, '`{"a":1}`'),
], ids=repr)
def test_inline_code(value: object, expected: str) -> None:
    assert fmt("inline_code", value) == expected


def test_json_block_indents_by_two_spaces_in_a_json_fence() -> None:
    assert fmt("json_block", {"name": "Zoë", "tags": [1]}) == (
        '```json\n{\n  "name": "Zoë",\n  "tags": [\n    1\n  ]\n}\n```')


def test_json_block_parses_json_text_first() -> None:
    assert fmt("json_block", '{"a":1}') == '```json\n{\n  "a": 1\n}\n```'
    assert fmt("json_block", "plain") == '```json\n"plain"\n```'


# -- list --------------------------------------------------------------------------------

def test_list_of_primitives() -> None:
    assert fmt("list", ["a", 2, True, None]) == "- a\n- 2\n- true\n-"


def test_list_nests_objects_and_arrays_as_rule_1_does() -> None:
    value = [{"content": "Deployed", "created_at": 1}, [1, 2], "multi\nline"]
    assert fmt("list", value) == (
        "- **content**: Deployed\n  - **created_at**: 1\n- - 1\n  - 2\n- multi\n  line")


def test_list_shows_every_item_unless_limited() -> None:
    assert fmt("list", list(range(10)), max_items=3).count("\n") == 9
    assert fmt("list", list(range(10)), limit=2) == "- 0\n- 1"
    assert fmt("list", list(range(10)), limit=0) == ""


def test_list_of_a_string_is_one_bullet_per_non_empty_line() -> None:
    assert fmt("list", "first\n\n  second  \n") == "- first\n- second"
    assert fmt("list", "a\nb\nc", limit=2) == "- a\n- b"
    assert fmt("list", "[1, 2]") == "- 1\n- 2"


def test_list_of_a_single_value_is_one_bullet() -> None:
    assert fmt("list", 5) == "- 5"
    assert fmt("list", {"name": "Simon", "about": "AI"}) == "- **name**: Simon\n  - **about**: AI"


# -- dm_history --------------------------------------------------------------------------

SEED_HISTORY = [
    {"role": "assistant",
     "content": "Didactyl has started up and is online at 2026-03-23 09:22:48.",
     "created_at": 1774263529},
    {"role": "user", "content": "Good morning", "created_at": 1774263548},
    {"role": "assistant", "content": "Good morning! How can I help?", "created_at": 1774263551},
]


def test_dm_history_seed_example() -> None:
    assert fmt("dm_history", SEED_HISTORY) == (
        "## Conversation History\n"
        "\n"
        "- **You**: Didactyl has started up and is online at 2026-03-23 09:22:48.\n"
        "- **Admin**: Good morning\n"
        "- **You**: Good morning! How can I help?")


def test_dm_history_from_json_text() -> None:
    assert fmt("dm_history", json.dumps(SEED_HISTORY)) == fmt("dm_history", SEED_HISTORY)


def test_dm_history_limit_keeps_the_last_entries() -> None:
    assert fmt("dm_history", SEED_HISTORY, limit=1) == (
        "## Conversation History\n\n- **You**: Good morning! How can I help?")
    assert fmt("dm_history", SEED_HISTORY, limit=0) == ""


def test_dm_history_labels_and_unknown_roles() -> None:
    history = [{"role": "user", "content": "hi"}, {"role": "system", "content": "note"},
               {"role": "toolCall", "content": "x"}]
    assert fmt("dm_history", history, history_labels={"user": "Boss"}).split("\n")[2:] == [
        "- **Boss**: hi", "- **System**: note", "- **ToolCall**: x"]


def test_dm_history_multi_line_and_structured_content() -> None:
    history = [{"role": "user", "content": "line one\nline two\n\nline four\n"},
               {"role": "assistant", "content": {"ok": True}},
               {"role": "assistant", "content": None}]
    assert fmt("dm_history", history).split("\n")[2:] == [
        "- **Admin**: line one", "  line two", "", "  line four",
        "- **You**:", "  - **ok**: true",
        "- **You**:"]


def test_dm_history_shows_entries_without_a_role_unlabelled() -> None:
    assert fmt("dm_history", [{"content": "orphan"}, "plain", 3]).split("\n")[2:] == [
        "- orphan", "- plain", "- 3"]


# -- trigger_event -----------------------------------------------------------------------

def test_trigger_event_seed_example() -> None:
    event = {"type": "cron", "filter": "0 12 * * *", "created_at": 1742641200}
    expected = ('Triggering event:\n\n```json\n'
                '{"type":"cron","filter":"0 12 * * *","created_at":1742641200}\n```')
    assert fmt("trigger_event", event) == expected
    assert fmt("trigger_event", json.dumps(event, indent=2)) == expected


# -- agent_identity, agent_profile, admin_profile -----------------------------------------

NPUB = "npub1kfc89dlu9m05tvfnry4l3jjacqpp930sz4kaghcmg9vrrrceg44qf80xae"


def test_agent_identity_seed_example() -> None:
    identity = {"pubkey": "abc123...", "npub": NPUB}
    assert fmt("agent_identity", identity) == f"- **npub**: `{NPUB}`"
    assert fmt("agent_identity", json.dumps(identity)) == f"- **npub**: `{NPUB}`"


@pytest.mark.parametrize("value", [{"pubkey": "abc"}, {"npub": ""}, ["npub1x"], "npub1x", 5])
def test_agent_identity_without_an_npub_is_empty(value: object) -> None:
    assert fmt("agent_identity", value) == ""


PROFILE = {"name": "Simon", "about": "Sovereign AI.\nLives on Nostr.", "picture": "https://x/p.png"}
KIND0 = {"kind": 0, "pubkey": "abc", "content": json.dumps(PROFILE), "tags": []}


@pytest.mark.parametrize("value", [PROFILE, KIND0, json.dumps(PROFILE), json.dumps(KIND0), [KIND0]],
                         ids=["profile", "event", "profile_text", "event_text", "event_list"])
def test_agent_profile_is_the_kind_0_name(value: object) -> None:
    assert fmt("agent_profile", value) == "Simon"


@pytest.mark.parametrize("value", [{"about": "no name"}, {"kind": 0, "content": "not json"},
                                   "Simon", 0, [1, 2]], ids=repr)
def test_agent_profile_without_a_name_is_empty(value: object) -> None:
    assert fmt("agent_profile", value) == ""


@pytest.mark.parametrize("value", [PROFILE, KIND0, json.dumps(KIND0)],
                         ids=["profile", "event", "event_text"])
def test_admin_profile_is_name_and_about(value: object) -> None:
    assert fmt("admin_profile", value) == (
        "- **name**: Simon\n- **about**: Sovereign AI.\n  Lives on Nostr.")


def test_admin_profile_shows_only_what_is_present() -> None:
    assert fmt("admin_profile", {"name": "Simon", "about": ""}) == "- **name**: Simon"
    assert fmt("admin_profile", {"about": "Just about"}) == "- **about**: Just about"
    assert fmt("admin_profile", {"picture": "x"}) == ""


# -- admin_notes -------------------------------------------------------------------------

NOTES = [
    {"kind": 1, "content": "Shipped v0.2.12", "created_at": 1774263529},
    {"kind": 1, "content": "Working on skills\nand tests", "created_at": 1774263600},
    {"kind": 1, "content": "", "created_at": 1774263700},
    "a plain string note",
]


def test_admin_notes_one_bullet_per_note() -> None:
    assert fmt("admin_notes", NOTES) == (
        "- Shipped v0.2.12\n- Working on skills\n  and tests\n- a plain string note")
    assert fmt("admin_notes", json.dumps(NOTES)) == fmt("admin_notes", NOTES)


def test_admin_notes_limit_keeps_the_last_notes() -> None:
    assert fmt("admin_notes", NOTES, limit=2) == "- a plain string note"
    assert fmt("admin_notes", NOTES, limit=3) == (
        "- Working on skills\n  and tests\n- a plain string note")


def test_admin_notes_of_a_single_note_or_odd_shapes() -> None:
    assert fmt("admin_notes", NOTES[0]) == "- Shipped v0.2.12"
    assert fmt("admin_notes", [{"id": "x", "kind": 1}]) == "- **id**: x\n  - **kind**: 1"


# -- admin_relays ------------------------------------------------------------------------

RELAYS = {"kind": 10002, "tags": [["r", "wss://relay.damus.io"], ["r", "wss://nos.lol", "read"],
                                  ["p", "abc"], ["r", "wss://relay.damus.io", "write"], ["r"]]}


def test_admin_relays_one_bullet_per_r_tag_without_duplicates() -> None:
    assert fmt("admin_relays", RELAYS) == "- wss://relay.damus.io\n- wss://nos.lol"


@pytest.mark.parametrize("value", [json.dumps(RELAYS), [RELAYS], RELAYS["tags"], [RELAYS, RELAYS]],
                         ids=["text", "event_list", "tags", "duplicate_events"])
def test_admin_relays_accepts_events_and_bare_tags(value: object) -> None:
    assert fmt("admin_relays", value) == "- wss://relay.damus.io\n- wss://nos.lol"


def test_admin_relays_limit_and_odd_shapes() -> None:
    assert fmt("admin_relays", RELAYS, limit=1) == "- wss://relay.damus.io"
    assert fmt("admin_relays", {"kind": 10002, "tags": "nope"}) == ""
    assert fmt("admin_relays", [["r", 5], ["r", " "], "r"]) == ""


# -- properties --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (st.lists(children, max_size=8)
                      | st.dictionaries(st.text(), children, max_size=6)),
    max_leaves=30,
)
# Values shaped like what the formatters look for, so their inner paths run too.
shaped_values = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["user", "assistant", "system", ""]) | json_values,
    "content": json_values, "name": json_values, "about": json_values, "npub": json_values,
    "tags": st.lists(st.lists(st.sampled_from(["r", "p"]) | json_values, max_size=3), max_size=4)
    | json_values,
})
any_options = st.builds(FormatOptions, st.sampled_from([0, 1, 8]),
                        st.none() | st.integers(-2, 5), st.just(DEFAULT_HISTORY_LABELS))


@given(st.sampled_from(BUILTIN_FORMATS),
       json_values | shaped_values | st.lists(shaped_values, max_size=4), any_options)
def test_formatters_never_raise_nor_end_with_a_newline(name: str, value: object,
                                                       options: FormatOptions) -> None:
    for candidate in (value, json.dumps(value)):
        text = format_value(name, candidate, options)
        assert isinstance(text, str)
        assert not text.endswith("\n")


@given(st.sampled_from(BUILTIN_FORMATS), st.text(), any_options)
def test_formatters_take_any_text(name: str, text: str, options: FormatOptions) -> None:
    assert not format_value(name, text, options).endswith("\n")
