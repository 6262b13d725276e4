"""Workspaces for the tests: the demo agents' bundles, and many small skills each using
several tools (built for the preview tests)."""

from __future__ import annotations

import json
from pathlib import Path

import webapp
from webapp.pipeline import Agent, Scenario, Skill, Tool, Workspace

#: The demo agents' bundles, as the app seeds them.
SIMON = Path(webapp.__file__).parent / "demo" / "simon.json"
RELAY_WATCH = Path(webapp.__file__).parent / "demo" / "relay_watch.json"


def demo_cases() -> list[tuple[str, dict, str | None]]:
    """(fixture, skill as in the bundle, scenario or None) for every demo skill and scenario."""
    cases = []
    for fixture, path in (("simon", SIMON), ("relay_watch", RELAY_WATCH)):
        bundle = json.loads(path.read_text(encoding="utf-8"))
        for skill in bundle["skills"]:
            for scenario in (None, *(sc["name"] for sc in bundle["scenarios"])):
                cases.append((fixture, skill, scenario))
    return cases


def many_skills(n: int, n_tools: int = 7) -> Workspace:
    """`n` skills `skill_0`.. `skill_{n-1}`, in that order, all triggered by `dm`.

    Each has a title, three sections with a bullet calling a tool (so a skill's lines
    alternate between its own text and tool results) and a paragraph; one scenario, `dm`.
    """
    tools = tuple(Tool(name=f"tool_{t}", result={"success": True, "content": f"result {t}"})
                  for t in range(n_tools))
    skills = []
    for s in range(n):
        sections = [f"## Section {k} of skill {s}\n\n- calls {{{{tool_{(s + k) % n_tools}}}}}\n"
                    f"- then *checks* item {k}\n\nA paragraph on what skill {s} does."
                    for k in range(3)]
        content = f"# Skill {s}\n\nWhat the agent does here.\n\n" + "\n\n".join(sections)
        skills.append(Skill(d_tag=f"skill_{s}", content=content, triggers=("dm",)))
    return Workspace(agent=Agent(name="Many"), skills=tuple(skills), tools=tools,
                     scenarios=(Scenario(name="dm", message="hello"),))
