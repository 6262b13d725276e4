"""The synthetic inputs every benchmark measures, built deterministically.

The same bytes on every run, so figures are comparable between runs and machines.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from webapp.pipeline import Agent, Scenario, Skill, Tool, Workspace

SCENARIO = "bench"


def peer_template_workspace() -> Workspace:
    """One skill of 20 role sections, each with a heading, a `{{v_i}}` line and two bullets."""
    parts = []
    for i in range(20):
        role = "system" if i == 0 else ("user" if i % 2 else "assistant")
        parts.append(f"{role}:\n## Section {i}\n\nValue: {{{{v_{i}}}}}\n\n"
                     f"- first point {i}\n- second point {i}\n")
    tools = tuple(
        Tool(name=f"v_{i}", result={"success": True,
                                     "content": f"Result {i}: " + "plain text from the tool " * 3})
        for i in range(20)
    )
    skill = Skill(d_tag="peer", content="\n".join(parts), triggers=("dm",))
    return Workspace(agent=Agent(name="Bench"), skills=(skill,), tools=tools,
                     scenarios=(Scenario(name=SCENARIO, message="hello"),))


def scale_workspace(n_skills: int, n_tools: int = 50) -> Workspace:
    """`n_skills` triggered skills of about 2 KB each, using `n_tools` tools between them."""
    tools = tuple(
        Tool(name=f"tool_{i}", description=f"Tool {i}",
             result={"success": True, "content": f'{{"id": {i}, "name": "item {i}", "ok": true}}'})
        for i in range(n_tools)
    )
    skills = []
    for s in range(n_skills):
        lines = [f"# Skill {s}", "", "Some instructions for the agent to follow, in prose."]
        while sum(len(line) + 1 for line in lines) < 2000:
            k = len(lines)
            lines += [f"## Part {k}", f"- uses {{{{tool_{(s + k) % n_tools}}}}} here",
                      "Plain text line that explains a rule of the agent's behaviour."]
        skills.append(Skill(d_tag=f"skill_{s}", content="\n".join(lines), triggers=("dm",)))
    return Workspace(agent=Agent(name="Bench"), skills=tuple(skills), tools=tools,
                     scenarios=(Scenario(name=SCENARIO, message="hello"),))


def tested_workspace(n_skills: int = 200, n_scenarios: int = 20) -> Workspace:
    """`scale_workspace(n_skills)` with `n_scenarios` scenarios of ten tests each: every
    kind of check, a snapshot among them (approved from the assembly, so it passes)."""
    from webapp.pipeline import assemble  # the workspace is built before it is tested

    base = scale_workspace(n_skills)
    base = dataclasses.replace(base, agent=dataclasses.replace(base.agent,
                                                               context_window=1_000_000))
    scenarios = []
    for i in range(n_scenarios):
        scenario = Scenario(name=f"scenario {i}", message=f"hello {i}")
        entry = assemble(dataclasses.replace(base, scenarios=(scenario,)), scenario).log_entry
        scenarios.append(dataclasses.replace(scenario, expect=(
            {"contains": "Skill 1", "in": "system"},
            {"not_contains": "{{"},
            {"regex": r"^### Part \d+$", "in": "skill:skill_7"},  # bumped under the title
            {"tokens_at_most": 1_000_000},
            {"window_share_at_most": 1},
            {"messages": ["system", "user"]},
            {"skills": {"include": ["skill_0"], "exclude": ["nothing"]}},
            {"problems_at_most": "warning"},
            {"contains": f"hello {i}", "in": "message:1"},
            {"snapshot": entry})))
    return dataclasses.replace(base, scenarios=tuple(scenarios))


WORDS = ("nostr", "relay", "zap", "note", "key", "agent", "skill", "context", "deploy", "sats",
         "lightning", "morning", "build", "release", "test", "shipped", "working", "on", "the")


def nostr_events_json(size_bytes: int, seed: int = 2026) -> str:
    """A JSON array of synthetic Nostr events at least `size_bytes` characters long.

    Each event has id, pubkey, created_at, kind, tags (arrays of arrays of strings),
    content and sig, drawn from a generator seeded with `seed`.
    """
    rng = random.Random(seed)
    parts: list[str] = []
    total = 2
    while total < size_bytes:
        text = json.dumps(_event(rng), ensure_ascii=False, separators=(",", ":"))
        parts.append(text)
        total += len(text) + 1
    return "[" + ",".join(parts) + "]"


def _event(rng: random.Random) -> dict[str, Any]:
    def hex_text(chars: int) -> str:
        return f"{rng.getrandbits(chars * 4):0{chars}x}"

    tags = [["e", hex_text(64), "wss://relay.example.com", "reply"]
            for _ in range(rng.randrange(3))]
    tags += [["p", hex_text(64)] for _ in range(rng.randrange(4))]
    tags += [["t", rng.choice(WORDS)] for _ in range(rng.randrange(2))]
    lines = [" ".join(rng.choices(WORDS, k=rng.randrange(3, 16)))
             for _ in range(rng.randrange(1, 4))]
    return {
        "id": hex_text(64),
        "pubkey": hex_text(64),
        "created_at": 1774263529 + rng.randrange(10**6),
        "kind": rng.choice((1, 1, 1, 7, 30023)),
        "tags": tags,
        "content": "\n".join(lines),
        "sig": hex_text(128),
    }
