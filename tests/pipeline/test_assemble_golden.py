"""Golden assembly fixtures: each YAML file in fixtures/assemble/ is one rule, input and
output side by side.

A fixture holds `skills` (and optionally `agent`, `tools`, `variables`, `scenario`,
`overrides`; `choose`, the scenario name asked for; `not_called`, the tools the run has
no result for, as a runtime's turn marks them; `limits`, lower values for the
budgets of `webapp.pipeline.assemble` and `webapp.pipeline.budgets`, so a budget rule
reads in a few lines),
then what must come out: the `document`, and when given the exact `messages` and
`diagnostics` (`"severity code skill:line"` strings, in order).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest
import yaml

import webapp.pipeline
from tests.support.pipeline import fixture_bundle
from webapp.pipeline import assemble, load_bundle

# The module, not the function the package re-exports under the same name.
assemble_module = importlib.import_module("webapp.pipeline.assemble")
budgets_module = importlib.import_module("webapp.pipeline.budgets")
FIXTURES = sorted((Path(__file__).parent / "fixtures" / "assemble").glob("*.yaml"))


def diagnostic_label(d) -> str:
    where = f"{d.skill}:{d.line}" if d.skill else "-"
    return f"{d.severity} {d.code} {where}"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    for name, value in spec.get("limits", {}).items():
        module = next(m for m in (assemble_module, budgets_module) if hasattr(m, name))
        assert name.isupper(), name
        monkeypatch.setattr(module, name, value)
    workspace = load_bundle(fixture_bundle(spec))
    not_called = set(spec.get("not_called", ()))
    workspace = dataclasses.replace(workspace, tools=tuple(
        dataclasses.replace(t, called=t.name not in not_called) for t in workspace.tools))
    context = assemble(workspace, spec.get("choose"), overrides=spec.get("overrides"))
    assert context.document == spec["document"]
    if "messages" in spec:
        assert context.messages == spec["messages"]
    if "diagnostics" in spec:
        assert [diagnostic_label(d) for d in context.diagnostics] == spec["diagnostics"]
    assert len(context.provenance) == len(context.document.splitlines())
    # The author's headings, found a skill at a time, are the document's lines that start
    # with `#` and come from a skill's text (what the built-in injection check compares).
    lines = context.document.split("\n")
    assert list(context.author_headings) == [
        line for line, origin in zip(lines, context.provenance, strict=False)
        if origin.kind == "skill" and line.startswith("#")]


# A diagnostic is made as `Diagnostic("severity", "code", ...)` or through a helper
# `diag("severity", "code", ...)` / `note(...)`: every code the pipeline can give.
_CODE = re.compile(r'(?:Diagnostic|diag|note)\(\s*"(?:error|warning|info)",\s*"([a-z-]+)"')


def test_fixtures_cover_every_diagnostic_code() -> None:
    """Every diagnostic code in the pipeline's source is produced by a golden fixture."""
    seen = set()
    for path in FIXTURES:
        for label in yaml.safe_load(path.read_text(encoding="utf-8")).get("diagnostics", []):
            seen.add(label.split()[1])
    source = Path(webapp.pipeline.__file__).parent
    codes = {code for module in source.glob("*.py")
             for code in _CODE.findall(module.read_text(encoding="utf-8"))}
    assert len(codes) >= 18  # the pattern still finds the codes
    assert codes - seen == set()
