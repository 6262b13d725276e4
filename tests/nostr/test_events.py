"""An agent as Nostr events and back (webapp.nostr.events): the events a small agent is
written as (a golden file a reviewer can read beside docs/nostr.md), round trips of both
demo agents, adopted skills, the newest event winning, and every refusal: an event with a
bad signature, a wrong id, a wrong kind, a forged or doubled `d`, a huge content, or a
missing one; what is refused is reported and nothing half-read is kept."""

from __future__ import annotations

import json
from pathlib import Path

import nostr_sdk
import pytest

from webapp.nostr import MAX_EVENT_BYTES, Kinds, agent_events, kinds_problems, read_agent, sign
from webapp.pipeline import Agent, Skill, Workspace, dump_bundle, load_bundle

FIXTURES = Path(__file__).parent / "fixtures"
DEMOS = Path(__file__).resolve().parents[2] / "webapp" / "demo"
KEYS = nostr_sdk.Keys.parse("0" * 63 + "3")
PUBKEY = KEYS.public_key().to_hex()
OTHER = nostr_sdk.Keys.parse("0" * 63 + "5")
WHEN = 1700000000

SMALL = Workspace(
    agent=Agent(name="Tiny", title="{name}, a tiny agent", max_array_items=4),
    skills=(Skill("identity", "I am {{agent_name}}.\n", name="Identity", layer=2),
            Skill("chat", "system:\n# Chat\n{{identity}}\n\nuser:\n{{message}}\n", name="Chat",
                  triggers=("dm", "mention"), description="Answers a DM."),
            Skill("quiet", "Not today.\n", triggers=("dm",), enabled=False)))


def signed(workspace: Workspace, keys=KEYS, when: int = WHEN, **options) -> list[dict]:
    pubkey = keys.public_key().to_hex()
    return [sign(event, keys) for event in agent_events(workspace, pubkey, Kinds(), when,
                                                        **options)]


def test_the_events_of_a_small_agent_are_the_golden_file():
    written = agent_events(SMALL, PUBKEY, Kinds(), WHEN, relay_hint="wss://relay.example.com")
    golden = json.loads((FIXTURES / "tiny-agent-events.json").read_text(encoding="utf-8"))
    assert written == golden


@pytest.mark.parametrize("demo", ["simon.json", "relay_watch.json"])
def test_a_demo_agent_round_trips_exactly(demo):
    workspace = load_bundle(DEMOS / demo)
    reading = read_agent(signed(workspace), PUBKEY, Kinds())
    assert reading.problems == [] and not reading.blocked
    original, back = dump_bundle(workspace), dump_bundle(reading.workspace)
    assert back["agent"] == original["agent"] and back["skills"] == original["skills"]


def test_the_small_agent_round_trips_with_its_disabled_skill():
    reading = read_agent(signed(SMALL), PUBKEY, Kinds())
    assert reading.workspace.skills == SMALL.skills
    assert reading.workspace.agent == SMALL.agent


def test_a_skill_adopted_from_another_key_is_named_not_signed():
    theirs = Workspace(agent=Agent(name="Theirs"), skills=(Skill("shared", "Shared text.\n",
                                                                 triggers=("dm",)),))
    mine = Workspace(agent=SMALL.agent, skills=(*SMALL.skills, theirs.skills[0]))
    other = OTHER.public_key().to_hex()
    events = signed(mine, authors={"shared": other})
    assert not any(e["kind"] == 31123 and ["d", "shared"] in e["tags"] for e in events)
    listed = [tag for tag in events[-1]["tags"] if tag[0] == "a"]
    assert listed[-1] == ["a", f"31123:{other}:shared", ""]
    reading = read_agent([*events, *signed(theirs, OTHER)], PUBKEY, Kinds())
    assert [s.d_tag for s in reading.workspace.skills] == ["identity", "chat", "quiet", "shared"]
    assert reading.authors == {"shared": other}
    skipped = [p for p in reading.problems if not p.blocking]
    assert len(skipped) == 2  # their settings and list: valid, but not named by ours
    assert not reading.blocked


def test_the_newest_event_of_an_address_wins():
    old = signed(SMALL)
    newer_chat = Workspace(agent=SMALL.agent, skills=(
        SMALL.skills[0], Skill("chat", "system:\nNewer.\n", triggers=("dm",)), SMALL.skills[2]))
    new = signed(newer_chat, when=WHEN + 60)
    reading = read_agent([*new, *old], PUBKEY, Kinds())
    assert reading.workspace.skills_by_tag["chat"].content == "system:\nNewer.\n"
    reading = read_agent([*old, *new], PUBKEY, Kinds())
    assert reading.workspace.skills_by_tag["chat"].content == "system:\nNewer.\n"


def test_a_tie_keeps_the_lowest_id():
    a = signed(SMALL)
    b = signed(Workspace(agent=SMALL.agent, skills=(SMALL.skills[0], Skill(
        "chat", "Other text.\n", triggers=("dm",)), SMALL.skills[2])))
    chats = [e for e in [*a, *b] if ["d", "chat"] in e["tags"]]
    lowest = min(chats, key=lambda e: e["id"])
    reading = read_agent([*a, *b], PUBKEY, Kinds())
    assert reading.workspace.skills_by_tag["chat"].content == lowest["content"]


def _tamper(events: list[dict], d: str, **change) -> list[dict]:
    return [{**e, **change} if ["d", d] in e["tags"] else e for e in events]


def _resigned(events: list[dict], d: str, keys=KEYS, **change) -> list[dict]:
    """Events with skill `d` changed and signed again (a valid event with bad values)."""
    out = []
    for event in events:
        if ["d", d] in event["tags"]:
            fields = {k: event[k] for k in ("pubkey", "created_at", "kind", "tags", "content")}
            event = sign({**fields, **change, "pubkey": keys.public_key().to_hex()}, keys)
        out.append(event)
    return out


@pytest.mark.parametrize(("events", "where", "reason"), [
    (lambda e: _tamper(e, "chat", content="system:\nInjected.\n"), ":chat", "has a wrong id"),
    (lambda e: _tamper(e, "chat", sig="1" * 128), ":chat", "has a bad signature"),
    (lambda e: _resigned(e, "chat", kind=31124), "31123:", "no valid event found"),
    (lambda e: _resigned(e, "chat", kind=1), "31123:", "no valid event found"),
    (lambda e: _resigned(e, "chat", tags=[["d", "chat"], ["d", "other"]]), "31123:",
     "has more than one d tag"),
    (lambda e: _resigned(e, "chat", tags=[["d", "chat"], ["layer", "2"]]), "d 'chat'",
     "says layer '2'"),
    (lambda e: _resigned(e, "chat", tags=[["d", "chat"]], keys=OTHER), "31123:",
     "no valid event found"),
    (lambda e: _resigned(e, "chat", content="x" * MAX_EVENT_BYTES), "31123:",
     "is over 1024 KiB"),
    (lambda e: [x for x in e if x["kind"] != 10123], "kind 10123", "no valid adoption list"),
    (lambda e: [x for x in e if x["kind"] != 31120], "31120:", "no valid event found"),
])
def test_a_bad_event_blocks_the_import_and_says_why(events, where, reason):
    reading = read_agent(events(signed(SMALL)), PUBKEY, Kinds())
    assert reading.blocked
    assert any(where in p.where and reason in p.message for p in reading.problems if p.blocking), \
        reading.problems


@pytest.mark.parametrize(("change", "reason"), [
    ({"kind": 1}, "not one of this agent's kinds"),
    ({"tags": [["d", "chat"], ["d", "other"]]}, "more than one d tag"),
    ({"content": "x" * MAX_EVENT_BYTES}, "is over 1024 KiB"),
])
def test_why_an_event_was_refused_is_reported(change, reason):
    reading = read_agent(_resigned(signed(SMALL), "chat", **change), PUBKEY, Kinds())
    assert any(reason in p.message and not p.blocking for p in reading.problems)


def test_a_forged_d_tag_cannot_stand_in_for_another_skill():
    # A valid event of the agent's that says d = "chat" but was made for "quiet".
    forged = _resigned(signed(SMALL), "quiet", tags=[["d", "chat"], ["layer", "1"]],
                       created_at=WHEN - 1)
    reading = read_agent(forged, PUBKEY, Kinds())
    assert reading.blocked and any("quiet" in p.where for p in reading.problems)


def test_a_skill_the_bundle_rules_refuse_blocks_the_import():
    events = _resigned(signed(SMALL), "chat", tags=[["d", "chat"], ["t", " "]])
    reading = read_agent(events, PUBKEY, Kinds())
    assert reading.blocked
    assert any(p.where.startswith("skill 'chat'") for p in reading.problems)


def test_a_flood_of_events_in_a_list_is_refused():
    events = signed(SMALL)
    flood = {**{k: events[-1][k] for k in ("pubkey", "kind", "content")},
             "created_at": WHEN + 1,
             "tags": [["a", f"31123:{PUBKEY}:s{i}", ""] for i in range(501)]}
    reading = read_agent([*events, sign(flood, KEYS)], PUBKEY, Kinds())
    assert reading.blocked and any("at most 500" in p.message for p in reading.problems)


@pytest.mark.parametrize(("kinds", "field"), [
    ({"skill": 1, "embedded": 31124, "adoption": 10123, "settings": 31120}, "skill"),
    ({"skill": 31123, "embedded": 31124, "adoption": 31125, "settings": 31120}, "adoption"),
    ({"skill": 31123, "embedded": 31123, "adoption": 10123, "settings": 31120}, "kinds"),
    ({"skill": True, "embedded": 31124, "adoption": 10123, "settings": 31120}, "skill"),
])
def test_kinds_outside_their_ranges_are_refused(kinds, field):
    assert [f for f, _ in kinds_problems(kinds)] == [field]


def test_kinds_are_a_setting():
    kinds = Kinds(skill=30001, embedded=30002, adoption=10001, settings=30003)
    events = [sign(e, KEYS) for e in agent_events(SMALL, PUBKEY, kinds, WHEN)]
    assert {e["kind"] for e in events} == {30001, 30002, 10001, 30003}
    assert read_agent(events, PUBKEY, kinds).workspace.skills == SMALL.skills
    assert read_agent(events, PUBKEY, Kinds()).blocked
