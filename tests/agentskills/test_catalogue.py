"""Each client's listing of an agent's skills, measured against its budget."""

from __future__ import annotations

import pytest

from webapp.agentskills import CLIENTS, budget_of, catalogue, read_skill_md
from webapp.pipeline import Skill


def skill_md(name: str, description: str, extra: str = "") -> tuple[Skill, str]:
    read = read_skill_md(f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n",
                         folder=name)
    return read.skill, read.head


@pytest.mark.parametrize("client, window, budget", [
    ("claude-code", 200_000, 8_000),     # 1% of the window, 4 characters a token
    ("claude-code", 1_000_000, 40_000),
    ("claude-code", 0, 8_000),           # the window unknown: the fallback
    ("codex", 272_000, 21_760),          # 2% of the window
    ("codex", 0, 8_000),
    ("agentskills", 200_000, None),      # no published budget
    ("vscode-copilot", 200_000, None),
    ("gemini-cli", 200_000, None),
])
def test_budgets(client, window, budget):
    assert budget_of(CLIENTS[client], window) == budget


def test_a_listing_within_its_budget():
    skills = [skill_md("pdf", "Fill PDF forms."), skill_md("docx", "Edit Word files.")]
    listing = catalogue("claude-code", skills, 200_000)
    assert listing.text == "- pdf: Fill PDF forms.\n- docx: Edit Word files.\n"
    assert (listing.size, listing.over, listing.problem()) == (len(listing.text), 0, None)
    codex = catalogue("codex", skills, 200_000)
    assert codex.text.splitlines()[0] == (
        "- pdf: Fill PDF forms. (file: .agents/skills/pdf/SKILL.md)")


def test_an_overflow_names_the_costliest_descriptions():
    skills = [skill_md(f"skill-{i}", "d" * (100 + i * 10)) for i in range(60)]
    listing = catalogue("claude-code", skills, 200_000)
    assert listing.size > 8_000 and listing.over == listing.size - 8_000
    problem = listing.problem()
    assert problem.code == "catalogue-overflow" and problem.severity == "warning"
    assert problem.message.startswith(
        f"Claude Code lists 60 skills in {listing.size:,} characters, {listing.over:,} over its "
        "budget of 8,000")
    assert problem.message.endswith("the costliest descriptions: skill-59 (690), skill-58 "
                                    "(680), skill-57 (670), skill-56 (660), skill-55 (650)")
    assert catalogue("claude-code", skills, 1_000_000).problem() is None


def test_claude_code_cuts_an_entry_and_leaves_out_what_only_a_person_invokes():
    long = skill_md("long", "word " * 400)
    hidden = skill_md("deploy", "Deploy.", "disable-model-invocation: true\n")
    when = skill_md("when", "Does X.", "when_to_use: When asked for X.\n")
    listing = catalogue("claude-code", [long, hidden, when], 200_000)
    assert listing.hidden == ("deploy",)
    assert [(e.d_tag, e.cut) for e in listing.listed] == [("long", True), ("when", False)]
    assert len(listing.listed[0].line) == len("- long: \n") + 1_536
    assert listing.listed[1].line == "- when: Does X. When asked for X.\n"
    # Codex skips a description over 1,024 characters, lists the others whole, and reads
    # no when_to_use.
    codex = catalogue("codex", [long, hidden, when], 200_000)
    assert codex.left_out == [("long", "description-too-long")]
    assert codex.listed[1].line == "- when: Does X. (file: .agents/skills/when/SKILL.md)\n"
