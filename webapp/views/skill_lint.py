"""What a skill's Problems tab shows of its SKILL.md: what the agent's target clients would
refuse, cut or ignore (`agentskills.lint_skill`), beside the assembly's problems."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.agentskills import CLIENTS, lint_skill
from webapp.pipeline import Diagnostic, Skill, count_severities
from webapp.store import FolderFacts
from webapp.tokens import count_tokens


@dataclass(frozen=True, slots=True)
class SkillLint:
    """The lint of one skill: its problems and the names of the clients they are for."""

    problems: list[Diagnostic]
    clients: list[str]

    @property
    def counts(self) -> dict[str, int]:
        return count_severities(self.problems)


def skill_lint(skill: Skill, facts: FolderFacts) -> SkillLint:
    """The lint of `skill` (a draft, or as saved) with its folder's facts."""
    problems = lint_skill(skill, facts.head, facts.paths, facts.clients, others=facts.others,
                          count_tokens=lambda text: count_tokens(text).n)
    return SkillLint(problems, [CLIENTS[c].name for c in facts.clients if c in CLIENTS])
