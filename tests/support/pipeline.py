"""Helpers for the pipeline's tests: building its dataclasses and reading them back."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.pipeline.blocks import Block, Line
from webapp.pipeline.usage import WhereUsed


def codes(context) -> list[str]:
    """The codes of a context's diagnostics, in order."""
    return [d.code for d in context.diagnostics]


def block_of_lines(role: str | None, skill: str | None, lines: Sequence[Line]) -> Block:
    """A `Block` of `lines` (text and origin pairs), as a stage receives it."""
    if not lines:
        return Block(role, skill, "", ())
    texts, origins = zip(*lines, strict=True)
    return Block(role, skill, "\n".join(texts), origins)


def resolves_to(used: WhereUsed) -> str:
    """What `{{name}}` gives: the kind of the first of `used`'s meanings, or `unknown`."""
    return used.meanings[0].kind if used.meanings else "unknown"


def fixture_bundle(spec: dict) -> dict:
    """The bundle of a golden fixture: its skills (triggered by `dm` unless they say),
    tools, variables and one scenario `test`."""
    scenario = {"name": "test", "trigger": "dm", **spec.get("scenario", {})}
    return {
        "format": "skill-workspace/1",
        "agent": {"name": "Agent", **spec.get("agent", {})},
        "skills": [{"triggers": ["dm"], **skill} for skill in spec["skills"]],
        "tools": spec.get("tools", []),
        "variables": spec.get("variables", []),
        "scenarios": [scenario],
    }
