"""`preview_target`: where the editor assembles the preview of a skill so the skill is in it.

One table over the Relay Watch demo (two scenarios, `cron` and `dm`; a layer-2 `identity`
both triggers' skills embed; a disabled `debug-dump`), then small workspaces for the
cases the demo does not have.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp.pipeline import (
    Agent,
    PreviewTarget,
    Scenario,
    Skill,
    Workspace,
    assemble,
    load_bundle,
    preview_target,
)

ROOT = Path(__file__).resolve().parents[2]
RELAY_WATCH = load_bundle(ROOT / "webapp" / "demo" / "relay_watch.json")
NIGHTLY, LATENCY = "nightly relay check", "admin asks about latency"


@pytest.mark.parametrize("d_tag, scenario, trigger, expected", [
    # The first scenario selects it: used as asked, no note.
    ("relay-check", None, None, PreviewTarget("relay-check", NIGHTLY, None)),
    ("relay-check", NIGHTLY, None, PreviewTarget("relay-check", NIGHTLY, None)),
    # The first scenario's trigger does not select it: the first scenario that does.
    ("dm-reply", None, None, PreviewTarget("dm-reply", LATENCY, None, note=(
        "Scenario “nightly relay check” does not use dm-reply: showing “admin asks about "
        "latency”, whose trigger dm does."))),
    # An explicit choice is followed the same way.
    ("dm-reply", NIGHTLY, None, PreviewTarget("dm-reply", LATENCY, None, note=(
        "Scenario “nightly relay check” does not use dm-reply: showing “admin asks about "
        "latency”, whose trigger dm does."))),
    ("relay-check", LATENCY, None, PreviewTarget("relay-check", NIGHTLY, None, note=(
        "Scenario “admin asks about latency” does not use relay-check: showing “nightly "
        "relay check”, whose trigger cron does."))),
    # A trigger override that does not select it: the scenario asked for, its own trigger.
    ("dm-reply", LATENCY, "cron", PreviewTarget("dm-reply", LATENCY, None, note=(
        "Trigger cron does not use dm-reply: showing “admin asks about latency”, whose "
        "trigger dm does."))),
    # A trigger override that selects it is kept.
    ("dm-reply", NIGHTLY, "dm", PreviewTarget("dm-reply", NIGHTLY, "dm")),
    # Layer 2: through the first skill the trigger selects that embeds it.
    ("identity", None, None, PreviewTarget("identity", NIGHTLY, None, host="relay-check")),
    ("identity", LATENCY, None, PreviewTarget("identity", LATENCY, None, host="dm-reply")),
    # Disabled: alone, under its first trigger.
    ("debug-dump", LATENCY, None, PreviewTarget("debug-dump", LATENCY, "dm", alone=True, note=(
        "debug-dump is disabled: previewed on its own, as the only skill of trigger dm."))),
])
def test_relay_watch_targets(d_tag, scenario, trigger, expected):
    assert preview_target(RELAY_WATCH, d_tag, scenario, trigger) == expected


def workspace(*skills: Skill, scenarios: tuple[Scenario, ...] = (Scenario("s", "dm", "hi"),)
              ) -> Workspace:
    return Workspace(agent=Agent(name="A"), skills=skills, scenarios=scenarios)


def test_a_layer_1_skill_no_trigger_selects_is_shown_through_a_skill_that_embeds_it():
    ws = workspace(Skill("host", "system:\n{{middle}}", triggers=("dm",)),
                   Skill("middle", "{{leaf}}", layer=2),
                   Skill("leaf", "leaf text"))
    assert preview_target(ws, "leaf") == PreviewTarget("leaf", "s", None, host="host")
    assert preview_target(ws, "middle") == PreviewTarget("middle", "s", None, host="host")


def test_an_embedding_through_a_disabled_skill_does_not_count():
    ws = workspace(Skill("host", "system:\n{{middle}}", triggers=("dm",)),
                   Skill("middle", "{{leaf}}", layer=2, enabled=False),
                   Skill("leaf", "leaf text", layer=2))
    target = preview_target(ws, "leaf")
    assert target.alone and target.trigger == "dm" and target.host is None
    assert target.note == ("leaf is layer 2 and no skill a trigger selects embeds it: "
                           "previewed on its own, as the only skill of trigger dm.")


def test_template_sections_embed_too():
    ws = workspace(Skill("host", "system:\nHost.\n---template---\n- section: a\n  role: system\n"
                                 "  content: '{{leaf}}'\n", triggers=("dm",)),
                   Skill("leaf", "leaf text", layer=2))
    assert preview_target(ws, "leaf").host == "host"


def test_no_scenario_uses_it_so_the_first_trigger_that_does():
    ws = workspace(Skill("chat", "system:\nChat.", triggers=("dm",)),
                   Skill("weekly", "system:\nWeekly.", triggers=("weekly", "cron")),
                   Skill("leaf", "leaf", layer=2),
                   Skill("hosted", "system:\n{{leaf}}", triggers=("monthly",)))
    assert preview_target(ws, "weekly") == PreviewTarget("weekly", "s", "weekly", note=(
        "No scenario's trigger uses weekly: showing “s” under trigger weekly, which does."))
    # Not its own triggers (it has none): the workspace's, in first-seen order.
    assert preview_target(ws, "leaf") == PreviewTarget("leaf", "s", "monthly", host="hosted",
                                                       note=(
        "No scenario's trigger uses leaf: showing “s” under trigger monthly, which does."))
    no_scenarios = workspace(*ws.skills, scenarios=())
    assert preview_target(no_scenarios, "weekly") == PreviewTarget(
        "weekly", None, "weekly",
        note="There is no scenario, and trigger dm does not use weekly: showing trigger "
             "weekly, which does.")
    assert preview_target(no_scenarios, "weekly", trigger="x").note == (
        "Trigger x does not use weekly, nor does any scenario's trigger: showing trigger "
        "weekly, which does.")
    assert preview_target(no_scenarios, "chat") == PreviewTarget("chat", None, None)


def test_a_skill_without_a_trigger_is_previewed_alone_under_the_scenario_trigger():
    ws = workspace(Skill("chat", "system:\nChat.\n\nuser:\n{{message}}", triggers=("dm",)),
                   Skill("loose", "system:\nLoose {{part}}."),
                   Skill("part", "part", layer=2))
    target = preview_target(ws, "loose")
    assert target == PreviewTarget("loose", "s", "dm", alone=True, note=(
        "loose has no trigger and no skill a trigger selects embeds it: previewed on its "
        "own, as the only skill of trigger dm."))
    # Alone: the only skill selected, and what it embeds is still embedded.
    context = assemble(target.workspace_for(ws), target.scenario, trigger=target.trigger)
    assert "Loose part." in context.document and "Chat." not in context.document
    assert [t.d_tag for t in context.trace] == ["loose"]
    # Nothing else of the workspace changes; a target that is not alone changes nothing.
    assert preview_target(ws, "chat").workspace_for(ws) is ws


def test_the_same_arguments_give_the_same_target():
    for d_tag in RELAY_WATCH.skills_by_tag:
        for scenario in (None, NIGHTLY, LATENCY):
            first = preview_target(RELAY_WATCH, d_tag, scenario)
            assert all(preview_target(RELAY_WATCH, d_tag, scenario) == first for _ in range(3))
