"""Golden assembly fixtures: each YAML file in fixtures/assemble/ is one rule, input and
output side by side.

A fixture holds `skills` (and optionally `agent`, `tools`, `variables`, `scenario`,
`overrides`), then what must come out: the `document`, and when given the exact
`messages` and `diagnostics` (`"severity code skill:line"` strings, in order).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from webapp.pipeline import assemble, load_bundle

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "assemble").glob("*.yaml"))


def fixture_bundle(spec: dict) -> dict:
    scenario = {"name": "test", "trigger": "dm", **spec.get("scenario", {})}
    return {
        "format": "skill-workspace/1",
        "agent": {"name": "Agent", **spec.get("agent", {})},
        "skills": [{"triggers": ["dm"], **skill} for skill in spec["skills"]],
        "tools": spec.get("tools", []),
        "variables": spec.get("variables", []),
        "scenarios": [scenario],
    }


def diagnostic_label(d) -> str:
    where = f"{d.skill}:{d.line}" if d.skill else "-"
    return f"{d.severity} {d.code} {where}"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden(path: Path) -> None:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    workspace = load_bundle(fixture_bundle(spec))
    context = assemble(workspace, overrides=spec.get("overrides"))
    assert context.document == spec["document"]
    if "messages" in spec:
        assert context.messages == spec["messages"]
    if "diagnostics" in spec:
        assert [diagnostic_label(d) for d in context.diagnostics] == spec["diagnostics"]
    assert len(context.provenance) == len(context.document.splitlines())


def test_fixtures_cover_every_diagnostic_code() -> None:
    """Every stable diagnostic code is produced by at least one golden fixture."""
    seen = set()
    for path in FIXTURES:
        for label in yaml.safe_load(path.read_text(encoding="utf-8")).get("diagnostics", []):
            seen.add(label.split()[1])
    documented = {
        "reference-cycle", "reference-depth", "template-invalid",
        "unknown-variable", "missing-tool", "tool-error", "marker-in-data", "heading-clamped",
        "reference-disabled", "template-in-embed", "unknown-format",
        "section-skipped", "user-fallback", "empty-message", "no-skills",
    }
    assert documented - seen == set()
