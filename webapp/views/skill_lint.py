"""What a skill's Problems tab shows of its SKILL.md: what the agent's target clients would
refuse, cut or ignore (`agentskills.lint_skill`), and whether the agent's catalogue is over a
client's budget (`agentskills.overflows`, the catalogue page's problem), beside the
assembly's problems."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.agentskills import CLIENTS, head_for, lint_skill, listing_facts, overflows
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
    """The lint of `skill` (a draft, or as saved) with its folder's facts, and the
    catalogue's overflow for each target client with a budget: the other skills' listings
    as kept on their rows, this one's as the draft would be listed (one head read)."""
    # The head as exported, written once: read again by the lint and the listing, it is
    # the skill's already, so neither writes it again (a keystroke's YAML work, counted).
    head = head_for(skill, facts.head)
    problems = lint_skill(skill, head, facts.paths, facts.clients, others=facts.others,
                          count_tokens=lambda text: count_tokens(text).n)
    if facts.listings:
        own = listing_facts(skill, head)
        listings = [(skill.d_tag if listing is None else d_tag, own if listing is None
                     else listing) for d_tag, listing in facts.listings]
        problems += overflows(listings, facts.clients, facts.window)
    return SkillLint(problems, [CLIENTS[c].name for c in facts.clients if c in CLIENTS])
