"""Import and export of whole workspaces as `skill-workspace/1` bundles."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp import store
from webapp.demo import DEMO_BUNDLES
from webapp.pipeline import BundleError, dump_bundle, load_bundle
from webapp.store.rules import INVISIBLE, d_tag_route_problem, normalized_bundle


def test_export_of_an_import_equals_the_input(session, full_bundle):
    store.import_bundle(session, full_bundle)
    exported = store.export_bundle(session, "Tester")
    assert exported == full_bundle
    # Equal as JSON text too, modulo key order: no tuple/list or int/float drift.
    assert json.dumps(exported, sort_keys=True) == json.dumps(full_bundle, sort_keys=True)


@pytest.mark.parametrize("path", [p for p in DEMO_BUNDLES if p.exists()], ids=lambda p: p.name)
def test_demo_bundles_round_trip(session, path):
    workspace = load_bundle(path)
    store.import_bundle(session, workspace)
    assert store.load_workspace(session, workspace.agent.name) == workspace
    assert store.export_bundle(session, workspace.agent.name) == dump_bundle(workspace)


def test_import_accepts_a_workspace_and_a_minimal_dict(session):
    store.import_bundle(session, {"format": "skill-workspace/1", "agent": {"name": "tiny"},
                                  "skills": [{"d_tag": "a", "content": "hi"}]})
    exported = store.export_bundle(session, "tiny")
    assert exported["skills"] == [{"d_tag": "a", "name": "", "description": "", "layer": 1,
                                   "triggers": [], "enabled": True, "content": "hi"}]
    assert exported["agent"]["history_labels"] == {"assistant": "You", "user": "Admin"}


def test_an_invalid_bundle_writes_nothing(session, full_bundle):
    full_bundle["skills"][0]["layer"] = 5
    full_bundle["tools"][0]["name"] = "dm_history"
    with pytest.raises(BundleError) as caught:
        store.import_bundle(session, full_bundle)
    assert {p.path for p in caught.value.problems} == {"$.skills[0].layer", "$.tools[0].name"}
    assert store.list_agents(session) == []


def test_import_refuses_an_existing_agent_unless_replace(session, full_bundle):
    store.import_bundle(session, full_bundle)
    with pytest.raises(store.AlreadyExists, match="replace"):
        store.import_bundle(session, full_bundle)
    store.import_bundle(session, full_bundle, agent_name="Tester copy")
    assert [a.name for a in store.list_agents(session)] == ["Tester", "Tester copy"]
    assert store.export_bundle(session, "Tester copy")["agent"]["name"] == "Tester copy"


def test_replace_keeps_skill_history_and_trashes_what_is_gone(session, full_bundle):
    store.import_bundle(session, full_bundle)
    store.save_skill(session, "Tester", "main", expected_version=1, content="edited in the app")
    store.delete_skill(session, "Tester", "off")
    store.create_tool(session, "Tester", "extra")
    store.create_scenario(session, "Tester", "extra")

    changed = json.loads(json.dumps(full_bundle))
    changed["skills"] = [changed["skills"][2], changed["skills"][1],
                         {"d_tag": "new", "name": "New", "description": "", "layer": 1,
                          "triggers": ["dm"],
                          "enabled": True, "content": "new one"}]
    changed["skills"][1]["content"] = "from the file"
    changed["agent"]["title"] = "Changed {name}"
    store.import_bundle(session, changed, replace=True)

    assert store.export_bundle(session, "Tester") == changed
    revisions = store.list_revisions(session, "Tester", "main")
    assert [(r.version, r.content, r.note) for r in revisions[:2]] == [
        (3, "from the file", "imported"), (2, "edited in the app", None)]
    assert store.get_skill(session, "Tester", "off").version == 2, "restored from the trash"
    assert [s.d_tag for s in store.list_trash(session, "Tester")] == ["base"]
    assert [t.name for t in store.list_tools(session, "Tester")] == ["lookup", "empty"]


def test_replace_with_the_same_bundle_changes_no_skill(session, full_bundle):
    store.import_bundle(session, full_bundle)
    store.import_bundle(session, full_bundle, replace=True)
    assert {s.version for s in store.list_skills(session, "Tester")} == {1}


def test_export_leaves_out_the_trash(session, full_bundle):
    store.import_bundle(session, full_bundle)
    store.delete_skill(session, "Tester", "off")
    assert [s["d_tag"] for s in store.export_bundle(session, "Tester")["skills"]] == [
        "base", "main"]


def text(max_size: int, min_size: int = 0) -> st.SearchStrategy[str]:
    """Any text but NUL, which PostgreSQL cannot store in a text column (tested below)."""
    return st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                   min_size=min_size, max_size=max_size)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),  # NUL is fine inside JSON values: it is stored escaped
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
# Names the store's rules take: no invisible characters, no skill sub-route as a d_tag's end,
# and told apart by their NFKC forms (`store.rules`).
names = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"),
                              blacklist_characters="{}" + "".join(INVISIBLE)),
                min_size=1, max_size=12).filter(lambda n: d_tag_route_problem(n) is None)


def nfkc(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


def visible_text(max_size: int, min_size: int = 0) -> st.SearchStrategy[str]:
    """`text` without the invisible characters a name may not hold."""
    return text(max_size, min_size).filter(lambda t: not INVISIBLE.intersection(t))
BUILTIN_NAMES = {"message_current", "message", "dm_history", "trigger_event", "triggering_event",
                 "tool_list"}


@st.composite
def bundles(draw):
    """A valid bundle dict with every key."""
    skills = draw(st.lists(st.fixed_dictionaries({
        "d_tag": names, "name": visible_text(10), "layer": st.sampled_from([1, 2]),
        "triggers": st.lists(names, max_size=2), "enabled": st.booleans(),
        "content": text(60)}), max_size=4, unique_by=lambda s: nfkc(s["d_tag"])))
    tools = draw(st.lists(st.fixed_dictionaries({
        "name": names.filter(lambda n: n not in BUILTIN_NAMES),
        "description": text(10), "result": json_values,
        "results_by_args": st.lists(st.fixed_dictionaries(
            {"args": json_values, "result": json_values}), max_size=2)}),
        max_size=3, unique_by=lambda t: nfkc(t["name"])))
    variables = draw(st.lists(st.fixed_dictionaries({
        "name": names, "tool": names, "args": json_values, "result_field": names,
        "path": st.none() | text(8), "format": st.none() | names,
        "limit": st.none() | st.integers(0, 50)}), max_size=3, unique_by=lambda v: nfkc(v["name"])))
    scenarios = draw(st.lists(st.fixed_dictionaries({
        "name": visible_text(10, min_size=1).filter(str.strip), "trigger": text(8),
        "message": text(20),
        "history": st.lists(st.fixed_dictionaries({
            "role": st.sampled_from(["user", "assistant"]),
            "content": text(20), "created_at": json_values}), max_size=2),
        "event": json_values, "provider": st.none() | text(8)}),
        max_size=2, unique_by=lambda s: nfkc(s["name"])))
    agent = {"name": "generated", "title": draw(text(20)),
             "message_mode": draw(st.sampled_from(["grouped", "sequence"])),
             "max_array_items": draw(st.integers(0, 100)),
             "history_labels": draw(st.dictionaries(names, text(8), max_size=2))}
    return {"format": "skill-workspace/1", "agent": agent, "skills": skills, "tools": tools,
            "variables": variables, "scenarios": scenarios}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bundle=bundles())
def test_any_valid_bundle_round_trips(session, bundle):
    bundle = dump_bundle(load_bundle(bundle))  # every key written, as the store writes it
    store.import_bundle(session, bundle, replace=True)
    # Texts come back with LF line ends (the store's one line-end rule), all else as sent.
    assert store.export_bundle(session, "generated") == normalized_bundle(bundle)


def test_a_bare_json_string_with_nul_is_data_and_round_trips(session):
    """A scenario event or a tool result that is a bare JSON string is stored escaped, as
    every JSON value is: NUL in it is data, not refused (hypothesis found `event: "\\x00"`)."""
    bundle = dump_bundle(load_bundle({
        "format": "skill-workspace/1", "agent": {"name": "generated"},
        "tools": [{"name": "t", "result": "a\x00b"}],
        "scenarios": [{"name": "s", "event": "\x00"}]}))
    store.import_bundle(session, bundle)
    exported = store.export_bundle(session, "generated")
    assert exported["scenarios"][0]["event"] == "\x00"
    assert exported["tools"][0]["result"] == "a\x00b"


def test_line_ends_become_lf_on_import(session, full_bundle):
    full_bundle["skills"][0]["content"] = "A\ruser:\rB\r\nC"
    full_bundle["skills"][0]["triggers"] = ["cron, weekly"]
    store.import_bundle(session, full_bundle)
    row = store.list_skills(session, full_bundle["agent"]["name"])[0]
    assert row.content == "A\nuser:\nB\nC" and row.triggers == ["cron, weekly"]


def test_text_with_a_nul_character_is_refused_on_every_database(session, full_bundle):
    full_bundle["skills"][1]["content"] = "bad \x00 byte"
    full_bundle["agent"]["title"] = "\x00"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, full_bundle)
    assert [path for path, _ in caught.value.problems] == ["$.agent.title", "$.skills[1].content"]
    store.import_bundle(session, {"format": "skill-workspace/1", "agent": {"name": "ok"}})
    with pytest.raises(store.ValidationError) as caught:
        store.create_skill(session, "ok", "nul", content="\x00")
    assert caught.value.errors == {"content": "must not contain NUL characters (U+0000)"}
