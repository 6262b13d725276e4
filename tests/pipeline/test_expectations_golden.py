"""Golden context-test fixtures: each YAML file in fixtures/expectations/ holds a small
workspace, its scenario's `expect`, and each test's outcome with its exact message
(`PASS name` or `FAIL name: message`), in order; `builtin: true` adds the built-in
checks after the written ones."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.pipeline import fixture_bundle
from webapp.pipeline import load_bundle, run_tests
from webapp.tokens import count_tokens

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "expectations").glob("*.yaml"))


def label(result) -> str:
    return f"PASS {result.name}" if result.passed else f"FAIL {result.name}: {result.message}"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden(path: Path) -> None:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    workspace = load_bundle(fixture_bundle(spec))
    results = run_tests(workspace, lambda text: count_tokens(text).n,
                        builtin=spec.get("builtin", False))
    assert [label(r) for r in results] == spec["results"]
