"""Each lint rule as a golden fixture: a SKILL.md, the agent's target clients, the folder
it was read from, its files and the names of the agent's other skills, then the problems
(`fixtures/lint/*.txt`). `UPDATE_GOLDEN=1` writes the problems found into the files, to
be read and reviewed before they are committed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webapp.agentskills import CLIENTS, lint_skill, read_skill_md
from webapp.pipeline import SEVERITIES

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "lint").glob("*.txt"))
SEPARATOR = "=== problems\n"


def run(fixture: Path) -> tuple[str, str]:
    """The fixture's expected problems, and the problems found, one a line."""
    text = fixture.read_text(encoding="utf-8")
    head, _, expected = text.partition(SEPARATOR)
    settings, _, skill_md = head.partition("=== SKILL.md\n")
    fields = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "")
                  for line in settings.splitlines() if not line.startswith("#"))
    read = read_skill_md(skill_md, folder=fields["folder"] or None)
    others = dict(pair.split("=") for pair in fields["others"].split())
    problems = lint_skill(read.skill, read.head, fields["files"].split(),
                          fields["clients"].split(), others=others)
    found = "".join(f"{p.severity} {p.code}{f':{p.line}' if p.line else ''}: {p.message}\n"
                    for p in problems)
    if os.environ.get("UPDATE_GOLDEN"):
        fixture.write_text(head + SEPARATOR + found, encoding="utf-8")
    return expected, found


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.stem for f in FIXTURES])
def test_lint_golden(fixture):
    expected, found = run(fixture)
    assert found == expected


def test_every_rule_has_a_fixture():
    codes = {line.split()[1].split(":")[0] for fixture in FIXTURES
             for line in run(fixture)[0].splitlines()}
    assert codes == {
        "name-missing", "name-too-long", "name-invalid", "name-folder-mismatch",
        "name-reserved-word", "xml-tags", "description-missing", "description-too-long",
        "description-cut", "compatibility-invalid", "metadata-not-strings",
        "short-description-too-long", "allowed-tools-invalid", "key-unknown", "key-ignored",
        "name-duplicate", "body-long", "file-missing", "file-case", "not-listed"}


def test_problems_are_only_for_the_target_clients():
    read = read_skill_md("---\nname: PDF\ndescription: d\n---\n", folder="PDF")
    assert lint_skill(read.skill, read.head, (), ["gemini-cli"]) == []
    assert {p.code for p in lint_skill(read.skill, read.head, (), list(CLIENTS))} == {
        "name-invalid", "name-folder-mismatch"}


def test_severities_are_the_pipelines():
    for fixture in FIXTURES:
        for line in run(fixture)[0].splitlines():
            assert line.split()[0] in SEVERITIES
